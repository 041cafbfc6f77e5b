/* ideal: SMPI's assumption. Matching happens when a message is posted and a transfer needs nobody once both
 * sides have posted; sends below the detached threshold complete at once. Reference for cross-checks. */
#include "progress/ProgressModel.hpp"

namespace progsim::models::progress {

namespace {
class IdealProgress : public ProgressModel {
public:
  std::string_view name() const override { return "ideal"; }
  bool direct_protocol() const override { return true; }
  bool rank_drives(const mpi::Endpoint&) const override { return false; }
  void execute_step(mpi::Endpoint&, double) override {}
};
} // namespace

std::unique_ptr<ProgressModel> make_ideal(const Parameters&)
{
  return std::make_unique<IdealProgress>();
}

} // namespace progsim::models::progress
