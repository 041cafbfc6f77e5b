/* A rank's wait whose protocol steps SimGrid's kernel runs, while the rank's actor stays parked. */
#pragma once

#include "mpi/Endpoint.hpp"
#include "mpi/World.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace progsim::mpi {

/**
 * Endpoint::wait on a host whose cores are shared (progsim/steps-in-kernel). Each step the rank runs in its wait
 * costs CPU work on those cores, an execution whose end the rank's actor would park for, once per step. Here the
 * kernel runs the wait instead: it looks for ready steps, starts each one's CPU work (and copy) as an execution, has
 * the step take effect at its end and looks again; with nothing ready it sleeps, polling, until rung. The actor
 * parks once, until its request is complete or a step it must run itself is ready: one whose effect may post a
 * collective's next round, CPU work in the middle of the effect, which only an actor can wait for. A copy in the
 * middle of an effect (Endpoint::copy_in_step) goes on from the kernel at the copy's end.
 *
 * The steps, their costs and their order are the rank's own; what moves is where each step takes effect among the
 * events of its date: from the kernel at the end of its CPU work, where the resumed actor ran it after the actors
 * already running at that date.
 */
class KernelWait {
public:
  explicit KernelWait(Endpoint& endpoint) : endpoint_(endpoint) {}

  /** Blocks the calling rank until `request` is complete (true) or a step the rank must run itself is ready
   * (false). First, if `call_seconds` > 0, the MPI call costs that CPU work; then, if the request is not complete,
   * `blocked()` runs, from the kernel, as the rank starts to wait. */
  bool run(const RequestPtr& request, double call_seconds = 0, std::function<void()> blocked = {});
  /** In a step's effect: copies `bytes` on the rank's core, then calls `then`, from the kernel. */
  void copy_then(int64_t bytes, const std::function<void()>& then);
  /** The rank's actor, which the kernel acts for. */
  std::string rank_actor_name() const { return rank_actor_->get_name(); }

private:
  /** The call's CPU work is done: the rank waits, unless its request is complete. */
  void call_paid();
  /** Runs the ready steps, or sleeps until something is ready, or ends the wait. */
  void look();
  /** Whether the kernel may run `followed`'s step: its effect never blocks. */
  bool runs_in_kernel(const Endpoint::Followed& followed) const;
  /** The rank stops polling: it was rung, or something became ready. */
  void stop_polling();
  /** Starts the step's CPU work and copy; false if it has none (its effect must run now). */
  bool start_work();
  /** The step's work is done: it takes effect; its copies, if any, go on. */
  void work_done();
  /** Runs `effect` (a step's, or the rest of it after a copy) as the rank's, from the kernel. */
  void take_effect(const std::function<void()>& effect);
  /** The step is over (its effect and the copies it started are done): the wait looks again. */
  void step_over();
  /** The step's end, for timelines and the bytes its runner copied. */
  void close_step();
  /** A copy's state for the next copy; the one whose end calls this lives on. */
  CoreCopy& fresh_copy();
  /** The wait is over: the rank's actor goes on. */
  void end();

  Endpoint& endpoint_;
  RequestPtr request_;
  simgrid::s4u::Actor* rank_actor_ = nullptr;
  bool parked_    = false;
  bool over_      = false;
  bool for_actor_ = false; // ended for a step the rank's actor must run
  std::optional<uint64_t> poll_load_;
  // The step being run: its followed transfer (its effect lives there), its serial for timelines, the bytes the
  // runner had copied before it, and the copies its effect started.
  std::optional<Endpoint::Followed> step_;
  uint64_t serial_       = 0;
  int64_t outer_copied_  = 0;
  int copies_in_effect_  = 0;
  std::unique_ptr<CoreCopy> copy_;
  std::unique_ptr<CoreCopy> spent_copy_; // the last one: freed at the next, never from inside its own callback
  std::function<void()> then_;           // what an effect does once its copy is done
  std::function<void()> blocked_;         // what the rank does as it starts to wait
  const std::function<void()> work_done_ = [this]() { work_done(); };
  const std::function<void()> call_paid_ = [this]() { call_paid(); };
};

} // namespace progsim::mpi
