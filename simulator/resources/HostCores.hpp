/* How the executions of a host that they may outnumber share its cores. */
#pragma once

#include "sched/Timers.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Host.hpp>

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace progsim::resources {

/**
 * The cores of a host, shared by the CPU work of its ranks, progress threads and loads as SimGrid's CPU model shares
 * them: max-min fairness over cores x speed, each execution bounded by one core (or by a load's own bound), served in
 * proportion to its priority. It is computed here in closed form rather than by SimGrid's solver: every execution
 * that ends (a computation, a step, an overhead) has priority 1 and a one-core bound, so all of them run at one rate
 * r(t), and each ends when the flops one execution received since it began, V(t) = integral of r, reach its amount
 * (the virtual time of processor sharing). A start or an end costs a heap operation and moves one timer, where
 * SimGrid's solver revisits every execution of the host. Endless loads (idle polling, reserved cores, ranks polling
 * in their waits) only change r.
 */
class HostCores {
public:
  explicit HostCores(const simgrid::s4u::Host* host);
  HostCores(const HostCores&)            = delete;
  HostCores& operator=(const HostCores&) = delete;

  /** Runs `flops` for the calling actor at its share of the cores; returns once they are done. */
  void run(double flops);
  /** Starts `first` flops, then `between()` the moment they are done (in the kernel), then `then` flops, as one
   * execution, and calls `done()` in the kernel at its end; returns at once. Where two runs would end one execution
   * and start another at the same date (no change of rate), its caller parks once, until `done` resumes it. The
   * functions must outlive the execution. */
  void start(double first, const std::function<void()>& between, double then, const std::function<void()>& done);
  /** Starts an endless load of at most `bound` flop/s, served in proportion to `priority`; returns its handle. */
  uint64_t start_load(double bound, double priority);
  void stop_load(uint64_t load);
  /** One core's speed, in flop/s. */
  double speed() const { return speed_; }
  /** The rate every running execution gets now, in flop/s. */
  double rate() const { return rate_; }

private:
  struct Job {
    double done_at; // the virtual time at which it ends
    uint64_t order; // jobs that end together resume in the order they began
    simgrid::s4u::Actor* waiter; // parked until it ends
    const std::function<void()>* between = nullptr; // what comes before its second part (start())
    double then                          = 0;       // the flops of that second part
    const std::function<void()>* done    = nullptr; // called at its end instead of resuming the waiter
    bool operator>(const Job& other) const
    {
      return done_at != other.done_at ? done_at > other.done_at : order > other.order;
    }
  };
  /** A user of the cores as the sharing sees it: an endless load, or the running executions as one. */
  struct User {
    double bound;
    double priority;
  };
  struct Load {
    uint64_t handle;
    User share;
  };

  /** Brings the virtual time to now, at the rate it had since the last change. */
  void advance();
  /** The rate of the running executions, after a change of what runs. */
  void update_rate();
  /** Sets the timer to the next end, after a change. */
  void schedule_next_end();
  /** The timer: releases the executions that are done. */
  void end_due();

  const double speed_;
  const double capacity_; // cores x speed
  double virtual_time_ = 0;
  double updated_at_   = 0;
  double rate_         = 0;
  uint64_t next_order_ = 0;
  std::priority_queue<Job, std::vector<Job>, std::greater<>> running_;
  std::vector<Job> going_on_; // scratch for end_due: jobs whose first part ended
  std::vector<Load> loads_; // a handful at most (idle polling, a reserved core, polling ranks), by bound / priority
  sched::timers::Alarm next_end_;
};

} // namespace progsim::resources
