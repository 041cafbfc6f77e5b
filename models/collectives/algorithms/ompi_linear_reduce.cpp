/* Open MPI 4.1's linear reduction (ompi_coll_base_reduce_intra_basic_linear, coll_base_reduce.c): every rank sends
 * its vector to the root, which receives them one at a time, from the last rank down to rank 0, reducing each
 * before it posts the next receive (p - 1 rounds; compare linear_reduce.cpp, which posts them all at once). */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void tuned_linear_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  if (p2p.rank() != action.root) {
    p2p.send(action.root, tag, action.bytes);
    return;
  }
  for (int source = p2p.size() - 1; source >= 0; source--)
    if (source != action.root)
      p2p.recv(source, tag, action.bytes);
}

} // namespace progsim::models::collectives::algorithms
