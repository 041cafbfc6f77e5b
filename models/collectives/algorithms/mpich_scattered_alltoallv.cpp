/* MPICH's alltoallv (MPIR_Alltoallv_intra_scattered, its only choice for distinct buffers): blocks of 32 exchanges
 * (MPIR_CVAR_ALLTOALL_THROTTLE), each a round that posts the receives from rank + i, then the sends to rank - i
 * (i counted from 0: the first pair is the rank's own), skipping empty ones, and waits for them all. */
#include "collectives/algorithms/Algorithms.hpp"

#include <algorithm>

namespace progsim::models::collectives::algorithms {

void mpich_scattered_alltoallv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  const int p         = p2p.size();
  const int r         = p2p.rank();
  const int64_t* send = counts.data() + action.vector;
  const int64_t* recv = counts.data() + action.vector2;
  const int block     = std::min(32, p);
  for (int first = 0; first < p; first += block) {
    const int count = std::min(block, p - first);
    std::vector<mpi::RequestPtr> requests;
    for (int i = 0; i < count; i++)
      if (int from = (r + first + i) % p; recv[from] > 0)
        requests.push_back(p2p.irecv(from, tag, recv[from]));
    for (int i = 0; i < count; i++)
      if (int to = (r - first - i + p) % p; send[to] > 0)
        requests.push_back(p2p.isend(to, tag, send[to]));
    p2p.wait_all(requests);
  }
}

} // namespace progsim::models::collectives::algorithms
