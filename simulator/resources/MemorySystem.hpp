/* The memory of the platform's NUMA domains as the flows that cross their buses see it: computations' streams,
 * copies, and the DMA of NIC transfers, each a transfer to the memory that holds its data. */
#pragma once

#include "config/Parameters.hpp"
#include "resources/BusPolicy.hpp"
#include "resources/BusShares.hpp"
#include "sched/Flow.hpp"
#include "resources/LoadedLatency.hpp"
#include "sched/TransferWatch.hpp"

#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Host.hpp>

#include <deque>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

namespace progsim::resources {

/** Flows on memory buses: what a computation, copy or DMA waits for before it ends. */
struct BusTraffic {
  std::vector<sched::Flow> transfers;
  MemoryDemand demand; // a stream's: the links whose latency it loads until MemorySystem::ended
  bool paced = false;  // every flow is bounded at its part of the rate asked: none ends before bytes / rate
  bool empty() const { return transfers.empty(); }
  /** Blocks the calling actor until every flow has ended. */
  void wait(sched::TransferWatch& watch) const
  {
    for (auto const& transfer : transfers)
      watch.park_until_ended(transfer);
  }
};

/**
 * A compiled platform gives each NUMA domain `d` a memory `d.mem` (a host that runs nothing) reached through the
 * domain's bus: from `d` itself, the bus alone; from another domain of the node, the inter-domain links first
 * (platforms/README.md). A flow is a transfer from the host of whoever moves the data (a core, the NIC's domain) to
 * the memory that holds it, so that SimGrid shares each bus, and the links to it, between all the flows that cross
 * them; the contention policy (models/contention) bends that sharing.
 */
class MemorySystem {
public:
  MemorySystem(const MemorySettings& settings, std::unique_ptr<models::contention::BusPolicy> policy);
  ~MemorySystem();
  MemorySystem(const MemorySystem&)            = delete;
  MemorySystem& operator=(const MemorySystem&) = delete;

  /** Finds each domain's memory and the NIC's domain, applies the policy to every bus, places each rank's data
   * (progsim/data-numa). Throws std::invalid_argument when the data's domain does not exist. */
  void start(const std::vector<simgrid::s4u::Host*>& rank_hosts);
  /** Whether `rank`'s data sits in a memory with a bus (a compiled platform's). */
  bool has_bus(int rank) const { return data_memory_[rank] != nullptr; }
  const models::contention::BusPolicy& policy() const { return *policy_; }

  /** The calling rank's computation streams `bytes` at most at `rate` B/s (0: no bound) and at most one core's
   * memory bandwidth. Until ended(), its demand loads the latency of its data's memory (progsim/loaded-latency). */
  BusTraffic stream(int rank, int64_t bytes, double rate);
  /** A stream has moved its bytes: its demand leaves the memory's latency. */
  void ended(const BusTraffic& stream);
  /** What an access of `rank`'s core to its data waits beyond the idle latency, the streams' requests queued ahead
   * of it (progsim/loaded-latency): the stall of the core that reads a message the NIC has just written. */
  double access_stall(int rank);
  /** Whether a copy or NIC transfer of `bytes` stays in the caches (progsim/cached-message-bytes): its traffic still
   * loads the bus, later, as a write-back (copy() and dma() with write_back: nobody waits for it). */
  bool cached(int64_t bytes) const { return bytes <= settings_.cached_message_bytes; }
  /** A core of `rank`'s domain copies: `bytes` through the memory of its data, at most at `rate` B/s (the copy's
   * pace; 0: no bound), bounded only when the copier runs on the rank's host (SimGrid bounds flows sent from it),
   * from `start` on (a date; now if earlier). Callable from the kernel, with the copier's host. */
  BusTraffic copy(int rank, int64_t bytes, double rate, const simgrid::s4u::Host* copier, bool write_back = false,
                  double start = 0);
  /** The NIC of `rank`'s node reads or writes `bytes` of the rank's data (progsim/dma-loads-bus), from `start` on
   * (0: now): through the bus that holds the data, and the ports from the NIC's domain only where the message's
   * network route does not cross them (data outside its rank's domain). */
  BusTraffic dma(int rank, int64_t bytes, bool write_back = false, double start = 0);

  /** Where a flow goes, for a small one that takes its idle route's time instead (World::dated_copy_seconds):
   * from the host that moves the data to the memory that holds it; memory null where no bus is loaded. */
  struct FlowRoute {
    const simgrid::s4u::Host* from   = nullptr;
    const simgrid::s4u::Host* memory = nullptr;
    bool in_parts = false; // the policy splits it into transfers of their own (they cannot take a date)
  };
  /** A copy's, from `rank`'s core to its data. */
  FlowRoute copy_route(int rank) const;
  /** A DMA's of `rank`'s data (none unless progsim/dma-loads-bus). */
  FlowRoute dma_route(int rank) const;

private:
  BusTraffic load(simgrid::s4u::Host* from, simgrid::s4u::Host* memory, int64_t bytes,
                  models::contention::BusUser user, double rate, bool write_back = false, double start = 0);

  MemorySettings settings_;
  std::unique_ptr<models::contention::BusPolicy> policy_;
  std::vector<simgrid::s4u::Host*> rank_host_;
  std::vector<simgrid::s4u::Host*> data_memory_; // by rank: the memory holding its data (null: no bus)
  // By rank: where its NIC's DMA flows start (null: no NIC), the NIC's domain unless the rank's own holds its data.
  std::vector<simgrid::s4u::Host*> dma_source_;
  std::unordered_map<const simgrid::s4u::Host*, double> core_bandwidth_; // B/s one core streams, by domain
  /** The shared links from a core's domain to a rank's data (inter-domain ports, then the bus), looked up once. */
  const std::vector<simgrid::s4u::Link*>& route(simgrid::s4u::Host* core, int rank);

  std::map<std::pair<const simgrid::s4u::Host*, const simgrid::s4u::Host*>, std::vector<simgrid::s4u::Link*>> routes_;
  LoadedLatency loaded_latency_;
  std::deque<sched::Flow> write_backs_; // kept until they end (SimGrid warns of a comm dropped running)
  // Buses shared in closed form (progsim/bus-sharing), and the routes to a memory that cross one of them alone.
  std::vector<std::unique_ptr<BusShares>> shares_;
  bool buses_to_share_ = false; // closed-form sharing asked, not set up yet (at the first flow)
  std::map<std::pair<const simgrid::s4u::Host*, const simgrid::s4u::Host*>, BusShares*> shared_routes_;
  /** Which buses BusShares may share: those that only one-link routes of this run's flows cross. */
  void share_buses();
  bool warned_no_bus_ = false;
};

} // namespace progsim::resources
