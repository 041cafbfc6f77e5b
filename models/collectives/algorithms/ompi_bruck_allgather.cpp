/* Open MPI 4.1's ompi_coll_base_allgather_intra_bruck (coll_base_allgather.c; SMPI's smpi/allgather:bruck, the same
 * exchanges): for distances 1, 2, 4, ... below p a rank sends the blocks it has gathered so far to rank - distance
 * and receives as many from rank + distance, so its holding doubles each round; the last round, when the distance
 * passes p / 2, carries only the p - distance blocks still missing. ceil(log2 p) rounds, p - 1 blocks received
 * in all; the final local rotation of the blocks is a copy, not a message. The blocks forwarded are received
 * blocks, so both directions move the receive size. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void ompi_bruck_allgather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  for (int distance = 1; distance < p; distance <<= 1) {
    const int blocks     = distance <= p / 2 ? distance : p - distance;
    const int64_t bytes  = blocks * action.bytes2;
    p2p.sendrecv((r - distance + p) % p, bytes, (r + distance) % p, bytes, tag);
  }
}

} // namespace progsim::models::collectives::algorithms
