#include "resources/LoadedLatency.hpp"

#include <algorithm>

namespace progsim::resources {

double LoadedLatency::loaded(double idle_latency, double demand, double bandwidth)
{
  return bandwidth > 0 ? idle_latency * std::max(1.0, demand / bandwidth) : idle_latency;
}

void LoadedLatency::add(const MemoryDemand& demand)
{
  for (const simgrid::s4u::Link* link : demand.links)
    demand_[link] += demand.rate;
}

void LoadedLatency::remove(const MemoryDemand& demand)
{
  for (const simgrid::s4u::Link* link : demand.links) {
    auto it = demand_.find(link);
    if (it == demand_.end())
      continue;
    it->second -= demand.rate;
    if (it->second <= demand.rate * 1e-9) // the last stream left (up to rounding)
      demand_.erase(it);
  }
}

double LoadedLatency::extra(const std::vector<simgrid::s4u::Link*>& links) const
{
  double wait = 0;
  for (const simgrid::s4u::Link* link : links) {
    auto it = demand_.find(link);
    if (it != demand_.end())
      wait += loaded(link->get_latency(), it->second, link->get_bandwidth()) - link->get_latency();
  }
  return wait;
}

} // namespace progsim::resources
