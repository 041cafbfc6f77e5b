/* calibrated: a bus whose capacity depends on how many flows cross it, as a measured STREAM scaling curve gives it
 * (total bandwidth of n cores streaming at once: it levels off, and on many controllers falls, past saturation).
 * progsim/bus-curve lists the measured points "flows:B/s;flows:B/s"; between points the capacity is interpolated
 * linearly, beyond the last one it stays at the last value. SimGrid 3.32's non-linear sharing calls the curve at
 * each change of the bus's load; flows then share that capacity as under `fair` (nic-bus-weight still applies). */
#include "resources/BusPolicy.hpp"

#include <xbt/log.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace progsim::models::contention {

namespace {
using Curve = std::vector<std::pair<double, double>>; // (flows, B/s), by flows

Curve parse_curve(const std::string& text)
{
  Curve curve;
  std::istringstream in(text);
  std::string point;
  while (std::getline(in, point, ';')) {
    auto colon = point.find(':');
    size_t used_flows = 0;
    size_t used_rate  = 0;
    double flows = 0;
    double rate  = 0;
    try {
      if (colon == std::string::npos)
        throw std::invalid_argument("no colon");
      flows = std::stod(point.substr(0, colon), &used_flows);
      rate  = std::stod(point.substr(colon + 1), &used_rate);
    } catch (const std::exception&) {
      used_flows = 0;
    }
    if (used_flows == 0 || used_flows != colon || used_rate != point.size() - colon - 1 || not(flows >= 1) ||
        not(rate > 0) || (not curve.empty() && flows <= curve.back().first))
      throw std::invalid_argument("progsim/bus-curve: expected 'flows:B/s' points with flows >= 1 rising and "
                                  "positive bandwidths, e.g. '1:1.2e10;8:6e10;18:9e10', got '" + point + "' in '" +
                                  text + "'");
    curve.emplace_back(flows, rate);
  }
  if (curve.empty())
    throw std::invalid_argument("progsim/bus-curve: the calibrated policy needs a curve (e.g. '1:1.2e10;8:6e10')");
  return curve;
}

double capacity_at(const Curve& curve, double flows)
{
  if (flows <= curve.front().first)
    return curve.front().second;
  for (size_t i = 1; i < curve.size(); i++) {
    auto const& [x1, y1] = curve[i];
    if (flows <= x1) {
      auto const& [x0, y0] = curve[i - 1];
      return y0 + (y1 - y0) * (flows - x0) / (x1 - x0);
    }
  }
  return curve.back().second;
}

class Calibrated : public BusPolicy {
public:
  Calibrated(Curve curve, std::unique_ptr<BusPolicy> weights) : curve_(std::move(curve)), weights_(std::move(weights))
  {
  }
  std::string_view name() const override { return "calibrated"; }
  int transfers_per_flow(BusUser user) const override { return weights_->transfers_per_flow(user); }
  void configure(simgrid::s4u::Link& bus) const override
  {
    // One curve for every bus: each NUMA domain of a platform's nodes is alike.
    bus.set_sharing_policy(simgrid::s4u::Link::SharingPolicy::NONLINEAR,
                           [curve = curve_](double, int flows) { return capacity_at(curve, flows); });
  }

private:
  Curve curve_;
  std::unique_ptr<BusPolicy> weights_;
};
} // namespace

std::unique_ptr<BusPolicy> make_weighted(const MemorySettings&); // weighted.cpp: the weights it keeps

namespace {
const RegisterPolicy registration{
    {"calibrated", 3, [](const MemorySettings& settings) -> std::unique_ptr<BusPolicy> {
       return std::make_unique<Calibrated>(parse_curve(settings.bus_curve), make_weighted(settings));
     }}};
} // namespace

} // namespace progsim::models::contention
