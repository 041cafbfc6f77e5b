/* Open MPI 4.1's reduce-scatter + allgather allreduce (ompi_coll_base_allreduce_intra_redscat_allgather,
 * coll_base_allreduce.c), Rabenseifner's algorithm as Open MPI pairs and halves:
 *  1. With p' the largest power of two at most p and r = p - p', the first 2r ranks pair up: both swap halves (the
 *     even rank sends its second half, the odd one its first), then the odd rank sends its reduced second half to
 *     the even one and sits out.
 *  2. Reduce-scatter by recursive halving with distance doubling among the p' remaining ranks: at distance 1, 2, 4,
 *     ... the lower rank of a pair keeps the lower half of its window (floor(w / 2) elements) and sends the upper
 *     one, the higher rank the reverse.
 *  3. Allgather by recursive doubling with distance halving: the same exchanges in reverse, each rank sending what
 *     it kept.
 *  4. The even ranks of step 1 send the whole result to their odd partner.
 * With fewer elements than p', it falls back to the linear allreduce, as Open MPI's does. */
#include "collectives/algorithms/Algorithms.hpp"

#include <vector>

namespace progsim::models::collectives::algorithms {

void tuned_rabenseifner_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                  int tag)
{
  const int p            = p2p.size();
  const int r            = p2p.rank();
  const int64_t element  = element_size(action);
  const int64_t elements = action.bytes / element;
  const int group        = power_of_two_at_most(p);
  const int extra        = p - group;
  if (elements < group) {
    tuned_linear_allreduce(p2p, action, counts, tag);
    return;
  }
  const bool paired   = r < 2 * extra;
  const int64_t lower = elements / 2, upper = elements - elements / 2;
  if (paired && r % 2 == 1) { // swaps halves, hands its reduced upper half over, gets the result at the end
    p2p.sendrecv(r - 1, lower * element, r - 1, upper * element, tag);
    p2p.send(r - 1, tag, upper * element);
    p2p.recv(r - 1, tag, action.bytes);
    return;
  }
  if (paired) {
    p2p.sendrecv(r + 1, upper * element, r + 1, lower * element, tag);
    p2p.recv(r + 1, tag, upper * element);
  }
  const int number = paired ? r / 2 : r - extra;
  auto real        = [&](int n) { return n < extra ? 2 * n : n + extra; };
  std::vector<int64_t> sent, kept; // elements per step of the reduce-scatter
  int64_t window = elements;
  for (int distance = 1; distance < group; distance <<= 1) {
    const int peer       = real(number ^ distance);
    const int64_t keep   = r < peer ? window / 2 : window - window / 2;
    const int64_t give   = window - keep;
    p2p.sendrecv(peer, give * element, peer, keep * element, tag);
    sent.push_back(give);
    kept.push_back(keep);
    window = keep;
  }
  for (int distance = group >> 1, step = static_cast<int>(sent.size()) - 1; distance > 0; distance >>= 1, step--) {
    const int peer = real(number ^ distance);
    p2p.sendrecv(peer, kept[step] * element, peer, sent[step] * element, tag);
  }
  if (paired)
    p2p.send(r + 1, tag, action.bytes);
}

} // namespace progsim::models::collectives::algorithms
