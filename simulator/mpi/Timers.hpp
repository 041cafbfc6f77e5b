/* The engine's kernel timers: one queue, in date order and, at one date, in the order they were set. */
#pragma once

#include <cstdint>
#include <functional>

namespace progsim::mpi::timers {

/** A timer set by set(): cancel() it before it fires, or forget it (it is freed once it fired). */
struct Timer;

/** Calls `callback` from SimGrid's kernel at `date` (now or later), among the kernel's timers of that date, after the
 * engine's timers set before it for that date. */
Timer* set(double date, std::function<void()> callback);
/** Moves a timer that has not fired to `date`, as if cancelled and set anew. */
void move(Timer* timer, double date);
/** Cancels a timer that has not fired. */
void cancel(Timer* timer);

} // namespace progsim::mpi::timers
