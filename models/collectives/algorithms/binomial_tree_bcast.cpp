/* SMPI's binomial-tree broadcast (smpi/bcast:binomial_tree, its default): a rank receives from its parent, then
 * sends to its children one after the other, largest subtree first, each send blocking (as MPICH's binomial bcast;
 * a rendezvous child delays the next). Compare binomial_bcast.cpp, which posts all the children's sends at once. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void binomial_tree_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int p   = p2p.size();
  const int r   = p2p.rank();
  const int rel = (r - action.root + p) % p;
  int mask      = 1;
  while (mask < p) { // receive from the parent
    if (rel & mask) {
      p2p.recv((r - mask + p) % p, tag, action.bytes);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (rel + mask < p)
      p2p.send((r + mask) % p, tag, action.bytes);
}

} // namespace progsim::models::collectives::algorithms
