#include "sched/Wakeup.hpp"
#include "sched/ActorParking.hpp"
#include "sched/Timers.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace progsim::sched {

namespace {
/** What is let go by one kernel timer at the current date once the running actors have yielded, in the order it
 * came. Resuming at once would be a simcall, which yields: the woken actor would then run amid the ringer's protocol
 * step (half done, and charging the step's runner for its own MPI calls). */
std::vector<std::function<void()>> due_once_actors_yield;
} // namespace

void once_actors_yield(std::function<void()> then)
{
  if (due_once_actors_yield.empty())
    timers::set(sg4::Engine::get_clock(), []() {
      auto due = std::move(due_once_actors_yield);
      due_once_actors_yield.clear();
      for (auto const& call : due)
        call();
    });
  due_once_actors_yield.push_back(std::move(then));
}

bool Wakeup::begin(double date)
{
  if (rung_) {
    rung_ = false;
    return false;
  }
  date = std::min(date, std::exchange(expected_, kNoDate));
  if (date <= sg4::Engine::get_clock())
    return false;
  blocked_  = true;
  released_ = false;
  set_timer(date);
  return true;
}

void Wakeup::wait_until(double date)
{
  if (not begin(date))
    return;
  sleeper_ = parking::caller(); // nothing between the timer and parking lets the kernel run: no ring comes before
  parking::park();
  end();
}

bool Wakeup::wait_then(double date, std::function<void()> then)
{
  if (not begin(date))
    return false;
  sleeper_ = nullptr;
  then_    = std::move(then);
  return true;
}

void Wakeup::end()
{
  blocked_ = false;
  timer_.clear(); // rung before the date
}

void Wakeup::ring()
{
  if (blocked_)
    release();
  else
    rung_ = true;
}

void Wakeup::wake_by(double date)
{
  if (not blocked_) { // about to wait: the wait ends by then
    expected_ = std::min(expected_, date);
    return;
  }
  if (released_ || date >= date_)
    return;
  if (date <= sg4::Engine::get_clock()) {
    timer_.clear();
    release();
  } else
    set_timer(date);
}

void Wakeup::release()
{
  if (released_)
    return;
  released_ = true;
  std::function<void()> wake;
  if (sleeper_ != nullptr)
    wake = [sleeper = sleeper_]() { parking::resume(sleeper); };
  else
    wake = [this, then = std::move(then_)]() {
      end();
      then();
    };
  if (sg4::Actor::is_maestro()) // a transfer's end or a timer: nothing runs amid anything
    wake();
  else
    once_actors_yield(std::move(wake));
}

void Wakeup::set_timer(double date)
{
  date_ = date;
  if (date == kNoDate)
    return;
  timer_.at(date, [this]() { release(); });
}

} // namespace progsim::sched
