/* Open MPI's iallreduce as its libnbc component selects it by default (ompi/mca/coll/libnbc/nbc_iallreduce.c,
 * nbc_allreduce_init): binomial below 4 ranks or below 64 KiB, reduce-scatter + allgather when the vector has at
 * least as many elements as the largest power of two below p (here: bytes, the trace giving no element size; true for
 * every vector of 64 KiB or more below 65 536 ranks), a ring otherwise. (libnbc also takes binomial for an op that
 * does not commute or in place; the trace says neither.) */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void libnbc_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  const int p = p2p.size();
  const int pof2 = power_of_two_at_most(p);
  if (p < 4 || action.bytes < 65536)
    binomial_allreduce(p2p, action, counts, tag);
  else if (action.bytes >= pof2)
    rabenseifner_allreduce(p2p, action, counts, tag);
  else
    ring_allreduce(p2p, action, counts, tag);
}

} // namespace progsim::models::collectives::algorithms
