#include "mpi/ControlDelay.hpp"

#include <boost/algorithm/string.hpp>
#include <simgrid/s4u/Link.hpp>
#include <xbt/config.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace sg4 = simgrid::s4u;

namespace progsim::mpi {

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
} // namespace

double ControlDelay::piecewise_factor(const std::string& text, double size)
{
  std::vector<std::pair<double, double>> steps; // (threshold, factor), sorted as SimGrid's parse_factor sorts them
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
      steps.emplace_back(finite_number(parts[0], 0), finite_number(parts[1], std::numeric_limits<double>::min()));
    } catch (const std::exception&) {
      throw std::invalid_argument("'" + chunk + "' in '" + text +
                                  "' is not size:factor (a size in bytes, a positive factor)");
    }
  }
  std::stable_sort(steps.begin(), steps.end(), [](auto const& a, auto const& b) { return a.first < b.first; });
  double current = 1.0;
  for (auto const& [threshold, factor] : steps) {
    if (size <= threshold)
      return current;
    current = factor;
  }
  return current;
}

ControlDelay::ControlDelay(int64_t bytes) : bytes_(bytes)
{
  auto model   = simgrid::config::get_value<std::string>("network/model");
  auto size    = static_cast<double>(bytes);
  tcp_gamma_   = simgrid::config::get_value<double>("network/TCP-gamma");
  crosstraffic_ = simgrid::config::get_value<bool>("network/crosstraffic");
  if (model == "SMPI") {
    auto factor = [size](const char* key) {
      try {
        return piecewise_factor(simgrid::config::get_value<std::string>(key), size);
      } catch (const std::invalid_argument& error) {
        throw std::invalid_argument(std::string(key) + ": " + error.what());
      }
    };
    latency_factor_   = factor("smpi/lat-factor");
    bandwidth_factor_ = factor("smpi/bw-factor");
    applies_          = true;
  } else if (model == "CM02" || model == "LV08") {
    latency_factor_   = simgrid::config::get_value<double>("network/latency-factor");
    bandwidth_factor_ = simgrid::config::get_value<double>("network/bandwidth-factor");
    applies_          = true;
  }
}

double ControlDelay::arrival(const sg4::Host* from, const sg4::Host* to, double now) const
{
  auto [it, fresh] = routes_.try_emplace({from, to});
  if (fresh) {
    if (routes_.size() > kMaxRoutes) { // bounded: an all-to-all of many hosts would keep every pair
      routes_.clear();
      it = routes_.try_emplace({from, to}).first;
    }
    it->second = idle_route(from, to);
  }
  auto const& route = it->second;
  return route.latency < 0 ? -1 : (now + route.latency) + route.transfer;
}

ControlDelay::IdleRoute ControlDelay::idle_route(const sg4::Host* from, const sg4::Host* to) const
{
  std::vector<sg4::Link*> route;
  std::vector<sg4::Link*> back_route;
  double latency = 0;
  from->route_to(to, route, &latency);
  if (crosstraffic_)
    to->route_to(from, back_route, nullptr);
  auto followed = [](const sg4::Link* link) { // the policies whose sharing is linear, as max-min computes it
    auto policy = link->get_sharing_policy();
    return policy == sg4::Link::SharingPolicy::SHARED || policy == sg4::Link::SharingPolicy::FATPIPE ||
           policy == sg4::Link::SharingPolicy::SPLITDUPLEX;
  };
  if (not std::all_of(route.begin(), route.end(), followed) ||
      not std::all_of(back_route.begin(), back_route.end(), followed))
    return IdleRoute{-1, 0};
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
    load(link, 0.05);
  double rate = narrowest;
  if (latency > 0 && tcp_gamma_ > 0)
    rate = rate < 0 ? tcp_gamma_ / (2.0 * latency) : std::min(rate, tcp_gamma_ / (2.0 * latency));
  for (auto const& [link, w] : weight)
    rate = rate < 0 ? link->get_bandwidth() / w : std::min(rate, link->get_bandwidth() / w);
  double transfer = bytes_ > 0 && rate > 0 ? static_cast<double>(bytes_) / (rate * bandwidth_factor_) : 0.0;
  return IdleRoute{latency * latency_factor_, transfer};
}

} // namespace progsim::mpi
