/* none: the protocol advances only while the rank is inside an MPI call (MPI_Test included). */
#include "mpi/Endpoint.hpp"
#include "mpi/World.hpp"
#include "progress/ProgressModel.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Host.hpp>

namespace progsim::models::progress {

namespace {
class NoProgress : public ProgressModel {
public:
  std::string_view name() const override { return "none"; }
  bool rank_drives(const mpi::Endpoint&) const override { return true; }
  void execute_step(mpi::Endpoint& endpoint, double cpu_seconds) override
  {
    // The rank itself runs the step, on its own core.
    if (cpu_seconds <= 0)
      return;
    endpoint.world().spend_cpu(endpoint.host(), cpu_seconds);
    endpoint.add_step_seconds(cpu_seconds);
  }
};
} // namespace

std::unique_ptr<ProgressModel> make_none(const Parameters&)
{
  return std::make_unique<NoProgress>();
}

} // namespace progsim::models::progress
