#include "mpi/ProgressModel.hpp"
#include "mpi/Endpoint.hpp"
#include "mpi/World.hpp"

namespace progsim::models::progress {

void ProgressModel::compute(mpi::Endpoint& endpoint, double flops, const resources::BusTraffic& stream)
{
  if (stream.empty() && endpoint.runs_ahead()) // CPU work alone, on a core of its own: the rank's clock runs ahead
    endpoint.spend(flops / endpoint.host()->get_speed());
  else
    endpoint.world().compute(endpoint.host(), flops, stream);
}

std::unique_ptr<ProgressModel> make_progress_model(const Parameters& parameters)
{
  return Registry<ProgressKind>::named(parameters.progress, "unknown progress mechanism").make(parameters);
}

} // namespace progsim::models::progress
