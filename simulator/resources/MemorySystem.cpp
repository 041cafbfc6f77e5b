#include "resources/MemorySystem.hpp"
#include "resources/HostsByName.hpp"
#include "sched/TransferStarts.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <map>
#include <stdexcept>
#include <string>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(progsim_memory, progsim, "Memory buses: streams, copies, DMA");

namespace sg4 = simgrid::s4u;
using progsim::models::contention::BusUser;

namespace progsim::resources {

MemorySystem::MemorySystem(const MemorySettings& settings, std::unique_ptr<models::contention::BusPolicy> policy)
    : settings_(settings), policy_(std::move(policy))
{
}

MemorySystem::~MemorySystem()
{
  // A write-back still running when the simulation ends stays the engine's: dropping it would make SimGrid warn.
  for (auto& flow : write_backs_)
    if (flow.transfer && flow.transfer->get_remaining() > 0)
      intrusive_ptr_add_ref(flow.transfer.get());
}

void MemorySystem::start(const std::vector<sg4::Host*>& rank_hosts)
{
  rank_host_ = rank_hosts;
  // The domains of each node, by index, and each domain's memory.
  std::map<std::string, std::map<int, sg4::Host*>> domains;
  const HostsByName hosts;
  for (sg4::Host* host : sg4::Engine::get_instance()->get_all_hosts()) {
    const char* numa   = host->get_property("progsim:numa");
    sg4::Host* memory  = hosts.find(host->get_property("progsim:memory"));
    if (numa == nullptr || memory == nullptr)
      continue;
    domains[host->get_property("progsim:node")][std::stoi(numa)] = host;
    std::vector<sg4::Link*> bus;
    host->route_to(memory, bus, nullptr);
    for (sg4::Link* link : bus)
      policy_->configure(*link);
    if (const char* cap = host->get_property("progsim:core-memory-bandwidth"))
      core_bandwidth_[host] = std::stod(cap);
  }

  const std::string& where = settings_.data_numa;
  data_memory_.assign(rank_hosts.size(), nullptr);
  dma_source_.assign(rank_hosts.size(), nullptr);
  for (size_t rank = 0; rank < rank_hosts.size(); rank++) {
    sg4::Host* host = rank_hosts[rank];
    if (hosts.find(host->get_property("progsim:memory")) == nullptr)
      continue; // a platform not compiled by progsim: no bus (stream() says so once)
    sg4::Host* nic_domain = hosts.find(host->get_property("progsim:nic-domain"));
    sg4::Host* data       = host;
    if (where == "nic") {
      data = nic_domain != nullptr ? nic_domain : host;
    } else if (where != "local") {
      auto const& node = domains[host->get_property("progsim:node")];
      auto it          = node.find(std::stoi(where));
      if (it == node.end())
        throw std::invalid_argument("progsim/data-numa: " + where + ": the nodes have NUMA domains 0.." +
                                    std::to_string(node.size() - 1));
      data = it->second;
    }
    data_memory_[rank] = hosts.find(data->get_property("progsim:memory"));
    // The data crosses the ports between its domain and the NIC's once. A message's network route starts at its
    // rank's domain and crosses them already when the data sits there, so its DMA loads the bus alone.
    if (nic_domain != nullptr)
      dma_source_[rank] = data == host ? host : nic_domain;
  }
  buses_to_share_ = settings_.bus_sharing == "closed-form";
}

void MemorySystem::share_buses()
{
  const RouteDelay network;
  if (not network.applies())
    return;
  // Every route to a memory that this run's flows take: a core's to its data, its DMA's.
  std::map<std::pair<const sg4::Host*, const sg4::Host*>, std::vector<sg4::Link*>> routes;
  for (size_t rank = 0; rank < data_memory_.size(); rank++)
    for (sg4::Host* from : {rank_host_[rank], dma_source_[rank]})
      if (from != nullptr && data_memory_[rank] != nullptr) {
        auto [it, fresh] = routes.try_emplace({from, data_memory_[rank]});
        if (fresh)
          from->route_to(data_memory_[rank], it->second, nullptr);
      }
  // A bus that a longer route also crosses (data in another domain, a NIC in another domain) stays SimGrid's, and
  // so does one whose sharing is not linear (a calibrated policy's).
  std::map<const sg4::Link*, bool> alone;
  for (auto const& [_, links] : routes)
    for (sg4::Link* link : links) {
      bool single = links.size() == 1 && link->get_sharing_policy() == sg4::Link::SharingPolicy::SHARED;
      auto [it, fresh] = alone.try_emplace(link, single);
      it->second = it->second && single;
    }
  std::map<const sg4::Link*, BusShares*> by_link;
  for (auto const& [pair, links] : routes) {
    if (links.size() != 1 || not alone[links.front()])
      continue;
    auto& shares = by_link[links.front()];
    if (shares == nullptr)
      shares = shares_.emplace_back(std::make_unique<BusShares>(BusShares::Model::of(*links.front(), network))).get();
    shared_routes_[pair] = shares;
  }
  XBT_VERB("%zu memory buses shared in closed form", shares_.size());
}

BusTraffic MemorySystem::stream(int rank, int64_t bytes, double rate)
{
  if (bytes <= 0)
    return {};
  if (not has_bus(rank)) {
    if (not warned_no_bus_)
      XBT_WARN("%s has no memory bus (a platform compiled by progsim has one per NUMA domain): the bytes that "
               "computations, copies and DMA move are ignored", rank_host_[rank]->get_cname());
    warned_no_bus_ = true;
    return {};
  }
  sg4::Host* core = rank_host_[rank];
  auto cap        = core_bandwidth_.find(core);
  if (cap != core_bandwidth_.end() && (rate <= 0 || cap->second < rate))
    rate = cap->second;
  BusTraffic traffic = load(core, data_memory_[rank], bytes, BusUser::Core, rate);
  if (settings_.loaded_latency && rate > 0) { // its requests queue at every link to its memory
    traffic.demand = MemoryDemand{route(core, rank), rate};
    loaded_latency_.add(traffic.demand);
  }
  return traffic;
}

void MemorySystem::ended(const BusTraffic& stream)
{
  if (stream.demand.rate > 0)
    loaded_latency_.remove(stream.demand);
}

double MemorySystem::access_stall(int rank)
{
  if (not settings_.loaded_latency || not has_bus(rank))
    return 0;
  return loaded_latency_.extra(route(rank_host_[rank], rank));
}

const std::vector<sg4::Link*>& MemorySystem::route(sg4::Host* core, int rank)
{
  auto [it, fresh] = routes_.try_emplace({core, data_memory_[rank]});
  if (fresh) {
    std::vector<sg4::Link*> links;
    core->route_to(data_memory_[rank], links, nullptr);
    // Requests queue where flows share a link (buses, ports), not on a domain's unshared way out to its gateway.
    for (sg4::Link* link : links)
      if (link->get_sharing_policy() != sg4::Link::SharingPolicy::FATPIPE)
        it->second.push_back(link);
  }
  return it->second;
}

BusTraffic MemorySystem::copy(int rank, int64_t bytes, double rate, const sg4::Host* copier, bool write_back,
                              double start)
{
  if (bytes <= 0 || not has_bus(rank))
    return {};
  sg4::Host* core = rank_host_[rank];
  return load(core, data_memory_[rank], bytes, BusUser::Core, copier == core ? rate : 0, write_back, start);
}

BusTraffic MemorySystem::dma(int rank, int64_t bytes, bool write_back, double start)
{
  if (not settings_.dma_loads_bus || bytes <= 0 || not has_bus(rank) || dma_source_[rank] == nullptr)
    return {};
  XBT_VERB("DMA of %lld B for rank %d: %s -> %s", static_cast<long long>(bytes), rank, dma_source_[rank]->get_cname(),
            data_memory_[rank]->get_cname());
  return load(dma_source_[rank], data_memory_[rank], bytes, BusUser::Nic, 0, write_back, start);
}

MemorySystem::FlowRoute MemorySystem::copy_route(int rank) const
{
  if (not has_bus(rank))
    return {};
  return {rank_host_[rank], data_memory_[rank], policy_->transfers_per_flow(BusUser::Core) != 1};
}

MemorySystem::FlowRoute MemorySystem::dma_route(int rank) const
{
  if (not settings_.dma_loads_bus || not has_bus(rank) || dma_source_[rank] == nullptr)
    return {};
  return {dma_source_[rank], data_memory_[rank], policy_->transfers_per_flow(BusUser::Nic) != 1};
}

BusTraffic MemorySystem::load(sg4::Host* from, sg4::Host* memory, int64_t bytes, BusUser user, double rate,
                               bool write_back, double start)
{
  // The policy's weight: one flow as several equal transfers, each with its part of the bytes and of the rate.
  const int parts = policy_->transfers_per_flow(user);
  BusTraffic traffic;
  traffic.paced = rate > 0;
  if (buses_to_share_) { // once the simulation runs: SimGrid routes through zones (Dijkstra) only once sealed
    buses_to_share_ = false;
    share_buses();
  }
  auto shared = shared_routes_.find({from, memory});
  for (int part = 0; part < parts; part++) {
    auto share = static_cast<uint64_t>(bytes / parts + (part < bytes % parts ? 1 : 0));
    if (share == 0)
      continue;
    double part_rate = rate > 0 ? rate / parts : 0;
    if (shared != shared_routes_.end())
      traffic.transfers.emplace_back(shared->second->start(static_cast<double>(share), part_rate, start));
    else
      traffic.transfers.emplace_back(sched::transfer_starts::sendto(from, memory, share, part_rate, start));
  }
  if (write_back) {
    // Nobody waits for them: they end on their own, roughly in the order they started.
    auto ended = [](const sched::Flow& flow) {
      return flow.transfer ? flow.transfer->get_remaining() <= 0 : flow.shared->finish_time >= 0;
    };
    while (not write_backs_.empty() && ended(write_backs_.front())) // no simcall
      write_backs_.pop_front();
    write_backs_.insert(write_backs_.end(), traffic.transfers.begin(), traffic.transfers.end());
    return {};
  }
  return traffic;
}

} // namespace progsim::resources
