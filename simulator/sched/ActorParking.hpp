/* Blocking the calling actor until a kernel timer lets it go. */
#pragma once

#include <simgrid/s4u/Actor.hpp>

namespace progsim::sched::parking {

/**
 * An actor that waits for a date parks: it suspends itself, and the kernel timer set for that date resumes it.
 * A semaphore would do the same, but each acquisition is an activity that SimGrid makes, registers, finishes and
 * frees; a suspension is a flag on the actor. Two conditions make it safe:
 * - the timer is set before the actor parks, and SimGrid runs timers only once every actor has run at the current
 *   date (each one's simcall handled), so the resumption always finds the actor parked;
 * - suspending an actor suspends the activities it owns, and the engine's actors own none: their transfers are
 *   detached (the maestro's), their CPU work is computed by HostCores or TimedPause, not executed.
 */
inline simgrid::s4u::Actor* caller()
{
  return simgrid::s4u::Actor::self();
}

/** Blocks the calling actor until a kernel timer set before calls resume() on it. */
inline void park()
{
  simgrid::s4u::this_actor::suspend();
}

/** From a kernel timer: lets a parked actor go on. */
inline void resume(simgrid::s4u::Actor* actor)
{
  actor->resume();
}

} // namespace progsim::sched::parking
