/* An endpoint's followed transfers and the protocol steps their ends call for: who hears that a step is ready, which
 * step runs first, running one (its runner's time, then its effect; timelines see it begin and end), and the rank as
 * the runner of its own steps. Posting, messages and matching: Endpoint.cpp; the rank's waits and tests:
 * EndpointWaits.cpp. */
#include "mpi/Endpoint.hpp"
#include "mpi/StepsInKernel.hpp"
#include "mpi/World.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <xbt/asserts.h>
#include <xbt/log.h>

#include <algorithm>
#include <stdexcept>
#include <string>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(progsim_protocol);

namespace sg4 = simgrid::s4u;

namespace progsim::mpi {

void RankRunner::execute(Endpoint& endpoint, const StepWork& work)
{
  endpoint.spend(work.cpu_seconds, work.copy_bytes);
  endpoint.add_step_seconds(work.cpu_seconds);
}

bool RankRunner::start(Endpoint& endpoint, const StepWork& work, CoreCopy& state)
{
  endpoint.add_step_seconds(work.cpu_seconds);
  return endpoint.start_copy(work.copy_bytes, true, work.cpu_seconds, state, endpoint.host());
}

bool StepRunner::start(Endpoint&, const StepWork&, CoreCopy&)
{
  throw std::logic_error("this runner's steps run in its actor only");
}

void RankRunner::ring(Endpoint& endpoint)
{
  endpoint.notify_rank();
}

void RankRunner::expect(Endpoint& endpoint, double date)
{
  endpoint.rank_expects(date);
}

void Endpoint::follow(const Transfer& transfer, Step step, const StepMessage& message, Callback on_done,
                      bool in_collective)
{
  follow_by(world_.progress().runner(*this, step, message.peer), transfer, step, std::move(on_done), in_collective,
            message);
}

void Endpoint::follow(const Transfer& transfer, const Request& request, Step step, const StepMessage& message,
                      Callback on_done)
{
  auto& progress = world_.progress();
  follow_by(request.collective != nullptr ? progress.collective_runner(*this, step, message.peer)
                                          : progress.runner(*this, step, message.peer),
            transfer, step, std::move(on_done), request.collective != nullptr, message);
}

void Endpoint::follow_by(StepRunner& runner, const Transfer& transfer, Step step, Callback on_done,
                         bool in_collective, const StepMessage& message)
{
  Followed followed{transfer.wire, transfer.memory, step, StepWork{world_.progress().costs().step_overhead, 0},
                    &runner, std::move(on_done)};
  followed.arrives       = transfer.arrives;
  followed.in_collective = in_collective;
  describe(followed, message);
  add_followed(std::move(followed));
}

void Endpoint::describe(Followed& followed, const StepMessage& message) const
{
  if (not world_.observes_steps())
    return;
  followed.origin = std::make_unique<StepOrigin>(StepOrigin{message, clock(), actor_name()});
}

void Endpoint::add_followed(Followed followed)
{
  followed_.push_back(std::move(followed));
  announce(followed_.back());
}

void Endpoint::announce(const Followed& followed)
{
  StepRunner& runner = *followed.runner;
  if (followed.activity) { // its end rings them
    world_.transfers().on_end(followed.activity, [this, &runner]() { transfer_ended(runner); });
    return;
  }
  runner.expect(*this, followed.arrives);
  if (&runner != &own_runner_ && world_.progress().rank_also_runs(runner))
    own_runner_.expect(*this, followed.arrives);
}

void Endpoint::transfer_ended(StepRunner& runner)
{
  runner.ring(*this);
  if (&runner != &own_runner_ && world_.progress().rank_also_runs(runner))
    own_runner_.ring(*this);
}

bool Endpoint::handles(const StepRunner& runner, const StepRunner& assigned) const
{
  return &runner == &assigned || (&runner == &own_runner_ && world_.progress().rank_also_runs(assigned));
}

std::string_view step_name(Step step)
{
  switch (step) {
    case Step::Envelope:
      return "match";
    case Step::RequestToSend:
      return "match-rendezvous";
    case Step::ClearToSend:
      return "clear-to-send";
    case Step::Finish:
      return "finish";
    case Step::TransferDone:
      return "transfer-done";
  }
  return "?";
}

void Endpoint::run_step(StepRunner& runner, Step step, const StepWork& work, const Callback& effect,
                        const StepOrigin* origin)
{
  uint64_t serial      = step_begins(runner, step, work, origin);
  int64_t outer_copied = step_copied_;
  step_copied_         = work.copy_bytes;
  runner.execute(*this, work); // the step's time passes before its effect
  StepRunner* outer = running_;
  running_          = &runner;
  effect();
  running_ = outer;
  step_ends(serial);
  step_copied_ = outer_copied;
}

uint64_t Endpoint::step_begins(const StepRunner& runner, Step step, const StepWork& work, const StepOrigin* origin)
{
  XBT_VERB("rank %d: %s step by %s (%g s CPU, %lld B copied)", rank_, std::string(step_name(step)).c_str(),
            std::string(runner.name()).c_str(), work.cpu_seconds, static_cast<long long>(work.copy_bytes));
  if (not world_.observes_steps())
    return 0;
  static const StepOrigin unknown;
  const StepOrigin& from = origin != nullptr ? *origin : unknown;
  return world_.step_started(StepEvent{0, rank_, clock(), step, runner.name(), actor_name(), work.cpu_seconds,
                                       from.about, from.time, from.actor, from.arrival});
}

void Endpoint::step_ends(uint64_t serial) const
{
  if (serial != 0)
    world_.step_ended(StepEnd{serial, clock(), step_copied_});
}

std::string Endpoint::actor_name() const
{
  return kernel_actor_ != nullptr ? kernel_actor_->get_name() : sg4::this_actor::get_name();
}

bool Endpoint::copy_in_step(int64_t bytes)
{
  xbt_assert(running_ != nullptr, "a copy in a step needs a step being run");
  step_copied_ += bytes;
  if (steps_in_kernel_ != nullptr) // the kernel runs the step: the copy goes on from there
    return false;
  running_->execute(*this, StepWork{0, bytes});
  return true;
}

void Endpoint::copy_in_step_from_kernel(int64_t bytes, std::function<void()> then)
{
  steps_in_kernel_->copy_then(bytes, std::move(then));
}

void Endpoint::progress(StepRunner& runner)
{
  // Steps run in the order their transfers were followed, as Activity::test_any would find them.
  while (true) {
    if (&runner == &own_runner_) // what arrives by the rank's date is known once SimGrid's clock is there too
      catch_up();
    Followed* ready = first_ready(runner);
    if (ready == nullptr)
      break;
    Followed done = take(ready);
    run_step(runner, done.step, done.work, done.on_done, done.origin.get());
  }
  if (&runner == &own_runner_ && not collectives_.empty())
    advance_collectives();
}

Endpoint::Followed* Endpoint::first_ready(StepRunner& runner)
{
  // A transfer is over once SimGrid gave it a finish time: a look at it needs no simcall, where
  // Activity::test_any costs one per look (and most looks find nothing ready).
  while (true) {
    auto it = std::find_if(followed_.begin(), followed_.end(),
                           [this, &runner](const Followed& f) { return ready_for(runner, f); });
    if (it == followed_.end())
      return nullptr;
    if (it->origin) // the step could run once its last flow ended (maybe long before a runner looked)
      it->origin->arrival = std::max({it->origin->arrival, it->origin->time,
                                      it->activity ? it->activity.finish_time() : it->arrives});
    if (it->after.empty())
      return &*it;
    // the step waits for the transfer's other flows too
    it->activity = it->after.back();
    it->after.pop_back();
    announce(*it);
  }
}

Endpoint::Followed Endpoint::take(Followed* ready)
{
  auto it       = followed_.begin() + (ready - followed_.data());
  Followed done = std::move(*it);
  followed_.erase(it);
  // What the NIC wrote is read from memory: behind the computations' queued requests when they load it.
  done.work.cpu_seconds += world_.memory().access_stall(rank_);
  return done;
}

double Endpoint::next_ready(const StepRunner& runner) const
{
  double next = sched::Wakeup::kNoDate;
  for (auto const& followed : followed_) {
    if (not handles(runner, *followed.runner))
      continue;
    double ready = followed.activity ? followed.activity.finish_time() : followed.arrives;
    if (ready >= 0 && ready < next) {
      if (followed.arrived(clock()))
        return ready;
      next = ready;
    }
  }
  return next;
}
} // namespace progsim::mpi
