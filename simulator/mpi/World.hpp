/* The state shared by every rank of one simulation: traces, placement, parameters, progress mechanism. */
#pragma once

#include "config/Parameters.hpp"
#include "sched/ActorRound.hpp"
#include "resources/BusPolicy.hpp"
#include "resources/RouteDelay.hpp"
#include "resources/MemorySystem.hpp"
#include "mpi/Endpoint.hpp"
#include "resources/HostCores.hpp"
#include "mpi/StepRunPool.hpp"
#include "mpi/MessageProtocol.hpp"
#include "mpi/NetworkCollectives.hpp"
#include "mpi/ProgressModel.hpp"
#include "mpi/Schedule.hpp"
#include "sched/TimedPause.hpp"
#include "sched/TransferWatch.hpp"
#include "trace/TraceSource.hpp"

#include <boost/dynamic_bitset.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Host.hpp>
#include <xbt/signal.hpp>

#include <map>
#include <optional>
#include <functional>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <string>
#include <vector>

namespace progsim::mpi {

/** What a rank is doing, as timelines and deadlock reports see it. */
enum class Activity : uint8_t { Starting, Computing, Sleeping, InMpi, Blocked, Finished };
std::string_view activity_name(Activity activity);
/** Whether a rank in this activity occupies a core (sleeping, starting and finished ranks do not). */
bool holds_a_core(Activity activity);

/** A copy that nobody waits for in place (World::start_copy): its CPU work (an execution on shared cores, whose
 * second part is the copy's, or a timer on a core of its own) and its flows; `done` runs from the kernel once the CPU
 * work and every flow have ended. */
struct CoreCopy {
  CoreCopy() = default;
  CoreCopy(const CoreCopy&)            = delete; // one_ended knows where it is
  CoreCopy& operator=(const CoreCopy&) = delete;

  std::function<void()> done;
  int pending = 0;   // the CPU work, then each flow still running
  resources::BusTraffic bus;    // held to the end: the transfers live as long as someone holds them
  std::function<void()> start_flows;
  std::function<void()> after_cpu; // a small copy's (World::dated_copy_seconds): its idle flow's rest, then done
  const std::function<void()> one_ended = [this]() {
    if (--pending == 0)
      done();
  };
};

/** Per-rank accounting, filled while the rank runs. */
struct RankRecord {
  Activity activity        = Activity::Starting;
  trace::Action action;             // the action being run (a copy: the trace's stream moves on)
  bool trace_done          = false; // every action run: waiting for what the trace left pending
  double end_time          = 0;
  double compute_seconds   = 0;     // in compute, sleep, and the extra flops of reductions
  double mpi_seconds       = 0;     // inside MPI calls (including blocked time)
  double blocked_seconds   = 0;     // blocked in wait, waitall, blocking send/receive
  int64_t actions_done     = 0;
  RequestPtr waiting_for;           // the request a blocked rank waits for (deadlock reports)
};

/** An observable change of a rank's state: timelines listen to these. */
struct RankEvent {
  int rank;
  double time;
  Activity activity;
  const trace::Action* action;      // null when not tied to an action
};

/**
 * A protocol step starting: its serial number (StepEnd names it), which rank's step, which step, who runs it (the
 * kind of runner: the rank, a thread, a core, a NIC; and its actor), its CPU work, and the message it belongs to.
 * `origin_time` and `origin_actor` say when and by whom the protocol message or the transfer whose arrival calls for
 * the step was started (a time below 0: the step is no arrival, as a match made when a receive is posted), and
 * `arrival_time` when it arrived: what the step waited for its runner is the time from then to `time`.
 */
struct StepEvent {
  uint64_t serial;
  int rank;
  double time;
  Step step;
  std::string_view executor;
  std::string_view actor;
  double cpu_seconds;
  StepMessage message;
  double origin_time;
  std::string_view origin_actor;
  double arrival_time; // when that message or transfer arrived (its last flow ended): the step could run from then
};

/** A step's runner is done with it: its work (CPU, copies), then what it did (answers sent, copies made, a
 * collective's next round posted). `copied_bytes`: what the runner copied meanwhile. */
struct StepEnd {
  uint64_t serial;
  double time;
  int64_t copied_bytes;
};

/** Where each rank runs: the host, and which node and NUMA domain that host belongs to. */
struct Placement {
  std::vector<simgrid::s4u::Host*> hosts;   // by rank
  std::vector<int> node;                    // node index by rank
};

class World {
public:
  World(Parameters parameters, trace::TraceSource traces, Placement placement,
        std::unique_ptr<models::progress::ProgressModel> progress, std::unique_ptr<ProtocolTable> protocols,
        std::unique_ptr<CollectiveAlgorithms> collectives, std::unique_ptr<models::contention::BusPolicy> bus_policy);

