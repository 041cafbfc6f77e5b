/* ideal: SMPI's assumption. Matching happens when a message is posted and a transfer needs nobody once both
 * sides have posted; sends below the detached threshold complete at once. Reference for cross-checks. */
#include "mpi/Endpoint.hpp"
#include "mpi/ProgressModel.hpp"

namespace progsim::models::progress {

namespace {
class IdealProgress : public ProgressModel {
public:
  std::string_view name() const override { return "ideal"; }
  bool direct_protocol() const override { return true; }
  // The direct protocol has no steps; should one be asked for, the rank would run it.
  mpi::StepRunner& runner(mpi::Endpoint& endpoint, mpi::Step, int) override { return endpoint.own_runner(); }
};
} // namespace

std::unique_ptr<ProgressModel> make_ideal(const Parameters&)
{
  return std::make_unique<IdealProgress>();
}

} // namespace progsim::models::progress
