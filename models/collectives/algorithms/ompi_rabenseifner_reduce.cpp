/* Open MPI 4.1's reduce-scatter + gather reduction (ompi_coll_base_reduce_intra_redscat_gather, coll_base_reduce.c;
 * libnbc's ireduce runs the same schedule): its reduce-scatter (OpenMpiHalving.cpp), then a gather to the root by
 * recursive doubling with distance halving: at each distance, the rank whose partner is in the root's half of the
 * tree sends what it holds and drops out, the other receives the part it sent at that step. A root that sat out of
 * the reduce-scatter first gets new rank 0's piece (the lower half of every halving) and takes its place. With
 * fewer elements than p', or fewer than 2 ranks in the power of two, the linear reduction, as Open MPI's does. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void tuned_rabenseifner_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                               int tag)
{
  const int64_t element  = element_size(action);
  const int64_t elements = action.bytes / element;
  const int group        = power_of_two_at_most(p2p.size());
  if (group < 2 || elements < group) {
    tuned_linear_reduce(p2p, action, counts, tag);
    return;
  }
  const int r    = p2p.rank();
  const int root = action.root;
  OpenMpiHalving halving(p2p, elements, element, tag);
  const int extra  = halving.extra();
  int v            = halving.virtual_rank();
  int steps        = 0; // log2 p'
  while ((1 << steps) < group)
    steps++;
  std::vector<int64_t> kept = halving.kept(), sent = halving.sent();
  const bool root_sat_out = root < 2 * extra && root % 2 != 0;
  int virtual_root        = root < 2 * extra ? root / 2 : root - extra;
  if (root_sat_out) {
    virtual_root = 0;
    if (r == root) { // new rank 0's windows: always the lower half
      kept.clear();
      sent.clear();
      for (int64_t window = elements; static_cast<int>(kept.size()) < steps; window /= 2) {
        kept.push_back(window / 2);
        sent.push_back(window - window / 2);
      }
      p2p.recv(0, tag, kept.back() * element);
      v = 0;
    } else if (v == 0) {
      p2p.send(root, tag, kept.back() * element);
      v = -1;
    }
  }
  if (v < 0)
    return;
  for (int distance = group >> 1, step = steps - 1; distance > 0; distance >>= 1, step--) {
    const int other = v ^ distance;
    const int peer  = other == 0 && root_sat_out ? root : halving.real(other);
    if ((other >> step) == (virtual_root >> step)) {
      p2p.send(peer, tag, kept[step] * element);
      return;
    }
    p2p.recv(peer, tag, sent[step] * element);
  }
}

} // namespace progsim::models::collectives::algorithms
