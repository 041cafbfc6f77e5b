/* Reduce-scatter then allgather (Rabenseifner 2004; Thakur, Rabenseifner and Gropp 2005): recursive vector halving
 * with distance doubling exchanges half the vector with the rank at distance 1, then a quarter with the one at
 * distance 2, ..., leaving each rank 1/p of the reduced vector; recursive doubling with distance halving gathers
 * it back in the reverse order. The vector is cut in p pieces of count / p elements (the last one takes the rest),
 * as MPICH and SMPI's smpi/allreduce:rab_rdb do. With p not a power of two, the first ranks pair up first
 * (PowerOfTwoRanks). Open MPI libnbc's "redscat_allgather" iallreduce, MPICH's for long vectors. */
#include "collectives/algorithms/Algorithms.hpp"

#include <numeric>
#include <utility>

namespace progsim::models::collectives::algorithms {

void rabenseifner_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  PowerOfTwoRanks group(p2p, action.bytes, tag);
  if (not group.takes_part())
    return;
  const int n             = group.size();
  const int v             = group.virtual_rank();
  const int64_t element   = element_size(action);
  const int64_t elements  = action.bytes / element;
  std::vector<int64_t> piece(n, elements / n * element);
  piece[n - 1] = (elements - elements / n * (n - 1)) * element;
  auto bytes = [&](int first, int last) { return std::accumulate(piece.begin() + first, piece.begin() + last, int64_t{0}); };

  // Reduce-scatter: the pieces [low, high) this rank still reduces halve at each step; it keeps the lower half when
  // its bit at this distance is 0. What it kept and sent are remembered for the allgather.
  std::vector<std::pair<int, int>> kept, sent;
  int low = 0, high = n;
  for (int mask = 1; mask < n; mask <<= 1) {
    const int middle = low + (high - low) / 2;
    const bool lower = (v & mask) == 0;
    sent.emplace_back(lower ? middle : low, lower ? high : middle);
    kept.emplace_back(lower ? low : middle, lower ? middle : high);
    p2p.sendrecv(group.real(v ^ mask), bytes(sent.back().first, sent.back().second), group.real(v ^ mask),
                 bytes(kept.back().first, kept.back().second), tag);
    std::tie(low, high) = kept.back();
  }
  // Allgather, distances in reverse: at each step the rank sends what it kept there and gets what it sent.
  for (int step = static_cast<int>(kept.size()) - 1, mask = n / 2; mask >= 1; mask >>= 1, step--)
    p2p.sendrecv(group.real(v ^ mask), bytes(kept[step].first, kept[step].second), group.real(v ^ mask),
                 bytes(sent[step].first, sent[step].second), tag);
  group.finish();
}

} // namespace progsim::models::collectives::algorithms
