/* The linear gatherv and scatterv that Open MPI 4.1 and MPICH 4.0 run (tuned has none; Open MPI's coll/basic and
 * MPICH's MPIR_Gatherv_allcomm_linear, MPIR_Scatterv_allcomm_linear), with the trace's per-rank sizes; empty
 * messages are left out.
 *  - Open MPI: the root receives (or sends) one rank at a time, from rank 0 up, each blocking.
 *  - MPICH: the root posts all of them at once and waits. (MPICH sends with MPI_Ssend from 32 ranks on,
 *    MPIR_CVAR_GATHERV_INTER_SSEND_MIN_PROCS; here a send is a send.) */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void ompi_linear_gatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  if (p2p.rank() != action.root) {
    if (action.bytes > 0)
      p2p.send(action.root, tag, action.bytes);
    return;
  }
  const int64_t* sizes = counts.data() + action.vector;
  for (int source = 0; source < p2p.size(); source++)
    if (source != action.root && sizes[source] > 0)
      p2p.recv(source, tag, sizes[source]);
}

void ompi_linear_scatterv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  if (p2p.rank() != action.root) {
    if (action.bytes2 > 0)
      p2p.recv(action.root, tag, action.bytes2);
    return;
  }
  const int64_t* sizes = counts.data() + action.vector;
  for (int destination = 0; destination < p2p.size(); destination++)
    if (destination != action.root && sizes[destination] > 0)
      p2p.send(destination, tag, sizes[destination]);
}

void mpich_linear_gatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  if (p2p.rank() != action.root) {
    if (action.bytes > 0)
      p2p.send(action.root, tag, action.bytes);
    return;
  }
  const int64_t* sizes = counts.data() + action.vector;
  std::vector<mpi::RequestPtr> receives;
  for (int source = 0; source < p2p.size(); source++)
    if (source != action.root && sizes[source] > 0)
      receives.push_back(p2p.irecv(source, tag, sizes[source]));
  p2p.wait_all(receives);
}

void mpich_linear_scatterv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  if (p2p.rank() != action.root) {
    if (action.bytes2 > 0)
      p2p.recv(action.root, tag, action.bytes2);
    return;
  }
  const int64_t* sizes = counts.data() + action.vector;
  std::vector<mpi::RequestPtr> sends;
  for (int destination = 0; destination < p2p.size(); destination++)
    if (destination != action.root && sizes[destination] > 0)
      sends.push_back(p2p.isend(destination, tag, sizes[destination]));
  p2p.wait_all(sends);
}

} // namespace progsim::models::collectives::algorithms
