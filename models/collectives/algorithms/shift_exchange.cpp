/* The shifted exchange: p - 1 rounds, in round k a rank sends its block to the rank k above it and receives one
 * from the rank k below. The pairwise alltoall of Open MPI and MPICH (p not a power of two), SMPI's "ring" alltoall,
 * and SMPI's "ring" allgather, which sends the rank's own block straight to each rank in turn (nothing forwarded). */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void shift_exchange(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  for (int k = 1; k < p; k++)
    p2p.sendrecv((r + k) % p, action.bytes, (r - k + p) % p, action.bytes2, tag);
}

} // namespace progsim::models::collectives::algorithms
