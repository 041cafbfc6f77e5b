/* Open MPI 4.1's ompi_coll_base_allgather_intra_recursivedoubling (coll_base_allgather.c): on a power of two of
 * ranks, for distances 1, 2, 4, ... a rank exchanges the `distance` blocks it holds with rank XOR distance, which is
 * recursive_doubling_allgather (SMPI's rdb) exactly. Open MPI handles no other rank count and falls back to its
 * Bruck allgather (ompi_bruck_allgather) instead, where SMPI's rdb runs MPICH's fix-up steps. */
#include "collectives/algorithms/Algorithms.hpp"

namespace progsim::models::collectives::algorithms {

void ompi_recursive_doubling_allgather(PointToPoint& p2p, const trace::Action& action,
                                       const trace::CountPool& counts, int tag)
{
  if (is_power_of_two(p2p.size()))
    recursive_doubling_allgather(p2p, action, counts, tag);
  else
    ompi_bruck_allgather(p2p, action, counts, tag);
}

} // namespace progsim::models::collectives::algorithms
