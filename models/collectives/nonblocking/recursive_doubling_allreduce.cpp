/* Recursive-doubling allreduce: in each of log2 p rounds a rank exchanges its whole vector with the rank whose number
 * differs in one bit. With p not a power of two, the first p - p' ranks of odd number first hand their vector to
 * their even neighbour and get the result back at the end (p' the largest power of two below p), as MPICH does. */
#include "collectives/nonblocking/Algorithms.hpp"

namespace progsim::models::collectives::nonblocking {

void recursive_doubling_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int p     = p2p.size();
  const int r     = p2p.rank();
  const int64_t s = action.bytes;
  int pof2        = 1;
  while (pof2 * 2 <= p)
    pof2 *= 2;
  const int extra = p - pof2; // ranks 0 .. 2 extra - 1 pair up first
  int virtual_rank;
  if (r < 2 * extra) {
    if (r % 2 == 1) { // hands its vector to r - 1 and waits for the result
      p2p.send(r - 1, tag, s);
      p2p.recv(r - 1, tag, s);
      return;
    }
    p2p.recv(r + 1, tag, s);
    virtual_rank = r / 2;
  } else {
    virtual_rank = r - extra;
  }
  auto real = [extra](int v) { return v < extra ? 2 * v : v + extra; };
  for (int mask = 1; mask < pof2; mask <<= 1)
    p2p.sendrecv(real(virtual_rank ^ mask), s, real(virtual_rank ^ mask), s, tag);
  if (r < 2 * extra)
    p2p.send(r + 1, tag, s);
}

} // namespace progsim::models::collectives::nonblocking
