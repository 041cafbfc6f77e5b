#include "mpi/KernelSteps.hpp"

#include <xbt/asserts.h>
#include <xbt/log.h>

#include <utility>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(progsim_kernel_steps, progsim, "Protocol steps run by the kernel");

namespace progsim::mpi {

void KernelSteps::run(Endpoint& endpoint, std::function<void(bool)> then)
{
  endpoint_ = &endpoint;
  then_run_ = std::move(then);
  next();
}

bool KernelSteps::runs_in_kernel(const Endpoint::Followed& followed) const
{
  if (followed.in_collective || endpoint_->clock_.ahead())
    return false;
  // An envelope's step also matches the envelopes held back behind it, of any context.
  const Message* message = followed.message;
  bool envelope = message != nullptr && (message->kind == Message::Kind::Eager ||
                                         message->kind == Message::Kind::RequestToSend);
  return not envelope || endpoint_->early_.empty();
}

void KernelSteps::next()
{
  while (true) {
    Endpoint::Followed* ready = endpoint_->first_ready(runner_);
    if (ready == nullptr || not runs_in_kernel(*ready)) {
      finish(ready != nullptr);
      return;
    }
    XBT_VERB("rank %d: the kernel runs a step for %s", endpoint_->rank_, actor_->get_cname());
    step_.emplace(endpoint_->take(ready));
    if (start_work())
      return; // work_done() goes on
    take_effect(step_->on_done);
    if (copies_in_effect_ > 0)
      return; // step_over() goes on
    close_step();
  }
}

void KernelSteps::finish(bool for_actor)
{
  std::function<void(bool)> then = std::move(then_run_); // it may run steps again
  then(for_actor);
}

bool KernelSteps::start_work()
{
  const Endpoint::Followed& step = *step_;
  const simgrid::s4u::Actor* outer_actor = std::exchange(endpoint_->kernel_actor_, actor_);
  serial_ = endpoint_->step_begins(runner_, step.step, step.work, step.about, step.origin_time, step.origin_actor,
                                   step.arrival_time);
  endpoint_->kernel_actor_ = outer_actor;
  outer_copied_            = endpoint_->step_copied_;
  endpoint_->step_copied_  = step.work.copy_bytes;
  CoreCopy& work = fresh_copy();
  work.done      = work_done_;
  return runner_.start(*endpoint_, step.work, work);
}

void KernelSteps::work_done()
{
  take_effect(step_->on_done);
  if (copies_in_effect_ == 0)
    step_over();
}

void KernelSteps::take_effect(const std::function<void()>& effect)
{
  StepRunner* outer_runner  = std::exchange(endpoint_->running_, &runner_);
  KernelSteps* outer_steps  = std::exchange(endpoint_->kernel_steps_, this);
  const simgrid::s4u::Actor* outer_actor = std::exchange(endpoint_->kernel_actor_, actor_);
  effect();
  endpoint_->kernel_actor_ = outer_actor;
  endpoint_->kernel_steps_ = outer_steps;
  endpoint_->running_      = outer_runner;
}

void KernelSteps::copy_then(int64_t bytes, std::function<void()> then)
{
  xbt_assert(copies_in_effect_ == 0, "a step's effect copies once at a time");
  CoreCopy& copy = fresh_copy();
  copy.done      = [this]() {
    copies_in_effect_--;
    std::function<void()> rest = std::move(then_copy_); // it may copy again, and set then_copy_ anew
    take_effect(rest);
    if (copies_in_effect_ == 0)
      step_over();
  };
  if (not runner_.start(*endpoint_, StepWork{0, bytes}, copy)) { // no time: the effect goes on at once
    then();
    return;
  }
  copies_in_effect_++;
  then_copy_ = std::move(then);
}

void KernelSteps::step_over()
{
  close_step();
  next();
}

void KernelSteps::close_step()
{
  endpoint_->step_ends(serial_);
  endpoint_->step_copied_ = outer_copied_;
  step_.reset();
}

CoreCopy& KernelSteps::fresh_copy()
{
  // The copy whose end calls this may be the current one: it is kept, and the one before it, long over, serves again
  // (a step's state without an allocation).
  std::swap(copy_, spent_copy_);
  if (not copy_)
    copy_ = std::make_unique<CoreCopy>();
  copy_->bus = BusTraffic{}; // its flows ended: nobody holds them any more
  copy_->start_flows = nullptr;
  return *copy_;
}

} // namespace progsim::mpi
