/* Open MPI 4.1's ompi_coll_base_allgatherv_intra_basic_default (coll_base_allgatherv.c), "default" (number 1) of
 * coll/tuned: a gatherv of every rank's block to rank 0, then a broadcast from rank 0 of the whole receive buffer
 * (one indexed datatype covering the p blocks, so the sum of the receive sizes), each under its own collective's
 * tag. Open MPI calls the communicator's own gatherv and bcast: under coll/tuned the gatherv is coll/basic's linear
 * one (ompi_linear_gatherv: rank 0 receives one rank at a time, empty blocks left out) and the broadcast is tuned's
 * fixed decision for the whole size (ompi_bcast), which is what ompi_default_allgatherv runs.
 * SMPI's smpi/allgatherv:GB (allgatherv-GB.cpp) has the same two steps but its gatherv is its non-blocking one
 * waited at once (all of rank 0's receives posted together, as mpich_linear_gatherv) and its broadcast SMPI's
 * default, the binomial tree (binomial_tree_bcast): gb_allgatherv. */
#include "collectives/algorithms/Algorithms.hpp"

#include <numeric>

namespace progsim::models::collectives::algorithms {

void gather_bcast_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                             Algorithm gatherv, Algorithm bcast)
{
  const int64_t* sizes = counts.data() + action.vector;
  trace::Action gather = action;
  gather.type          = trace::ActionType::GatherV;
  gather.root          = 0;
  gatherv(p2p, gather, counts, trace::collective_tag(trace::ActionType::GatherV));
  trace::Action whole = action;
  whole.type          = trace::ActionType::Bcast;
  whole.root          = 0;
  whole.bytes         = std::accumulate(sizes, sizes + p2p.size(), int64_t{0});
  whole.bytes2        = 1; // bytes, not elements
  bcast(p2p, whole, counts, trace::collective_tag(trace::ActionType::Bcast));
}

void ompi_default_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int)
{
  gather_bcast_allgatherv(p2p, action, counts, ompi_linear_gatherv, ompi_bcast);
}

void gb_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int)
{
  gather_bcast_allgatherv(p2p, action, counts, mpich_linear_gatherv, binomial_tree_bcast);
}

} // namespace progsim::models::collectives::algorithms
