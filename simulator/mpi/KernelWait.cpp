#include "mpi/KernelWait.hpp"
#include "mpi/ActorParking.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <xbt/asserts.h>
#include <xbt/log.h>

#include <utility>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(progsim_kernel_wait, progsim, "Rank waits whose steps the kernel runs");

namespace sg4 = simgrid::s4u;

namespace progsim::mpi {

bool KernelWait::run(const RequestPtr& request, double call_seconds, std::function<void()> blocked)
{
  request_    = request;
  rank_actor_ = parking::caller();
  over_       = false;
  for_actor_  = false;
  blocked_    = std::move(blocked);
  if (call_seconds > 0)
    endpoint_.world_.start_cpu(endpoint_.host_, call_seconds, call_paid_);
  else
    call_paid();
  if (not over_) {
    parked_ = true;
    parking::park();
    parked_ = false;
  }
  request_.reset();
  return not for_actor_;
}

void KernelWait::call_paid()
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

bool KernelWait::runs_in_kernel(const Endpoint::Followed& followed) const
{
  if (followed.in_collective)
    return false;
  // An envelope's step also matches the envelopes held back behind it, of any context.
  const Message* message = followed.message;
  bool envelope = message != nullptr && (message->kind == Message::Kind::Eager ||
                                         message->kind == Message::Kind::RequestToSend);
  return not envelope || endpoint_.early_.empty();
}

void KernelWait::look()
{
  World& world = endpoint_.world_;
  while (true) {
    Endpoint::Followed* ready = endpoint_.first_ready(endpoint_.own_runner_);
    if (ready != nullptr) {
      if (not runs_in_kernel(*ready)) {
        for_actor_ = true;
        end();
        return;
      }
      XBT_VERB("rank %d: the kernel runs its step in its wait", endpoint_.rank_);
      step_.emplace(endpoint_.take(ready));
      if (start_work())
        return; // work_done() goes on
      take_effect(step_->on_done);
      if (copies_in_effect_ > 0)
        return; // step_over() goes on
      close_step();
      continue;
    }
    if (request_->complete()) {
      end();
      return;
    }
    double next = endpoint_.next_ready(endpoint_.own_runner_);
    if (next <= endpoint_.clock())
      continue;
    // Nothing is ready: the rank polls its core until rung (a request done, new work) or until the next arrival.
    endpoint_.rank_waiting_ = true;
    if (world.set_polling(endpoint_, true))
      poll_load_ = world.cores_of(endpoint_.host_).start_load(endpoint_.host_->get_speed(), 1);
    if (endpoint_.wakeup_.wait_then(next, [this]() {
          stop_polling();
          look();
        }))
      return;
    stop_polling(); // it rang meanwhile
  }
}

void KernelWait::stop_polling()
{
  World& world            = endpoint_.world_;
  endpoint_.rank_waiting_ = false;
  if (poll_load_)
    world.cores_of(endpoint_.host_).stop_load(*poll_load_);
  poll_load_.reset();
  world.set_polling(endpoint_, false);
}

bool KernelWait::start_work()
{
  // What RankRunner::execute does, with the kernel waiting instead of the rank's actor.
  const Endpoint::Followed& step = *step_;
  const StepWork& work           = step.work;
  serial_ = endpoint_.step_begins(endpoint_.own_runner_, step.step, work, step.about, step.origin_time,
                                  step.origin_actor, step.arrival_time);
  outer_copied_          = endpoint_.step_copied_;
  endpoint_.step_copied_ = work.copy_bytes;
  endpoint_.add_step_seconds(work.cpu_seconds);
  World& world = endpoint_.world_;
  if (work.copy_bytes > 0) {
    double seconds = world.copy_seconds(work.copy_bytes);
    endpoint_.copy_seconds_ += seconds;
    if (seconds > 0) {
      CoreCopy& copy = fresh_copy();
      copy.done      = work_done_;
      world.start_copy(endpoint_.rank_, work.copy_bytes, work.cpu_seconds, copy);
      return true;
    }
  }
  if (work.cpu_seconds > 0) {
    world.start_cpu(endpoint_.host_, work.cpu_seconds, work_done_);
    return true;
  }
  return false;
}

void KernelWait::work_done()
{
  take_effect(step_->on_done);
  if (copies_in_effect_ == 0)
    step_over();
}

void KernelWait::take_effect(const std::function<void()>& effect)
{
  StepRunner* outer      = endpoint_.running_;
  endpoint_.running_     = &endpoint_.own_runner_;
  endpoint_.kernel_step_ = true;
  effect();
  endpoint_.kernel_step_ = false;
  endpoint_.running_     = outer;
}

void KernelWait::copy_then(int64_t bytes, const std::function<void()>& then)
{
  World& world   = endpoint_.world_;
  double seconds = world.copy_seconds(bytes);
  endpoint_.copy_seconds_ += seconds;
  if (seconds <= 0) { // nothing to wait for: the effect goes on at once
    then();
    return;
  }
  xbt_assert(copies_in_effect_ == 0, "a step's effect copies once at a time");
  copies_in_effect_++;
  then_          = then;
  CoreCopy& copy = fresh_copy();
  copy.done      = [this]() {
    copies_in_effect_--;
    std::function<void()> then = std::move(then_); // it may copy again, and set then_ anew
    take_effect(then);
    if (copies_in_effect_ == 0)
      step_over();
  };
  world.start_copy(endpoint_.rank_, bytes, 0, copy);
}

void KernelWait::step_over()
{
  close_step();
  look();
}

void KernelWait::close_step()
{
  endpoint_.step_ends(serial_);
  endpoint_.step_copied_ = outer_copied_;
  step_.reset();
}

CoreCopy& KernelWait::fresh_copy()
{
  // The copy whose end calls this may be the current one: it is kept, and the one before it goes.
  spent_copy_ = std::move(copy_);
  copy_       = std::make_unique<CoreCopy>();
  return *copy_;
}

void KernelWait::end()
{
  over_ = true;
  if (parked_)
    parking::resume(rank_actor_);
}

} // namespace progsim::mpi
