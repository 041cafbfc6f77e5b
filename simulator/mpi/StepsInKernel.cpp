#include "mpi/StepsInKernel.hpp"
#include "mpi/StepRunPool.hpp"

#include <xbt/asserts.h>
#include <xbt/log.h>

#include <optional>
#include <utility>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(progsim_kernel_steps, progsim, "Protocol steps run by the kernel");

namespace progsim::mpi {

/** What one run of steps keeps while it goes on (StepRunPool lends it). */
struct StepRunState {
  Endpoint* endpoint = nullptr;
  std::function<void(bool)> then; // what comes once the run is over
  // The step being run: its followed transfer (its effect lives there), its serial for timelines, the bytes the
  // endpoint's runner had copied before it, and the copies its effect started.
  std::optional<Endpoint::Followed> step;
  uint64_t serial      = 0;
  int64_t outer_copied = 0;
  int copies_in_effect = 0;
  // Two copies' state in turn: the one whose end runs the next step lives on while the other serves.
  CoreCopy copies[2];
  CoreCopy* copy       = &copies[0];
  CoreCopy* spent_copy = &copies[1];
  std::function<void()> then_copy; // what an effect does once its copy is done
};

StepRunPool::StepRunPool()  = default;
StepRunPool::~StepRunPool() = default;

StepRunState& StepRunPool::borrow()
{
  if (idle_.empty())
    return *all_.emplace_back(std::make_unique<StepRunState>());
  StepRunState* run = idle_.back();
  idle_.pop_back();
  return *run;
}

void StepRunPool::give_back(StepRunState& run)
{
  idle_.push_back(&run);
}

void StepsInKernel::run(Endpoint& endpoint, std::function<void(bool)> then)
{
  xbt_assert(run_ == nullptr, "one run of a runner's steps at a time");
  run_           = &endpoint.world().step_run_pool().borrow();
  run_->endpoint = &endpoint;
  run_->then     = std::move(then);
  next();
}

bool StepsInKernel::runs_in_kernel(const Endpoint::Followed& followed) const
{
  const Endpoint& endpoint = *run_->endpoint;
  if (followed.in_collective || endpoint.clock_.ahead())
    return false;
  // An envelope's step also matches the envelopes held back behind it, of any context.
  const Message* message = followed.message;
  bool envelope = message != nullptr && (message->kind == Message::Kind::Eager ||
                                         message->kind == Message::Kind::RequestToSend);
  return not envelope || endpoint.early_.empty();
}

void StepsInKernel::next()
{
  while (true) {
    Endpoint& endpoint        = *run_->endpoint;
    Endpoint::Followed* ready = endpoint.first_ready(runner_);
    if (ready == nullptr || not runs_in_kernel(*ready)) {
      finish(ready != nullptr);
      return;
    }
    XBT_VERB("rank %d: the kernel runs a step for %s", endpoint.rank_, actor_->get_cname());
    run_->step.emplace(endpoint.take(ready));
    if (start_work())
      return; // work_done() goes on
    take_effect(run_->step->on_done);
    if (run_->copies_in_effect > 0)
      return; // step_over() goes on
    close_step();
  }
}

void StepsInKernel::finish(bool for_actor)
{
  // Nothing reads the run's state after this: what called finish() only returns. `then` may run steps again.
  std::function<void(bool)> then = std::move(run_->then);
  run_->endpoint->world().step_run_pool().give_back(*run_);
  run_ = nullptr;
  then(for_actor);
}

bool StepsInKernel::start_work()
{
  StepRunState& run                 = *run_;
  Endpoint& endpoint             = *run.endpoint;
  const Endpoint::Followed& step = *run.step;
  const simgrid::s4u::Actor* outer_actor = std::exchange(endpoint.kernel_actor_, actor_);
  run.serial = endpoint.step_begins(runner_, step.step, step.work, step.origin.get());
  endpoint.kernel_actor_ = outer_actor;
  run.outer_copied       = endpoint.step_copied_;
  endpoint.step_copied_  = step.work.copy_bytes;
  CoreCopy& work = fresh_copy();
  work.done      = [this]() { work_done(); };
  return runner_.start(endpoint, step.work, work);
}

void StepsInKernel::work_done()
{
  take_effect(run_->step->on_done);
  if (run_->copies_in_effect == 0)
    step_over();
}

void StepsInKernel::take_effect(const std::function<void()>& effect)
{
  Endpoint& endpoint        = *run_->endpoint;
  StepRunner* outer_runner  = std::exchange(endpoint.running_, &runner_);
  StepsInKernel* outer_steps  = std::exchange(endpoint.steps_in_kernel_, this);
  const simgrid::s4u::Actor* outer_actor = std::exchange(endpoint.kernel_actor_, actor_);
  effect();
  endpoint.kernel_actor_ = outer_actor;
  endpoint.steps_in_kernel_ = outer_steps;
  endpoint.running_      = outer_runner;
}

void StepsInKernel::copy_then(int64_t bytes, std::function<void()> then)
{
  xbt_assert(run_->copies_in_effect == 0, "a step's effect copies once at a time");
  CoreCopy& copy = fresh_copy();
  copy.done      = [this]() {
    run_->copies_in_effect--;
    std::function<void()> rest = std::move(run_->then_copy); // it may copy again, and set then_copy anew
    take_effect(rest);
    if (run_->copies_in_effect == 0)
      step_over();
  };
  if (not runner_.start(*run_->endpoint, StepWork{0, bytes}, copy)) { // no time: the effect goes on at once
    then();
    return;
  }
  run_->copies_in_effect++;
  run_->then_copy = std::move(then);
}

void StepsInKernel::step_over()
{
  close_step();
  next();
}

void StepsInKernel::close_step()
{
  StepRunState& run = *run_;
  run.endpoint->step_ends(run.serial);
  run.endpoint->step_copied_ = run.outer_copied;
  run.step.reset();
}

CoreCopy& StepsInKernel::fresh_copy()
{
  // The copy whose end calls this may be the current one: it is kept, and the one before it, long over, serves again
  // (a step's state without an allocation).
  StepRunState& run = *run_;
  std::swap(run.copy, run.spent_copy);
  run.copy->bus         = resources::BusTraffic{}; // its flows ended: nobody holds them any more
  run.copy->start_flows = nullptr;
  return *run.copy;
}

} // namespace progsim::mpi
