#include "mpi/ProgressModel.hpp"
#include "mpi/Endpoint.hpp"
#include "mpi/World.hpp"

namespace progsim::models::progress {

void ProgressModel::compute(mpi::Endpoint& endpoint, double flops, const mpi::BusTraffic& stream)
{
  endpoint.world().compute(endpoint.host(), flops, stream);
}

} // namespace progsim::models::progress
