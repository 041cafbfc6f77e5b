/* The flows through one link that they alone cross, shared in closed form as SimGrid's network model shares them. */
#pragma once

#include "sched/Flow.hpp"
#include "resources/RouteDelay.hpp"
#include "sched/Timers.hpp"

#include <simgrid/s4u/Link.hpp>

#include <limits>
#include <memory>
#include <vector>

namespace progsim::resources {

/**
 * SimGrid 3.32's CM02 family (network_cm02.cpp) on a link that no other route crosses (a NUMA domain's memory bus,
 * crossed by its cores' and its NIC's flows to its memory alone): a flow of S bytes first waits the link's latency x
 * the model's latency factor for S, then holds a max-min variable of bound min(bandwidth, rate / bandwidth factor(S),
 * TCP-gamma / (2 x latency)) that consumes 1 of the link, 1.05 under cross-traffic (the acknowledgements' route is the
 * same link); its bytes move at the variable's value x the bandwidth factor(S). Flows of one route have the same
 * sharing penalty, so they share the link equally up to their bounds (water-filling). Computed here at each start,
 * latency's end and end, instead of SimGrid's activities, solver and action heap.
 *
 * Only a flow's end tells anyone anything: a latency's end changes the shares and nothing else. So one kernel timer
 * goes to the next end, found by running the shares ahead through the latencies' ends before it, and those changes
 * are made when the bus is next looked at (a start or that end), at their own dates, with the same arithmetic as at a
 * timer of theirs: a burst of short flows costs the kernel one event per flow, not two.
 * tests/cpp/test_bus_shares.cpp runs the same flows as SimGrid transfers on an identical link, in one simulation,
 * and finds every end within 1 ns. MemorySystem uses it for the buses it may (progsim/bus-sharing).
 */
class BusShares {
public:
  /** What the sharing depends on: the link and the network model's settings. */
  struct Model {
    double bandwidth = 0; // B/s
    double latency   = 0; // s
    double weight    = 1; // what a flow consumes of the link per B/s of its variable
    double window    = std::numeric_limits<double>::infinity(); // TCP's bound on every flow, B/s
    RouteDelay::Factor latency_factor{};
    RouteDelay::Factor bandwidth_factor{};
    /** `link` under the network model that `network` read. */
    static Model of(const simgrid::s4u::Link& link, const RouteDelay& network);
  };

  explicit BusShares(Model model) : model_(std::move(model)) {}
  BusShares(const BusShares&)            = delete;
  BusShares& operator=(const BusShares&) = delete;

  /** Starts a flow of `bytes` at `start` (now if earlier), at most at `rate` B/s (0: no bound of its own); it tells
   * who waits for it from SimGrid's kernel when it ends. */
  std::shared_ptr<sched::SharedFlow> start(double bytes, double rate, double start);

private:
  /** Where a flow stands; its handle is kept beside it, at the same index. */
  struct Flow {
    double remaining;   // bytes
    double bound;       // of its variable
    double factor;      // its bytes move at value x factor
    double active_from; // its latency's end
    double value = 0;   // its variable's value, 0 until its latency ends
  };
  /** The flows as they stand at a date. */
  struct Shares {
    std::vector<Flow> flows;
    double at = 0;
  };
  /** The date of the next change of `shares`: a flow's end (`an_end`) or a latency's end; kNever for none. */
  static double next_change(const Shares& shares, bool& an_end);
  /** Moves every flow's bytes on to `now`, at the values they had since the last change. */
  static void advance(Shares& shares, double now);
  /** Whether flow `flow` is done at `shares.at` (within the kernel's precision). */
  static bool done(const Flow& flow);
  /** The variables' values after a change: the link shared equally up to the bounds. */
  void share(Shares& shares);
  /** Makes the latencies' ends before `now` (they tell nobody), then moves the bytes on to now. */
  void catch_up(double now);
  /** Sets the timer to the next flow's end, past the latencies' ends before it. */
  void schedule();
  /** The timer: ends the flows that are done. */
  void on_event();

  Model model_;
  Shares now_;
  std::vector<std::shared_ptr<sched::SharedFlow>> handles_; // by flow, as in now_.flows
  Shares ahead_;                                     // schedule()'s run ahead, kept to spare allocations
  std::vector<Flow*> active_;                        // share()'s, likewise
  sched::timers::Alarm next_event_;
};

} // namespace progsim::resources
