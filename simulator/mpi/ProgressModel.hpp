/* Who runs the protocol steps of MPI messages, when, and at what cost: the interface of a progress mechanism.
 * The engine owns it; each mechanism is one file of models/progress. */
#pragma once

#include "config/Parameters.hpp"
#include "config/Registry.hpp"
#include "config/Transport.hpp"
#include "mpi/StepRunner.hpp"
#include "trace/Action.hpp"

#include <simgrid/forward.h>
#include <simgrid/s4u/Actor.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace progsim::mpi {
class Endpoint;
class World;
} // namespace progsim::mpi
namespace progsim::resources {
struct BusTraffic;
} // namespace progsim::resources

namespace progsim::models::progress {

/** What the MPI library's calls cost a rank under a mechanism (all zero under SMPI's assumption). */
struct CallCosts {
  double send_overhead  = 0; // CPU s to post a send
  double recv_overhead  = 0; // CPU s to post a receive
  double step_overhead  = 0; // CPU s of a protocol step
  double call_overhead  = 0; // CPU s of a wait or test call
  double copy_bandwidth = 0; // B/s a core copies; 0: copies are free
  int64_t buffered_send_threshold = 0; // blocking sends below this complete once copied
  bool poll_in_wait = false;           // a rank waiting in MPI polls: it keeps using its core
  /** The costs the parameters give. */
  static CallCosts of(const Parameters& p)
  {
    return {p.send_overhead, p.recv_overhead, p.step_overhead, p.call_overhead, p.copy_bandwidth,
            p.buffered_send_threshold, p.poll_in_wait};
  }
};

/**
 * One progress mechanism. The engine asks it which runner runs each step (the rank's own, which works only inside
 * the rank's MPI calls, or an agent: a progress thread, a reserved core, a NIC), and lets it start its agents and
 * background loads.
 */
class ProgressModel {
public:
  explicit ProgressModel(const CallCosts& costs) : costs_(costs) {}
  virtual ~ProgressModel() = default;
  virtual std::string_view name() const = 0;
  const CallCosts& costs() const { return costs_; }
  /** The protocol of a message of `bytes` over `transport`: eager below its threshold, its rendezvous above. */
  virtual Protocol protocol(const TransportProtocol& transport, int64_t bytes) const
  {
    return choose(transport, bytes);
  }
  /** A test call on a pending request starts (before the look) and ends, `done` or not. */
  virtual void test_entered(mpi::Endpoint&) {}
  virtual void test_returned(bool /*done*/) {}
  /** The runner of `step` for `endpoint`, on a message exchanged with rank `peer`. */
  virtual mpi::StepRunner& runner(mpi::Endpoint& endpoint, mpi::Step step, int peer) = 0;
  /** True when a rank inside its MPI calls also runs the ready steps of `runner` (a progress thread and the
   * application thread both call the library's progress engine; whoever gets there first runs the step). */
  virtual bool rank_also_runs(const mpi::StepRunner&) const { return false; }
  /** Whether `runner`, having completed the last request of a non-blocking collective's round, starts the next
   * round (posting its messages at its own cost). Otherwise the rank starts it in its next MPI call. */
  virtual bool starts_collective_rounds(const mpi::StepRunner&) const { return true; }
  /** The runner of `step` when it ends a transfer of a non-blocking collective's round: the mechanism's runner of any
   * step unless it says otherwise (`ideal`: the network itself, which starts the next round at no cost). */
  virtual mpi::StepRunner& collective_runner(mpi::Endpoint& endpoint, mpi::Step step, int peer)
  {
    return runner(endpoint, step, peer);
  }
  /** Whether `endpoint`'s rank alone runs its steps and completes its requests (no agent and no network touches its
   * queues): its CPU work may then run ahead of SimGrid's clock until it next looks at arrivals (RankClock). */
  virtual bool rank_runs_alone(const mpi::Endpoint&) const { return false; }
  /** Whether the network runs this collective whole, in hardware, for every rank (NetworkCollectives). */
  virtual bool runs_in_network(const trace::Action&) const { return false; }
  /** Runs `flops` of the calling rank's computation on its core while `stream`, its memory traffic (waited for
   * after), flows. A mechanism whose agent shares that very core (a progress thread spinning there) lets the agent
   * take its turns here. */
  virtual void compute(mpi::Endpoint& endpoint, double flops, const resources::BusTraffic& stream);
  /** The calling rank's blocking wait just completed; it returns once it has its core (see compute()). */
  virtual void wait_ended(mpi::Endpoint&) {}
  /** Starts agents and background loads, before any action runs. */
  virtual void start(mpi::World&) {}
  /** Every unfinished rank is blocked (true) or one goes on again (false): CPU taken by idle polling or reserved
   * cores then changes nothing, and pausing it lets SimGrid see a deadlock when nothing else can happen. */
  virtual void pause_background(bool /*paused*/) {}
  /** Every rank finished: stop agents and background loads so that the simulation can end. */
  virtual void stop(mpi::World&) {}
  /** How many executions besides the ranks' own may run at once on `host` (progress threads, their polling,
   * reserved cores): the engine uses it to know whether the host's cores can ever be oversubscribed. */
  virtual int extra_cpu_users(const mpi::World&, const simgrid::s4u::Host*) const { return 0; }
  /** Seconds of CPU a rank lost to progression that its steps did not already count (e.g. idle polling). */
  virtual double background_cpu_seconds(const mpi::Endpoint&, double /*lifetime*/) const { return 0.0; }

private:
  CallCosts costs_;
};

/** A mechanism as the engine knows it, registered by its own file (models/progress/<name>.cpp). */
struct ProgressKind {
  std::string name;    // what progsim/progress takes
  int position = 0;    // where lists show it, first to last
  std::string agent;   // what its agents are called in timelines (empty: it has none)
  std::string summary; // what it models, in a sentence (progsim --help, the gallery)
  std::function<std::unique_ptr<ProgressModel>(const Parameters&)> make;
};

/** Makes a mechanism known: one static object in the mechanism's file. */
using RegisterProgress = Registration<ProgressKind>;
/** Every mechanism this engine was built with, by position (then name). */
inline std::vector<const ProgressKind*> progress_kinds()
{
  return Registry<ProgressKind>::listed();
}
/** Builds the mechanism progsim/progress names; throws std::invalid_argument naming the known ones otherwise. */
std::unique_ptr<ProgressModel> make_progress_model(const Parameters& parameters);

} // namespace progsim::models::progress
