/* Open MPI 4.1's ompi_coll_base_allgatherv_intra_two_procs (coll_base_allgatherv.c), "two_proc" (number 5) of
 * coll/tuned: the two ranks swap their blocks in one round (the send size, and the other's receive size). Open MPI
 * refuses any other rank count (MPI_ERR_UNSUPPORTED_OPERATION); so does this. */
#include "collectives/algorithms/Algorithms.hpp"

#include <stdexcept>

namespace progsim::models::collectives::algorithms {

void ompi_two_procs_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                               int tag)
{
  const int p = p2p.size();
  if (p != 2)
    throw std::invalid_argument("Open MPI's two-process allgatherv needs 2 ranks, not " + std::to_string(p));
  const int other = p2p.rank() ^ 1;
  p2p.sendrecv(other, action.bytes, other, counts[action.vector + other], tag);
}

} // namespace progsim::models::collectives::algorithms
