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
  const int r          = p2p.rank();
  const int64_t* sizes = counts.data() + action.vector;
  if (std::accumulate(sizes, sizes + p, int64_t{0}) == 0)
    return;
  // The receive sizes of ranks first .. first + length - 1 that exist.
  auto group_bytes = [sizes, p](int first, int length) {
    const int last = std::min(first + length, p);
    return first >= last ? int64_t{0} : std::accumulate(sizes + first, sizes + last, int64_t{0});
  };
  for (int mask = 1, i = 0; mask < p; mask <<= 1, i++) {
    const int partner        = r ^ mask;
    const int my_group       = (r >> i) << i;
    const int partner_group  = (partner >> i) << i;
    const int64_t other_half = group_bytes(partner_group, mask);
    if (partner < p)
      p2p.sendrecv(partner, group_bytes(my_group, mask), partner, other_half, tag);
    if (partner_group + mask <= p)
      continue;
    // Partners beyond p: the first `completed` ranks of the group got the other half and pass it on.
    const int completed = p - my_group - mask;
    for (int low = mask >> 1, k = i; low > 0; low >>= 1, k--) {
      const int peer = r ^ low;
      const int tree = (r >> k) << k;
      if (peer > r && r < tree + completed && peer >= tree + completed)
        p2p.send(peer, tag, other_half);
      else if (peer < r && peer < tree + completed && r >= tree + completed)
        p2p.recv(peer, tag, other_half);
    }
  }
}

} // namespace progsim::models::collectives::algorithms
