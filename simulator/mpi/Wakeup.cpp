#include "mpi/Wakeup.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <utility>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace progsim::mpi {

namespace {
/** Rings from actors, released by one kernel timer at the current date once the running actors have yielded, in the
 * order they came. Releasing at once would be a simcall, which yields: the woken actor would then run amid the
 * ringer's protocol step (half done, and charging the step's runner for its own MPI calls). */
std::vector<sg4::SemaphorePtr> rung_by_actors;

void release_once_actors_yield(const sg4::SemaphorePtr& semaphore)
{
  if (rung_by_actors.empty())
    simgrid::kernel::timer::Timer::set(sg4::Engine::get_clock(), []() {
      auto due = std::move(rung_by_actors);
      rung_by_actors.clear();
      for (auto const& released : due)
        released->release();
    });
  rung_by_actors.push_back(semaphore);
}
} // namespace

void Wakeup::wait_until(double date)
{
  if (rung_) {
    rung_ = false;
    return;
  }
  date = std::min(date, std::exchange(expected_, kNoDate));
  if (date <= sg4::Engine::get_clock())
    return;
  blocked_  = true;
  released_ = false;
  set_timer(date);
  semaphore_->acquire();
  blocked_ = false;
  if (timer_ != nullptr) { // rung before the date
    timer_->remove();
    timer_ = nullptr;
  }
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
  if (timer_ != nullptr)
    timer_->remove();
  timer_ = nullptr;
  if (date <= sg4::Engine::get_clock())
    release();
  else
    set_timer(date);
}

void Wakeup::release()
{
  if (released_)
    return;
  released_ = true;
  if (sg4::Actor::is_maestro()) // a transfer's end or a timer: nothing runs amid anything
    semaphore_->release();
  else
    release_once_actors_yield(semaphore_);
}

void Wakeup::set_timer(double date)
{
  date_ = date;
  if (date == kNoDate)
    return;
  // The timer runs in SimGrid's kernel, where releasing is a plain call.
  timer_ = simgrid::kernel::timer::Timer::set(date, [this]() {
    timer_ = nullptr;
    release();
  });
}

} // namespace progsim::mpi
