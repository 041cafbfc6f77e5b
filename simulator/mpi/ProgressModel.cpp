#include "mpi/ProgressModel.hpp"
#include "mpi/Endpoint.hpp"
#include "mpi/World.hpp"

namespace progsim::models::progress {

void ProgressModel::compute(mpi::Endpoint& endpoint, double flops)
{
  endpoint.world().compute(endpoint.host(), flops);
}

} // namespace progsim::models::progress
