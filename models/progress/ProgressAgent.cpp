#include "progress/ProgressAgent.hpp"
#include "mpi/Endpoint.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <limits>

namespace sg4 = simgrid::s4u;

namespace progsim::models::progress {

namespace {
// A reserved core's load is served before any rank's computation: max-min sharing gives each execution a share
// in proportion to its priority, up to its bound, so the load takes its whole core and the ranks share the rest.
constexpr double kAheadOfRanks = 1e6;
} // namespace

void ProgressAgent::keep_load()
{
  // The agent starts and cancels its load itself: SimGrid 3.32 cannot suspend an execution it resumed once.
  bool wanted = reserved_bound_ > 0 && not load_paused_ && not stopping_;
  if (wanted && not load_) {
    load_ = sg4::this_actor::exec_init(1e300);
    load_->set_bound(reserved_bound_);
    if (reserved_ahead_)
      load_->set_priority(kAheadOfRanks * reserved_loads_);
    else if (reserved_loads_ > 1)
      load_->set_priority(reserved_loads_);
    load_->start();
  } else if (not wanted && load_) {
    load_->cancel();
    load_ = nullptr;
  }
}

void ProgressAgent::operator()()
{
  std::vector<sg4::ActivityPtr> watched;
  std::vector<mpi::Endpoint*> owner; // of each watched activity
  while (not stopping_) {
    keep_load(); // CPU this agent takes from the ranks while some rank runs
    // The bell is spent only when it rang: otherwise the same one keeps waiting.
    bool woken_by_bell   = not doorbell_.arm() || stopping_;
    mpi::Endpoint* ready = nullptr;
    if (not woken_by_bell) {
      // From here to the wait nothing yields: work added later finds the agent waiting and rings.
      waiting_ = true;
      watched.assign(1, doorbell_.activity());
      owner.assign(1, nullptr);
      double next_arrival = std::numeric_limits<double>::infinity();
      for (auto* endpoint : endpoints_) {
        next_arrival = std::min(next_arrival, endpoint->add_activities(watched, *this));
        owner.resize(watched.size(), endpoint);
      }
      if (next_arrival <= sg4::Engine::get_clock()) {
        // A control message arrived while the agent ran steps: the first endpoint with anything ready, as a wait
        // on the endpoints' transfers, in their order, would find it.
        waiting_ = false;
        ready    = *std::find_if(endpoints_.begin(), endpoints_.end(),
                                 [this](const mpi::Endpoint* endpoint) { return endpoint->has_ready(*this); });
      } else {
        ssize_t ended = mpi::wait_until(watched, next_arrival);
        waiting_      = false;
        if (ended < 0) // a control message arrives now: look again
          continue;
        ready         = owner[ended];
        woken_by_bell = ready == nullptr;
      }
    }
    if (woken_by_bell) { // new work to follow: look again
      doorbell_.spent();
      continue;
    }
    // Only the endpoint whose activity ended: the others' ready activities end the next wait at once.
    before_steps();
    ready->progress(*this);
  }
  doorbell_.cancel();
  keep_load();
}

void ProgressAgent::pause_load(bool paused)
{
  load_paused_ = paused;
  doorbell_.ring(); // the agent looks again, and starts or cancels its load
}

void ProgressAgent::stop()
{
  stopping_ = true;
  doorbell_.ring();
}

void ProgressAgent::ring(mpi::Endpoint&)
{
  if (waiting_) // otherwise the agent looks at its endpoints' activities anew before it waits
    doorbell_.ring();
}

} // namespace progsim::models::progress
