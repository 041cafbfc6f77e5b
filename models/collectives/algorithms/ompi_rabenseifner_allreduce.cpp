/* Open MPI 4.1's reduce-scatter + allgather allreduce (ompi_coll_base_allreduce_intra_redscat_allgather,
 * coll_base_allreduce.c), Rabenseifner's algorithm as Open MPI pairs and halves: its reduce-scatter
 * (OpenMpiHalving.cpp), then an allgather by recursive doubling with distance halving, each rank sending what it
 * kept at the matching step, and at last the even ranks of the pairs send the whole result to their odd partner.
 * With fewer elements than p', the linear allreduce, as Open MPI's does. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void tuned_rabenseifner_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                  int tag)
{
  const int64_t element  = element_size(action);
  const int64_t elements = action.bytes / element;
  if (elements < power_of_two_at_most(p2p.size())) {
    tuned_linear_allreduce(p2p, action, counts, tag);
    return;
  }
  const int r = p2p.rank();
  OpenMpiHalving halving(p2p, elements, element, tag);
  if (not halving.takes_part()) {
    p2p.recv(r - 1, tag, action.bytes);
    return;
  }
  const int v = halving.virtual_rank();
  for (int distance = halving.size() >> 1, step = static_cast<int>(halving.sent().size()) - 1; distance > 0;
       distance >>= 1, step--) {
    const int peer = halving.real(v ^ distance);
    p2p.sendrecv(peer, halving.kept()[step] * element, peer, halving.sent()[step] * element, tag);
  }
  if (r < 2 * halving.extra())
    p2p.send(r + 1, tag, action.bytes);
}

} // namespace progsim::models::collectives::algorithms
