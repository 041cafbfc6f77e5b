/* Open MPI 4.1's two allreduces made of a reduction to rank 0 and a broadcast from it (coll_base_allreduce.c):
 * "basic_linear" runs the linear reduction and the linear broadcast; "nonoverlapping" runs whatever reduction and
 * broadcast the communicator selected (under the tuned component, its fixed decision: ompi_selection.cpp). */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

namespace {
trace::Action from_rank_0(const trace::Action& action, trace::ActionType type)
{
  trace::Action part = action;
  part.type          = type;
  part.root          = 0;
  return part;
}
} // namespace

void tuned_linear_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  tuned_linear_reduce(p2p, from_rank_0(action, trace::ActionType::Reduce), counts, tag);
  linear_bcast(p2p, from_rank_0(action, trace::ActionType::Bcast), counts, tag);
}

void tuned_nonoverlapping_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                                    int tag)
{
  ompi_reduce(p2p, from_rank_0(action, trace::ActionType::Reduce), counts, tag);
  ompi_bcast(p2p, from_rank_0(action, trace::ActionType::Bcast), counts, tag);
}

} // namespace progsim::models::collectives::algorithms
