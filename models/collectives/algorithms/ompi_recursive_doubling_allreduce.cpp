/* Open MPI 4.1's recursive-doubling allreduce (ompi_coll_base_allreduce_intra_recursivedoubling,
 * coll_base_allreduce.c). With p' the largest power of two at most p and r = p - p', each even rank below 2r sends
 * its vector to the odd rank above it and waits; the p' remaining ranks (the odd ones below 2r, all ranks from 2r)
 * swap the whole vector with the rank whose new number differs in one bit, distance 1, 2, 4, ...; the odd ranks
 * below 2r at last send the result back to their even neighbour. (MPICH pairs them the other way round:
 * PowerOfTwoRanks.) */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void tuned_recursive_doubling_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&,
                                        int tag)
{
  const int p      = p2p.size();
  const int r      = p2p.rank();
  const int group  = power_of_two_at_most(p);
  const int extra  = p - group;
  const bool paired = r < 2 * extra;
  if (paired && r % 2 == 0) { // hands its vector over and gets the result back
    p2p.send(r + 1, tag, action.bytes);
    p2p.recv(r + 1, tag, action.bytes);
    return;
  }
  if (paired)
    p2p.recv(r - 1, tag, action.bytes);
  const int number = paired ? r / 2 : r - extra;
  for (int distance = 1; distance < group; distance <<= 1) {
    const int other = number ^ distance;
    const int peer  = other < extra ? 2 * other + 1 : other + extra;
    p2p.sendrecv(peer, action.bytes, peer, action.bytes, tag);
  }
  if (paired)
    p2p.send(r - 1, tag, action.bytes);
}

} // namespace progsim::models::collectives::algorithms
