/* The binomial-tree scatter that MPICH's long broadcasts start with (SMPI's scatter_for_bcast): the vector is cut in
 * p pieces of ceil(n / p) bytes (the last ones short or empty; Open MPI's pieces are whole elements); the root keeps the first and sends each child the
 * pieces of the child's whole subtree, largest subtree first, every send blocking. A rank receives its subtree's
 * pieces from its parent, then forwards the same way. */
#include "collectives/algorithms/Algorithms.hpp"

#include <algorithm>

namespace progsim::models::collectives::algorithms {

int64_t scatter_piece(int64_t bytes, int ranks)
{
  return (bytes + ranks - 1) / ranks;
}

int64_t scattered_bytes(int64_t bytes, int ranks, int first, int count)
{
  const int64_t piece = scatter_piece(bytes, ranks);
  return std::clamp<int64_t>(bytes - first * piece, 0, count * piece);
}

void binomial_scatter(PointToPoint& p2p, int64_t bytes, int root, int tag, int64_t piece)
{
  const int p   = p2p.size();
  if (piece <= 0)
    piece = scatter_piece(bytes, p);
  auto subtree = [&](int first, int count) { return std::clamp<int64_t>(bytes - first * piece, 0, count * piece); };
  const int r   = p2p.rank();
  const int rel = (r - root + p) % p;
  int mask      = 1;
  while (mask < p) {
    if (rel & mask) {
      if (int64_t mine = subtree(rel, mask); mine > 0)
        p2p.recv((r - mask + p) % p, tag, mine);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (rel + mask < p)
      if (int64_t theirs = subtree(rel + mask, mask); theirs > 0)
        p2p.send((r + mask) % p, tag, theirs);
}

} // namespace progsim::models::collectives::algorithms
