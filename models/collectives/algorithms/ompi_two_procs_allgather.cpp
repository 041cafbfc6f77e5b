/* Open MPI 4.1's ompi_coll_base_allgather_intra_two_procs (coll_base_allgather.c): the two ranks exchange their
 * blocks in one round. Open MPI refuses any other rank count (MPI_ERR_UNSUPPORTED_OPERATION), even one; so does
 * this. On 2 ranks it is SMPI's "pair" allgather. */
#include "collectives/algorithms/Algorithms.hpp"

#include <stdexcept>

namespace progsim::models::collectives::algorithms {

void ompi_two_procs_allgather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int p = p2p.size();
  if (p != 2)
    throw std::invalid_argument("Open MPI's two-process allgather needs 2 ranks, not " + std::to_string(p));
  const int other = p2p.rank() ^ 1;
  p2p.sendrecv(other, action.bytes, other, action.bytes2, tag);
}

} // namespace progsim::models::collectives::algorithms
