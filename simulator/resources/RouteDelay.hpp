/* How long a transfer takes on a route nobody else slows, as SimGrid's network model would charge it. */
#pragma once

#include <boost/functional/hash.hpp>
#include <simgrid/s4u/Host.hpp>

#include <cstdint>
#include <limits>
#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace progsim::resources {

/**
 * SimGrid's CM02 family (network_cm02.cpp, 3.32) charges a transfer its route's latency times the model's latency
 * factor for the size, then its bytes at the rate max-min sharing gives it: alone on the route, the narrowest
 * link's bandwidth over the flow's weight on it (1 per crossing, 0.05 more for the acknowledgements' reverse route
 * under network/crosstraffic), capped by TCP-gamma / (2 x latency), times the model's bandwidth factor for the
 * size. Two kinds of transfers end at that date without being SimGrid transfers:
 * - a control message (request-to-send, clear-to-send, finish), whose few bytes change others' times by nanoseconds
 *   (the model choice `progsim/control-transfers: no`): what it leaves out is their share of a busy link;
 * - a transfer over loopback links only (`progsim/loopback-transfers: no`): FATPIPE links that the platform marks
 *   `progsim:loopback` because only a host's route to itself crosses them. A FATPIPE link gives every flow its
 *   bandwidth over the flow's sharing penalty times the smallest penalty on the link (maxmin.cpp; the penalty is
 *   the route's latency), so flows of one route never slow one another there: the date is exact.
 */
class RouteDelay {
public:
  /** Reads SimGrid's network settings (after the platform is loaded); throws std::invalid_argument, naming the
   * setting, when a factor is not written as SimGrid reads it. */
  RouteDelay();
  /** Whether the network model is one this follows (SMPI, CM02, LV08); otherwise every transfer is SimGrid's. */
  bool applies() const { return applies_; }
  /** When `bytes` sent now from `from` arrive at `to` over an idle route (the latency's end, then the bytes',
   * added in the order SimGrid adds them); -1 where the route has a link this cannot follow (wifi, non-linear
   * sharing): then it must be a transfer. `rate`: a bound of the flow's own, in B/s (a paced copy: SimGrid's
   * bound is rate / bandwidth factor); 0: none. */
  double arrival(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, double now, int64_t bytes,
                 double rate = 0) const;
  /** The same for a transfer over loopback links only, which no other flow can slow; -1 for any other route. */
  double loopback_arrival(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, double now,
                          int64_t bytes) const;

  class Recent;
  /** arrival() and loopback_arrival() for a sender that keeps the routes it used last (`recent`, one per sending
   * rank): a rank sends to a few hosts in turn (a ring: its two neighbours), and the table of every pair's route is
   * cold in the cache at scale, two or three misses a look. */
  double arrival(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, double now, int64_t bytes,
                 Recent& recent) const;
  double loopback_arrival(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, double now, int64_t bytes,
                          Recent& recent) const;

  /** A piecewise factor as SimGrid's smpi/lat-factor and smpi/bw-factor write it ("size:factor;..."), and its value
   * for `size`: the factor of the largest threshold strictly below `size` (1 if none is). Throws
   * std::invalid_argument. */
  static double piecewise_factor(const std::string& text, double size);

  /** A model's factor: one value (CM02, LV08) or SMPI's (threshold, factor) steps, sorted by threshold as
   * SimGrid's parse_factor sorts them. */
  struct Factor {
    double value = 1;
    std::vector<std::pair<double, double>> steps{};
    static Factor parse(const std::string& text);
    double at(double size) const;
  };
  /** What a flow consumes of a link its acknowledgements cross back (network/crosstraffic), per B/s it moves. */
  static constexpr double kCrossTrafficShare = 0.05;
  /** The network model's settings, as read (BusShares shares links with them). */
  const Factor& latency_factor() const { return latency_factor_; }
  const Factor& bandwidth_factor() const { return bandwidth_factor_; }
  bool crosstraffic() const { return crosstraffic_; }
  /** The rate TCP's window allows a flow over a route of `latency` (before the latency factor): TCP-gamma /
   * (2 x latency), or no bound (infinity). */
  double window_bound(double latency) const
  {
    return latency > 0 && tcp_gamma_ > 0 ? tcp_gamma_ / (2.0 * latency) : std::numeric_limits<double>::infinity();
  }

private:

  /** A route alone: its latency (-1: a link this cannot follow) and the rate a lone flow gets, before the model's
   * factors; whether every link of it is a loopback. */
  struct IdleRoute {
    double latency = 0;
    double rate    = 0;
    bool loopback  = false;
  };
  const IdleRoute& idle_route(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to) const;
  const IdleRoute& idle_route(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, Recent& recent) const;
  IdleRoute read_route(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to) const;
  double arrival_over(const IdleRoute& route, double now, int64_t bytes, double rate = 0) const;

  static constexpr size_t kMaxRoutes = 1 << 20;
  bool applies_ = false;
  Factor latency_factor_{};
  Factor bandwidth_factor_{};
  double tcp_gamma_  = 0;
  bool crosstraffic_ = false;
  // Routes asked for, by pair of hosts (one per NUMA domain): Host::route_to took 6 % of a replay. Links are read
  // once per pair, so a link whose bandwidth or latency follows a profile keeps its first value here.
  mutable std::unordered_map<std::pair<const simgrid::s4u::Host*, const simgrid::s4u::Host*>, IdleRoute,
                             boost::hash<std::pair<const simgrid::s4u::Host*, const simgrid::s4u::Host*>>>
      routes_;
  mutable uint64_t generation_ = 0; // counts the table's clearings: a Recent route from before is gone
};

/** The routes one sender used last, most recent first (RouteDelay::arrival with a Recent). */
class RouteDelay::Recent {
  friend class RouteDelay;
  struct Entry {
    const simgrid::s4u::Host* from = nullptr;
    const simgrid::s4u::Host* to   = nullptr;
    const IdleRoute* route         = nullptr;
  };
  /** Forgets its routes if the table was cleared since (they pointed into it). */
  void keep_up_with(uint64_t generation)
  {
    if (generation_ != generation) {
      entries_    = {};
      generation_ = generation;
    }
  }
  std::array<Entry, 2> entries_{};
  uint64_t generation_ = 0;
};

} // namespace progsim::resources
