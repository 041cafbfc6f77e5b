/* Who runs a protocol step: the rank itself inside its MPI calls, a progress thread, a reserved core or a NIC. */
#pragma once

#include <cstdint>
#include <string_view>

namespace progsim::mpi {

class Endpoint;
struct CoreCopy;

/** A protocol step, named for timelines: what arrived or finished, and so what its runner has to do. */
enum class Step : uint8_t {
  Envelope,      // an eager message arrived: match it
  RequestToSend, // a rendezvous request-to-send arrived: match it and answer (clear-to-send, or pull the data)
  ClearToSend,   // the receiver is ready: push the data
  Finish,        // the other side is done: complete the request
  TransferDone,  // a transfer this rank follows ended: complete, send the next fragment or the finish message
};
std::string_view step_name(Step step);

/**
 * The message a step belongs to, for timelines: the id of the sender's request (the same on the sender's and the
 * receiver's steps of one message), the other rank of the message, and its payload. An id of 0: no message (a
 * collective's round noticed complete).
 */
struct StepMessage {
  uint64_t id   = 0;
  int peer      = -1;
  int64_t bytes = 0;
};

/** The work of one step: protocol handling (CPU seconds) and data copied by whoever runs it. */
struct StepWork {
  double cpu_seconds = 0;
  int64_t copy_bytes = 0;
};

/**
 * Runs protocol steps of endpoints. The engine owns this interface; progress mechanisms (models/progress) provide
 * the runners and say which one runs each step. A step takes its time in the runner's actor *before* it takes
 * effect: a long step delays what it unblocks.
 */
class StepRunner {
public:
  virtual ~StepRunner() = default;
  /** For timelines: "rank", "progress-thread", "dedicated-core" or "nic". */
  virtual std::string_view name() const = 0;
  /** Takes the time `work` costs this runner, in the calling actor (which is this runner's). */
  virtual void execute(Endpoint& endpoint, const StepWork& work) = 0;
  /** Whether SimGrid's kernel may run this runner's steps (StepsInKernel), start() standing for execute(). */
  virtual bool runs_from_kernel() const { return false; }
  /** execute() with nobody waiting in place: starts the work `work` costs, whose end calls `state.done` from the
   * kernel; false if it takes no time (nothing started). Only where runs_from_kernel(). */
  virtual bool start(Endpoint& endpoint, const StepWork& work, CoreCopy& state);
  /** Something this runner handles at `endpoint` is ready now (a transfer it follows ended): if it waits, it looks
   * again. */
  virtual void ring(Endpoint& endpoint) = 0;
  /** Something this runner handles at `endpoint` becomes ready at `date` (a control message arrives then). */
  virtual void expect(Endpoint& endpoint, double date) = 0;
};

} // namespace progsim::mpi
