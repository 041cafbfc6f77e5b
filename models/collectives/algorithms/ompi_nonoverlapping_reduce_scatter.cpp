/* Open MPI 4.1's non-overlapping reduce-scatter (ompi_coll_base_reduce_scatter_intra_nonoverlapping,
 * coll_base_reduce_scatter.c; the tuned component's algorithm 1): a reduce of the whole vector to rank 0 through
 * the communicator's reduce, the tuned component's own fixed decision (ompi_reduce), then a scatterv of the shares
 * from rank 0 through the communicator's scatterv, which tuned 4.1 leaves to coll/basic: the linear one
 * (ompi_linear_scatterv: one rank at a time, empty shares left out). SMPI has no such algorithm under this name. */
#include "collectives/algorithms/Algorithms.hpp"

#include <numeric>

namespace progsim::models::collectives::algorithms {

void ompi_nonoverlapping_reduce_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                        int tag)
{
  const int64_t* share = counts.data() + action.vector;
  trace::Action reduce = action;
  reduce.type          = trace::ActionType::Reduce;
  reduce.root          = 0;
  reduce.bytes         = std::accumulate(share, share + p2p.size(), int64_t{0});
  reduce.bytes2        = element_size(action);
  ompi_reduce(p2p, reduce, counts, tag);
  trace::Action scatterv = action;
  scatterv.type          = trace::ActionType::ScatterV;
  scatterv.root          = 0;
  scatterv.bytes2        = share[p2p.rank()];
  ompi_linear_scatterv(p2p, scatterv, counts, tag);
}

} // namespace progsim::models::collectives::algorithms
