/* Open MPI 4.1's scatter-allgather broadcast (ompi_coll_base_bcast_intra_scatter_allgather, coll_base_bcast.c):
 * a binomial scatter of p pieces of ceil(count / p) elements (a rank receives its subtree's pieces from its parent,
 * then sends each child the pieces of the child's subtree, largest first, every send blocking), then a
 * recursive-doubling allgather: at distance 2^k a rank swaps the pieces of its aligned group of 2^k ranks with the
 * partner group. With p not a power of two a partner group can be short: the ranks of the lower group that did get
 * its pieces pass them on, by recursive halving inside their group, to those whose partner did not exist. With
 * fewer elements than ranks it falls back to the linear broadcast, as Open MPI's does. */
#include "collectives/algorithms/Algorithms.hpp"

#include <algorithm>

namespace progsim::models::collectives::algorithms {

void tuned_scatter_allgather_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                   int tag)
{
  const int p            = p2p.size();
  const int64_t element  = element_size(action);
  const int64_t elements = action.bytes / element;
  if (p < 2)
    return;
  if (elements < p) {
    linear_bcast(p2p, action, counts, tag);
    return;
  }
  const int v         = (p2p.rank() - action.root + p) % p;
  auto real           = [&](int virtual_rank) { return (virtual_rank + action.root) % p; };
  const int64_t piece = (elements + p - 1) / p;
  // The bytes of the pieces of ranks first .. first + count - 1 (the last pieces short or empty).
  auto pieces = [&](int first, int count) {
    return std::clamp<int64_t>(elements - first * piece, 0, count * piece) * element;
  };
  binomial_scatter(p2p, elements * element, action.root, tag, piece * element);
  for (int mask = 1; mask < p; mask <<= 1) {
    const int partner       = v ^ mask;
    const int group         = v / mask * mask;
    const int partner_group = partner / mask * mask;
    if (partner < p)
      p2p.sendrecv(real(partner), pieces(group, mask), real(partner), pieces(partner_group, mask), tag);
    if (partner_group + mask > p) { // the partner group is short: spread what it sent inside this group
      const int with_data     = p - group - mask; // the members whose partner exists
      const int64_t its_bytes = pieces(group + mask, mask);
      for (int half = mask >> 1; half > 0; half >>= 1) {
        const int other = v ^ half;
        const int base  = v / (2 * half) * (2 * half);
        if (other > v && v < base + with_data && other >= base + with_data)
          p2p.send(real(other), tag, its_bytes);
        else if (other < v && other < base + with_data && v >= base + with_data)
          p2p.recv(real(other), tag, its_bytes);
      }
    }
  }
}

} // namespace progsim::models::collectives::algorithms
