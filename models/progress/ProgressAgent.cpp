#include "progress/ProgressAgent.hpp"
#include "sched/ActorParking.hpp"
#include "mpi/Endpoint.hpp"
#include "mpi/World.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <utility>

namespace sg4 = simgrid::s4u;

namespace progsim::models::progress {

namespace {
// A reserved core's load is served before any rank's computation: max-min sharing gives each execution a share
// in proportion to its priority, up to its bound, so the load takes its whole core and the ranks share the rest.
constexpr double kAheadOfRanks = 1e6;
} // namespace

void ProgressAgent::keep_load()
{
  bool wanted = reserved_bound_ > 0 && not load_paused_ && not stopping_;
  if (wanted && not load_) {
    load_ = reserved_on_->start_load(reserved_bound_, kAheadOfRanks);
  } else if (not wanted && load_) {
    reserved_on_->stop_load(*load_);
    load_.reset();
  }
}

mpi::Endpoint* ProgressAgent::ready_endpoint(double& next_ready)
{
  // The endpoint whose transfer ended first while the agent waited (even if its rank ran the step first: the agent
  // woke for it all the same), then the others in their order, as a wait on all their transfers would find them.
  if (mpi::Endpoint* rung = std::exchange(first_rung_, nullptr))
    return rung;
  next_ready       = sched::Wakeup::kNoDate;
  const double now = sg4::Engine::get_clock();
  for (size_t i = 0; i < endpoints_.size(); i++) {
    if (ready_by_[i] <= now) // something may be ready: look
      ready_by_[i] = endpoints_[i]->next_ready(*this);
    if (ready_by_[i] <= now)
      return endpoints_[i];
    next_ready = std::min(next_ready, ready_by_[i]);
  }
  return nullptr;
}

void ProgressAgent::operator()()
{
  if (runs_from_kernel() && not endpoints_.empty() && endpoints_.front()->world().parameters().steps_in_kernel) {
    actor_ = sched::parking::caller();
    steps_.emplace(*this, actor_);
  }
  while (not stopping_) {
    if (steps_) {
      if (mpi::Endpoint* ready = loop_in_kernel())
        ready->progress(*this); // a step only an actor can run, and those after it
      continue;
    }
    keep_load(); // CPU this agent takes from the ranks while some rank runs
    double next_ready    = sched::Wakeup::kNoDate;
    mpi::Endpoint* ready = ready_endpoint(next_ready);
    if (ready == nullptr) {
      // Nothing yields from the look above to the wait: work ready later finds the agent waiting and rings.
      waiting_ = true;
      wakeup_.wait_until(next_ready);
      waiting_ = false;
      ring_due_endpoint();
      continue; // look again
    }
    // Only that endpoint: the others' ready steps are found at the next look, at once.
    before_steps();
    ready->progress(*this);
  }
  keep_load();
}

mpi::Endpoint* ProgressAgent::loop_in_kernel()
{
  loop_over_      = false;
  left_for_actor_ = nullptr;
  look_from_kernel();
  if (not loop_over_) {
    parked_ = true;
    sched::parking::park();
    parked_ = false;
  }
  return left_for_actor_;
}

void ProgressAgent::look_from_kernel()
{
  // The actor's loop, step for step.
  while (not stopping_) {
    keep_load();
    double next_ready    = sched::Wakeup::kNoDate;
    mpi::Endpoint* ready = ready_endpoint(next_ready);
    if (ready == nullptr) {
      waiting_ = true;
      // Woken, it looks where its actor would: after the kernel's events of that date.
      if (wakeup_.wait_then(next_ready, [this]() {
            endpoints_.front()->world().actor_round().at(sg4::Engine::get_clock(), [this]() {
              waiting_ = false;
              ring_due_endpoint();
              look_from_kernel();
            });
          }))
        return;
      waiting_ = false;
      continue;
    }
    start_before_steps(*ready, [this, ready]() {
      steps_->run(*ready, [this, ready](bool for_actor) {
        if (for_actor)
          kernel_loop_over(ready);
        else // where the agent's actor would look again: after the kernel's events of this date
          ready->world().actor_round().at(sg4::Engine::get_clock(), [this]() { look_from_kernel(); });
      });
    });
    return;
  }
  kernel_loop_over(nullptr);
}

void ProgressAgent::kernel_loop_over(mpi::Endpoint* for_actor)
{
  loop_over_      = true;
  left_for_actor_ = for_actor;
  if (parked_)
    sched::parking::resume(actor_);
}

void ProgressAgent::pause_load(bool paused)
{
  load_paused_ = paused;
  wakeup_.ring(); // the agent looks again, and starts or cancels its load
}

void ProgressAgent::stop()
{
  stopping_ = true;
  wakeup_.ring();
}

void ProgressAgent::ring(mpi::Endpoint& endpoint)
{
  ready_by(endpoint) = -sched::Wakeup::kNoDate;
  if (not waiting_) // otherwise the agent looks at its endpoints anew before it waits
    return;
  if (first_rung_ == nullptr)
    first_rung_ = &endpoint;
  wakeup_.ring();
}

void ProgressAgent::ring_due_endpoint()
{
  if (first_rung_ != nullptr)
    return;
  const double now = sg4::Engine::get_clock();
  for (size_t i = 0; i < endpoints_.size(); i++)
    if (ready_by_[i] <= now) {
      first_rung_ = endpoints_[i];
      return;
    }
}

void ProgressAgent::expect(mpi::Endpoint& endpoint, double date)
{
  double& earliest = ready_by(endpoint);
  earliest         = std::min(earliest, date);
  if (waiting_)
    wakeup_.wake_by(date);
}

} // namespace progsim::models::progress
