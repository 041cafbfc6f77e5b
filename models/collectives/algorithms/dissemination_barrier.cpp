/* Dissemination barrier: in each of ceil(log2 p) rounds a rank sends an empty message to the rank 2^k above it and
 * receives one from the rank 2^k below (Hensgen, Finkel and Manber 1988), as libnbc's ibarrier. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void dissemination_barrier(PointToPoint& p2p, const trace::Action&, const trace::CountPool&, int tag)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  for (int distance = 1; distance < p; distance <<= 1)
    p2p.sendrecv((r + distance) % p, 0, (r - distance + p) % p, 0, tag);
}

} // namespace progsim::models::collectives::algorithms
