/* The MPI protocol engine of one rank: its matching queues, its inbox, and the transfers it follows. */
#pragma once

#include "mpi/Doorbell.hpp"
#include "mpi/MatchQueues.hpp"
#include "mpi/Request.hpp"

#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <functional>
#include <map>
#include <unordered_map>
#include <vector>

namespace progsim::mpi {

class World;

/** A protocol step, named for timelines: what arrived or finished, and so what its executor has to do. */
enum class Step : uint8_t {
  Envelope,      // an eager message or a request-to-send arrived: match it
  ClearToSend,   // the receiver is ready: push the data
  Finish,        // the other side is done: complete the request
  TransferDone,  // a transfer this rank follows ended: complete, send the next fragment or the finish message
};
std::string_view step_name(Step step);

/** A protocol message between two endpoints: a transfer from the sender's host to the receiver's carries it. */
struct Message {
  enum class Kind : uint8_t { Eager, RequestToSend, ClearToSend, Finish };
  Kind kind = Kind::Eager;
  uint64_t sequence = 0;   // per (source, destination): envelopes are matched in the order they were sent
  Envelope envelope;       // eager and request-to-send
  RequestPtr send;         // the sender's request (clear-to-send, finish)
  RequestPtr receive;      // the receiver's request (clear-to-send, finish)
};

/**
 * Everything a rank's MPI library keeps: requests, queues, and the transfers whose end needs a protocol step
 * (arriving messages, data this rank pulls or pushes). Posting is done by the rank inside its MPI calls;
 * progress() is called by whoever the progress mechanism makes responsible (the rank itself, a progress thread,
 * a reserved core or the NIC).
 */
class Endpoint {
public:
  Endpoint(World& world, int rank, simgrid::s4u::Host* host);

  int rank() const { return rank_; }
  simgrid::s4u::Host* host() const { return host_; }
  World& world() const { return world_; }

  RequestPtr post_send(int destination, int tag, int64_t bytes, Context context);
  RequestPtr post_receive(int source, int tag, int64_t bytes, Context context);

  /** Runs every step that is ready (arrived messages, finished transfers); wakes the rank if a request completed. */
  void progress();
  /** Adds what the actor in charge of progress waits on (the followed transfers) to `into`. */
  void add_activities(std::vector<simgrid::s4u::ActivityPtr>& into);

  /** Blocks the calling rank until `request` completes, driving progress itself if the mechanism says so. */
  void wait(const RequestPtr& request);
  /** One MPI_Test: a progress pass (if the rank drives it) and a look at the request. */
  bool test(const RequestPtr& request);

  /* What protocols (models/protocol) do with an endpoint. */
  /** Marks a request complete (a waiting rank sees it at its next look). */
  void complete(const RequestPtr& request);
  /** Sends a protocol message to `destination`'s endpoint, which runs a step when it arrives. */
  void send_message(int destination, Message* message, int64_t bytes);
  /** Runs `on_done` as a step of this endpoint once `activity` ends. */
  void follow(simgrid::s4u::ActivityPtr activity, Step step, std::function<void()> on_done);
  /** Starts a transfer of `bytes` from rank `from`'s host to rank `to`'s (counted as sent by `from`). */
  simgrid::s4u::CommPtr transfer(int from, int to, int64_t bytes);

  /** Wakes a rank blocked in wait() (a request completed or a direct transfer started). */
  void notify_rank();
  /** Requests posted and not complete, oldest first: for deadlock reports. */
  std::vector<RequestPtr> pending_requests() const;
  const MatchQueues& queues() const { return queues_; }
  /** Envelopes sent to this rank that it never matched: queued as unexpected, or never even looked at. */
  std::vector<Envelope> unreceived() const;

  int64_t bytes_sent() const { return bytes_sent_; }
  double step_seconds() const { return step_seconds_; }
  void add_step_seconds(double seconds) { step_seconds_ += seconds; }

private:
  using Callback = std::function<void()>;
  struct Followed {
    simgrid::s4u::ActivityPtr activity;
    Step step;          // the step its end calls for
    Callback on_done;
    const Message* message = nullptr; // the message it carries, if any (for end-of-run reports)
  };

  RequestPtr make_request(bool is_send, int peer, int tag, int64_t bytes, Context context);
  void run_step(Step step);
  void wake_listener();

  // Explicit protocol steps.
  void handle(Message* message);
  void handle_envelope(const Envelope& envelope);
  void on_matched(const RequestPtr& receive, const Envelope& envelope);

  // Direct protocol (SMPI's): matching at post time, one transfer both sides wait for.
  void post_direct_send(const RequestPtr& send);
  void post_direct_receive(const RequestPtr& receive);
  void start_direct_transfer(const RequestPtr& send, const RequestPtr& receive);
  void wait_until(const std::function<bool()>& condition);

  World& world_;
  int rank_;
  simgrid::s4u::Host* host_;
  std::vector<Followed> followed_;
  Doorbell doorbell_;          // wakes the rank blocked in wait() when a message comes to follow
  bool rank_waiting_ = false;
  MatchQueues queues_;
  // Per peer, only for the peers this rank talks to: a world-sized table per rank would be quadratic in memory.
  std::unordered_map<int, uint64_t> next_sequence_;           // per destination
  std::unordered_map<int, uint64_t> expected_sequence_;       // per source
  std::map<std::pair<int, uint64_t>, Message*> early_;       // envelopes that overtook an earlier one
  std::map<uint64_t, RequestPtr> live_;                      // by request id
  simgrid::s4u::MutexPtr mutex_;
  simgrid::s4u::ConditionVariablePtr changed_;
  bool completed_since_notify_ = false;
  int64_t bytes_sent_   = 0;
  double step_seconds_  = 0;
};

} // namespace progsim::mpi
