/* Calls made from an actor at a date, after the kernel's events of that date. */
#pragma once

#include "sched/Wakeup.hpp"

#include <functional>
#include <map>
#include <vector>

namespace progsim::sched {

/**
 * What the kernel runs for a parked actor (StepsInKernel, a thread's poll) but must do where that actor would have:
 * among the actors of a date, after the kernel's events of that date. SimGrid runs its timers, then ends its transfers,
 * then resumes actors: a look from a timer would not know of a transfer that ends at that same date, and a flow that
 * ends then would count or not depending on whether it is SimGrid's transfer or BusShares'. One daemon actor makes the
 * calls due at each date, in the order they came: one switch per date, for every call due then.
 */
class ActorRound {
public:
  /** Calls `then` from the round's actor at `date` (now or later). Callable from the kernel. */
  void at(double date, std::function<void()> then);
  /** Starts the round's actor on `host` (a daemon: it ends with the simulation). */
  void start(simgrid::s4u::Host* host);

private:
  void run();

  std::map<double, std::vector<std::function<void()>>> due_;
  Wakeup wakeup_;
};

} // namespace progsim::sched
