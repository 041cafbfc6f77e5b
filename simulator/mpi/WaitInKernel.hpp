/* A rank's wait whose protocol steps SimGrid's kernel runs, while the rank's actor stays parked. */
#pragma once

#include "mpi/Endpoint.hpp"
#include "mpi/StepsInKernel.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <cstdint>
#include <functional>
#include <optional>

namespace progsim::mpi {

/**
 * Endpoint::wait on a host whose cores are shared (progsim/steps-in-kernel). Each step the rank runs in its wait
 * costs CPU work on those cores, an execution whose end the rank's actor would park for, once per step; here the
 * kernel runs the wait: the ready steps (StepsInKernel), then, with nothing ready, a sleep, polling, until rung. The
 * actor parks once, until its request is complete or a step it must run itself is ready. A wait call's own CPU work
 * comes first, in the same park.
 */
class WaitInKernel {
public:
  explicit WaitInKernel(Endpoint& endpoint) : endpoint_(endpoint) {}

  /** Blocks the calling rank until `request` is complete (true) or a step the rank must run itself is ready
   * (false). First, if `call_seconds` > 0, the MPI call costs that CPU work; then, if the request is not complete,
   * `blocked()` runs, from the kernel, as the rank starts to wait. */
  bool run(const RequestPtr& request, double call_seconds = 0, std::function<void()> blocked = {});

private:
  /** The call's CPU work is done: the rank waits, unless its request is complete. */
  void call_paid();
  /** Runs the ready steps, then sleeps until something is ready, or ends the wait. */
  void look();
  /** The steps ran: the wait ends, or the rank sleeps until rung or until the next arrival. */
  void steps_ran(bool for_actor);
  /** The rank stops polling: it was rung, or something became ready. */
  void stop_polling();
  /** The wait is over: the rank's actor goes on. */
  void end();

  Endpoint& endpoint_;
  std::optional<StepsInKernel> steps_; // the rank's, made at its first wait (its actor is known then)
  RequestPtr request_;
  simgrid::s4u::Actor* rank_actor_ = nullptr;
  bool parked_    = false;
  bool over_      = false;
  bool for_actor_ = false; // ended for a step the rank's actor must run
  std::function<void()> blocked_; // what the rank does as it starts to wait
  const std::function<void()> call_paid_ = [this]() { call_paid(); };
};

} // namespace progsim::mpi
