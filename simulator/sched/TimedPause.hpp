/* Letting simulated time pass for the calling actor without SimGrid's sleep. */
#pragma once

#include <simgrid/s4u/Actor.hpp>

#include <unordered_map>
#include <vector>

namespace progsim::sched {

/**
 * The calling actor waits, holding no resource, until a date. SimGrid 3.32's sleep is a CPU action: a max-min
 * variable on the host's cores, made and freed each time, whose start and end make the solver look again at every
 * computation of that host; and it ends with any other event less than surf/precision (1e-9 s here) before its date.
 * Here the actor parks (ActorParking.hpp) until a kernel timer resumes it at the date exactly: no lmm variable, the same end up to that precision. Pauses that end at the same date end in the order they began (one
 * timer per date), so that a symmetric start (every rank's first overhead) resumes the actors in a stated order.
 */
class TimedPause {
public:
  /** Blocks the calling actor for `seconds` of simulated time. */
  void pass(double seconds);
  /** Blocks the calling actor until `date` (at once if it is past). */
  void until(double date);

private:
  std::unordered_map<double, std::vector<simgrid::s4u::Actor*>> ending_; // by date, in the order begun
};

} // namespace progsim::sched
