/* The MPI protocol engine of one rank: its matching queues, its inbox, and the transfers it follows (defined in
 * Endpoint.cpp, EndpointSteps.cpp and EndpointWaits.cpp). */
#pragma once

#include "mpi/CollectiveRequest.hpp"
#include "sched/Flow.hpp"
#include "mpi/MatchQueues.hpp"
#include "mpi/PeerCounters.hpp"
#include "sched/RankClock.hpp"
#include "mpi/Request.hpp"
#include "mpi/StepRunner.hpp"
#include "sched/Wakeup.hpp"

#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Host.hpp>

#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace progsim::mpi {

class World;
class Endpoint;
class WaitInKernel;
class StepsInKernel;

/** A protocol message between two endpoints: a transfer from the sender's host to the receiver's carries it. */
struct Message {
  enum class Kind : uint8_t { Eager, RequestToSend, ClearToSend, Finish };
  Kind kind = Kind::Eager;
  uint64_t sequence = 0;   // per (source, destination): envelopes are matched in the order they were sent
  Envelope envelope;       // eager and request-to-send
  RequestPtr send;         // the sender's request (clear-to-send, finish)
  RequestPtr receive;      // the receiver's request (clear-to-send, finish)
};

/** A transfer between two ranks: the data on the wire and, between nodes, the DMA flows on the memory buses at
 * both ends (World::dma). A step that follows it runs once all of them have ended. */
struct Transfer {
  simgrid::s4u::CommPtr wire;                    // none: a route no other flow can slow, see arrives
  std::vector<sched::Flow> memory;
  double arrives = -1;                           // without wire: when the data arrives (World::loopback_arrival)
};

/** The rank itself as a step runner: it runs steps only inside its MPI calls, on its own core. */
class RankRunner : public StepRunner {
public:
  std::string_view name() const override { return "rank"; }
  void execute(Endpoint& endpoint, const StepWork& work) override;
  bool runs_from_kernel() const override { return true; }
  bool start(Endpoint& endpoint, const StepWork& work, CoreCopy& state) override;
  void ring(Endpoint& endpoint) override;
  void expect(Endpoint& endpoint, double date) override;
};

/**
 * Everything a rank's MPI library keeps: requests, queues, and the transfers whose end needs a protocol step
 * (arriving messages, data this rank pulls or pushes). Posting is done by the rank inside its MPI calls; each
 * followed transfer has a runner, chosen by the progress mechanism, which runs its step when it ends: the rank
 * itself (inside wait/test, see progress()) or an agent.
 */
class Endpoint {
public:
  Endpoint(World& world, int rank, simgrid::s4u::Host* host);
  ~Endpoint();

  int rank() const { return rank_; }
  simgrid::s4u::Host* host() const { return host_; }
  World& world() const { return world_; }
  /** The rank itself, as the runner of the steps the mechanism leaves to it. */
  StepRunner& own_runner() { return own_runner_; }

  /** Posts a send; a blocking send below progsim/buffered-send-threshold is copied and marked `buffered`. */
  RequestPtr post_send(int destination, int tag, int64_t bytes, Context context, bool blocking = false,
                       CollectiveRequest* collective = nullptr);
  RequestPtr post_receive(int source, int tag, int64_t bytes, Context context, CollectiveRequest* collective = nullptr);

  /** Runs every ready step `runner` handles, in the calling actor. */
  void progress(StepRunner& runner);
  /** When something `runner` follows here is ready for its step: now or earlier if it is already (a transfer
   * ended, a control message arrived), the date a control message arrives, or Wakeup::kNoDate (the transfers it
   * follows ring it when they end). */
  double next_ready(const StepRunner& runner) const;
  /** Whether something `runner` follows here is ready for its step. */
  bool has_ready(const StepRunner& runner) const { return next_ready(runner) <= clock(); }
  /** A transfer this endpoint follows for `runner` ended (TransferWatch): the runner hears of it, and the rank too
   * when it runs that runner's steps as well. */
  void transfer_ended(StepRunner& runner);
  /** Whether `runner` handles a step assigned to `assigned`: its own, and the rank also those the mechanism
   * shares with it. */
  bool handles(const StepRunner& runner, const StepRunner& assigned) const;

  /** Starts a non-blocking collective of this rank's `schedule`: its first round is posted now, the others as the
   * mechanism's runners complete rounds (CollectiveRequest). Returns the request that completes with it, under
   * `tag` (what the trace's wait and test name). */
  RequestPtr start_collective(Schedule schedule, int tag);
  /** Hands this rank's part of a collective that the network runs to its NIC (one descriptor posted); the request
   * completes when the network is done. */
  RequestPtr join_network_collective(const InNetwork& part, CollectiveRequest* collective);

