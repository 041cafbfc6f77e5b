/* Who runs the protocol steps of MPI messages, when, and at what cost: the progress mechanism. */
#pragma once

#include "Parameters.hpp"

#include <simgrid/forward.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace progsim::mpi {
class Endpoint;
class World;
} // namespace progsim::mpi

namespace progsim::models::progress {

/**
 * One progress mechanism. The engine asks it three questions: does a rank drive its own protocol from inside its
 * MPI calls, how much does one step cost the actor that runs it, and which agents (threads, reserved cores, NICs)
 * must run beside the ranks.
 */
class ProgressModel {
public:
  virtual ~ProgressModel() = default;
  virtual std::string_view name() const = 0;
  /** True for SMPI's own assumption: matching at post time, transfers that need nobody (the direct protocol). */
  virtual bool direct_protocol() const { return false; }
  /** True when `endpoint`'s rank runs its protocol steps itself, and only while it is inside an MPI call. */
  virtual bool rank_drives(const mpi::Endpoint& endpoint) const = 0;
  /** Starts agents and background loads; called from the first rank actor, before any action runs. */
  virtual void start(mpi::World&) {}
  /** Who runs `endpoint`'s protocol steps, for timelines: "rank", "progress-thread", "dedicated-core" or "nic". */
  virtual std::string_view executor(const mpi::Endpoint&) const { return "rank"; }
  /** Runs one protocol step of `endpoint` in the current actor, taking the time it costs. */
  virtual void execute_step(mpi::Endpoint& endpoint, double cpu_seconds) = 0;
  /** The rank gave an agent new work to follow (an agent waiting for something else must look again). */
  virtual void wake(mpi::Endpoint&) {}
  /** Every unfinished rank is blocked (true) or one goes on again (false): CPU taken by idle polling or reserved
   * cores then changes nothing, and pausing it lets SimGrid see a deadlock when nothing else can happen. */
  virtual void pause_background(bool /*paused*/) {}
  /** Every rank finished: stop background loads so that the simulation can end. */
  virtual void stop(mpi::World&) {}
  /** How many executions besides the ranks' own may run at once on `host` (progress threads, their polling,
   * reserved cores): the engine uses it to know whether the host's cores can ever be oversubscribed. */
  virtual int extra_cpu_users(const mpi::World&, const simgrid::s4u::Host*) const { return 0; }
  /** Seconds of CPU a rank lost to progression that execute_step did not already count (e.g. idle polling). */
  virtual double background_cpu_seconds(const mpi::Endpoint&, double /*lifetime*/) const { return 0.0; }
};

/** Builds the mechanism with this name; throws std::invalid_argument naming the known ones otherwise. */
std::unique_ptr<ProgressModel> make_progress_model(const Parameters& parameters);
std::vector<std::string> progress_model_names();

} // namespace progsim::models::progress
