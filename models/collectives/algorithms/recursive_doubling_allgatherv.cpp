/* MPICH 4.0's recursive-doubling allgatherv (MPIR_Allgatherv_intra_recursive_doubling,
 * allgatherv_intra_recursive_doubling.c; SMPI's smpi/allgatherv:mpich_rdb is a port of it): in the step of distance
 * 2^i a rank exchanges with rank XOR 2^i everything it holds, the blocks of its aligned group of 2^i ranks, and
 * receives the partner group's, so a message is the sum of that group's receive sizes. MPICH selects it on a power
 * of two of ranks only; on other counts some partners do not exist and, as in the allgather
 * (recursive_doubling_allgather.cpp), the ranks of the group that did get the other half pass it on down a binomial
 * tree inside the group, as the blocks of the ranks that exist. Nothing is sent when every block is empty. */
#include "collectives/algorithms/Algorithms.hpp"

#include <algorithm>
#include <numeric>

namespace progsim::models::collectives::algorithms {

void recursive_doubling_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                   int tag)
{
  const int p          = p2p.size();
  const int64_t* sizes = counts.data() + action.vector;
  if (std::accumulate(sizes, sizes + p, int64_t{0}) == 0)
    return;
  // The receive sizes of ranks first .. first + length - 1 that exist.
  auto group_bytes = [sizes, p](int first, int length) {
    const int last = std::min(first + length, p);
    return first >= last ? int64_t{0} : std::accumulate(sizes + first, sizes + last, int64_t{0});
  };
  recursive_doubling_exchanges(p2p, tag, group_bytes, group_bytes);
}

} // namespace progsim::models::collectives::algorithms
