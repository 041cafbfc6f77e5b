#include "progress/ProgressAgent.hpp"
#include "mpi/Endpoint.hpp"

#include <simgrid/s4u/Actor.hpp>

namespace sg4 = simgrid::s4u;

namespace progsim::models::progress {

void ProgressAgent::operator()()
{
  // CPU this agent takes from the ranks for the whole run: busy polling, or cores set aside.
  for (int i = 0; i < reserved_cores_; i++) {
    auto load = sg4::this_actor::exec_init(1e300);
    load->set_bound(reserved_bound_);
    load->start();
    if (load_paused_)
      load->suspend();
    loads_.push_back(load);
  }
  std::vector<sg4::ActivityPtr> watched;
  std::vector<mpi::Endpoint*> owner; // of each watched activity
  while (not stopping_) {
    // The bell is spent only when it rang: otherwise the same one keeps waiting.
    bool woken_by_bell   = not doorbell_.arm() || stopping_;
    mpi::Endpoint* ready = nullptr;
    if (not woken_by_bell) {
      // From here to the wait nothing yields: work added later finds the agent waiting and rings.
      waiting_ = true;
      watched.assign(1, doorbell_.activity());
      owner.assign(1, nullptr);
      for (auto* endpoint : endpoints_) {
        endpoint->add_activities(watched);
        owner.resize(watched.size(), endpoint);
      }
      ready         = owner[sg4::Activity::wait_any(watched)];
      waiting_      = false;
      woken_by_bell = ready == nullptr;
    }
    if (woken_by_bell) { // new work to follow: look again
      doorbell_.spent();
      continue;
    }
    // Only the endpoint whose activity ended: the others' ready activities end the next wait at once.
    if (before_steps_)
      before_steps_();
    ready->progress();
    if (after_steps_)
      after_steps_();
  }
  doorbell_.cancel();
  for (auto& load : loads_)
    load->cancel();
  loads_.clear();
}

void ProgressAgent::pause_load(bool paused)
{
  load_paused_ = paused;
  for (auto& load : loads_) {
    if (paused && not load->is_suspended())
      load->suspend();
    else if (not paused && load->is_suspended())
      load->resume();
  }
}

void ProgressAgent::stop()
{
  stopping_ = true;
  doorbell_.ring();
}

void ProgressAgent::ring()
{
  if (waiting_) // otherwise the agent looks at its endpoints' activities anew before it waits
    doorbell_.ring();
}

} // namespace progsim::models::progress
