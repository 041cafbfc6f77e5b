/* MPICH's default choice of algorithm for the blocking collectives: MPICH 4.0.2's (Debian 12's) collective
 * selection for flat communicators (maint/tuning/coll/mpir/generic.json, compiled in; the CH4 device's node-aware
 * compositions are not modelled): thresholds on the message size and rank count, each branch an algorithm of this
 * folder.
 *  - bcast: binomial tree below MPIR_CVAR_BCAST_SHORT_MSG_SIZE (12288 B) or below MPIR_CVAR_BCAST_MIN_PROCS (8)
 *    ranks; scatter + recursive-doubling allgather below MPIR_CVAR_BCAST_LONG_MSG_SIZE (524288 B) on a power of
 *    two of ranks; scatter + ring allgather otherwise.
 *  - allreduce: recursive doubling up to 8 B or with fewer elements than the largest power of two of ranks;
 *    Rabenseifner's reduce-scatter + allgather otherwise (MPICH 3's threshold, MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE,
 *    was 2048 B).
 *  - reduce: binomial up to 2048 B or with fewer elements than the largest power of two of ranks; Rabenseifner's
 *    reduce-scatter + gather otherwise.
 *  - alltoall (blocks of b bytes per peer): Bruck up to MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE (256 B) on 8 ranks or
 *    more; the scattered exchange, 32 pairs at a time, up to MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE (32768 B);
 *    pairwise beyond (rank XOR i on a power of two of ranks, rank +- i otherwise).
 *  - allgather (t: the bytes every rank ends up with): recursive doubling below 512 KiB on a power of two of
 *    ranks, Bruck below 80 KiB otherwise, the ring (send to the right what came from the left) beyond.
 *  - reduce_scatter (t: the total of every rank's share): recursive halving below 512 KiB, pairwise beyond.
 *  - allgatherv (t: the sum of the receive sizes): the same thresholds and algorithms, for blocks of their own
 *    sizes (recursive doubling, Bruck, and the ring in pieces of 32 KiB once a block is larger).
 *  - gather, scatter: binomial; alltoallv: the scattered exchange; gatherv, scatterv: linear; scan: recursive
 *    doubling.
 *  - barrier: dissemination.
 */
#include "collectives/algorithms/Algorithms.hpp"

#include <numeric>

namespace progsim::models::collectives::algorithms {

void mpich_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  if (action.bytes < 12288 || p2p.size() < 8)
    binomial_tree_bcast(p2p, action, counts, tag);
  else if (action.bytes < 524288 && is_power_of_two(p2p.size()))
    scatter_rdb_allgather_bcast(p2p, action, counts, tag);
  else
    scatter_ring_allgather_bcast(p2p, action, counts, tag);
}

void mpich_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  const int group        = power_of_two_at_most(p2p.size());
  const int64_t elements = action.bytes / element_size(action);
  if (action.bytes <= 8 || elements < group)
    recursive_doubling_allreduce(p2p, action, counts, tag);
  else
    rabenseifner_allreduce(p2p, action, counts, tag);
}

void mpich_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  const int64_t elements = action.bytes / element_size(action);
  if (action.bytes <= 2048 || elements < power_of_two_at_most(p2p.size()))
    mpich_binomial_reduce(p2p, action, counts, tag);
  else
    mpich_reduce_scatter_gather_reduce(p2p, action, counts, tag);
}

void mpich_allgather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  const int64_t total = action.bytes2 * p2p.size();
  if (is_power_of_two(p2p.size()) && total < 524288)
    recursive_doubling_allgather(p2p, action, counts, tag);
  else if (not is_power_of_two(p2p.size()) && total < 81920)
    ompi_bruck_allgather(p2p, action, counts, tag);
  else
    ompi_ring_allgather(p2p, action, counts, tag);
}

void mpich_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  const int64_t* sizes = counts.data() + action.vector;
  const int64_t total  = std::accumulate(sizes, sizes + p2p.size(), int64_t{0});
  if (is_power_of_two(p2p.size()) && total < 524288)
    recursive_doubling_allgatherv(p2p, action, counts, tag);
  else if (not is_power_of_two(p2p.size()) && total < 81920)
    mpich_bruck_allgatherv(p2p, action, counts, tag);
  else
    mpich_ring_allgatherv(p2p, action, counts, tag);
}

void mpich_alltoall(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  if (action.bytes <= 256 && p2p.size() >= 8)
    bruck_alltoall(p2p, action, counts, tag);
  else if (action.bytes <= 32768)
    mpich_scattered_alltoall(p2p, action, counts, tag);
  else if (is_power_of_two(p2p.size()))
    xor_pair_alltoall(p2p, action, counts, tag);
  else
    shift_exchange(p2p, action, counts, tag);
}

void mpich_reduce_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  const int64_t* share = counts.data() + action.vector;
  if (std::accumulate(share, share + p2p.size(), int64_t{0}) < 524288)
    recursive_halving_reduce_scatter(p2p, action, counts, tag);
  else
    mpich_pairwise_reduce_scatter(p2p, action, counts, tag);
}

} // namespace progsim::models::collectives::algorithms
