/* Open MPI 4.1's ompi_coll_base_alltoall_intra_linear_sync (coll_base_alltoall.c): the linear alltoall with at most
 * max_requests receives and max_requests sends outstanding. Receives go to rank + 1, rank + 2, ... and sends to
 * rank - 1, rank - 2, ..., the receives of a batch posted before its sends. With max_requests 0 (coll/tuned's
 * default, coll_tuned_alltoall_algorithm_max_requests) or at least p - 1, everything is posted at once: one round,
 * the same as linear_alltoall (Open MPI's basic_linear).
 *
 * What differs: Open MPI keeps a sliding window, posting the next receive (send) as soon as any receive (send)
 * completes (MPI_Waitany). Rounds cannot refill a window, so here the window moves by whole batches: each round
 * posts the next max_requests receives and sends and waits for all of them, ceil((p - 1) / max_requests) rounds;
 * the last round holds what is left. A rank thus waits for its slowest peer of a batch where Open MPI would not. */
#include "collectives/algorithms/Algorithms.hpp"

#include <algorithm>

namespace progsim::models::collectives::algorithms {

void ompi_linear_sync_alltoall(PointToPoint& p2p, const trace::Action& action, int tag, int max_requests)
{
  const int p = p2p.size();
  const int r = p2p.rank();
  const int peers  = p - 1;
  const int window = max_requests <= 0 || max_requests > peers ? peers : max_requests;
  for (int first = 1; first <= peers; first += window) {
    const int last = std::min(peers, first + window - 1);
    std::vector<mpi::RequestPtr> requests;
    for (int i = first; i <= last; i++)
      requests.push_back(p2p.irecv((r + i) % p, tag, action.bytes2));
    for (int i = first; i <= last; i++)
      requests.push_back(p2p.isend((r - i + p) % p, tag, action.bytes));
    p2p.wait_all(requests);
  }
}

void ompi_linear_sync_alltoall(PointToPoint& p2p, const trace::Action& action, const trace::CountPool&, int tag)
{
  ompi_linear_sync_alltoall(p2p, action, tag, 0); // coll/tuned's default: no limit
}

} // namespace progsim::models::collectives::algorithms
