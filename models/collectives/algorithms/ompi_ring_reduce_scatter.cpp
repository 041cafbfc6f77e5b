/* Open MPI 4.1's ring reduce-scatter (ompi_coll_base_reduce_scatter_intra_ring, coll_base_reduce_scatter.c; SMPI's
 * smpi/reduce_scatter:ompi_ring): p - 1 steps around the ring. A rank first posts the receive of what its left
 * neighbour sends and sends its right neighbour the share of rank - 1; at each step k = 2 .. p - 1 it posts the
 * next receive, waits for the previous one, adds it into the share of rank - k and sends that share to the right
 * (a blocking send). The last block to arrive completes its own share. Empty shares still travel (as empty
 * messages); one rank alone moves nothing. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void ompi_ring_reduce_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  const int p          = p2p.size();
  const int r          = p2p.rank();
  const int64_t* share = counts.data() + action.vector;
  if (p == 1)
    return;
  const int left  = (r - 1 + p) % p;
  const int right = (r + 1) % p;
  auto block      = [&](int k) { return share[((r - k) % p + p) % p]; }; // the share of rank - k
  // The left neighbour sends at step k the share of its rank - k, that is of rank - k - 1.
  auto arriving = p2p.irecv(left, tag, block(2));
  p2p.send(right, tag, block(1));
  for (int k = 2; k < p; k++) {
    auto next = p2p.irecv(left, tag, block(k + 1));
    p2p.wait(arriving);
    arriving = next;
    p2p.send(right, tag, block(k));
  }
  p2p.wait(arriving);
}

} // namespace progsim::models::collectives::algorithms
