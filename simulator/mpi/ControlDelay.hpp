/* How long a control message takes on an idle route, as SimGrid's network model would charge its transfer. */
#pragma once

#include <boost/functional/hash.hpp>
#include <simgrid/s4u/Host.hpp>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace progsim::mpi {

/**
 * A control message (request-to-send, clear-to-send, finish) carries a few bytes. As a SimGrid transfer it is one
 * more variable for the bandwidth solver, whose cost grows with the transfers in flight, for bytes whose share of
 * a link changes their time by nanoseconds. Here it arrives after the time its transfer takes on an idle route
 * (the model choice `progsim/control-transfers: no`): SimGrid's CM02 family (network_cm02.cpp, 3.32) charges the
 * route's latency times the model's latency factor for the size, then the bytes at the rate max-min sharing gives
 * a lone flow: the narrowest link's bandwidth over the flow's weight on it (1 per crossing, 0.05 more for the
 * acknowledgements' reverse route under network/crosstraffic), capped by TCP-gamma / (2 x latency), times the
 * model's bandwidth factor for the size. What it leaves out: the bytes' share of a busy link, and their load on it.
 */
class ControlDelay {
public:
  /** Reads SimGrid's network settings (after the platform is loaded); throws std::invalid_argument, naming the
   * setting, when a factor is not written as SimGrid reads it. */
  explicit ControlDelay(int64_t bytes);
  /** Whether the network model is one this follows (SMPI, CM02, LV08); otherwise control messages are transfers. */
  bool applies() const { return applies_; }
  /** When a control message sent now from `from` arrives at `to` over an idle route (the latency's end, then the
   * bytes', added in the order SimGrid adds them); -1 where the route has a link this cannot follow (wifi,
   * non-linear sharing): then it must be a transfer. */
  double arrival(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, double now) const;

  /** A piecewise factor as SimGrid's smpi/lat-factor and smpi/bw-factor write it ("size:factor;..."), and its value
   * for `size`: the factor of the largest threshold strictly below `size` (1 if none is). Throws
   * std::invalid_argument. */
  static double piecewise_factor(const std::string& text, double size);

private:
  /** A control message's time on an idle route: its latency (-1: a link this cannot follow), then its bytes. */
  struct IdleRoute {
    double latency  = 0;
    double transfer = 0;
  };
  IdleRoute idle_route(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to) const;

  static constexpr size_t kMaxRoutes = 1 << 20;
  int64_t bytes_;
  bool applies_           = false;
  double latency_factor_  = 1;
  double bandwidth_factor_ = 1;
  double tcp_gamma_       = 0;
  bool crosstraffic_      = false;
  // Routes asked for, by pair of hosts (one per NUMA domain): Host::route_to took 6 % of a replay. Links are read
  // once per pair, so a link whose bandwidth or latency follows a profile keeps its first value here.
  mutable std::unordered_map<std::pair<const simgrid::s4u::Host*, const simgrid::s4u::Host*>, IdleRoute,
                             boost::hash<std::pair<const simgrid::s4u::Host*, const simgrid::s4u::Host*>>>
      routes_;
};

} // namespace progsim::mpi
