/* Open MPI 4.1's ompi_coll_base_allgather_intra_ring (coll_base_allgather.c; SMPI's smpi/allgather:NTSLR, its
 * "non-topology-specific logical ring"): p - 1 rounds; in each a rank passes one block to rank + 1 (its own first,
 * then the one it received the round before) and receives the next from rank - 1. Unlike SMPI's "ring" allgather
 * (shift_exchange.cpp), which sends the own block straight to every rank, blocks are forwarded around the ring. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void ompi_ring_allgather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  for (int step = 0; step < p - 1; step++)
    p2p.sendrecv((r + 1) % p, action.bytes2, (r - 1 + p) % p, action.bytes2, tag);
}

} // namespace progsim::models::collectives::algorithms
