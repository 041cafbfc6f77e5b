/* How a rank or an agent sleeps until something it follows needs it. */
#pragma once

#include "sched/Timers.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <functional>
#include <limits>

namespace progsim::sched {

/**
 * The calling actor sleeps until it is rung or a date comes: it parks (ActorParking.hpp), and a ring or a kernel
 * timer at the date resumes it. Rings come from other actors (a request completed, new work) and from SimGrid's kernel
 * when a transfer the sleeper follows ends (TransferWatch): the sleeper waits on nothing else, holds no activity
 * and costs the solver nothing. A ring while nobody sleeps is remembered until the next wait. An actor's ring wakes
 * the sleeper at the same date, once the actors running then have yielded: never amid the ringer's work.
 */
/** Calls `then` from a kernel timer at the current date once the actors running now have yielded, after what was
 * asked before (rings from actors included): never amid an actor's work. */
void once_actors_yield(std::function<void()> then);

class Wakeup {
public:
  static constexpr double kNoDate = std::numeric_limits<double>::infinity();

  /** Blocks the calling actor until ring() or `date` (kNoDate: none); at once if it rang since its last wait. */
  void wait_until(double date);
  /** The same wait with nobody blocked: `then` runs from the kernel when it ends. Returns false, and never calls
   * `then`, if the wait is over at once. */
  bool wait_then(double date, std::function<void()> then);
  /** Ends the current wait, or else the next one at once. Callable from the kernel. */
  void ring();
  /** Brings the current wait's date forward to `date` when it is earlier (something more becomes ready then). */
  void wake_by(double date);

private:
  /** Starts a wait that `release` ends; false if it is over at once. */
  bool begin(double date);
  void release();
  /** The wait is over: its timer goes, and the sleeper goes on. */
  void end();
  void set_timer(double date);

  simgrid::s4u::Actor* sleeper_        = nullptr; // parked in the current wait
  std::function<void()> then_;                    // or what runs when it ends
  timers::Alarm timer_;
  double date_   = kNoDate; // of the current wait
  bool blocked_  = false;
  bool released_ = false; // the current wait is over: later rings and dates change nothing
  bool rung_     = false; // a ring that came while nobody waited
  double expected_ = kNoDate; // a date given while nobody waited: the next wait ends by then
};

} // namespace progsim::sched
