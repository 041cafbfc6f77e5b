/* The idle polling of progress threads, as CPU loads that the model starts and stops without an actor. */
#pragma once

#include "resources/HostCores.hpp"
#include "sched/Timers.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <cstdint>
#include <deque>
#include <optional>

namespace progsim::models::progress {

/**
 * The idle polling of a group of threads of one host, as one CPU load. Max-min sharing gives a load of priority n and
 * bound n x b what it gives n loads of bound b, and SimGrid bounds an execution at one core: a group is as many
 * threads as one core holds. It needs no actor (an actor per group kept about 10 KiB, 8 192 of them at 65 536
 * ranks): the model starts and stops it from a kernel timer (see IdlePollingLoads).
 */
class PollingLoad {
public:
  PollingLoad(resources::HostCores& cores, double bound, int threads)
      : cores_(cores), bound_(bound), threads_(threads)
  {
  }
  void run(bool running)
  {
    if (running && not load_)
      load_ = cores_.start_load(bound_, threads_);
    else if (not running && load_) {
      cores_.stop_load(*load_);
      load_.reset();
    }
  }

private:
  resources::HostCores& cores_;
  double bound_;
  int threads_;
  std::optional<uint64_t> load_;
};

/**
 * Every host's idle polling, which runs while some rank is not blocked (so that SimGrid sees a deadlock when every
 * rank waits). A change takes effect at its date once the actors running then have yielded, from one kernel timer,
 * as an agent woken then would see it: the last state asked for at that date.
 */
class IdlePollingLoads {
public:
  void add(resources::HostCores& cores, double bound, int threads) { loads_.emplace_back(cores, bound, threads); }
  bool empty() const { return loads_.empty(); }
  /** From the first date on, until stop(). */
  void start() { set_running(true); }
  void set_running(bool running)
  {
    running_ = running;
    if (pending_ || stopped_)
      return;
    pending_ = true;
    sched::timers::set(simgrid::s4u::Engine::get_clock(), [this]() {
      pending_ = false;
      apply(running_ && not stopped_);
    });
  }
  /** Every rank finished: the loads stop now, so that the simulation can end. */
  void stop()
  {
    stopped_ = true;
    apply(false);
  }

private:
  void apply(bool running)
  {
    for (auto& load : loads_)
      load.run(running);
  }
  std::deque<PollingLoad> loads_; // stable addresses
  bool running_ = false;
  bool pending_ = false;
  bool stopped_ = false;
};

} // namespace progsim::models::progress
