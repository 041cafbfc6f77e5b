/* Reduce-scatter then allgather (Rabenseifner 2004): recursive halving exchanges half, then a quarter, ... of the
 * vector with the rank whose number differs in one bit, leaving each rank 1/p of the reduced vector; recursive
 * doubling gathers it back. With p not a power of two, the first 2 (p - p') ranks pair up first, as in
 * recursive_doubling_allreduce.cpp. Open MPI libnbc's "redscat_allgather" iallreduce, MPICH's for long vectors. */
#include "collectives/nonblocking/Algorithms.hpp"

namespace progsim::models::collectives::nonblocking {

void rabenseifner_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int p     = p2p.size();
  const int r     = p2p.rank();
  const int64_t s = action.bytes;
  int pof2        = 1;
  while (pof2 * 2 <= p)
    pof2 *= 2;
  const int extra = p - pof2;
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
  int64_t part = s;
  for (int mask = pof2 / 2; mask >= 1; mask >>= 1) { // recursive halving: keep half, send the other half
    part /= 2;
    p2p.sendrecv(real(virtual_rank ^ mask), part, real(virtual_rank ^ mask), part, tag);
  }
  for (int mask = 1; mask < pof2; mask <<= 1) { // recursive doubling: the gathered part doubles each round
    p2p.sendrecv(real(virtual_rank ^ mask), part, real(virtual_rank ^ mask), part, tag);
    part *= 2;
  }
  if (r < 2 * extra)
    p2p.send(r + 1, tag, s);
}

} // namespace progsim::models::collectives::nonblocking
