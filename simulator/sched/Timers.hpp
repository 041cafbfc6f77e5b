/* The engine's kernel timers: one queue, in date order and, at one date, in the order they were set. */
#pragma once

#include <cstdint>
#include <functional>

namespace progsim::sched::timers {

/** A timer set by set(): move() or cancel() it before it fires, or forget it. Its slot serves another timer once it
 * fired or was cancelled: a holder that keeps one uses an Alarm, which lets go of it then. */
struct Timer;

/** Calls `callback` from SimGrid's kernel at `date` (now or later), among the kernel's timers of that date, after the
 * engine's timers set before it for that date. */
Timer* set(double date, std::function<void()> callback);
/** Moves a timer that has not fired to `date`, as if cancelled and set anew. */
void move(Timer* timer, double date);
/** Cancels a timer that has not fired. */
void cancel(Timer* timer);

/** The one timer a holder keeps at the date of its next event (a host's next end, a bus's next event, a wait's end):
 * set, moved or cleared, and clear again once it rang. */
class Alarm {
public:
  /** Rings `ring` at `date`: a new timer, or the pending one moved there (its `ring` stays, as a new timer's would). */
  template <class Ring> void at(double date, Ring ring)
  {
    date_ = date;
    if (timer_ != nullptr) {
      move(timer_, date);
      return;
    }
    timer_ = set(date, [this, ring = std::move(ring)]() {
      timer_ = nullptr;
      ring();
    });
  }
  void clear()
  {
    if (timer_ != nullptr)
      cancel(timer_);
    timer_ = nullptr;
  }
  bool pending() const { return timer_ != nullptr; }
  /** The date it rings at, while pending(). */
  double date() const { return date_; }

private:
  Timer* timer_ = nullptr;
  double date_  = 0;
};

} // namespace progsim::sched::timers
