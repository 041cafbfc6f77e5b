/* Open MPI libnbc's ialltoall (ompi/mca/coll/libnbc/nbc_ialltoall.c): its selection ends in the linear schedule
 * whatever the size and rank count (the pairwise and dissemination ones are commented out there): one round that
 * posts, for every other rank in rank order, a receive from it and a send to it. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void libnbc_alltoall(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  std::vector<mpi::RequestPtr> requests;
  for (int peer = 0; peer < p2p.size(); peer++) {
    if (peer == p2p.rank())
      continue;
    requests.push_back(p2p.irecv(peer, tag, action.bytes2));
    requests.push_back(p2p.isend(peer, tag, action.bytes));
  }
  p2p.wait_all(requests);
}

} // namespace progsim::models::collectives::algorithms
