/* MPICH's binomial reduction (MPIR_Reduce_intra_binomial, reduce_intra_binomial.c; SMPI's smpi/reduce:binomial): on
 * ranks relative to the root, a rank receives from relative rank + 1, + 2, + 4, ... (while that bit of its own is
 * clear), each receive blocking and reduced before the next, then sends its result to the rank that clears its
 * lowest set bit. The in-order binomial tree of Open MPI, served one child at a time. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void mpich_binomial_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int p   = p2p.size();
  const int rel = (p2p.rank() - action.root + p) % p;
  for (int mask = 1; mask < p; mask <<= 1) {
    if (rel & mask) {
      p2p.send(((rel & ~mask) + action.root) % p, tag, action.bytes);
      return;
    }
    if ((rel | mask) < p)
      p2p.recv(((rel | mask) + action.root) % p, tag, action.bytes);
  }
}

} // namespace progsim::models::collectives::algorithms
