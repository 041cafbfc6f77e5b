/* Open MPI 4.1's ompi_coll_base_allgatherv_intra_ring (coll_base_allgatherv.c), "ring" (number 3) of coll/tuned:
 * p - 1 rounds; in round i a rank sends to rank + 1 the block of rank - i (its own first, then the one it received
 * the round before) and receives from rank - 1 the block of rank - i - 1, each with that block's size, empty ones
 * included. SMPI's smpi/allgatherv:ring is another algorithm (every rank sends its own block straight to rank + i),
 * and MPICH's ring skips empty blocks and cuts large ones (mpich_ring_allgatherv.cpp). */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void ompi_ring_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  const int p          = p2p.size();
  const int r          = p2p.rank();
  const int64_t* sizes = counts.data() + action.vector;
  for (int i = 0; i < p - 1; i++)
    p2p.sendrecv((r + 1) % p, sizes[(r - i + p) % p], (r - 1 + p) % p, sizes[(r - i - 1 + p) % p], tag);
}

} // namespace progsim::models::collectives::algorithms
