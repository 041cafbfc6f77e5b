/* Reduce then broadcast (SMPI's default allreduce, smpi/allreduce:redbcast): SMPI's default reduce to rank 0, then
 * its default (binomial-tree) broadcast from rank 0, each under its own collective's tag as SMPI runs them. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void redbcast_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int)
{
  trace::Action to_root = action;
  to_root.root          = 0;
  linear_reduce(p2p, to_root, counts, trace::collective_tag(trace::ActionType::Reduce));
  binomial_tree_bcast(p2p, to_root, counts, trace::collective_tag(trace::ActionType::Bcast));
}

} // namespace progsim::models::collectives::algorithms
