/* Who runs the protocol steps of MPI messages, when, and at what cost: the interface of a progress mechanism.
 * The engine owns it; each mechanism is one file of models/progress. */
#pragma once

#include "Parameters.hpp"
#include "mpi/StepRunner.hpp"

#include <simgrid/forward.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace progsim::mpi {
class World;
} // namespace progsim::mpi

namespace progsim::models::progress {

/**
 * One progress mechanism. The engine asks it which runner runs each step (the rank's own, which works only inside
 * the rank's MPI calls, or an agent: a progress thread, a reserved core, a NIC), and lets it start its agents and
 * background loads.
 */
class ProgressModel {
public:
  virtual ~ProgressModel() = default;
  virtual std::string_view name() const = 0;
  /** True for SMPI's own assumption: matching at post time, transfers that need nobody (the direct protocol). */
  virtual bool direct_protocol() const { return false; }
  /** The runner of `step` for `endpoint`, on a message exchanged with rank `peer`. */
  virtual mpi::StepRunner& runner(mpi::Endpoint& endpoint, mpi::Step step, int peer) = 0;
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
};

/** Builds the mechanism with this name; throws std::invalid_argument naming the known ones otherwise. */
std::unique_ptr<ProgressModel> make_progress_model(const Parameters& parameters);
std::vector<std::string> progress_model_names();

} // namespace progsim::models::progress
