/* Bruck's alltoall (Bruck et al. 1997; SMPI's smpi/alltoall:bruck): ceil(log2 p) rounds; in the round of distance
 * 2^k a rank sends to rank + 2^k, packed in one message, every block whose index has bit k set, and receives as
 * many from rank - 2^k. Fewer, larger messages than the linear and pairwise exchanges: for small blocks. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void bruck_alltoall(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  for (int distance = 1; distance < p; distance *= 2) {
    int blocks = 0;
    for (int block = 1; block < p; block++)
      if (block & distance)
        blocks++;
    const int64_t bytes = blocks * action.bytes;
    p2p.sendrecv((r + distance) % p, bytes, (r - distance + p) % p, bytes, tag);
  }
}

} // namespace progsim::models::collectives::algorithms
