/* How a polling progress thread gets to its steps: its next tick, a core of its host, its poll's CPU work. */
#pragma once

#include "config/Parameters.hpp"
#include "sched/ActorParking.hpp"
#include "mpi/Endpoint.hpp"
#include "sched/Timers.hpp"
#include "sched/Wakeup.hpp"
#include "mpi/World.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <functional>
#include <utility>
#include <vector>

namespace progsim::models::progress {

/** The next multiple of `period` at or after now (now itself when period is 0). */
double next_tick(double period);

class PollBeforeSteps;

/** Where threads wait for a core of a host: told when one of its ranks leaves its core. */
struct CoreQueue {
  std::vector<PollBeforeSteps*> waiting; // in the order they came
  void core_freed() const;
};

/**
 * What a polling thread does once work is ready, before its steps: it waits for its next poll (a tick of the poll
 * interval); on a host whose cores are all held by ranks, the OS runs it when a time slice ends or sooner if a rank
 * leaves its core (it sleeps, or finishes); then the poll costs CPU. The thread pauses until its tick itself, so that
 * it looks at the host's cores among the actors of that date, as it always did; from there the kernel drives the
 * wait for a core and the poll's CPU work, and the thread parks once, until the poll is done, where each would resume
 * it only for it to park again. A thread that waits for a core looks again once the actors running when a rank left
 * its core have yielded, as a woken thread would. (Looking from the kernel at the tick too saved a park more, but
 * moved that look before the actors of its date: a poll then overlapped a step or not depending on whether a memory
 * flow that ended at the same date was SimGrid's or BusShares'.)
 */
class PollBeforeSteps {
public:
  PollBeforeSteps(const ThreadSettings& settings, CoreQueue& queue) : settings_(settings), queue_(queue) {}

  /** Blocks the calling thread (`endpoint`'s) until its poll is done. */
  void run(mpi::Endpoint& endpoint)
  {
    endpoint_ = &endpoint;
    poller_   = sched::parking::caller();
    done_     = false;
    endpoint.world().pause().until(next_tick(settings_.poll_interval));
    look_for_core();
    if (not done_) {
      parked_ = true;
      sched::parking::park();
      parked_ = false;
    }
  }

  /** run() with nobody waiting in place: calls `then` from the kernel once the poll is done (at once if it takes no
   * time). The thread looks for a core at its tick among the actors of that date, as its actor did (ActorRound). */
  void start(mpi::Endpoint& endpoint, std::function<void()> then)
  {
    endpoint_ = &endpoint;
    poller_   = nullptr;
    done_     = false;
    then_     = std::move(then);
    endpoint.world().actor_round().at(next_tick(settings_.poll_interval), [this]() { look_for_core(); });
  }

  /** A rank of the host left its core: if waiting for one, look again once the running actors have yielded. */
  void core_freed()
  {
    if (waiting_until_ < 0 || look_pending_)
      return;
    look_pending_ = true;
    sched::once_actors_yield([this]() {
      look_pending_ = false;
      if (waiting_until_ >= 0)
        look_for_core();
    });
  }

private:
  /** Waits for a core if every core of the host is held by a rank, else polls. */
  void look_for_core();

  bool busy() const
  {
    const simgrid::s4u::Host* host = endpoint_->host();
    return endpoint_->world().cores_held_on(host) >= host->get_core_count();
  }

  void poll()
  {
    double cost = settings_.poll_cost;
    if (cost <= 0)
      polled_();
    else if (settings_.spare_core) // a core of its own: nothing to share
      sched::timers::set(simgrid::s4u::Engine::get_clock() + cost, [this]() { polled_(); });
    else
      endpoint_->world().start_cpu(endpoint_->host(), cost, polled_);
  }

  const ThreadSettings& settings_;
  CoreQueue& queue_;
  mpi::Endpoint* endpoint_     = nullptr;
  simgrid::s4u::Actor* poller_          = nullptr;
  bool parked_                 = false;
  bool done_                   = false;
  double waiting_until_        = -1; // the slice's end, while it waits for a core
  bool look_pending_           = false;
  sched::timers::Alarm slice_end_;
  std::function<void()> then_; // what comes once the poll is done, where nobody waits in place (start())
  const std::function<void()> polled_ = [this]() {
    done_ = true;
    if (parked_)
      sched::parking::resume(poller_);
    else if (then_)
      std::exchange(then_, nullptr)();
  };
};

} // namespace progsim::models::progress
