/* A rank's own clock, which its CPU work moves ahead of SimGrid's until the rank next needs the world. */
#pragma once

#include "sched/TimedPause.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <algorithm>

namespace progsim::sched {

/**
 * The date a rank has reached. CPU work on a core nobody else ever uses (posting overheads, call overheads,
 * computations without memory traffic) has a known end: instead of pausing the actor for each piece, the rank's
 * clock runs ahead, and what the rank does next takes effect at that clock (a receive posted, a message sent at that
 * date). The actor catches up, with one pause for all of it, before anything whose outcome depends on what other
 * actors do meanwhile: looking at arrivals, starting memory traffic, sleeping, ending. Under `none` the rank alone
 * touches its own queues, so nothing else can tell the difference: the times are those of a pause per piece.
 */
class RankClock {
public:
  /** The rank's date: SimGrid's, or later while the rank's CPU work runs ahead of it. */
  double now() const { return std::max(simgrid::s4u::Engine::get_clock(), busy_until_); }
  /** Whether the rank's CPU work runs ahead of SimGrid's clock. */
  bool ahead() const { return busy_until_ > simgrid::s4u::Engine::get_clock(); }
  /** The rank works `seconds` on its core, from its date on. */
  void work(double seconds) { busy_until_ = now() + seconds; }
  /** When the rank's core is free (its date) and, from then on, SimGrid's clock is the rank's again: for CPU work
   * that the caller schedules to end at a date of its own (a copy whose flows start then). */
  double hand_over()
  {
    double free_at = now();
    busy_until_    = 0;
    return free_at;
  }
  /** The calling actor (the rank's) pauses until its date. */
  void catch_up(TimedPause& pause)
  {
    if (ahead())
      pause.until(busy_until_);
    busy_until_ = 0;
  }

private:
  double busy_until_ = 0;
};

} // namespace progsim::sched
