/* dedicated-core: progression runs on cores reserved per node (or per NUMA domain). Computation is not slowed by
 * it, but the application has those cores fewer; one reserved core serves all the ranks of its node in turn. */
#include "mpi/Endpoint.hpp"
#include "mpi/World.hpp"
#include "progress/ProgressAgent.hpp"
#include "progress/ProgressModel.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <map>

namespace sg4 = simgrid::s4u;

namespace progsim::models::progress {

namespace {
class DedicatedCoreProgress : public ProgressModel {
public:
  explicit DedicatedCoreProgress(const Parameters& p)
      : per_numa_(p.dedicated_per == "numa"), cores_(p.dedicated_cores), step_cost_(p.dedicated_step_cost)
  {
  }

  std::string_view name() const override { return "dedicated-core"; }
  bool rank_drives(const mpi::Endpoint&) const override { return false; }
  std::string_view executor(const mpi::Endpoint&) const override { return "dedicated-core"; }

  void start(mpi::World& world) override
  {
    // Group the ranks by the unit that owns a progress core: a node, or a host (NUMA domain).
    std::map<std::pair<int, std::string>, std::vector<mpi::Endpoint*>> groups;
    for (int rank = 0; rank < world.size(); rank++) {
      auto key = per_numa_ ? std::make_pair(world.node_of(rank), world.host_of(rank)->get_name())
                           : std::make_pair(world.node_of(rank), std::string());
      groups[key].push_back(&world.endpoint(rank));
    }
    agent_of_.resize(world.size());
    for (auto const& [key, endpoints] : groups) {
      auto agent      = std::make_shared<ProgressAgent>(endpoints, nullptr);
      sg4::Host* host = endpoints.front()->host();
      for (auto* endpoint : endpoints)
        agent_of_[endpoint->rank()] = agent;
      // The reserved cores are busy for the whole run, whatever the agent does: the ranks cannot use them.
      agent->reserve(cores_, host->get_speed());
      reserved_on_[host] += cores_;
      agents_.push_back(agent);
      sg4::Actor::create("progress-core-" + host->get_name(), host, [agent]() { (*agent)(); });
    }
  }

  int extra_cpu_users(const mpi::World&, const sg4::Host* host) const override
  {
    auto it = reserved_on_.find(host);
    return it == reserved_on_.end() ? 0 : it->second;
  }

  void execute_step(mpi::Endpoint& endpoint, double) override
  {
    if (step_cost_ <= 0)
      return;
    sg4::this_actor::sleep_for(step_cost_); // on the reserved core, which nothing else uses
    endpoint.add_step_seconds(step_cost_);
  }

  void wake(mpi::Endpoint& endpoint) override { agent_of_[endpoint.rank()]->ring(); }

  void pause_background(bool paused) override
  {
    for (auto& agent : agents_)
      agent->pause_load(paused);
  }

  void stop(mpi::World&) override
  {
    for (auto& agent : agents_)
      agent->stop();
  }

private:
  bool per_numa_;
  int cores_;
  double step_cost_;
  std::vector<std::shared_ptr<ProgressAgent>> agent_of_;
  std::map<const sg4::Host*, int> reserved_on_;
  std::vector<std::shared_ptr<ProgressAgent>> agents_;
};
} // namespace

std::unique_ptr<ProgressModel> make_dedicated_core(const Parameters& parameters)
{
  return std::make_unique<DedicatedCoreProgress>(parameters);
}

} // namespace progsim::models::progress
