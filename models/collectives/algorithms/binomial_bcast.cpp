/* Binomial-tree broadcast: a rank receives from its parent, then sends to all its children at once; the tree has
 * ceil(log2 p) levels (16 ranks: 4). As the tree algorithms of Open MPI's libnbc and MPICH post it. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void binomial_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int p   = p2p.size();
  const int rel = (p2p.rank() - action.root + p) % p; // rank relative to the root
  int mask      = 1;
  while (mask < p && (rel & mask) == 0)
    mask <<= 1;
  if (rel != 0) // the parent clears the lowest set bit
    p2p.recv((rel - mask + action.root) % p, tag, action.bytes);
  std::vector<mpi::RequestPtr> children;
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (rel + mask < p)
      children.push_back(p2p.isend((rel + mask + action.root) % p, tag, action.bytes));
  p2p.wait_all(children);
}

} // namespace progsim::models::collectives::algorithms
