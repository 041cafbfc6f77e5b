/* offload: each NIC runs the protocol steps it offloads (tag matching, the rendezvous handshake), with a fixed
 * latency per step and no CPU; the rest stays with the rank, as under `none`. A NIC that offloads matching but
 * not the rendezvous matches eager messages only (a request-to-send needs both, since its answer is part of the
 * step). Messages inside a node go through shared memory, driven by the ranks, unless
 * progsim/offload-intra-node routes them through the NIC. The compiled platform names each host's NIC and what
 * it offloads (host properties progsim:nic and progsim:nic-offload); a host without them offloads nothing.
 * Where every rank's NIC offloads collectives, the network runs barrier, bcast, reduce and allreduce whole, in
 * hardware (mpi/NetworkCollectives), as Blue Gene's collective network and InfiniBand SHARP do for these four. */
#include "mpi/Endpoint.hpp"
#include "mpi/World.hpp"
#include "progress/ProgressAgent.hpp"
#include "mpi/ProgressModel.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <xbt/log.h>

#include <map>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(progsim_offload, progsim, "NICs running protocol steps");

namespace sg4 = simgrid::s4u;

namespace progsim::models::progress {

namespace {
class Nic : public ProgressAgent {
public:
  Nic(double latency, bool matching, bool rendezvous) : latency_(latency), matching_(matching), rendezvous_(rendezvous)
  {
  }
  std::string_view name() const override { return "nic"; }
  bool runs(mpi::Step step) const
  {
    switch (step) {
      case mpi::Step::Envelope:
        return matching_;
      case mpi::Step::RequestToSend:
        return matching_ && rendezvous_;
      default:
        return rendezvous_;
    }
  }
  void execute(mpi::Endpoint& endpoint, const mpi::StepWork&) override
  {
    // The NIC's processor handles the event; data moves by DMA, so no core copies anything.
    endpoint.world().pause().pass(latency_);
  }
  bool runs_from_kernel() const override { return true; }
  bool start(mpi::Endpoint& endpoint, const mpi::StepWork&, mpi::CoreCopy& state) override
  {
    return endpoint.start_copy(0, false, latency_, state, endpoint.host());
  }

private:
  double latency_;
  bool matching_;
  bool rendezvous_;
};

std::string property(const sg4::Host* host, const char* name)
{
  const char* value = host->get_property(name);
  return value ? value : "";
}

bool lists(const std::string& items, const std::string& item)
{
  std::string padded = "," + items + ",";
  return padded.find("," + item + ",") != std::string::npos;
}

class OffloadProgress : public ProgressModel {
public:
  explicit OffloadProgress(const Parameters& p)
      : ProgressModel(CallCosts::of(p)), latency_(p.offload.step_latency), intra_node_(p.offload.intra_node)
  {
  }

  std::string_view name() const override { return "offload"; }

  mpi::StepRunner& runner(mpi::Endpoint& endpoint, mpi::Step step, int peer) override
  {
    Nic* nic = nic_of_[endpoint.rank()].get();
    bool through_nic = intra_node_ || not endpoint.world().same_node(endpoint.rank(), peer);
    if (nic != nullptr && through_nic && nic->runs(step))
      return *nic;
    return endpoint.own_runner();
  }

  // A rank whose NIC offloads nothing runs every step itself, as under `none`.
  bool rank_runs_alone(const mpi::Endpoint& endpoint) const override
  {
    return not network_runs_collectives_ && nic_of_.at(endpoint.rank()) == nullptr;
  }

  bool runs_in_network(const trace::Action& action) const override
  {
    using trace::ActionType;
    return network_runs_collectives_ && (action.type == ActionType::Barrier || action.type == ActionType::Bcast ||
                                         action.type == ActionType::Reduce || action.type == ActionType::AllReduce);
  }

  // The NIC runs the matching and rendezvous it offloads; the other collectives' schedules are the host's: the rank
  // starts each next round in its MPI calls.
  bool starts_collective_rounds(const mpi::StepRunner& runner) const override
  {
    return dynamic_cast<const Nic*>(&runner) == nullptr;
  }

  void start(mpi::World& world) override
  {
    std::map<std::string, std::shared_ptr<Nic>> nics; // by name, across the platform
    nic_of_.resize(world.size());
    network_runs_collectives_ = world.size() > 0;
    for (int rank = 0; rank < world.size(); rank++) {
      const sg4::Host* host = world.host_of(rank);
      std::string name      = property(host, "progsim:nic");
      std::string offloads  = property(host, "progsim:nic-offload");
      network_runs_collectives_ = network_runs_collectives_ && lists(offloads, "collectives"); // every rank's NIC
      bool matching = lists(offloads, "matching"), rendezvous = lists(offloads, "rendezvous");
      if (name.empty() || not(matching || rendezvous)) {
        XBT_VERB("rank %d: its NIC offloads nothing: the rank runs its steps", rank);
        continue;
      }
      auto& nic = nics[name];
      if (not nic) {
        nic = std::make_shared<Nic>(latency_, matching, rendezvous);
        nics_.push_back(nic);
        sg4::Actor::create("nic-" + name, world.host_of(rank), [nic]() { (*nic)(); });
      }
      nic->serve(world.endpoint(rank));
      nic_of_[rank] = nic;
    }
  }

  void stop(mpi::World&) override
  {
    for (auto& nic : nics_)
      nic->stop();
  }

private:
  double latency_;
  bool intra_node_;
  bool network_runs_collectives_ = false;
  std::vector<std::shared_ptr<Nic>> nic_of_;
  std::vector<std::shared_ptr<Nic>> nics_;
};

const RegisterProgress registration{
    {"offload", 4, "nic",
     "the network card runs what it offloads (matching, rendezvous, whole collectives on some "
     "machines); the rest stays with the rank, as under none",
     [](const Parameters& parameters) { return std::make_unique<OffloadProgress>(parameters); }}};

} // namespace

} // namespace progsim::models::progress
