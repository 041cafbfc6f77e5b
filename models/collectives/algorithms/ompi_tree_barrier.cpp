/* Open MPI 4.1's ompi_coll_base_barrier_intra_tree (coll_base_barrier.c; SMPI's smpi/barrier:ompi_tree): a binomial
 * tree rooted at rank 0 (the parent of a rank clears its lowest set bit). Going up, for distances 1, 2, 4, ... a
 * rank receives an empty message from each child rank + distance (while its bits below that distance are zero and
 * the child exists), then sends one to its parent; going down, it receives from its parent and sends to the same
 * children, the farthest first. Every step blocks, so each is a round of its own: rank 0 of 8 has
 * R1 | R2 | R4 | S4 | S2 | S1, rank 4 has R5 | R6 | S0 | R0 | S6 | S5. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void ompi_tree_barrier(PointToPoint& p2p, const trace::Action&, const trace::CountPool&, int tag)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  int span    = 1; // the smallest power of two at least p
  while (span < p)
    span <<= 1;
  // A rank's partner at `distance` is its child (above it) or its parent (below it) when the partner has no bit
  // below `distance` set; otherwise they are not linked at that level.
  auto linked = [p, r](int distance) {
    const int partner = r ^ distance;
    return (partner & (distance - 1)) == 0 && partner < p;
  };
  for (int distance = 1; distance < span; distance <<= 1) // up: children check in, then tell the parent
    if (linked(distance)) {
      const int partner = r ^ distance;
      if (partner > r)
        p2p.recv(partner, tag, 0);
      else
        p2p.send(partner, tag, 0);
    }
  for (int distance = span >> 1; distance > 0; distance >>= 1) // down: the parent releases, then the children
    if (linked(distance)) {
      const int partner = r ^ distance;
      if (partner > r)
        p2p.send(partner, tag, 0);
      else
        p2p.recv(partner, tag, 0);
    }
}

} // namespace progsim::models::collectives::algorithms
