/* ideal: SMPI's assumption. Messages move by SMPI's direct protocol (matching when posted, one transfer that needs
 * nobody), MPI calls cost nothing but SMPI's own injected sleep in MPI_Test. Reference for cross-checks.
 * A non-blocking collective's rounds start by themselves as soon as the previous one completed (SMPI posts every
 * message of its own algorithms at once, so it never has to): a costless agent per rank, the network, starts them. */
#include "mpi/Endpoint.hpp"
#include "mpi/ProgressModel.hpp"
#include "progress/ProgressAgent.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <map>
#include <memory>

namespace progsim::models::progress {

namespace {
/** Completes a collective round's transfers when they end and posts the next round, in no time. */
class Network : public ProgressAgent {
public:
  std::string_view name() const override { return "network"; }
  void execute(mpi::Endpoint&, const mpi::StepWork&) override {}
};

class IdealProgress : public ProgressModel {
public:
  explicit IdealProgress(const Parameters& p) : ProgressModel(CallCosts{}), test_sleep_(p.smpi_test_sleep) {}

  std::string_view name() const override { return "ideal"; }
  Protocol protocol(const TransportProtocol&, int64_t) const override { return Protocol::Direct; }
  // The direct protocol's steps cost nothing; the rank runs them in its MPI calls, when its transfers ended.
  mpi::StepRunner& runner(mpi::Endpoint& endpoint, mpi::Step, int) override { return endpoint.own_runner(); }

  // Created at a rank's first non-blocking collective with rounds: traces without them run no extra actor.
  mpi::StepRunner& collective_runner(mpi::Endpoint& endpoint, mpi::Step, int) override
  {
    auto& network = networks_[endpoint.rank()];
    if (not network) {
      network = std::make_shared<Network>();
      network->serve(endpoint);
      auto agent = network;
      simgrid::s4u::Actor::create("network-" + std::to_string(endpoint.rank()), endpoint.host(),
                                  [agent]() { (*agent)(); });
    }
    return *network;
  }

  void stop(mpi::World&) override
  {
    for (auto& [_, network] : networks_)
      network->stop();
  }

  // SMPI injects a sleep in every MPI_Test, growing while tests fail (smpi/test, smpi/grow-injected-times); one
  // counter for all ranks, as SMPI keeps it.
  void test_entered(mpi::Endpoint&) override
  {
    if (test_sleep_ > 0)
      simgrid::s4u::this_actor::sleep_for(failed_tests_ * test_sleep_);
  }
  void test_returned(bool done) override { failed_tests_ = done ? 1 : failed_tests_ + 1; }

private:
  double test_sleep_;
  int failed_tests_ = 1;
  std::map<int, std::shared_ptr<Network>> networks_; // by rank
};

const RegisterProgress registration{
    {"ideal", 5, "network",
     "SimGrid SMPI's assumption: everything moves by itself, at no cost (the reference)",
     [](const Parameters& parameters) { return std::make_unique<IdealProgress>(parameters); }}};

} // namespace

} // namespace progsim::models::progress
