/* Open MPI 4.1 libnbc's ireduce_scatter (nbc_ireduce_scatter.c): a binomial reduction of the whole vector to rank 0
 * (each child's vector received in a round of its own), then rank 0 posts the sends of every rank's share at once
 * and each rank receives its own. */
#include "collectives/algorithms/Algorithms.hpp"

#include <numeric>

namespace progsim::models::collectives::algorithms {

void libnbc_reduce_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  const int p          = p2p.size();
  const int64_t* share = counts.data() + action.vector;
  trace::Action whole  = action;
  whole.type           = trace::ActionType::Reduce;
  whole.root           = 0;
  whole.bytes          = std::accumulate(share, share + p, int64_t{0});
  mpich_binomial_reduce(p2p, whole, counts, tag);
  if (p2p.rank() != 0) {
    p2p.recv(0, tag, share[p2p.rank()]);
    return;
  }
  std::vector<mpi::RequestPtr> sends;
  for (int destination = 1; destination < p; destination++)
    sends.push_back(p2p.isend(destination, tag, share[destination]));
  p2p.wait_all(sends);
}

} // namespace progsim::models::collectives::algorithms
