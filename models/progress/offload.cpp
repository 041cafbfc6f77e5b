/* offload: the NIC matches messages and runs the rendezvous: no CPU cost, a NIC latency per step. Nodes whose
 * NIC does not offload the rendezvous fall back to `none`. */
#include "mpi/Endpoint.hpp"
#include "mpi/World.hpp"
#include "progress/ProgressAgent.hpp"
#include "progress/ProgressModel.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <map>

namespace sg4 = simgrid::s4u;

namespace progsim::models::progress {

namespace {
/** The compiled platform lists what a node's NIC offloads in the host property progsim:nic-offload. */
bool nic_offloads_rendezvous(const sg4::Host* host)
{
  const char* offload = host->get_property("progsim:nic-offload");
  return offload == nullptr || std::string(offload).find("rendezvous") != std::string::npos;
}

class OffloadProgress : public ProgressModel {
public:
  explicit OffloadProgress(const Parameters& p) : latency_(p.offload_step_latency) {}

  std::string_view name() const override { return "offload"; }
  bool rank_drives(const mpi::Endpoint& endpoint) const override { return not nic_offloads_rendezvous(endpoint.host()); }
  std::string_view executor(const mpi::Endpoint& endpoint) const override
  {
    return rank_drives(endpoint) ? "rank" : "nic";
  }

  void start(mpi::World& world) override
  {
    std::map<int, std::vector<mpi::Endpoint*>> per_node;
    for (int rank = 0; rank < world.size(); rank++)
      if (not rank_drives(world.endpoint(rank)))
        per_node[world.node_of(rank)].push_back(&world.endpoint(rank));
    agent_of_.resize(world.size());
    for (auto const& [node, endpoints] : per_node) {
      auto agent = std::make_shared<ProgressAgent>(endpoints, nullptr);
      for (auto* endpoint : endpoints)
        agent_of_[endpoint->rank()] = agent;
      agents_.push_back(agent);
      sg4::Actor::create("nic-" + std::to_string(node), endpoints.front()->host(), [agent]() { (*agent)(); });
    }
  }

  void execute_step(mpi::Endpoint& endpoint, double cpu_seconds) override
  {
    if (rank_drives(endpoint)) { // no offload on this node: the rank pays, as with `none`
      if (cpu_seconds > 0)
        endpoint.world().spend_cpu(endpoint.host(), cpu_seconds);
      endpoint.add_step_seconds(cpu_seconds);
      return;
    }
    if (latency_ > 0)
      sg4::this_actor::sleep_for(latency_);
  }

  void wake(mpi::Endpoint& endpoint) override
  {
    if (agent_of_[endpoint.rank()])
      agent_of_[endpoint.rank()]->ring();
  }

  void stop(mpi::World&) override
  {
    for (auto& agent : agents_)
      agent->stop();
  }

private:
  double latency_;
  std::vector<std::shared_ptr<ProgressAgent>> agent_of_;
  std::vector<std::shared_ptr<ProgressAgent>> agents_;
};
} // namespace

std::unique_ptr<ProgressModel> make_offload(const Parameters& parameters)
{
  return std::make_unique<OffloadProgress>(parameters);
}

} // namespace progsim::models::progress
