/* Reduce-scatter then allgather (Rabenseifner 2004): recursive halving exchanges half, then a quarter, ... of the
 * vector with the rank whose number differs in one bit, leaving each rank 1/p of the reduced vector; recursive
 * doubling gathers it back. With p not a power of two, the first ranks pair up first (PowerOfTwoRanks). Open MPI
 * libnbc's "redscat_allgather" iallreduce, MPICH's for long vectors. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void rabenseifner_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  PowerOfTwoRanks group(p2p, action.bytes, tag);
  if (not group.takes_part())
    return;
  const int v  = group.virtual_rank();
  int64_t part = action.bytes;
  for (int mask = group.size() / 2; mask >= 1; mask >>= 1) { // recursive halving: keep half, send the other half
    part /= 2;
    p2p.sendrecv(group.real(v ^ mask), part, group.real(v ^ mask), part, tag);
  }
  for (int mask = 1; mask < group.size(); mask <<= 1) { // recursive doubling: the gathered part doubles each round
    p2p.sendrecv(group.real(v ^ mask), part, group.real(v ^ mask), part, tag);
    part *= 2;
  }
  group.finish();
}

} // namespace progsim::models::collectives::algorithms
