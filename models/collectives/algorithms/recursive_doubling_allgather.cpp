/* Recursive-doubling allgather (MPICH's, SMPI's smpi/allgather:rdb): in the step of distance 2^i a rank exchanges
 * everything it holds (the blocks of its aligned group of 2^i ranks) with rank XOR 2^i, so the data doubles each
 * step. With p not a power of two some partners do not exist; the ranks of the group that did get the other half
 * pass it on down a binomial tree inside the group (MPICH's fix-up), as the blocks of the ranks that exist. */
#include "collectives/algorithms/Algorithms.hpp"

#include <algorithm>

namespace progsim::models::collectives::algorithms {

void recursive_doubling_allgather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  auto blocks = [p](int first, int length) { return std::max(0, std::min(first + length, p) - first); };
  for (int mask = 1, i = 0; mask < p; mask <<= 1, i++) {
    const int partner       = r ^ mask;
    const int my_group      = (r >> i) << i;
    const int partner_group = (partner >> i) << i;
    const int64_t other_half = blocks(partner_group, mask) * action.bytes2;
    if (partner < p)
      p2p.sendrecv(partner, blocks(my_group, mask) * action.bytes, partner, other_half, tag);
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
