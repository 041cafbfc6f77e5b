/* Recursive-doubling allreduce: in each of log2 p rounds a rank exchanges its whole vector with the rank whose number
 * differs in one bit. With p not a power of two, the first p - p' ranks of even number first hand their vector to
 * their odd neighbour and get the result back at the end (PowerOfTwoRanks). MPICH's, Open MPI's and SMPI's rdb. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void recursive_doubling_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  PowerOfTwoRanks group(p2p, action.bytes, tag);
  if (not group.takes_part())
    return;
  const int v = group.virtual_rank();
  for (int mask = 1; mask < group.size(); mask <<= 1)
    p2p.sendrecv(group.real(v ^ mask), action.bytes, group.real(v ^ mask), action.bytes, tag);
  group.finish();
}

} // namespace progsim::models::collectives::algorithms
