/* Open MPI 4.1's ring allreduce (ompi_coll_base_allreduce_intra_ring, coll_base_allreduce.c): p - 1 steps of
 * reduce-scatter then p - 1 of allgather, a block to the right neighbour while one arrives from the left (the
 * traffic of ring_allreduce.cpp; Open MPI's blocks are whole elements, ours bytes: a byte or so apart). With fewer
 * elements than ranks it falls back to recursive doubling, as Open MPI's does. Its "segmented_ring" is this ring
 * under the tuned component's fixed decision: with a segment size of 0 one segment is the whole vector, and the
 * segmented ring hands any vector shorter than p segments to the plain ring. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void tuned_ring_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  if (action.bytes / element_size(action) < p2p.size())
    recursive_doubling_allreduce(p2p, action, counts, tag);
  else
    ring_allreduce(p2p, action, counts, tag);
}

} // namespace progsim::models::collectives::algorithms
