/* Open MPI 4.1's ompi_coll_base_barrier_intra_doublering (coll_base_barrier.c; SMPI's smpi/barrier:ompi_doublering):
 * an empty token goes twice around the ring 0 -> 1 -> ... -> p - 1 -> 0. Rank 0 sends to its right neighbour and
 * then receives from its left one, twice; every other rank receives from its left and then sends to its right,
 * twice: four blocking steps (rounds) per rank, 2p hops in all. Open MPI's second lap sends in synchronous mode
 * (MPI_Ssend); an empty message here is a plain send, as in SMPI's copy. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void ompi_double_ring_barrier(PointToPoint& p2p, const trace::Action&, const trace::CountPool&, int tag)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  if (p == 1)
    return;
  const int left  = (r - 1 + p) % p;
  const int right = (r + 1) % p;
  for (int lap = 0; lap < 2; lap++) {
    if (r == 0) { // starts each lap and sees the token come back
      p2p.send(right, tag, 0);
      p2p.recv(left, tag, 0);
    } else {
      p2p.recv(left, tag, 0);
      p2p.send(right, tag, 0);
    }
  }
}

} // namespace progsim::models::collectives::algorithms