  int size() const { return static_cast<int>(endpoints_.size()); }
  const Parameters& parameters() const { return parameters_; }
  const trace::TraceSource& traces() const { return traces_; }
  /** The actions of `rank`, read as it runs them. */
  trace::ActionStream& actions(int rank) { return *streams_[rank]; }
  models::progress::ProgressModel& progress() { return *progress_; }
  const models::progress::ProgressModel& progress() const { return *progress_; }
  const CollectiveAlgorithms& collectives() const { return *collectives_; }
  NetworkCollectives& network_collectives() { return network_collectives_; }
  /** Rank `rank`'s schedule for `action`, the collective it just entered: its algorithm's rounds, or its part in the
   * network's run of it where the mechanism has the network run it. */
  Schedule schedule(int rank, const trace::Action& action);
  const ProtocolTable& protocols() const { return *protocols_; }
  Endpoint& endpoint(int rank) { return *endpoints_[rank]; }
  const Endpoint& endpoint(int rank) const { return *endpoints_[rank]; }
  simgrid::s4u::Host* host_of(int rank) const { return placement_.hosts[rank]; }
  /** How many ranks the placement puts on `host`. */
  int ranks_on(const simgrid::s4u::Host* host) const
  {
    auto it = ranks_on_.find(host);
    return it == ranks_on_.end() ? 0 : it->second;
  }
  /** Whether `host`'s ranks and `others` more CPU users (a mechanism's threads or reserved cores) each have a core
   * of their own: then no execution there ever shares a core, and none changes another's rate. */
  bool cores_suffice(const simgrid::s4u::Host* host, int others) const
  {
    return ranks_on(host) + others <= host->get_core_count();
  }
  int node_of(int rank) const { return placement_.node[rank]; }
  bool same_node(int a, int b) const { return placement_.node[a] == placement_.node[b]; }
  /** The protocol settings between two ranks: shared memory inside a node, the NIC between nodes. */
  const TransportProtocol& transport(int a, int b) const
  {
    return same_node(a, b) ? parameters_.shared_memory : parameters_.network;
  }
  RankRecord& record(int rank) { return records_[rank]; }
  const RankRecord& record(int rank) const { return records_[rank]; }

  uint64_t next_request_id() { return ++request_counter_; }
  /** Seconds one core takes to copy `bytes` (none when the mechanism's copies are free). */
  double copy_seconds(int64_t bytes) const
  {
    double bandwidth = progress_->costs().copy_bandwidth;
    return bytes > 0 && bandwidth > 0 ? static_cast<double>(bytes) / bandwidth : 0.0;
  }
  /** How many ranks hold a core of `host` right now: computing, or inside an MPI call, where MPI libraries poll
   * rather than sleep. A thread that wakes there finds a free core only below the host's core count. */
  int cores_held_on(const simgrid::s4u::Host* host) const
  {
    auto it = holding_.find(host);
    return it == holding_.end() ? 0 : it->second;
  }

