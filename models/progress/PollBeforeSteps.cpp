#include "progress/PollBeforeSteps.hpp"
#include "sched/ActorParking.hpp"
#include "mpi/Endpoint.hpp"
#include "sched/Timers.hpp"
#include "mpi/World.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <cmath>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(progsim_thread);

namespace sg4 = simgrid::s4u;

namespace progsim::models::progress {

/** The next multiple of `period` at or after now (now itself when period is 0). */
double next_tick(double period)
{
  double now = sg4::Engine::get_clock();
  return period > 0 ? std::ceil(now / period) * period : now;
}

void PollBeforeSteps::look_for_core()
{
  if (not settings_.spare_core && busy()) {
    double now = sg4::Engine::get_clock();
    if (waiting_until_ < 0) {
      double slice = next_tick(settings_.sched_quantum);
      XBT_VERB("rank %d's thread: every core of %s is held by a rank; waits for the slice at %g s",
               endpoint_->rank(), endpoint_->host()->get_cname(), slice);
      if (now < slice) {
        waiting_until_ = slice;
        queue_.waiting.push_back(this);
        slice_end_.at(slice, [this]() { look_for_core(); });
        return;
      }
    } else if (now < waiting_until_) {
      return; // still every core held: on until the slice ends
    }
  }
  if (waiting_until_ >= 0) { // it has a core
    waiting_until_ = -1;
    queue_.waiting.erase(std::find(queue_.waiting.begin(), queue_.waiting.end(), this));
    slice_end_.clear();
  }
  poll();
}

void CoreQueue::core_freed() const
{
  for (auto* thread : waiting)
    thread->core_freed();
}

} // namespace progsim::models::progress
