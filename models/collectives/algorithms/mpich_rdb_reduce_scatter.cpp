/* The recursive-doubling reduce-scatter of MPICH (MPIR_Reduce_scatter_intra_recursive_doubling, which MPICH 4.0
 * keeps for non-commutative operations) as SMPI 3.32 has it (smpi/reduce_scatter:mpich_rdb, which its default runs
 * on uneven counts of at most 524288 elements): at distance 1, 2, 4, ... a rank swaps with rank XOR distance the
 * parts of the vector that belong to neither's subtree of that size, so that each keeps the parts of its own
 * subtree; with a rank count that is not a power of two, a missing partner's subtree is made up for by the ranks
 * that already hold it, which forward what they received inside their subtree. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void mpich_rdb_reduce_scatter(PointToPoint& p2p, const int64_t* shares, int tag)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  auto outside = [&](int first, int length) { // the shares of the ranks outside first .. first + length - 1
    int64_t sum = 0;
    for (int j = 0; j < p; j++)
      if (j < first || j >= first + length)
        sum += shares[j];
    return sum;
  };
  for (int mask = 1, level = 0; mask < p; mask <<= 1, level++) {
    const int partner        = r ^ mask;
    const int my_subtree     = (r >> level) << level;
    const int partner_tree   = (partner >> level) << level;
    const int64_t send_bytes = outside(my_subtree, mask);
    const int64_t recv_bytes = outside(partner_tree, mask);
    if (partner < p)
      p2p.sendrecv(partner, send_bytes, partner, recv_bytes, tag);
    if (partner_tree + mask > p) { // the partner's subtree is (partly) missing: forward inside ours
      const int completed = p - my_subtree - mask;
      int k               = level;
      for (int distance = mask >> 1; distance > 0; distance >>= 1, k--) {
        const int other = r ^ distance;
        const int tree  = (r >> k) << k;
        if (other > r && r < tree + completed && other >= tree + completed)
          p2p.send(other, tag, recv_bytes);
        else if (other < r && other < tree + completed && r >= tree + completed)
          p2p.recv(other, tag, recv_bytes);
      }
    }
  }
}

void mpich_rdb_reduce_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  mpich_rdb_reduce_scatter(p2p, counts.data() + action.vector, tag);
}

} // namespace progsim::models::collectives::algorithms
