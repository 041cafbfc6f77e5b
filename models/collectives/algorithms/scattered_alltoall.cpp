/* The alltoall of MPICH for medium blocks (MPIR_Alltoall_intra_scattered, Tony Ladd's throttling): blocks of
 * `throttle` exchanges, each a round that posts receives from rank + i and sends to rank - i (i counted from 0:
 * the first pair is the rank's message to itself), then waits for them all. MPICH throttles at 32
 * (MPIR_CVAR_ALLTOALL_THROTTLE); SMPI's smpi/alltoall:mvapich2_scatter_dest, MVAPICH2's, at 4. */
#include "collectives/algorithms/Algorithms.hpp"

#include <algorithm>

namespace progsim::models::collectives::algorithms {

void scattered_alltoall(PointToPoint& p2p, const trace::Action& action, int tag, int throttle)
{
  const int p     = p2p.size();
  const int r     = p2p.rank();
  const int block = std::min(throttle, p);
  for (int first = 0; first < p; first += block) {
    const int count = std::min(block, p - first);
    std::vector<mpi::RequestPtr> requests;
    for (int i = 0; i < count; i++)
      requests.push_back(p2p.irecv((r + first + i) % p, tag, action.bytes2));
    for (int i = 0; i < count; i++)
      requests.push_back(p2p.isend((r - first - i + 2 * p) % p, tag, action.bytes));
    p2p.wait_all(requests);
  }
}

void mvapich2_scatter_dest_alltoall(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  scattered_alltoall(p2p, action, tag, 4);
}

void mpich_scattered_alltoall(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  scattered_alltoall(p2p, action, tag, 32);
}

} // namespace progsim::models::collectives::algorithms
