/* SMPI's "lr" allreduce (smpi/allreduce:lr, after Faraj and Yuan): a logical ring, the vector cut in p chunks of
 * count / p elements; p - 1 steps of reduce-scatter then p - 1 of allgather, each sending a chunk to the right
 * neighbour while one arrives from the left. The count % p elements left over, or the whole vector when it has
 * fewer elements than ranks, then go through the default reduce + broadcast (redbcast_allreduce.cpp). */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void lr_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  const int p             = p2p.size();
  const int r             = p2p.rank();
  const int64_t element   = element_size(action);
  const int64_t elements  = action.bytes / element;
  if (elements < p) {
    redbcast_allreduce(p2p, action, counts, tag);
    return;
  }
  const int64_t chunk = elements / p * element;
  for (int step = 0; step < 2 * (p - 1); step++)
    p2p.sendrecv((r + 1) % p, chunk, (r - 1 + p) % p, chunk, tag);
  if (elements % p != 0) {
    trace::Action rest = action;
    rest.bytes         = elements % p * element;
    redbcast_allreduce(p2p, rest, counts, tag);
  }
}

} // namespace progsim::models::collectives::algorithms
