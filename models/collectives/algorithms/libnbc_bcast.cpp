/* Open MPI's ibcast as its libnbc component selects it (ompi/mca/coll/libnbc/nbc_ibcast.c): linear up to 4 ranks,
 * a binomial tree below 64 KiB, a chain of 8 KiB fragments below 512 KiB, of 32 KiB fragments above. (libnbc's tree
 * sends to vrank + 2^r where this one sends to rank + p/2^r first: the same binomial tree, mirrored.) */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void libnbc_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  if (p2p.size() <= 4)
    linear_bcast(p2p, action, counts, tag);
  else if (action.bytes < 65536)
    binomial_bcast(p2p, action, counts, tag);
  else if (action.bytes < 524288)
    chain_bcast(p2p, action, tag, 8192);
  else
    chain_bcast(p2p, action, tag, 32768);
}

} // namespace progsim::models::collectives::algorithms
