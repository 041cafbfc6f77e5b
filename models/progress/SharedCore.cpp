#include "progress/SharedCore.hpp"

#include <xbt/log.h>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(progsim_thread);

namespace progsim::models::progress {

void SharedCore::give_core_until(double end)
{
  XBT_DEBUG("the thread has the rank's core until %g s", end);
  given_ += end - simgrid::s4u::Engine::get_clock();
  pause_.until(end);
}

} // namespace progsim::models::progress
