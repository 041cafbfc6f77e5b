/* The linear scan (and exscan) of Open MPI 4.1: its coll/basic component's MPI_Scan (tuned has none) and libnbc's
 * default iscan and iexscan (nbc_iscan.c, nbc_iexscan.c): a chain, rank r receiving the prefix of ranks 0 .. r - 1
 * from r - 1 before it sends its own on to r + 1. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void chain_scan(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int r = p2p.rank();
  if (r > 0)
    p2p.recv(r - 1, tag, action.bytes);
  if (r + 1 < p2p.size())
    p2p.send(r + 1, tag, action.bytes);
}

} // namespace progsim::models::collectives::algorithms
