/* Open MPI 4.1's ompi_coll_base_barrier_intra_two_procs (coll_base_barrier.c; SMPI's smpi/barrier:ompi_two_procs):
 * the two ranks exchange an empty message (one round). Open MPI refuses other rank counts (MPI_ERR_UNSUPPORTED_-
 * OPERATION) but one, where the barrier is nothing; so does this. */
#include "collectives/algorithms/Algorithms.hpp"

#include <stdexcept>

namespace progsim::models::collectives::algorithms {

void ompi_two_procs_barrier(PointToPoint& p2p, const trace::Action&, const trace::CountPool&, int tag)
{
  const int p = p2p.size();
  if (p == 1)
    return;
  if (p != 2)
    throw std::invalid_argument("Open MPI's two-process barrier needs 2 ranks, not " + std::to_string(p));
  const int other = p2p.rank() ^ 1;
  p2p.sendrecv(other, 0, other, 0, tag);
}

} // namespace progsim::models::collectives::algorithms
