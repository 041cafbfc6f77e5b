/* Open MPI 4.1's ompi_coll_base_allgather_intra_basic_linear (coll_base_allgather.c): a gather of every block to
 * rank 0, then a broadcast of the p blocks from rank 0, each under its own collective's tag. Open MPI calls the
 * communicator's own gather and broadcast (under coll/tuned, its decisions for them). Here the gather is Open MPI's
 * basic linear gather (coll_base_gather.c: every other rank sends its block to 0 with a blocking send; rank 0
 * receives them one after the other, rank 1 first: p - 1 rounds), and the broadcast is the one given: SMPI's
 * binomial tree (binomial_tree_bcast) unless the caller passes the one its selection would make. The fixed
 * decision of coll/tuned never picks this allgather (only a forced choice does). */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void ompi_linear_allgather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts,
                           Algorithm bcast)
{
  const int p          = p2p.size();
  const int gather_tag = trace::collective_tag(trace::ActionType::Gather);
  if (p2p.rank() != 0)
    p2p.send(0, gather_tag, action.bytes);
  else
    for (int peer = 1; peer < p; peer++)
      p2p.recv(peer, gather_tag, action.bytes2);
  trace::Action whole = action;
  whole.type          = trace::ActionType::Bcast;
  whole.root          = 0;
  whole.bytes         = p * action.bytes2;
  whole.bytes2        = 1; // bytes, not elements
  bcast(p2p, whole, counts, trace::collective_tag(trace::ActionType::Bcast));
}

void ompi_linear_allgather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int)
{
  ompi_linear_allgather(p2p, action, counts, binomial_tree_bcast);
}

} // namespace progsim::models::collectives::algorithms
