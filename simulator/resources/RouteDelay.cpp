#include "resources/RouteDelay.hpp"

#include <boost/algorithm/string.hpp>
#include <simgrid/s4u/Link.hpp>
#include <xbt/config.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace sg4 = simgrid::s4u;

namespace progsim::resources {

namespace {
/** `text` as a whole number, finite and at least `least` (else std::invalid_argument). */
double finite_number(const std::string& text, double least)
{
  size_t used  = 0;
  double value = std::stod(text, &used);
  if (used != text.size() || not std::isfinite(value) || value < least)
    throw std::invalid_argument(text);
  return value;
}

/** The link policies whose sharing is linear, as max-min computes it. */
bool followed(const sg4::Link* link)
{
  auto policy = link->get_sharing_policy();
  return policy == sg4::Link::SharingPolicy::SHARED || policy == sg4::Link::SharingPolicy::FATPIPE ||
         policy == sg4::Link::SharingPolicy::SPLITDUPLEX;
}

/** A FATPIPE link that only a host's route to itself crosses (the platform compiler marks it). */
bool loopback(const sg4::Link* link)
{
  return link->get_sharing_policy() == sg4::Link::SharingPolicy::FATPIPE &&
         link->get_property("progsim:loopback") != nullptr;
}
} // namespace

RouteDelay::Factor RouteDelay::Factor::parse(const std::string& text)
{
  Factor factor;
  std::vector<std::string> chunks;
  boost::split(chunks, text, boost::is_any_of(";"), boost::token_compress_on);
  for (auto const& chunk : chunks) {
    if (chunk.empty())
      continue;
    std::vector<std::string> parts; // size:factor[:more values, for other uses]
    boost::split(parts, chunk, boost::is_any_of(":"));
    try {
      if (parts.size() < 2)
        throw std::invalid_argument(chunk);
      factor.steps.emplace_back(finite_number(parts[0], 0),
                                finite_number(parts[1], std::numeric_limits<double>::min()));
    } catch (const std::exception&) {
      throw std::invalid_argument("'" + chunk + "' in '" + text +
                                  "' is not size:factor (a size in bytes, a positive factor)");
    }
  }
  std::stable_sort(factor.steps.begin(), factor.steps.end(),
                   [](auto const& a, auto const& b) { return a.first < b.first; });
  return factor;
}

double RouteDelay::Factor::at(double size) const
{
  if (steps.empty())
    return value;
  double current = 1.0;
  for (auto const& [threshold, factor] : steps) {
    if (size <= threshold)
      return current;
    current = factor;
  }
  return current;
}

double RouteDelay::piecewise_factor(const std::string& text, double size)
{
  return Factor::parse(text).at(size);
}

RouteDelay::RouteDelay()
{
  auto model    = simgrid::config::get_value<std::string>("network/model");
  tcp_gamma_    = simgrid::config::get_value<double>("network/TCP-gamma");
  crosstraffic_ = simgrid::config::get_value<bool>("network/crosstraffic");
  if (model == "SMPI") {
    auto factor = [](const char* key) {
      try {
        return Factor::parse(simgrid::config::get_value<std::string>(key));
      } catch (const std::invalid_argument& error) {
        throw std::invalid_argument(std::string(key) + ": " + error.what());
      }
    };
    latency_factor_   = factor("smpi/lat-factor");
    bandwidth_factor_ = factor("smpi/bw-factor");
    applies_          = true;
  } else if (model == "CM02" || model == "LV08") {
    latency_factor_.value   = simgrid::config::get_value<double>("network/latency-factor");
    bandwidth_factor_.value = simgrid::config::get_value<double>("network/bandwidth-factor");
    applies_                = true;
  }
}

double RouteDelay::arrival(const sg4::Host* from, const sg4::Host* to, double now, int64_t bytes, double rate) const
{
  return arrival_over(idle_route(from, to), now, bytes, rate);
}

double RouteDelay::loopback_arrival(const sg4::Host* from, const sg4::Host* to, double now, int64_t bytes) const
{
  auto const& route = idle_route(from, to);
  return route.loopback ? arrival_over(route, now, bytes) : -1;
}

double RouteDelay::arrival(const sg4::Host* from, const sg4::Host* to, double now, int64_t bytes,
                           Recent& recent) const
{
  return arrival_over(idle_route(from, to, recent), now, bytes);
}

double RouteDelay::loopback_arrival(const sg4::Host* from, const sg4::Host* to, double now, int64_t bytes,
                                    Recent& recent) const
{
  auto const& route = idle_route(from, to, recent);
  return route.loopback ? arrival_over(route, now, bytes) : -1;
}

double RouteDelay::arrival_over(const IdleRoute& route, double now, int64_t bytes, double rate) const
{
  if (route.latency < 0)
    return -1;
  auto size     = static_cast<double>(bytes);
  double factor = bandwidth_factor_.at(size);
  double value  = rate > 0 ? std::min(route.rate, rate / factor) : route.rate; // the variable's, as BusShares bounds it
  double transfer = bytes > 0 && value > 0 ? size / (value * factor) : 0.0;
  return (now + route.latency * latency_factor_.at(size)) + transfer;
}

const RouteDelay::IdleRoute& RouteDelay::idle_route(const sg4::Host* from, const sg4::Host* to) const
{
  auto [it, fresh] = routes_.try_emplace({from, to});
  if (fresh) {
    if (routes_.size() > kMaxRoutes) { // bounded: an all-to-all of many hosts would keep every pair
      routes_.clear();
      generation_++;
      it = routes_.try_emplace({from, to}).first;
    }
    it->second = read_route(from, to);
  }
  return it->second;
}

RouteDelay::IdleRoute RouteDelay::read_route(const sg4::Host* from, const sg4::Host* to) const
{
  std::vector<sg4::Link*> route;
  std::vector<sg4::Link*> back_route;
  double latency = 0;
  from->route_to(to, route, &latency);
  if (crosstraffic_)
    to->route_to(from, back_route, nullptr);
  if (not std::all_of(route.begin(), route.end(), followed) ||
      not std::all_of(back_route.begin(), back_route.end(), followed))
    return IdleRoute{-1, 0, false};
  // The flow's weight on each link it crosses: shared links add up its crossings, fat pipes take the largest.
  std::unordered_map<const sg4::Link*, double> weight;
  auto load = [&weight](const sg4::Link* link, double amount) {
    double& w = weight[link];
    w         = link->get_sharing_policy() == sg4::Link::SharingPolicy::FATPIPE ? std::max(w, amount) : w + amount;
  };
  double narrowest = -1; // the user bound SimGrid sets: the smallest bandwidth on the route
  for (auto const* link : route) {
    load(link, 1.0);
    if (narrowest < 0 || link->get_bandwidth() < narrowest)
      narrowest = link->get_bandwidth();
  }
  for (auto const* link : back_route)
    load(link, kCrossTrafficShare);
  double rate = narrowest;
  if (const double window = window_bound(latency); window < std::numeric_limits<double>::infinity())
    rate = rate < 0 ? window : std::min(rate, window);
  for (auto const& [link, w] : weight)
    rate = rate < 0 ? link->get_bandwidth() / w : std::min(rate, link->get_bandwidth() / w);
  bool only_loopbacks = not route.empty() && std::all_of(route.begin(), route.end(), loopback) &&
                        std::all_of(back_route.begin(), back_route.end(), loopback);
  return IdleRoute{latency, rate, only_loopbacks};
}

const RouteDelay::IdleRoute& RouteDelay::idle_route(const sg4::Host* from, const sg4::Host* to, Recent& recent) const
{
  auto& entries = recent.entries_;
  recent.keep_up_with(generation_);
  if (entries[0].from == from && entries[0].to == to)
    return *entries[0].route;
  if (entries[1].from != from || entries[1].to != to) {
    const IdleRoute& route = idle_route(from, to); // may clear the table
    recent.keep_up_with(generation_);
    entries[1] = Recent::Entry{from, to, &route};
  }
  std::swap(entries[0], entries[1]);
  return *entries[0].route;
}

} // namespace progsim::resources
