/* Recursive-doubling allgather (MPICH's, SMPI's smpi/allgather:rdb): in the step of distance 2^i a rank exchanges
 * everything it holds (the blocks of its aligned group of 2^i ranks) with rank XOR 2^i, so the data doubles each
 * step. With p not a power of two some partners do not exist; the ranks of the group that did get the other half
 * pass it on down a binomial tree inside the group (MPICH's fix-up), as the blocks of the ranks that exist. The
 * exchanges serve the allgatherv too (recursive_doubling_allgatherv.cpp), with blocks of their own sizes. */
#include "collectives/algorithms/Algorithms.hpp"

#include <algorithm>

namespace progsim::models::collectives::algorithms {

void recursive_doubling_exchanges(PointToPoint& p2p, int tag, const GroupBytes& sent, const GroupBytes& received)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  for (int mask = 1, i = 0; mask < p; mask <<= 1, i++) {
    const int partner        = r ^ mask;
    const int my_group       = (r >> i) << i;
    const int partner_group  = (partner >> i) << i;
    const int64_t other_half = received(partner_group, mask);
    if (partner < p)
      p2p.sendrecv(partner, sent(my_group, mask), partner, other_half, tag);
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

void recursive_doubling_allgather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int p = p2p.size();
  auto blocks = [p](int first, int length) { return std::max(0, std::min(first + length, p) - first); };
  recursive_doubling_exchanges(
      p2p, tag, [&](int first, int length) { return blocks(first, length) * action.bytes; },
      [&](int first, int length) { return blocks(first, length) * action.bytes2; });
}

} // namespace progsim::models::collectives::algorithms
