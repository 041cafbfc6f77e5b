/* Open MPI 4.1's ompi_coll_base_barrier_intra_basic_linear (coll_base_barrier.c; SMPI's
 * smpi/barrier:ompi_basic_linear): every rank but 0 sends an empty message to rank 0 and then waits for one back;
 * rank 0 receives from all the others in one round, then releases them with one blocking send each, rank 1 first
 * (p - 1 rounds of one send). Open MPI's root receives from MPI_ANY_SOURCE; the rounds name each rank instead,
 * which matches the same messages. SMPI's copy posts the releases together (one round) where Open MPI blocks on
 * each. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void ompi_linear_barrier(PointToPoint& p2p, const trace::Action&, const trace::CountPool&, int tag)
{
  const int p = p2p.size();
  if (p2p.rank() != 0) {
    p2p.send(0, tag, 0);
    p2p.recv(0, tag, 0);
    return;
  }
  std::vector<mpi::RequestPtr> arrivals;
  for (int peer = 1; peer < p; peer++)
    arrivals.push_back(p2p.irecv(peer, tag, 0));
  p2p.wait_all(arrivals);
  for (int peer = 1; peer < p; peer++)
    p2p.send(peer, tag, 0);
}

} // namespace progsim::models::collectives::algorithms
