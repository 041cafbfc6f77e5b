/* Protocol steps that SimGrid's kernel runs for a runner whose actor stays parked. */
#pragma once

#include "mpi/Endpoint.hpp"
#include "mpi/World.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <functional>

namespace progsim::mpi {

/**
 * Runs the ready steps of one runner at an endpoint from SimGrid's kernel (progsim/steps-in-kernel). Its actor would
 * park for each step's work, once per step; here each step's work is started (StepRunner::start: its CPU work and its
 * copy), its end has the step take effect, and the next ready step follows. A copy in the middle of an effect
 * (Endpoint::copy_in_step) goes on from the kernel at the copy's end. A step whose effect may post a collective's next
 * round (CPU work in the middle of the effect, which only an actor can wait for) is left to the runner's actor.
 *
 * The steps, their costs and their order are the runner's own; what moves is where each step takes effect among the
 * events of its date: from the kernel at the end of its work, where the resumed actor ran it after the actors already
 * running at that date.
 */
class StepsInKernel {
public:
  /** The steps of `runner`, run for its actor `actor`, on whose host it copies and whom timelines name. */
  StepsInKernel(StepRunner& runner, const simgrid::s4u::Actor* actor) : runner_(runner), actor_(actor) {}

  /** Runs `endpoint`'s ready steps for the runner, one after the other, then calls `then(false)`; or `then(true)` as
   * soon as the next ready step must run in the runner's actor. `then` may run before run() returns. */
  void run(Endpoint& endpoint, std::function<void(bool)> then);
  /** From a step's effect: the runner copies `bytes`, then `then` goes on, from the kernel. */
  void copy_then(int64_t bytes, std::function<void()> then);
  /** The actor the kernel acts for. */
  const simgrid::s4u::Actor* actor() const { return actor_; }

private:
  /** Runs the next ready step, or ends the run. */
  void next();
  /** Whether the kernel may run `followed`'s step: its effect never blocks. */
  bool runs_in_kernel(const Endpoint::Followed& followed) const;
  /** Starts the step's work; false if it takes no time (its effect must run now). */
  bool start_work();
  /** The step's work is done: it takes effect; its copies, if any, go on. */
  void work_done();
  /** Runs `effect` (a step's, or the rest of it after a copy) as the runner's. */
  void take_effect(const std::function<void()>& effect);
  /** The step is over (its effect and the copies it started are done): the next one. */
  void step_over();
  /** The step's end, for timelines and the bytes its runner copied. */
  void close_step();
  /** A copy's state for the next copy; the one whose end calls this lives on. */
  CoreCopy& fresh_copy();
  /** The run is over: its state goes back to the pool, then what comes next runs. */
  void finish(bool for_actor);

  StepRunner& runner_;
  const simgrid::s4u::Actor* actor_;
  StepRunState* run_ = nullptr; // borrowed from the world's StepRunPool from run() to the run's end
};

} // namespace progsim::mpi
