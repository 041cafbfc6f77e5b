/* ideal: SMPI's assumption. Messages move by SMPI's direct protocol (matching when posted, one transfer that needs
 * nobody), MPI calls cost nothing but SMPI's own injected sleep in MPI_Test. Reference for cross-checks. */
#include "mpi/Endpoint.hpp"
#include "mpi/ProgressModel.hpp"

#include <simgrid/s4u/Actor.hpp>

namespace progsim::models::progress {

namespace {
class IdealProgress : public ProgressModel {
public:
  explicit IdealProgress(const Parameters& p) : ProgressModel(CallCosts{}), test_sleep_(p.smpi_test_sleep) {}

  std::string_view name() const override { return "ideal"; }
  mpi::Protocol protocol(const mpi::TransportProtocol&, int64_t) const override { return mpi::Protocol::Direct; }
  // The direct protocol's steps cost nothing; the rank runs them in its MPI calls, when its transfers ended.
  mpi::StepRunner& runner(mpi::Endpoint& endpoint, mpi::Step, int) override { return endpoint.own_runner(); }

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
};
} // namespace

std::unique_ptr<ProgressModel> make_ideal(const Parameters& parameters)
{
  return std::make_unique<IdealProgress>(parameters);
}

} // namespace progsim::models::progress
