/* Open MPI 4.1's alltoallv algorithms (coll_base_alltoallv.c), with per-peer sizes from the trace:
 *  - basic_linear: the receives from every other rank posted, then the sends to every other rank, all in one round
 *    (empty ones too); SMPI's default alltoallv is the same.
 *  - pairwise: p - 1 steps; at step s a rank sends to rank + s what it has for it and receives from rank - s
 *    (step 0 is a local copy); SMPI's smpi/alltoallv:ring on a number of ranks that is not a power of two (on a
 *    power of two, SMPI's exchanges with rank XOR s). */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void tuned_linear_alltoallv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  const int64_t* send = counts.data() + action.vector;
  const int64_t* recv = counts.data() + action.vector2;
  std::vector<mpi::RequestPtr> requests;
  for (int peer = 0; peer < p2p.size(); peer++)
    if (peer != p2p.rank())
      requests.push_back(p2p.irecv(peer, tag, recv[peer]));
  for (int peer = 0; peer < p2p.size(); peer++)
    if (peer != p2p.rank())
      requests.push_back(p2p.isend(peer, tag, send[peer]));
  p2p.wait_all(requests);
}

void tuned_pairwise_alltoallv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  const int p         = p2p.size();
  const int r         = p2p.rank();
  const int64_t* send = counts.data() + action.vector;
  const int64_t* recv = counts.data() + action.vector2;
  for (int step = 1; step < p; step++) {
    const int to = (r + step) % p, from = (r - step + p) % p;
    p2p.sendrecv(to, send[to], from, recv[from], tag);
  }
}

} // namespace progsim::models::collectives::algorithms