  /**
   * CPU work of the calling actor on `host`: an execution that competes for the host's cores (HostCores). On a host
   * whose cores can never all be busy (fewer possible executions than cores), every execution runs at full core
   * speed, so the same time passes as a pause.
   */
  void spend_cpu(simgrid::s4u::Host* host, double seconds);
  /** Whether no execution on `host` ever shares a core (World::start): its CPU work then passes as pauses. */
  bool never_shared(const simgrid::s4u::Host* host) const { return uncontended_hosts_.count(host) != 0; }
  /** spend_cpu() for work that no actor waits for in place: starts it and calls `done` from the kernel when it ends
   * (`done` must outlive it). Callable from the kernel. */
  void start_cpu(simgrid::s4u::Host* host, double seconds, const std::function<void()>& done);
  /** A rank's computation of `flops` on `host`, as spend_cpu: at full core speed without the CPU solver where no
   * execution there ever shares a core. With `stream`, the computation's memory traffic that its caller waits for
   * after: where that stream alone ends it no earlier (see the definition), nothing more is needed. */
  void compute(simgrid::s4u::Host* host, double flops, const resources::BusTraffic& stream = {});
  /** When a control message sent at `date` from `from` to `to` arrives, where it need not be a transfer
   * (progsim/control-transfers: no, see RouteDelay); -1: send it as a transfer. */
  double control_arrival(int from, int to, double date) const;
  /** When `bytes` sent at `date` from `from` to `to` arrive, where their route is loopback links only and they need
   * not be a transfer (progsim/loopback-transfers: no, see RouteDelay); -1: send them as a transfer. */
  double loopback_arrival(int from, int to, int64_t bytes, double date) const;
  /** Whether a message's flow of `bytes` takes the time its route takes it when idle and loads nothing
   * (progsim/small-flow-bytes): a date, where SimGrid's network model lets RouteDelay compute it. */
  bool dated(int64_t bytes) const
  {
    return route_delay_.has_value() && parameters_.small_flow_bytes > 0 && bytes <= parameters_.small_flow_bytes;
  }
  /** When a small message's data (dated) sent at `date` from `from` to `to` is there: its route's time, or its
   * DMA's at either end if longer; -1: send it as transfers and flows (and any control message, `data` false). */
  double dated_arrival(int from, int to, int64_t bytes, double date, bool data) const;
  /** How long a copy of `bytes` for `rank` by an actor on `copier` takes where its bus traffic is small (dated):
   * the longer of its CPU time and its flow's time on the idle bus; -1: it needs its flows. */
  double dated_copy_seconds(int rank, int64_t bytes, const simgrid::s4u::Host* copier) const;
  /** How `host`'s cores are shared, for CPU work and loads on a host whose cores its users may outnumber. */
  resources::HostCores& cores_of(const simgrid::s4u::Host* host);
  /** How an actor that holds no resource lets time pass (a core of its own, a NIC, a tick to wait for). */
  sched::TimedPause& pause() { return pause_; }
  /** Where the kernel has calls made among the actors of a date (progsim/steps-in-kernel). */
  sched::ActorRound& actor_round() { return actor_round_; }
  /** The state that runs of steps from the kernel borrow (StepsInKernel). */
  StepRunPool& step_run_pool() { return step_run_pool_; }
  /** Who hears of each followed transfer's end. */
  sched::TransferWatch& transfers() { return transfers_; }
  /**
   * A copy of `bytes` for `rank` by the calling actor: CPU work of copy_seconds(bytes), on a core of the rank's host
   * shared with the ranks (`shared_core`) or on one of its own, while the data crosses the memory bus of the rank's
   * data twice (read and write) at the copy's pace, sharing it with every other flow there. It takes the longer of
   * the two. `cpu_before`: seconds of CPU work on the same core that come first (a step's, a post's), from
   * `cpu_free` on (the rank's date, RankClock; 0: now).
   */
  void copy(int rank, int64_t bytes, bool shared_core, double cpu_before = 0, double cpu_free = 0);
  /** copy() from now on by an actor on `copier` that does not wait in place: `copy.done` runs from the kernel at its
   * end, which `copy` must outlive. Returns false, with nothing started, when it takes no time. Callable from the
   * kernel. */
  bool start_copy(int rank, int64_t bytes, bool shared_core, double cpu_before, CoreCopy& copy,
                  const simgrid::s4u::Host* copier);
  /** The bytes a `compute` action moves through memory: its trace's count, else its flops over the computations'
   * arithmetic intensity (progsim/compute-intensity), else none. */
  int64_t memory_bytes(const trace::Action& compute) const;
  /** The memory buses: computations' streams, copies, DMA. */
  resources::MemorySystem& memory() { return memory_; }
  /**
   * A rank starts (true) or stops polling in its wait. Returns whether its polling must be a CPU load: where it
   * may share its host's cores with other ranks or threads, under a mechanism whose waits poll, and unless every
   * rank waits (then nothing they do changes anything, and SimGrid must see a deadlock if there is one). Polling
   * ranks are rung when that changes, and look again.
   */
  bool set_polling(Endpoint& endpoint, bool polling);
  /** Creates one actor per rank. */
  void start();
  /** Called by each rank when its trace is done; the last one stops the mechanism's background loads. */
  void rank_finished(int rank);
  bool all_finished() const { return finished_ == size(); }
  /** Changes a rank's activity and tells the listeners. */
  void set_activity(int rank, Activity activity, const trace::Action* action = nullptr);

  /** Whether `endpoint`'s rank may let its CPU work run ahead of SimGrid's clock (RankClock): its core is never
   * shared, the mechanism leaves its queues to it alone, and nobody listens to the dates of its states and steps. */
  bool lets_run_ahead(const Endpoint& endpoint);
  /** Whether anybody listens to steps (a timeline): steps describe themselves only then. */
  bool observes_steps() { return on_step.get_slot_count() > 0; }
  /** Tells the listeners that a protocol step starts (its serial is set here and returned). */
  uint64_t step_started(StepEvent event)
  {
    event.serial = ++step_counter_;
    on_step(event);
    return event.serial;
  }
  /** Tells the listeners that a protocol step ended. */
  void step_ended(const StepEnd& end) { on_step_end(end); }

