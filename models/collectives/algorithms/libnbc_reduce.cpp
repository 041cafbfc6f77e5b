/* Open MPI 4.1 libnbc's ireduce (nbc_ireduce.c) with its default selection, for commutative operations: with more
 * than 2 ranks and at least p' elements (p' the largest power of two at most p), Rabenseifner's reduce-scatter +
 * gather (the schedule of ompi_rabenseifner_reduce.cpp); otherwise its binomial tree, each child's vector received
 * in a round of its own before the rank sends its result up (the messages of MPICH's binomial reduction). Its
 * fragmented chain, chosen only on 2 ranks from 64 KiB, is taken as the binomial tree's single message. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void libnbc_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  const int64_t elements = action.bytes / element_size(action);
  if (p2p.size() > 2 && elements >= power_of_two_at_most(p2p.size()))
    tuned_rabenseifner_reduce(p2p, action, counts, tag);
  else
    mpich_binomial_reduce(p2p, action, counts, tag);
}

} // namespace progsim::models::collectives::algorithms
