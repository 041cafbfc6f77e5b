/* MPICH's scan and exscan (MPIR_Scan_intra_recursive_doubling, MPIR_Exscan_intra_recursive_doubling, its only
 * choices): at distance 1, 2, 4, ... a rank swaps its partial result with rank XOR distance when that rank exists. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void recursive_doubling_scan(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  for (int distance = 1; distance < p2p.size(); distance <<= 1)
    if (const int peer = p2p.rank() ^ distance; peer < p2p.size())
      p2p.sendrecv(peer, action.bytes, peer, action.bytes, tag);
}

} // namespace progsim::models::collectives::algorithms
