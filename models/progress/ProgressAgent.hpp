/* An actor that runs the protocol steps of some endpoints while their ranks compute. */
#pragma once

#include "resources/HostCores.hpp"
#include "mpi/StepsInKernel.hpp"
#include "mpi/StepRunner.hpp"
#include "sched/Wakeup.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace progsim::mpi {
class Endpoint;
}

namespace progsim::models::progress {

/**
 * Waits for anything it must handle on its endpoints (an arrived message, a finished transfer) and runs the steps.
 * A progress thread, a reserved core and a NIC are agents; they differ in when they look (before_steps) and in
 * what a step costs them (execute).
 *
 * An agent whose steps the kernel may run (runs_from_kernel, progsim/steps-in-kernel) has its loop run by the kernel
 * too: its looks, its waits, the time before its steps (start_before_steps) and the steps themselves (StepsInKernel).
 * Its actor parks until a step only an actor can run is ready (one that may post a collective's round), runs it,
 * and parks again.
 */
class ProgressAgent : public mpi::StepRunner {
public:
  void operator()();
  /** The agent also serves `endpoint`. */
  void serve(mpi::Endpoint& endpoint)
  {
    endpoints_.push_back(&endpoint);
    ready_by_.push_back(-sched::Wakeup::kNoDate);
  }
  const std::vector<mpi::Endpoint*>& endpoints() const { return endpoints_; }
  void ring(mpi::Endpoint& endpoint) override;
  void expect(mpi::Endpoint& endpoint, double date) override;
  /** Keeps a core of `cores` busy for as long as the agent runs, `bound` flop/s ahead of the ranks (a reserved
   * core: the ranks cannot have it). */
  void reserve(resources::HostCores& cores, double bound)
  {
    reserved_on_    = &cores;
    reserved_bound_ = bound;
  }
  /** Asks the agent to end once every rank is done (it is not a daemon: it ends cleanly). */
  void stop();
  /** Stops or restarts the CPU load the agent keeps (see reserve()). */
  void pause_load(bool paused);

protected:
  /** Called once something is ready, before the steps run (a polling thread waits for its next poll here). */
  virtual void before_steps() {}
  /** before_steps() with nobody waiting in place: calls `then` from the kernel once it is over (at once if it takes
   * no time). For agents that run_from_kernel(). */
  virtual void start_before_steps(mpi::Endpoint&, std::function<void()> then) { then(); }

private:
  /** The date before which nothing is ready at `endpoint` (one of those served: a node's ranks at most, whose
   * pointers the agent reads at every look anyway, where a hash table's entry would be one more miss). */
  double& ready_by(const mpi::Endpoint& endpoint)
  {
    return ready_by_[std::find(endpoints_.begin(), endpoints_.end(), &endpoint) - endpoints_.begin()];
  }
  /** After a wait that a date ended (no ring): the first endpoint due then counts as rung, as it would be had its
   * work come as a transfer's end rather than a date (a dated arrival, a step's date): the agent runs its steps, a
   * poll where the rank has run them meanwhile, as it does when woken by a ring. */
  void ring_due_endpoint();
  /** Starts or cancels the load as it should be now. */
  void keep_load();

  /** The endpoint with a step to run now, if any, and otherwise when the next one is ready. */
  mpi::Endpoint* ready_endpoint(double& next_ready);
  /** The loop, run by the kernel: returns once a step that only the agent's actor can run is ready (its endpoint)
   * or the agent stops (null). */
  mpi::Endpoint* loop_in_kernel();
  /** The kernel's loop: looks at the endpoints, then runs what is ready, or waits for it. */
  void look_from_kernel();
  void kernel_loop_over(mpi::Endpoint* for_actor);

  std::vector<mpi::Endpoint*> endpoints_;
  // Per endpoint, a date before which none of its steps for this agent is ready (-infinity: look at it). Each look
  // at an endpoint reads its followed transfers, cold in the cache at scale; an agent serving a node's ranks would
  // read them all at every look. New work lowers the date (expect) or sets it to -infinity (ring).
  std::vector<double> ready_by_;
  sched::Wakeup wakeup_;
  mpi::Endpoint* first_rung_ = nullptr; // whose transfer ended first while the agent waited
  resources::HostCores* reserved_on_ = nullptr;
  std::optional<uint64_t> load_;
  bool load_paused_      = false;
  double reserved_bound_ = 0;
  bool stopping_         = false;
  bool waiting_          = false; // blocked in its wait: ready work must ring
  // Where the kernel runs the loop: the steps, the actor parked meanwhile, and why the loop ended.
  std::optional<mpi::StepsInKernel> steps_;
  simgrid::s4u::Actor* actor_    = nullptr;
  bool parked_                   = false;
  bool loop_over_                = false;
  mpi::Endpoint* left_for_actor_ = nullptr;
};

} // namespace progsim::models::progress
