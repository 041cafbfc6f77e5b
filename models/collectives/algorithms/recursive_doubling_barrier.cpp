/* Recursive-doubling barrier (Open MPI tuned's, SMPI's smpi/barrier:ompi_recursivedoubling): with p' the largest
 * power of two at most p, each rank r >= p' first exchanges an empty message with r - p'; the first p' ranks then
 * exchange with rank XOR 2^k for each k; at last the ranks r < p - p' release r + p'. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void recursive_doubling_barrier(PointToPoint& p2p, const trace::Action&, const trace::CountPool&, int tag)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  const int group = power_of_two_at_most(p);
  if (r >= group) { // an extra rank: checks in with its partner, which releases it at the end
    p2p.sendrecv(r - group, 0, r - group, 0, tag);
    return;
  }
  if (r < p - group)
    p2p.recv(r + group, tag, 0);
  for (int mask = 1; mask < group; mask <<= 1)
    p2p.sendrecv(r ^ mask, 0, r ^ mask, 0, tag);
  if (r < p - group)
    p2p.send(r + group, tag, 0);
}

} // namespace progsim::models::collectives::algorithms
