#include "mpi/TimedPause.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

namespace sg4 = simgrid::s4u;

namespace progsim::mpi {

void TimedPause::pass(double seconds)
{
  if (seconds > 0)
    until(sg4::Engine::get_clock() + seconds);
}

void TimedPause::until(double date)
{
  if (date <= sg4::Engine::get_clock())
    return;
  sg4::Semaphore& semaphore = semaphores_.of_caller();
  auto [ending, first] = ending_.try_emplace(date);
  ending->second.push_back(&semaphore);
  if (first) // the timer runs in SimGrid's kernel, where releasing is a plain call
    simgrid::kernel::timer::Timer::set(date, [this, date]() {
      auto due = ending_.extract(date);
      for (auto const& paused : due.mapped())
        paused->release();
    });
  semaphore.acquire();
}

} // namespace progsim::mpi
