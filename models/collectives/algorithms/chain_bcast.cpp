/* Chain (pipelined) broadcast: the message travels in fragments along the ranks root, root + 1, ...; a rank forwards
 * fragment f while it receives fragment f + 1, so that every hop is busy once the pipeline is full. Each fragment is
 * a round: a rank that is not progressing stalls the whole chain behind it. */
#include "collectives/algorithms/Algorithms.hpp"

#include <algorithm>

namespace progsim::models::collectives::algorithms {

void chain_bcast(PointToPoint& p2p, const trace::Action& action, int tag, int64_t fragment)
{
  const int p      = p2p.size();
  const int vrank  = (p2p.rank() - action.root + p) % p;
  const int from   = (p2p.rank() - 1 + p) % p;
  const int to     = (p2p.rank() + 1) % p;
  const int64_t n  = action.bytes > 0 ? (action.bytes + fragment - 1) / fragment : 0;
  mpi::RequestPtr forward; // the previous fragment, sent while the next one arrives
  for (int64_t f = 0; f < n; f++) {
    int64_t bytes = std::min(fragment, action.bytes - f * fragment);
    std::vector<mpi::RequestPtr> round;
    if (forward)
      round.push_back(forward);
    if (vrank != 0)
      round.push_back(p2p.irecv(from, tag, bytes));
    p2p.wait_all(round);
    forward = vrank != p - 1 ? p2p.isend(to, tag, bytes) : nullptr;
    if (vrank == 0) { // the root sends one fragment per round
      p2p.wait(forward);
      forward = nullptr;
    }
  }
  if (forward)
    p2p.wait(forward);
}

void chain_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  chain_bcast(p2p, action, tag, 32768);
}

} // namespace progsim::models::collectives::algorithms
