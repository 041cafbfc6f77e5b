/* MPICH's reduce-scatter for long vectors (MPIR_Reduce_scatter_intra_pairwise, reduce_scatter_intra_pairwise.c;
 * SMPI's smpi/reduce_scatter:mpich_pair, which SMPI's default also runs on uneven counts of more than 524288
 * elements): p - 1 steps; at step i each rank sends rank + i the part of its vector that rank + i keeps and
 * receives its own part from rank - i, which it adds to its result. Nothing moves when the counts are all zero. */
#include "collectives/algorithms/Algorithms.hpp"

#include <numeric>

namespace progsim::models::collectives::algorithms {

void mpich_pairwise_reduce_scatter(PointToPoint& p2p, const int64_t* shares, int tag)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  if (std::accumulate(shares, shares + p, int64_t{0}) == 0)
    return;
  for (int step = 1; step < p; step++) {
    const int to   = (r + step) % p;
    const int from = (r - step + p) % p;
    p2p.sendrecv(to, shares[to], from, shares[r], tag);
  }
}

void mpich_pairwise_reduce_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                   int tag)
{
  mpich_pairwise_reduce_scatter(p2p, counts.data() + action.vector, tag);
}

} // namespace progsim::models::collectives::algorithms
