#include "mpi/WaitInKernel.hpp"
#include "sched/ActorParking.hpp"
#include "mpi/World.hpp"

#include <utility>

namespace progsim::mpi {

bool WaitInKernel::run(const RequestPtr& request, double call_seconds, std::function<void()> blocked)
{
  request_    = request;
  rank_actor_ = sched::parking::caller();
  if (not steps_)
    steps_.emplace(endpoint_.own_runner_, rank_actor_);
  over_      = false;
  for_actor_ = false;
  blocked_   = std::move(blocked);
  if (call_seconds > 0)
    endpoint_.world_.start_cpu(endpoint_.host_, call_seconds, call_paid_);
  else
    call_paid();
  if (not over_) {
    parked_ = true;
    sched::parking::park();
    parked_ = false;
  }
  request_.reset();
  return not for_actor_;
}

void WaitInKernel::call_paid()
{
  if (blocked_) {
    if (request_->complete()) {
      end();
      return;
    }
    std::exchange(blocked_, nullptr)();
  }
  look();
}

void WaitInKernel::look()
{
  steps_->run(endpoint_, [this](bool for_actor) { steps_ran(for_actor); });
}

void WaitInKernel::steps_ran(bool for_actor)
{
  if (for_actor || request_->complete()) {
    for_actor_ = for_actor;
    end();
    return;
  }
  double next = endpoint_.next_ready(endpoint_.own_runner_);
  if (next <= endpoint_.clock()) { // ready meanwhile
    look();
    return;
  }
  // Nothing is ready: the rank polls its core until rung (a request done, new work) or until the next arrival.
  endpoint_.rank_waiting_ = true;
  endpoint_.start_polling();
  if (endpoint_.wakeup_.wait_then(next, [this]() {
        stop_polling();
        look();
      }))
    return;
  stop_polling(); // it rang meanwhile
  look();
}

void WaitInKernel::stop_polling()
{
  endpoint_.rank_waiting_ = false;
  endpoint_.stop_polling();
}

void WaitInKernel::end()
{
  over_ = true;
  if (parked_)
    sched::parking::resume(rank_actor_);
}

} // namespace progsim::mpi
