/* Open MPI 4.1's ompi_coll_base_allgather_intra_neighborexchange (coll_base_allgather.c; SMPI's
 * smpi/allgather:ompi_neighborexchange; Chen et al. 2005): on an even number of ranks, p / 2 rounds, each an
 * exchange with one neighbour, alternating between the two. An even rank starts with rank + 1 and then alternates
 * with rank - 1; an odd rank starts with rank - 1 and then alternates with rank + 1. The first exchange carries one
 * block (the own), every later one the two blocks received the round before. On an odd number of ranks Open MPI
 * runs its ring allgather instead (ompi_ring_allgather). */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void ompi_neighbor_exchange_allgather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                      int tag)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  if (p % 2 != 0) {
    ompi_ring_allgather(p2p, action, counts, tag);
    return;
  }
  const int up   = (r + 1) % p;
  const int down = (r - 1 + p) % p;
  const int neighbor[2] = {r % 2 == 0 ? up : down, r % 2 == 0 ? down : up};
  p2p.sendrecv(neighbor[0], action.bytes2, neighbor[0], action.bytes2, tag);
  for (int step = 1; step < p / 2; step++)
    p2p.sendrecv(neighbor[step % 2], 2 * action.bytes2, neighbor[step % 2], 2 * action.bytes2, tag);
}

} // namespace progsim::models::collectives::algorithms
