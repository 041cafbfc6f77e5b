/* dedicated-core: progression runs on cores reserved per node (or per NUMA domain), taken away from the
 * application: a node of c cores with d reserved runs its ranks on c - d. Each reserved core runs its own agent,
 * serving its share of the unit's ranks; steps there slow no computation down. MadMPI/PIOMan and MPC's dedicated
 * progression (Reynier 2022, ch. 4-6) work this way. */
#include "mpi/Endpoint.hpp"
#include "mpi/World.hpp"
#include "progress/ProgressAgent.hpp"
#include "mpi/ProgressModel.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <xbt/log.h>

#include <map>
#include <stdexcept>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(progsim_dedicated, progsim, "Reserved progress cores");

namespace sg4 = simgrid::s4u;

namespace progsim::models::progress {

namespace {
class ReservedCore : public ProgressAgent {
public:
  explicit ReservedCore(double step_cost) : step_cost_(step_cost) {}
  std::string_view name() const override { return "dedicated-core"; }

  void execute(mpi::Endpoint& endpoint, const mpi::StepWork& work) override
  {
    // On the reserved core, which nothing else uses: the step's own cost and its copies, at full core speed.
    double step = work.cpu_seconds > 0 ? step_cost_ : 0;
    endpoint.copy(work.copy_bytes, false, step); // the step, then its copy: one wait
    endpoint.add_step_seconds(step);
  }
  bool runs_from_kernel() const override { return true; }
  bool start(mpi::Endpoint& endpoint, const mpi::StepWork& work, mpi::CoreCopy& state) override
  {
    double step = work.cpu_seconds > 0 ? step_cost_ : 0;
    endpoint.add_step_seconds(step);
    return endpoint.start_copy(work.copy_bytes, false, step, state, endpoint.host());
  }

private:
  double step_cost_;
};

class DedicatedCoreProgress : public ProgressModel {
public:
  explicit DedicatedCoreProgress(const Parameters& p)
      : ProgressModel(CallCosts::of(p)), per_numa_(p.dedicated.per == "numa"), cores_(p.dedicated.cores), step_cost_(p.dedicated.step_cost)
  {
  }

  std::string_view name() const override { return "dedicated-core"; }
  mpi::StepRunner& runner(mpi::Endpoint& endpoint, mpi::Step, int) override { return *core_of_[endpoint.rank()]; }

  void start(mpi::World& world) override
  {
    // Group the ranks by the unit that owns the reserved cores: a node, or a host (NUMA domain).
    std::map<std::pair<int, std::string>, std::vector<mpi::Endpoint*>> units;
    for (int rank = 0; rank < world.size(); rank++) {
      auto key = per_numa_ ? std::make_pair(world.node_of(rank), world.host_of(rank)->get_name())
                           : std::make_pair(world.node_of(rank), std::string());
      units[key].push_back(&world.endpoint(rank));
    }
    core_of_.resize(world.size());
    std::vector<std::pair<std::shared_ptr<ReservedCore>, sg4::Host*>> reserved; // each core and its host
    for (auto const& [key, endpoints] : units) {
      sg4::Host* host = endpoints.front()->host(); // where the unit's reserved cores are
      if (reserved_on_[host] + cores_ >= host->get_core_count())
        throw std::invalid_argument("dedicated-core: " + std::to_string(cores_) + " reserved core(s) on " +
                                    host->get_name() + ", which has " + std::to_string(host->get_core_count()) +
                                    ": no core would be left for its ranks (progsim/dedicated-cores)");
      reserved_on_[host] += cores_;
      XBT_VERB("%d core(s) of %s reserved for the progression of %zu rank(s)", cores_, host->get_cname(),
               endpoints.size());
      std::vector<std::shared_ptr<ReservedCore>> unit_cores;
      for (int c = 0; c < cores_; c++) {
        auto core = std::make_shared<ReservedCore>(step_cost_);
        reserved.emplace_back(core, host);
        unit_cores.push_back(core);
        cores_all_.push_back(core);
        sg4::Actor::create("progress-core-" + host->get_name() + "-" + std::to_string(c), host,
                           [core]() { (*core)(); });
      }
      for (size_t i = 0; i < endpoints.size(); i++) { // the unit's ranks in turn over its cores
        auto& core = unit_cores[i % unit_cores.size()];
        core->serve(*endpoints[i]);
        core_of_[endpoints[i]->rank()] = core;
      }
    }
    // A reserved core is a load that the ranks' computations cannot share (busy for the whole run). Where the ranks
    // and the reserved cores fit in the host's cores, every execution has a core of its own anyway: the load would
    // change no rate, and is left out.
    for (auto const& [core, host] : reserved)
      if (not world.cores_suffice(host, reserved_on_[host]))
        core->reserve(world.cores_of(host), host->get_speed());
  }

  int extra_cpu_users(const mpi::World&, const sg4::Host* host) const override
  {
    auto it = reserved_on_.find(host);
    return it == reserved_on_.end() ? 0 : it->second;
  }

  void pause_background(bool paused) override
  {
    for (auto& core : cores_all_)
      core->pause_load(paused);
  }

  void stop(mpi::World&) override
  {
    for (auto& core : cores_all_)
      core->stop();
  }

private:
  bool per_numa_;
  int cores_;
  double step_cost_;
  std::vector<std::shared_ptr<ReservedCore>> core_of_;
  std::vector<std::shared_ptr<ReservedCore>> cores_all_;
  std::map<const sg4::Host*, int> reserved_on_;
};

const RegisterProgress registration{
    {"dedicated-core", 3, "dedicated-core",
     "a core per node is reserved for progress and runs every step at once; the ranks have one core "
     "fewer",
     [](const Parameters& parameters) { return std::make_unique<DedicatedCoreProgress>(parameters); }}};

} // namespace

} // namespace progsim::models::progress
