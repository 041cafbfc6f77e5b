/* Open MPI 4.1's butterfly reduce-scatter (ompi_coll_base_reduce_scatter_intra_butterfly, coll_base_reduce_scatter.c,
 * after Träff's improved reduce-scatter; SMPI's smpi/reduce_scatter:ompi_butterfly). With p' the largest power of
 * two at most p and r = p - p':
 *  1. the first 2r ranks pair up: each even one sends its whole vector to the odd one after it and sits out;
 *  2. the p' ranks left, renumbered v = 0 .. p' - 1, see the vector as p' blocks (block i: the shares of virtual
 *     rank i, both shares of a pair for i < r); at distance 1, 2, 4, ... a rank swaps with v XOR distance half of
 *     the blocks of its window: the one whose bit is clear sends the upper half and keeps the lower, the other the
 *     reverse. Once done, v holds the block of the bit-reversal (mirror) of v;
 *  3. a rank whose block belongs to a pair sends the even rank's share to it; then, unless the block is its own,
 *     it swaps with the block's owner: the owner's share out, its own share in. Ranks that sat out receive their
 *     share from the rank that ended up holding it.
 * Every message is sent, empty or not; one rank alone moves nothing. */
#include "collectives/algorithms/Algorithms.hpp"

#include <numeric>

namespace progsim::models::collectives::algorithms {

namespace {

/** The `bits` low bits of x in reverse order. */
int mirror(int x, int bits)
{
  int reversed = 0;
  for (int i = 0; i < bits; i++)
    reversed |= ((x >> i) & 1) << (bits - 1 - i);
  return reversed;
}

} // namespace

void ompi_butterfly_reduce_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                   int tag)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  if (p < 2)
    return;
  const int64_t* share = counts.data() + action.vector;
  const int64_t total  = std::accumulate(share, share + p, int64_t{0});
  const int group      = power_of_two_at_most(p);
  const int extra      = p - group;
  int bits             = 0;
  while ((1 << bits) < group)
    bits++;
  auto real       = [&](int v) { return v < extra ? 2 * v + 1 : v + extra; };
  auto first_rank = [&](int block) { return block < extra ? 2 * block : block + extra; };
  auto blocks     = [&](int first, int length) { // the shares of blocks first .. first + length - 1
    const int from = first_rank(first), to = real(first + length - 1);
    return std::accumulate(share + from, share + to + 1, int64_t{0});
  };

  if (r < 2 * extra && r % 2 == 0) {
    p2p.send(r + 1, tag, total);
    p2p.recv(real(mirror(r / 2, bits)), tag, share[r]);
    return;
  }
  int v = r - extra;
  if (r < 2 * extra) {
    p2p.recv(r - 1, tag, total);
    v = r / 2;
  }
  int window = 0, length = group;
  for (int distance = 1; distance < group; distance <<= 1) {
    const int peer  = real(v ^ distance);
    length         /= 2;
    const int kept  = (v & distance) == 0 ? window : window + length;
    const int given = (v & distance) == 0 ? window + length : window;
    p2p.sendrecv(peer, blocks(given, length), peer, blocks(kept, length), tag);
    window = kept;
  }
  const int owner_virtual = mirror(v, bits); // == window, the block this rank holds
  const int owner         = real(owner_virtual);
  int index               = first_rank(window);
  if (owner_virtual < extra) {
    p2p.send(owner - 1, tag, share[index]);
    index++;
  }
  if (owner_virtual != v)
    p2p.sendrecv(owner, share[index], owner, share[r], tag);
}

} // namespace progsim::models::collectives::algorithms
