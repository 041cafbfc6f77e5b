/* SMPI's "pair" alltoall (smpi/alltoall:pair): in round k a rank exchanges its blocks with rank XOR k, so every
 * round pairs ranks two by two. Defined for a power of two of ranks only (SMPI refuses the others). */
#include "collectives/algorithms/Algorithms.hpp"

#include <stdexcept>

namespace progsim::models::collectives::algorithms {

void xor_pair_alltoall(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int p = p2p.size();
  if (not is_power_of_two(p))
    throw std::invalid_argument("the pair alltoall needs a power of two of ranks, not " + std::to_string(p));
  for (int k = 1; k < p; k++)
    p2p.sendrecv(p2p.rank() ^ k, action.bytes, p2p.rank() ^ k, action.bytes2, tag);
}

} // namespace progsim::models::collectives::algorithms
