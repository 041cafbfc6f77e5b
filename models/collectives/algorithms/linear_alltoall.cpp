/* Linear alltoall (Open MPI's basic_linear, SMPI's smpi/alltoall:basic_linear): one round, every receive posted
 * first (from rank + 1 upwards), then every send (from rank - 1 downwards), then all waited. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void linear_alltoall(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  std::vector<mpi::RequestPtr> requests;
  for (int i = 1; i < p; i++)
    requests.push_back(p2p.irecv((r + i) % p, tag, action.bytes2));
  for (int i = 1; i < p; i++)
    requests.push_back(p2p.isend((r - i + p) % p, tag, action.bytes));
  p2p.wait_all(requests);
}

} // namespace progsim::models::collectives::algorithms
