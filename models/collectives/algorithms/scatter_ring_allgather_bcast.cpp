/* MPICH's broadcast for long vectors (SMPI's smpi/bcast:scatter_LR_allgather; van de Geijn): a binomial scatter of
 * p pieces (BinomialScatter.cpp), then a ring allgather: in p - 1 steps each rank passes the piece it got last to
 * its right neighbour and receives the next from its left. About 2 n bytes through each NIC whatever p. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void scatter_ring_allgather_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  binomial_scatter(p2p, action.bytes, action.root, tag);
  auto piece_of = [&](int rank) { return scattered_bytes(action.bytes, p, (rank - action.root + p) % p, 1); };
  int passing = r; // whose piece this rank passes on
  for (int step = 1; step < p; step++) {
    const int arriving = (passing - 1 + p) % p;
    p2p.sendrecv((r + 1) % p, piece_of(passing), (r - 1 + p) % p, piece_of(arriving), tag);
    passing = arriving;
  }
}

} // namespace progsim::models::collectives::algorithms
