/* An actor that runs the protocol steps of some endpoints while their ranks compute. */
#pragma once

#include "mpi/Doorbell.hpp"

#include <simgrid/s4u/Exec.hpp>

#include <functional>
#include <vector>

namespace progsim::mpi {
class Endpoint;
}

namespace progsim::models::progress {

/**
 * Waits for anything that needs a step on its endpoints (an arrived message, a finished transfer) and runs the
 * steps. A progress thread, a reserved core and a NIC are all such agents; they differ in when they look
 * (`before_steps`) and in what a step costs (the mechanism's execute_step).
 */
class ProgressAgent {
public:
  using Hook = std::function<void()>;
  ProgressAgent(std::vector<mpi::Endpoint*> endpoints, Hook before_steps, Hook after_steps = nullptr)
      : endpoints_(std::move(endpoints)), before_steps_(std::move(before_steps)), after_steps_(std::move(after_steps))
  {
  }
  void operator()();
  /** Makes the agent look again at its endpoints' transfers (one was added behind its back). */
  void ring();
  /** Keeps `cores` worth of its host busy (bound in flop/s each) for as long as the agent runs. */
  void reserve(int cores, double bound)
  {
    reserved_cores_ = cores;
    reserved_bound_ = bound;
  }
  /** Asks the agent to end once every rank is done (it is not a daemon: it ends cleanly). */
  void stop();
  /** Suspends or resumes the CPU load the agent keeps (see reserve()). */
  void pause_load(bool paused);

private:
  std::vector<mpi::Endpoint*> endpoints_;
  Hook before_steps_;
  Hook after_steps_;
  mpi::Doorbell doorbell_;
  std::vector<simgrid::s4u::ExecPtr> loads_;
  bool load_paused_ = false;
  int reserved_cores_    = 0;
  double reserved_bound_ = 0;
  bool stopping_         = false;
  bool waiting_          = false; // blocked in its wait: new work must ring
};


} // namespace progsim::models::progress
