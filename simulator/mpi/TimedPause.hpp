/* Letting simulated time pass for the calling actor without SimGrid's sleep. */
#pragma once

#include <simgrid/s4u/Semaphore.hpp>

#include <unordered_map>

namespace progsim::mpi {

/**
 * The calling actor waits, holding no resource, until a date. SimGrid 3.32's sleep is a CPU action: a max-min
 * variable on the host's cores, made and freed each time, whose start and end make the solver look again at every
 * computation of that host; and it ends with any other event less than surf/precision (1e-9 s here) before its date.
 * Here the actor blocks on a semaphore of its own, which a kernel timer releases at the date exactly: no lmm
 * variable, the same end up to that precision.
 */
class TimedPause {
public:
  /** Blocks the calling actor for `seconds` of simulated time. */
  void pass(double seconds);
  /** Blocks the calling actor until `date` (at once if it is past). */
  void until(double date);

private:
  std::unordered_map<long, simgrid::s4u::SemaphorePtr> semaphores_; // by actor id
};

} // namespace progsim::mpi
