/* MPICH's reduction for long vectors (MPIR_Reduce_intra_reduce_scatter_gather, reduce_intra_reduce_scatter_gather.c;
 * SMPI's smpi/reduce:scatter_gather), Rabenseifner's: with p' the largest power of two at most p and r = p - p',
 *  1. the first 2r ranks pair up, each odd one sending its vector to the even one before it (so that rank 0, the
 *     usual root, takes part);
 *  2. the p' remaining ranks reduce-scatter the vector, cut in p' pieces (the first count mod p' one element
 *     longer), by recursive halving with distance doubling: at distance 1, 2, 4, ... the lower rank of a pair keeps
 *     the lower half of its window;
 *  3. they gather the pieces to the root by recursive doubling with distance halving, down a binomial tree: at
 *     each distance, the half of the tree without the root sends its pieces to the half with it and drops out.
 *     A root that sat out in step 1 first takes over new rank 0's piece and role. */
#include "collectives/algorithms/Algorithms.hpp"

#include <numeric>
#include <vector>

namespace progsim::models::collectives::algorithms {

void mpich_reduce_scatter_gather_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&,
                                        int tag)
{
  const int p            = p2p.size();
  const int r            = p2p.rank();
  const int root         = action.root;
  const int64_t element  = element_size(action);
  const int64_t elements = action.bytes / element;
  const int pof2         = power_of_two_at_most(p);
  const int rem          = p - pof2;
  std::vector<int64_t> pieces(pof2, elements / pof2);
  for (int i = 0; i < elements % pof2; i++)
    pieces[i]++;
  auto bytes = [&](int from, int to) { // pieces from .. to - 1
    return std::accumulate(pieces.begin() + from, pieces.begin() + to, int64_t{0}) * element;
  };
  auto real = [&](int newrank) { return newrank < rem ? newrank * 2 : newrank + rem; };

  int newrank = r - rem;
  if (r < 2 * rem) {
    if (r % 2 != 0) {
      p2p.send(r - 1, tag, action.bytes);
      newrank = -1;
    } else {
      p2p.recv(r + 1, tag, action.bytes);
      newrank = r / 2;
    }
  }
  int send_idx = 0, recv_idx = 0, last_idx = pof2;
  if (newrank != -1) { // reduce-scatter
    for (int mask = 1; mask < pof2;) {
      const int newdst = newrank ^ mask;
      const int span   = pof2 / (mask * 2);
      int64_t send_bytes, recv_bytes;
      if (newrank < newdst) {
        send_idx   = recv_idx + span;
        send_bytes = bytes(send_idx, last_idx);
        recv_bytes = bytes(recv_idx, send_idx);
      } else {
        recv_idx   = send_idx + span;
        send_bytes = bytes(send_idx, recv_idx);
        recv_bytes = bytes(recv_idx, last_idx);
      }
      p2p.sendrecv(real(newdst), send_bytes, real(newdst), recv_bytes, tag);
      send_idx = recv_idx;
      mask <<= 1;
      if (mask < pof2)
        last_idx = recv_idx + pof2 / mask;
    }
  }
  int newroot = root - rem;
  const bool root_sat_out = root < 2 * rem && root % 2 != 0;
  if (root < 2 * rem) {
    if (root_sat_out) {
      if (r == root) { // takes new rank 0's place
        p2p.recv(0, tag, bytes(0, 1));
        newrank  = 0;
        send_idx = 0;
        last_idx = 2;
      } else if (newrank == 0) {
        p2p.send(root, tag, bytes(0, 1));
        newrank = -1;
      }
      newroot = 0;
    } else {
      newroot = root / 2;
    }
  }
  if (newrank == -1)
    return;
  int j = 0; // log2(pof2) - 1: the level of the tree halves
  while ((2 << j) < pof2)
    j++;
  for (int mask = pof2 / 2; mask > 0; mask >>= 1, j--) { // gather to the root, distance halving
    const int newdst = newrank ^ mask;
    int dst          = real(newdst);
    if (newdst == 0 && root_sat_out)
      dst = root;
    const int span = pof2 / (mask * 2);
    int64_t send_bytes, recv_bytes;
    if (newrank < newdst) {
      if (mask != pof2 / 2)
        last_idx += span;
      recv_idx   = send_idx + span;
      send_bytes = bytes(send_idx, recv_idx);
      recv_bytes = bytes(recv_idx, last_idx);
    } else {
      recv_idx   = send_idx - span;
      send_bytes = bytes(send_idx, last_idx);
      recv_bytes = bytes(recv_idx, send_idx);
    }
    if ((newdst >> j) == (newroot >> j)) { // the other half holds the root: hand over and stop
      p2p.send(dst, tag, send_bytes);
      return;
    }
    p2p.recv(dst, tag, recv_bytes);
    if (newrank > newdst)
      send_idx = recv_idx;
  }
}

} // namespace progsim::models::collectives::algorithms
