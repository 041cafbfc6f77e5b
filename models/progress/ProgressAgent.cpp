#include "progress/ProgressAgent.hpp"
#include "mpi/Endpoint.hpp"

#include <simgrid/s4u/Actor.hpp>

namespace sg4 = simgrid::s4u;

namespace progsim::models::progress {

void ProgressAgent::operator()()
{
  sg4::Actor::self()->daemonize();
  for (auto* endpoint : endpoints_)
    endpoint->set_listener(sg4::Actor::self());
  while (true) {
    doorbell_ = sg4::this_actor::exec_init(1.0);
    doorbell_->start();
    doorbell_->suspend();
    std::vector<sg4::ActivityPtr> watched{doorbell_};
    for (auto* endpoint : endpoints_)
      for (auto& activity : endpoint->activities())
        watched.push_back(activity);
    ssize_t which = sg4::Activity::wait_any(watched);
    if (which != 0) {
      doorbell_->cancel();
      if (before_steps_)
        before_steps_();
    }
    doorbell_ = nullptr;
    for (auto* endpoint : endpoints_)
      endpoint->progress();
  }
}

void ProgressAgent::ring()
{
  if (doorbell_ && doorbell_->is_suspended())
    doorbell_->resume();
}

sg4::ExecPtr start_background_load(double bound)
{
  auto load = sg4::this_actor::exec_init(1e300);
  load->set_bound(bound);
  load->start();
  return load;
}

} // namespace progsim::models::progress
