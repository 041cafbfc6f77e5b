/* Open MPI 4.1's ompi_coll_base_allgatherv_intra_neighborexchange (coll_base_allgatherv.c), "neighbor" (number 4)
 * of coll/tuned; SMPI's smpi/allgatherv:ompi_neighborexchange on an even number of ranks. p / 2 rounds, each an
 * exchange with one neighbour, alternating between the two: an even rank starts with rank + 1, an odd one with
 * rank - 1. The first round swaps the two ranks' own blocks; in every later one a rank passes on the pair of blocks
 * (of an even rank e and of e + 1) that it received the round before (after the first round, its own pair) and
 * receives the next pair from the other side: the pairs move two ranks a round, up on one side and down on the
 * other. The sizes are the blocks' own. On an odd number of ranks Open MPI runs its ring instead
 * (ompi_ring_allgatherv), where SMPI runs its own "ring" (a rank's block straight to rank + i): they differ there. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void ompi_neighbor_exchange_allgatherv(PointToPoint& p2p, const trace::Action& action,
                                       const trace::CountPool& counts, int tag)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  if (p % 2 != 0) {
    ompi_ring_allgatherv(p2p, action, counts, tag);
    return;
  }
  const int64_t* sizes = counts.data() + action.vector;
  const bool even      = r % 2 == 0;
  const int up         = (r + 1) % p;
  const int down       = (r - 1 + p) % p;
  const int neighbor[2] = {even ? up : down, even ? down : up};
  // The pair a rank sends and the even first rank of the pair it receives next from either neighbour: a pair
  // arriving from rank + 1 comes from two ranks further up each time, one from rank - 1 from two further down.
  const int step_from[2] = {even ? +2 : -2, even ? -2 : +2};
  int arriving[2]        = {even ? r : down, even ? r : down};
  p2p.sendrecv(neighbor[0], sizes[r], neighbor[0], sizes[neighbor[0]], tag);
  int sending = even ? r : down; // the even rank of the pair held whole after the first round
  for (int step = 1; step < p / 2; step++) {
    const int side   = step % 2;
    arriving[side]   = (arriving[side] + step_from[side] + p) % p;
    const int64_t out = sizes[sending] + sizes[sending + 1];
    const int64_t in  = sizes[arriving[side]] + sizes[arriving[side] + 1];
    p2p.sendrecv(neighbor[side], out, neighbor[side], in, tag);
    sending = arriving[side];
  }
}

} // namespace progsim::models::collectives::algorithms
