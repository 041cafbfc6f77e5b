/* Bruck's allgatherv, the same schedule in Open MPI 4.1 (ompi_coll_base_allgatherv_intra_bruck,
 * coll_base_allgatherv.c; SMPI's smpi/allgatherv:ompi_bruck is a port of it) and MPICH 4.0
 * (MPIR_Allgatherv_intra_brucks, allgatherv_intra_brucks.c): for distances d = 1, 2, 4, ... below p, a rank sends
 * to rank - d the blocks it holds so far, those of ranks rank .. rank + d - 1, and receives from rank + d the blocks
 * of ranks rank + d .. rank + 2d - 1; the last step, once d passes p / 2, carries only the p - d blocks still
 * missing. ceil(log2 p) rounds whose sizes are sums of the per-rank receive sizes (so the two directions of a round
 * differ when the blocks do). Open MPI sends the blocks in place with an indexed datatype, MPICH packs them into a
 * buffer and rotates it at the end; the messages are the same. MPICH skips the whole collective when every block is
 * empty (mpich_bruck_allgatherv); Open MPI still exchanges the empty messages. */
#include "collectives/algorithms/Algorithms.hpp"

#include <numeric>

namespace progsim::models::collectives::algorithms {

namespace {

/** The sum of the receive sizes of ranks first .. first + count - 1 (modulo p). */
int64_t blocks_from(const int64_t* sizes, int p, int first, int count)
{
  int64_t bytes = 0;
  for (int i = 0; i < count; i++)
    bytes += sizes[(first + i) % p];
  return bytes;
}

} // namespace

void ompi_bruck_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  const int p          = p2p.size();
  const int r          = p2p.rank();
  const int64_t* sizes = counts.data() + action.vector;
  for (int distance = 1; distance < p; distance <<= 1) {
    const int blocks = distance <= p / 2 ? distance : p - distance;
    const int from   = (r + distance) % p;
    p2p.sendrecv((r - distance + p) % p, blocks_from(sizes, p, r, blocks), from, blocks_from(sizes, p, from, blocks),
                 tag);
  }
}

void mpich_bruck_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  const int64_t* sizes = counts.data() + action.vector;
  if (std::accumulate(sizes, sizes + p2p.size(), int64_t{0}) == 0)
    return;
  ompi_bruck_allgatherv(p2p, action, counts, tag);
}

} // namespace progsim::models::collectives::algorithms
