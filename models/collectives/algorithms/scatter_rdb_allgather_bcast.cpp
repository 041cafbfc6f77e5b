/* MPICH's broadcast for medium vectors on a power of two of ranks (SMPI's smpi/bcast:scatter_rdb_allgather): a
 * binomial scatter of p pieces (BinomialScatter.cpp), then a recursive-doubling allgather: in the step of distance
 * 2^i a rank exchanges the pieces of its aligned group of 2^i ranks with the partner group. MPICH selects it only
 * for a power of two of ranks, and so does this file. */
#include "collectives/algorithms/Algorithms.hpp"

#include <stdexcept>
#include <string>

namespace progsim::models::collectives::algorithms {

void scatter_rdb_allgather_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int p = p2p.size();
  if (not is_power_of_two(p))
    throw std::invalid_argument("the scatter + recursive-doubling broadcast needs a power of two of ranks, not " +
                                std::to_string(p));
  const int rel = (p2p.rank() - action.root + p) % p;
  binomial_scatter(p2p, action.bytes, action.root, tag);
  for (int mask = 1, i = 0; mask < p; mask <<= 1, i++) {
    const int partner = rel ^ mask;
    const int64_t mine   = scattered_bytes(action.bytes, p, (rel >> i) << i, mask);
    const int64_t theirs = scattered_bytes(action.bytes, p, (partner >> i) << i, mask);
    const int peer       = (partner + action.root) % p;
    p2p.sendrecv(peer, mine, peer, theirs, tag);
  }
}

} // namespace progsim::models::collectives::algorithms