  /** Blocks the calling rank until `request` completes, running its own steps meanwhile. */
  void wait(const RequestPtr& request);
  /** An MPI call of `call_seconds` of CPU work that waits for `request`, where waits_in_kernel(): the call's work,
   * then, unless the request is complete by then, `blocked()` (from the kernel) and wait(), all in one park. */
  void call_and_wait(const RequestPtr& request, double call_seconds, std::function<void()> blocked);
  /** Whether the rank's waits have their steps run by SimGrid's kernel (WaitInKernel) from now on. */
  bool waits_in_kernel();
  /** One MPI_Test: a progress pass of the rank's own steps and a look at the request. */
  bool test(const RequestPtr& request);

  /* What protocols (models/protocol) do with an endpoint. */
  /** Marks a request complete and wakes its rank if it waits. */
  void complete(const RequestPtr& request);
  /** Sends a protocol message to `destination`'s endpoint, which runs a step when it arrives. */
  void send_message(int destination, Message* message, int64_t bytes);
  /** Hands an envelope to `destination`'s matching at once, with no transfer and no step (SMPI's direct protocol). */
  void deliver(int destination, Message* message);
  /** Runs `on_done` as a step of this endpoint once `transfer` ends (a transfer of `message`, with its peer);
   * `in_collective`: the step may complete a collective's request (whose next round the runner may post). */
  void follow(const Transfer& transfer, Step step, const StepMessage& message, std::function<void()> on_done,
              bool in_collective);
  /** The same, for a transfer of `request`: a non-blocking collective's round has the mechanism's collective runner. */
  void follow(const Transfer& transfer, const Request& request, Step step, const StepMessage& message,
              std::function<void()> on_done);
  /** Starts a transfer of `bytes` from rank `from`'s host to rank `to`'s (counted as sent by `from`); when it
   * carries data (not a protocol's control message) between nodes, with its DMA at both ends. */
  Transfer transfer(int from, int to, int64_t bytes, bool data = true);
  /** Copies `bytes` in the step being run, by its runner (a single-copy shared-memory transfer), then goes on with
   * the step's effect: `then` (at once after the copy in an actor; from the kernel where the kernel runs the step). */
  template <class Then> void copy_in_step(int64_t bytes, Then&& then)
  {
    if (copy_in_step(bytes))
      then();
    else
      copy_in_step_from_kernel(bytes, std::forward<Then>(then));
  }

  /** CPU work of the rank itself inside an MPI call (posting overheads, buffer copies): not a protocol step. */
  void spend(double cpu_seconds, int64_t copy_bytes = 0);
  /** The rank's date: SimGrid's clock, or later while its CPU work runs ahead (RankClock). */
  double clock() const { return clock_.now(); }
  /** Whether the rank's CPU work may run ahead of SimGrid's clock (World::lets_run_ahead), from now on. */
  void let_run_ahead(bool allowed) { runs_ahead_ = allowed; }
  bool runs_ahead() const { return runs_ahead_; }
  /** The rank, in its own actor, waits until its date: before what depends on other actors. */
  void catch_up() { clock_.catch_up(world_pause()); }
  /** Wakes the rank if it is blocked in wait(). */
  void notify_rank();
  /** Something the rank handles becomes ready at `date`: a rank blocked in wait() wakes by then. */
  void rank_expects(double date);
  /** The rank is done. */
  void finish();
  /** Every rank waits (paused) or one goes on again: a rank polling in a wait drops or takes up its load. */
  void pause_polling(bool paused);
  /** Requests posted and not complete, oldest first: for deadlock reports. */
  std::vector<RequestPtr> pending_requests() const;
  const MatchQueues& queues() const { return queues_; }
  /** Envelopes sent to this rank that it never matched: queued as unexpected, or never even looked at. */
  std::vector<Envelope> unreceived() const;

  int64_t bytes_sent() const { return bytes_sent_; }
  double step_seconds() const { return step_seconds_; }
  double copy_seconds() const { return copy_seconds_; }
  void add_step_seconds(double seconds) { step_seconds_ += seconds; }
  /** Copies `bytes` on this rank's host, in the calling actor (World::copy), after `cpu_before` seconds of other CPU
   * work on the same core, and counts the copy's CPU time. */
  void copy(int64_t bytes, bool shared_core, double cpu_before = 0);
  /** copy() by an actor on `copier` that does not wait in place (World::start_copy); false if it takes no time. */
  bool start_copy(int64_t bytes, bool shared_core, double cpu_before, CoreCopy& state,
                  const simgrid::s4u::Host* copier);

private:
  friend class WaitInKernel;
  friend class StepsInKernel;
  friend struct StepRunState;
  using Callback = std::function<void()>;
  /** The rank polls its core in a wait, as MPI libraries do, where the mechanism says so (World::set_polling), or
   * stops. */
  void start_polling();
  void stop_polling();
  /** The load of the core it polls, taken or dropped. */
  void take_poll_load();
  void drop_poll_load();
  /** For timelines: the message a step belongs to, when and by which actor its transfer was started (a time below 0:
   * the step is no arrival), and when its last flow ended. */
  struct StepOrigin {
    StepMessage about{};
    double time = -1;
    std::string actor{};
    double arrival = -1;
  };
  struct Followed {
    sched::Flow activity;            // the one watched now (none: a control message, see arrives)
    std::vector<sched::Flow> after;  // the others that must end too, watched once it has
    Step step;          // the step its end calls for
    StepWork work;      // what the step costs its runner
    StepRunner* runner;
    Callback on_done;
    const Message* message = nullptr; // the message it carries, if any (for end-of-run reports)
    std::unique_ptr<StepOrigin> origin{}; // for timelines: made only when steps are observed
    double arrives      = -1; // without activity: when it arrives (World::control_arrival, World::loopback_arrival)
    bool in_collective  = true; // its effect may complete a collective's request: it may post the next round

