/* MPICH's ring allgatherv (MPIR_Allgatherv_intra_ring, allgatherv_intra_ring.c): a rank sends to rank + 1 the
 * blocks of rank, rank - 1, ..., rank + 2 (all but its right neighbour's) and receives from rank - 1 those of
 * rank - 1, rank - 2, ..., rank + 1, in pieces of at most `chunk` bytes, the two streams advancing independently:
 * each round sends the next piece and receives the next one (a send or a receive alone when one stream is over or
 * meets an empty block, nothing when both meet one). The chunk:
 *  - MPICH 4.0.2 (mpich_ring_allgatherv): whole blocks (the largest block) unless the largest is beyond
 *    MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE (32768 B), then 32 KiB pieces. Nothing at all when every block is empty.
 *  - SMPI 3.32's smpi/allgatherv:mpich_ring (allgatherv-mpich-ring.cpp, after an older MPICH whose floor was
 *    32 KiB): the smallest block, but at least 256 KiB (smpi_mpich_ring_allgatherv).
 * Sizes are in bytes here, so a chunk is not rounded to whole datatype elements. */
#include "collectives/algorithms/Algorithms.hpp"

#include <algorithm>
#include <numeric>

namespace progsim::models::collectives::algorithms {

namespace {

void chunked_ring(PointToPoint& p2p, const int64_t* sizes, int64_t chunk, int tag)
{
  const int p           = p2p.size();
  const int r           = p2p.rank();
  const int right       = (r + 1) % p;
  const int left        = (r - 1 + p) % p;
  const int64_t total   = std::accumulate(sizes, sizes + p, int64_t{0});
  int64_t to_send       = total - sizes[right];
  int64_t to_receive    = total - sizes[r];
  int send_block        = r;
  int receive_block     = left;
  int64_t send_offset   = 0;
  int64_t receive_offset = 0;
  chunk                 = std::max<int64_t>(chunk, 1);
  while (to_send > 0 || to_receive > 0) {
    const int64_t send_now    = to_send > 0 ? std::min(chunk, sizes[send_block] - send_offset) : 0;
    const int64_t receive_now = to_receive > 0 ? std::min(chunk, sizes[receive_block] - receive_offset) : 0;
    if (send_now > 0 && receive_now > 0)
      p2p.sendrecv(right, send_now, left, receive_now, tag);
    else if (send_now > 0)
      p2p.send(right, tag, send_now);
    else if (receive_now > 0)
      p2p.recv(left, tag, receive_now);
    to_send -= send_now;
    to_receive -= receive_now;
    send_offset += send_now;
    receive_offset += receive_now;
    if (send_offset == sizes[send_block]) {
      send_offset = 0;
      send_block  = (send_block - 1 + p) % p;
    }
    if (receive_offset == sizes[receive_block]) {
      receive_offset = 0;
      receive_block  = (receive_block - 1 + p) % p;
    }
  }
}

} // namespace

void mpich_ring_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  const int64_t* sizes  = counts.data() + action.vector;
  const int64_t largest = *std::max_element(sizes, sizes + p2p.size());
  const int64_t pipeline = 32768;
  chunked_ring(p2p, sizes, largest > pipeline ? pipeline : largest, tag);
}

void smpi_mpich_ring_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                int tag)
{
  const int64_t* sizes   = counts.data() + action.vector;
  const int64_t smallest = *std::min_element(sizes, sizes + p2p.size());
  chunked_ring(p2p, sizes, std::max<int64_t>(smallest, 262144), tag);
}

} // namespace progsim::models::collectives::algorithms
