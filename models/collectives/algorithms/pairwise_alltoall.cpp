/* Pairwise alltoall: p - 1 rounds, in round k a rank sends its block to the rank k above it and receives from the
 * rank k below, so that each round's messages cross disjoint pairs. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void pairwise_alltoall(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  for (int k = 1; k < p; k++)
    p2p.sendrecv((r + k) % p, action.bytes, (r - k + p) % p, action.bytes2, tag);
}

} // namespace progsim::models::collectives::algorithms
