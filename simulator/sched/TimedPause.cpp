#include "sched/TimedPause.hpp"
#include "sched/ActorParking.hpp"
#include "sched/Timers.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

namespace sg4 = simgrid::s4u;

namespace progsim::sched {

void TimedPause::pass(double seconds)
{
  if (seconds > 0)
    until(sg4::Engine::get_clock() + seconds);
}

void TimedPause::until(double date)
{
  if (date <= sg4::Engine::get_clock())
    return;
  auto [ending, first] = ending_.try_emplace(date);
  ending->second.push_back(parking::caller());
  if (first)
    timers::set(date, [this, date]() {
      auto due = ending_.extract(date);
      for (auto* paused : due.mapped())
        parking::resume(paused);
    });
  parking::park();
}

} // namespace progsim::sched
