/* Ring allreduce: the vector in p segments; p - 1 rounds of reduce-scatter, then p - 1 rounds of allgather, each a
 * segment sent to the right neighbour while one arrives from the left. Open MPI libnbc's "ring" iallreduce. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void ring_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int p       = p2p.size();
  const int r       = p2p.rank();
  auto segment      = [&](int k) { // segment k's bytes: the remainder goes to the first ones
    return action.bytes / p + (k < action.bytes % p ? 1 : 0);
  };
  const int right = (r + 1) % p;
  const int left  = (r - 1 + p) % p;
  for (int step = 0; step < 2 * (p - 1); step++) {
    int sent     = ((r - step) % p + p) % p;     // the segment this rank forwards
    int received = ((r - step - 1) % p + p) % p; // the one it gets from the left
    p2p.sendrecv(right, segment(sent), left, segment(received), tag);
  }
}

} // namespace progsim::models::collectives::algorithms
