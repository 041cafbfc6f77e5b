/* The latency of a memory under load. A core streaming from memory keeps a fixed number of cache-line requests in
 * flight (its line-fill buffers and prefetchers); once the streams ask a link to memory (a bus, an inter-domain port)
 * for more than it delivers, their requests queue there, and by Little's law an access waits the link's idle latency
 * times the demand over the bandwidth. */
#pragma once

#include <simgrid/s4u/Link.hpp>

#include <unordered_map>
#include <vector>

namespace progsim::resources {

/** The demand a stream places on the links to its memory for as long as it runs. */
struct MemoryDemand {
  std::vector<simgrid::s4u::Link*> links;
  double rate = 0; // B/s the stream would move if nothing but its core and its pace limited it
};

class LoadedLatency {
public:
  /** Each link of `demand` carries it from now on. */
  void add(const MemoryDemand& demand);
  /** The stream ended: its links carry its demand no more. */
  void remove(const MemoryDemand& demand);
  /** What an access crossing `links` waits beyond their idle latencies, in seconds. */
  double extra(const std::vector<simgrid::s4u::Link*>& links) const;
  /** Little's law: a link of `bandwidth` asked for `demand` B/s takes latency x max(1, demand / bandwidth). */
  static double loaded(double idle_latency, double demand, double bandwidth);

private:
  std::unordered_map<const simgrid::s4u::Link*, double> demand_; // B/s, by link
};

} // namespace progsim::resources
