/* SMPI's "ring" allgather (smpi/allgather:ring): in step i = 1 .. p - 1 a rank sends its own block straight to
 * rank + i and receives rank - i's; unlike a true ring, nothing is forwarded, so the peers change every step. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void shift_allgather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  for (int i = 1; i < p; i++)
    p2p.sendrecv((r + i) % p, action.bytes, (r - i + p) % p, action.bytes2, tag);
}

} // namespace progsim::models::collectives::algorithms
