/* Linear reduce (SMPI's default reduce): every rank sends its vector to the root, which posts a receive from each
 * and waits for them all; one round. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void linear_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  if (p2p.rank() != action.root) {
    p2p.send(action.root, tag, action.bytes);
    return;
  }
  std::vector<mpi::RequestPtr> receives;
  for (int source = 0; source < p2p.size(); source++)
    if (source != action.root)
      receives.push_back(p2p.irecv(source, tag, action.bytes));
  p2p.wait_all(receives);
}

} // namespace progsim::models::collectives::algorithms
