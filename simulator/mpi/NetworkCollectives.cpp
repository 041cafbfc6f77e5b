#include "mpi/NetworkCollectives.hpp"
#include "mpi/Endpoint.hpp"
#include "mpi/World.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <string>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(progsim_network_collective, progsim, "Collectives run by the network in hardware");

namespace progsim::mpi {

double NetworkCollectives::duration(int64_t bytes) const
{
  const Parameters& p = world_.parameters();
  return p.offload.collective_latency + static_cast<double>(bytes) / p.offload.collective_bandwidth;
}

void NetworkCollectives::join(uint64_t sequence, int rank, const RequestPtr& request)
{
  Gathering& gathering = gathering_[sequence];
  gathering.joined.emplace_back(rank, request);
  gathering.bytes = std::max(gathering.bytes, request->bytes);
  if (static_cast<int>(gathering.joined.size()) < world_.size())
    return;
  const double seconds = duration(gathering.bytes);
  XBT_VERB("collective #%llu: every rank joined; the network completes it in %g s",
           static_cast<unsigned long long>(sequence + 1), seconds);
  auto joined = std::move(gathering.joined);
  gathering_.erase(sequence);
  // The tree works on its own: a short-lived actor stands for it, and completes every rank's part at the end.
  simgrid::s4u::Actor::create("network-collective-" + std::to_string(sequence + 1), world_.host_of(0),
                              [this, seconds, joined = std::move(joined)]() {
                                simgrid::s4u::this_actor::sleep_for(seconds);
                                for (auto const& [member, part] : joined)
                                  world_.endpoint(member).complete(part);
                              });
}

} // namespace progsim::mpi