    bool arrived(double now) const { return activity ? activity.finish_time() >= 0 : arrives <= now; }
  };

  /** Whether `followed` is `runner`'s to handle and ready for its step. */
  bool ready_for(const StepRunner& runner, const Followed& followed) const
  {
    return handles(runner, *followed.runner) && followed.arrived(clock());
  }
  /** copy_in_step's copy where the runner's actor runs the step (true: done), or nothing (false: the kernel runs
   * it). */
  bool copy_in_step(int64_t bytes);
  void copy_in_step_from_kernel(int64_t bytes, std::function<void()> then);
  /** The first followed transfer ready for `runner`'s step, once its other flows have ended too; null if none. */
  Followed* first_ready(StepRunner& runner);
  /** Takes `ready` (from first_ready) off the followed list, with what reading the NIC's data costs its step. */
  Followed take(Followed* ready);
  /** The actor that acts for this endpoint now: the calling one, or the rank's where the kernel runs its steps. */
  std::string actor_name() const;
  RequestPtr make_request(bool is_send, int peer, int tag, int64_t bytes, Context context);
  sched::TimedPause& world_pause();
  /** Posting costs: the rank's inside its MPI calls; the runner's when a runner posts (a collective's next round). */
  void charge(double cpu_seconds, int64_t copy_bytes = 0);
  /** The rank's MPI call starts the rounds of its non-blocking collectives that no runner could start. */
  void advance_collectives();
  void add_followed(Followed followed);
  /** Has `followed`'s runner (and its rank, if it runs that runner's steps too) told when it is ready. */
  void announce(const Followed& followed);
  void follow_by(StepRunner& runner, const Transfer& transfer, Step step, std::function<void()> on_done,
                 bool in_collective, const StepMessage& message = {});
  /** Notes, for timelines, which message a followed transfer belongs to and who started it, now. */
  void describe(Followed& followed, const StepMessage& message) const;
  /** Runs one step: its runner takes the time it costs, then it takes effect. Timelines see it start, with its
   * origin if known, and see it end. */
  void run_step(StepRunner& runner, Step step, const StepWork& work, const Callback& effect,
                const StepOrigin* origin = nullptr);
  /** run_step's first part, before the runner's time passes: logs and tells timelines. Returns the step's serial
   * for step_ends (0: not observed). */
  uint64_t step_begins(const StepRunner& runner, Step step, const StepWork& work, const StepOrigin* origin);
  void step_ends(uint64_t serial) const;

  // Explicit protocol steps.
  void handle(Message* message);
  void handle_envelope(const Envelope& envelope);
  void on_matched(const RequestPtr& receive, const Envelope& envelope);

  World& world_;
  int rank_;
  simgrid::s4u::Host* host_;
  RankRunner own_runner_;
  StepRunner* running_ = nullptr; // the runner of the step being run
  int64_t step_copied_ = 0;       // bytes copied by the runner of the step being run (for timelines)
  sched::RankClock clock_;
  bool runs_ahead_ = false;
  std::vector<Followed> followed_;
  sched::Wakeup wakeup_;              // wakes the rank blocked in wait()
  bool rank_waiting_ = false;
  std::optional<uint64_t> poll_load_; // the core a waiting rank keeps busy polling, while the background runs
  MatchQueues queues_;
  PeerCounters next_sequence_;                               // per destination
  PeerCounters expected_sequence_;                           // per source
  std::map<std::pair<int, uint64_t>, Message*> early_;       // envelopes that overtook an earlier one
  std::map<uint64_t, RequestPtr> live_;                      // by request id
  std::vector<std::shared_ptr<CollectiveRequest>> collectives_; // non-blocking ones not complete yet
  std::unique_ptr<WaitInKernel> wait_in_kernel_; // how the rank's waits run their steps from the kernel, once made
  StepsInKernel* steps_in_kernel_ = nullptr;          // who runs the step taking effect from the kernel, if any
  const simgrid::s4u::Actor* kernel_actor_ = nullptr; // the actor the kernel acts for meanwhile
  int8_t shares_cores_ = -1; // whether steps_in_kernel applies to this rank's host (-1: not looked up yet)
  int64_t bytes_sent_   = 0;
  double step_seconds_  = 0;
  double copy_seconds_  = 0;
};

} // namespace progsim::mpi
