/* none: the rank runs every protocol step itself, inside its MPI calls (wait and test, or every call with
 * progsim/rank-progress:every-call), on its own core. Open MPI's ob1 and MPICH without an asynchronous thread work
 * this way. */
#include "mpi/Endpoint.hpp"
#include "mpi/ProgressModel.hpp"

namespace progsim::models::progress {

namespace {
class NoProgress : public ProgressModel {
public:
  explicit NoProgress(const Parameters& p) : ProgressModel(CallCosts::of(p)) {}
  std::string_view name() const override { return "none"; }
  mpi::StepRunner& runner(mpi::Endpoint& endpoint, mpi::Step, int) override { return endpoint.own_runner(); }
  bool rank_runs_alone(const mpi::Endpoint&) const override { return true; }
};

const RegisterProgress registration{
    {"none", 1, "",
     "only the rank itself moves a message forward, and only while it is inside an MPI call (MPI_Test "
     "included): the default of Open MPI and MPICH",
     [](const Parameters& parameters) { return std::make_unique<NoProgress>(parameters); }}};

} // namespace

} // namespace progsim::models::progress