  /** Fired on every activity change of a rank. */
  simgrid::xbt::signal<void(const RankEvent&)> on_rank_event;
  /** Fired when a protocol step starts. */
  simgrid::xbt::signal<void(const StepEvent&)> on_step;
  /** Fired when a protocol step ends (its runner is done with it). */
  simgrid::xbt::signal<void(const StepEnd&)> on_step_end;

  /**
   * The trace asks for something MPI forbids (a message larger than its receive, a wait with no request): the run
   * cannot go on. Reports it with the rank's trace file and line, then calls the handler main set (which ends the
   * run with the bad-input status).
   */
  [[noreturn]] void invalid_mpi(int rank, const std::string& what) const;
  /** A trace line the replay cannot read: the run ends as for invalid MPI, with the reader's message. */
  [[noreturn]] void unreadable_trace(const std::string& what) const;
  /** Rank `rank` enters its next collective, `action`: every rank must call the same collectives in the same order,
   * with the same root and (where MPI requires it) the same size; a mismatch is invalid MPI. */
  void enter_collective(int rank, const trace::Action& action);
  /** Ends the run on bad input (invalid MPI, an unreadable trace line) with what is wrong: main reports it, or the
   * inputs' check's own verdict where that found a bad line first, and leaves writing nothing. */
  std::function<void(const std::string& message)> on_bad_input;

  /** A readable account of every unfinished rank and its pending requests. */
  std::string deadlock_report() const;
  /** After a complete run: messages that arrived but were never received (empty if none). A receive never matched
   * cannot remain: every rank waits for its requests at the end, so it shows as a deadlock. */
  std::string leftovers_report() const;

private:
  /** copy() where its CPU work competes for the rank's host's cores: one execution, one park. */
  void copy_on_shared_cores(int rank, int64_t bytes, double seconds, double cpu_before, CoreCopy& copy,
                            const simgrid::s4u::Host* copier);
  /** `copy` waits for each of its flows still running too. */
  void count_flows(CoreCopy& copy);
  void update_background();
  /** Stops the run with an error naming the first collective some rank never called (the last rank is done). */
  void check_every_collective_called() const;
  /** Ends the run through main's handler (on_bad_input), or reports `message` and aborts without one. */
  [[noreturn]] void stop_on_bad_input(const std::string& message) const;
  /** The first cycle of blocked ranks each waiting for the next, with the parameter that may break it. */
  std::string waiting_cycle() const;

  Parameters parameters_;
  trace::TraceSource traces_;
  std::vector<std::unique_ptr<trace::ActionStream>> streams_;
  Placement placement_;
  std::unique_ptr<models::progress::ProgressModel> progress_;
  std::unique_ptr<ProtocolTable> protocols_;
  std::unique_ptr<CollectiveAlgorithms> collectives_;
  NetworkCollectives network_collectives_{*this};
  resources::MemorySystem memory_;
  std::vector<std::unique_ptr<Endpoint>> endpoints_;
  std::vector<RankRecord> records_;
  uint64_t request_counter_ = 0;
  uint64_t step_counter_    = 0;
  std::unordered_map<const simgrid::s4u::Host*, int> ranks_on_;
  std::unordered_set<const simgrid::s4u::Host*> uncontended_hosts_;
  sched::TimedPause pause_;
  sched::ActorRound actor_round_;
  StepRunPool step_run_pool_;
  std::unordered_map<const simgrid::s4u::Host*, std::unique_ptr<resources::HostCores>> cores_;
  sched::TransferWatch transfers_;
  std::optional<resources::RouteDelay> route_delay_; // none: every message is a transfer
  mutable std::vector<resources::RouteDelay::Recent> recent_routes_; // by sending rank
  boost::dynamic_bitset<> polling_; // ranks polling in a wait: a bit each, walked in rank order
  struct CollectiveCall {
    trace::Action action; // as the first rank to reach it called it
    int rank;
    int arrived;
  };
  std::map<uint64_t, CollectiveCall> collective_calls_; // by sequence number, until every rank has called it
  std::vector<uint64_t> collectives_entered_;      // per rank
  std::unordered_map<const simgrid::s4u::Host*, int> holding_;
  int finished_             = 0;
  int blocked_              = 0;
  bool background_paused_   = false;
};

} // namespace progsim::mpi
