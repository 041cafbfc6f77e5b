/* Binomial allreduce: a binomial reduce to rank 0 (in round r a rank whose number is a multiple of 2^r receives the
 * partial result of rank + 2^(r-1), a round each; the others send theirs and leave), then a binomial broadcast back
 * (a rank receives from its parent, then sends to all its children). Open MPI libnbc's "binomial" iallreduce. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void binomial_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  for (int half = 1; half < p; half <<= 1) {
    if (r % (2 * half) != 0) { // send the partial result down and leave the reduction
      p2p.send(r - half, tag, action.bytes);
      break;
    }
    if (r + half < p)
      p2p.recv(r + half, tag, action.bytes);
  }
  trace::Action down = action;
  down.root          = 0;
  binomial_bcast(p2p, down, counts, tag);
}

} // namespace progsim::models::collectives::algorithms
