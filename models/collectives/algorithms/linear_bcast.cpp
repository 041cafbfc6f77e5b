/* Linear broadcast: the root sends to every other rank at once, each receives from the root (one round). */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void linear_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  if (p2p.rank() != action.root) {
    p2p.recv(action.root, tag, action.bytes);
    return;
  }
  std::vector<mpi::RequestPtr> sends;
  for (int peer = 0; peer < p2p.size(); peer++)
    if (peer != action.root)
      sends.push_back(p2p.isend(peer, tag, action.bytes));
  p2p.wait_all(sends);
}

} // namespace progsim::models::collectives::algorithms
