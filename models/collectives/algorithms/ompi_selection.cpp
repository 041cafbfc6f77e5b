/* Open MPI 4.1's default choice of algorithm for the blocking collectives: the tuned component's fixed decision
 * (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c, Open MPI 4.1.4 as Debian 12 ships it), whose switch points were
 * averaged from the ompi-collectives-tuning measurements of several clusters. A table per collective: by rank
 * count, the first size threshold the message is under picks the algorithm (Open MPI's number for it); sizes are
 * the whole vector for bcast, reduce and allreduce, one rank's block for gather, scatter and allgather, the
 * block for one peer for alltoall, the total of every rank's share for reduce_scatter. The decision passes a segment size and a fan-out of 0, so every
 * block for one peer for alltoall, the average block for allgatherv. The decision passes a segment size and a fan-out of 0, so every
 * algorithm runs unsegmented (the tuned_* files of this folder). Operations are taken as commutative (MPI_SUM, ...):
 * a trace does not say, and Open MPI's tables for the others differ. */
#include "collectives/algorithms/Algorithms.hpp"

#include <climits>
#include <numeric>
#include <utility>
#include <vector>

namespace progsim::models::collectives::algorithms {

namespace {

/** For fewer than `ranks_below` ranks: the algorithm of the first limit the size is under, else `otherwise`. */
struct Rule {
  int ranks_below;
  std::vector<std::pair<int64_t, int>> under;
  int otherwise;
};
using DecisionTable = std::vector<Rule>;

int decide(const DecisionTable& table, int ranks, int64_t bytes)
{
  for (auto const& rule : table)
    if (ranks < rule.ranks_below) {
      for (auto const& [limit, algorithm] : rule.under)
        if (bytes < limit)
          return algorithm;
      return rule.otherwise;
    }
  return table.back().otherwise;
}

// 1 basic_linear, 2 chain, 3 pipeline, 4 split_binary_tree, 5 binary_tree, 6 binomial, 7 knomial,
// 8 scatter_allgather (9 scatter_allgather_ring is never chosen)
const DecisionTable kBcast = {
    {4, {{32, 3}, {256, 5}, {512, 3}, {1024, 7}, {32768, 1}, {131072, 5}, {262144, 2}, {524288, 1}, {1048576, 6}}, 5},
    {8, {{64, 5}, {128, 6}, {2048, 5}, {8192, 6}, {1048576, 1}}, 2},
    {16, {{8, 7}, {64, 5}, {4096, 7}, {16384, 5}, {32768, 6}}, 1},
    {32, {{4096, 7}, {1048576, 6}}, 8},
    {64, {{2048, 6}}, 7},
    {128, {}, 7},
    {256, {{2, 6}, {16384, 5}, {32768, 1}, {65536, 5}}, 7},
    {1024, {{16384, 7}, {32768, 4}}, 7},
    {2048, {{524288, 7}}, 8},
    {4096, {{262144, 7}}, 8},
    {INT_MAX, {{8192, 7}, {16384, 5}, {262144, 7}}, 8},
};

// 1 linear, 2 chain, 3 pipeline, 4 binary, 5 binomial, 6 in-order_binary, 7 rabenseifner
const DecisionTable kReduce = {
    {4, {{8, 7}, {16, 4}, {32, 3}, {262144, 1}, {524288, 3}, {1048576, 2}}, 3},
    {8, {{4096, 4}, {65536, 2}, {262144, 5}, {524288, 1}, {1048576, 5}}, 1},
    {16, {{8192, 4}}, 5},
    {32, {{4096, 4}}, 5},
    {256, {}, 5},
    {512, {{8192, 5}, {16384, 6}}, 5},
    {2048, {}, 5},
    {4096, {{512, 5}, {1024, 6}, {8192, 5}, {16384, 6}}, 5},
    {INT_MAX, {{16, 5}, {32, 6}, {1024, 5}, {2048, 6}, {8192, 5}, {16384, 6}}, 5},
};

// 1 basic_linear, 2 nonoverlapping, 3 recursive_doubling, 4 ring, 5 segmented_ring, 6 rabenseifner
const DecisionTable kAllreduce = {
    {4, {{8, 4}, {4096, 3}, {8192, 4}, {16384, 3}, {65536, 4}, {262144, 5}}, 6},
    {8, {{16, 4}, {8192, 3}}, 6},
    {16, {{8192, 3}}, 6},
    {32, {{64, 5}, {4096, 3}}, 6},
    {64, {{128, 5}}, 6},
    {128, {{262144, 3}}, 6},
    {256, {{131072, 2}, {262144, 3}}, 6},
    {512, {{4096, 2}}, 6},
    {2048, {{2048, 2}, {16384, 3}}, 6},
    {4096, {{2048, 2}, {4096, 5}, {16384, 3}}, 6},
    {INT_MAX, {{2048, 2}, {16384, 5}, {32768, 3}}, 6},
};

// 1 linear, 2 double_ring, 3 recursive_doubling, 4 bruck, 5 two_proc, 6 tree (by rank count only)
const DecisionTable kBarrier = {
    {4, {}, 3}, {8, {}, 1}, {64, {}, 3}, {256, {}, 4}, {512, {}, 6}, {1024, {}, 4}, {4096, {}, 6}, {INT_MAX, {}, 4},
};

// 1 linear, 2 pairwise, 3 modified_bruck, 4 linear_sync, 5 two_proc (sizes: the block for one peer; the first row is
// Open MPI's "2 ranks")
const DecisionTable kAlltoall = {
    {3, {{2, 2}, {4, 5}, {16, 2}, {64, 5}, {256, 2}, {4096, 5}, {32768, 2}, {262144, 4}, {1048576, 5}}, 2},
    {8, {{8192, 4}, {16384, 1}, {65536, 4}, {524288, 1}, {1048576, 2}}, 1},
    {16, {{262144, 4}}, 1},
    {32, {{4, 4}, {512, 3}, {8192, 4}, {32768, 1}, {262144, 4}, {524288, 1}}, 4},
    {64, {{512, 3}, {524288, 1}}, 4},
    {128, {{1024, 3}, {2048, 1}, {4096, 4}, {262144, 1}}, 2},
    {256, {{1024, 3}, {2048, 4}, {262144, 1}}, 2},
    {512, {{1024, 3}, {8192, 4}, {32768, 1}}, 2},
    {1024, {{512, 3}, {8192, 4}, {16384, 1}, {131072, 4}, {262144, 1}}, 2},
    {2048, {{512, 3}, {1024, 4}, {2048, 1}, {16384, 4}, {262144, 1}}, 4},
    {4096, {{1024, 3}, {4096, 4}, {8192, 1}, {131072, 4}}, 1},
    {INT_MAX, {{2048, 3}, {8192, 4}, {16384, 1}, {32768, 4}, {65536, 1}}, 4},
};

// 1 linear, 2 bruck, 3 recursive_doubling, 4 ring, 5 neighbor, 6 two_proc (sizes: one rank's block; the first row
// is Open MPI's "2 ranks")
const DecisionTable kAllgather = {
    {3, {}, 6},
    {32, {}, 3},
    {64, {{1024, 3}, {65536, 5}}, 4},
    {128, {{512, 3}, {65536, 5}}, 4},
    {256, {{512, 3}, {131072, 5}, {524288, 4}, {1048576, 5}}, 4},
    {512, {{32, 3}, {128, 2}, {1024, 3}, {131072, 5}, {524288, 4}, {1048576, 5}}, 4},
    {1024, {{64, 3}, {256, 2}, {2048, 3}}, 5},
    {2048, {{4, 3}, {8, 2}, {16, 3}, {32, 2}, {256, 3}, {512, 2}, {4096, 3}}, 5},
    {4096, {{32, 2}, {128, 3}, {512, 2}, {4096, 3}}, 5},
    {INT_MAX, {{2, 3}, {8, 2}, {16, 3}, {512, 2}, {4096, 3}}, 5},
};

// 1 default (gatherv then bcast), 2 bruck, 3 ring, 4 neighbor, 5 two_proc (sizes: the per-rank average, the sum
// of the receive sizes over p, rounded down; the second row is Open MPI's "2 ranks", and 1 rank, which Open MPI
// sends to the rows of 3..7 ranks, has a first row of its own)
const DecisionTable kAllgatherv = {
    {2, {{256, 1}, {4096, 4}, {8192, 3}, {16384, 4}, {262144, 2}}, 4},
    {3, {{2048, 3}, {4096, 5}, {8192, 3}}, 5},
    {8, {{256, 1}, {4096, 4}, {8192, 3}, {16384, 4}, {262144, 2}}, 4},
    {16, {{1024, 1}}, 2},
    {32, {{128, 1}, {262144, 2}}, 3},
    {64, {{256, 1}, {8192, 2}}, 3},
    {128, {{256, 1}, {4096, 2}}, 3},
    {256, {{1024, 2}, {65536, 4}}, 3},
    {512, {{1024, 2}}, 3},
    {1024, {{512, 2}, {1024, 1}, {4096, 2}, {1048576, 4}}, 3},
    {INT_MAX, {{4096, 2}}, 4},
};

// 1 basic_linear, 2 binomial, 3 linear_sync (sizes: one rank's block)
const DecisionTable kGather = {
    {4, {{2, 3}, {4, 1}, {32768, 2}, {65536, 1}, {131072, 2}}, 3},
    {8, {{1024, 2}, {8192, 1}, {32768, 2}, {262144, 1}}, 3},
    {256, {}, 2},
    {512, {{2048, 2}, {8192, 1}}, 2},
    {INT_MAX, {}, 2},
};

// 1 basic_linear, 2 binomial, 3 linear_nb (sizes: one rank's block)
const DecisionTable kScatter = {
    {4, {{2, 3}, {131072, 1}, {262144, 3}}, 1},
    {8, {{2048, 2}, {4096, 1}, {8192, 2}, {32768, 1}, {1048576, 3}}, 1},
    {16, {{16384, 2}, {1048576, 3}}, 1},
    {32, {{16384, 2}, {32768, 1}}, 3},
    {64, {{512, 2}, {8192, 3}, {16384, 2}}, 3},
    {INT_MAX, {{512, 2}}, 3},
};

// 1 basic_linear, 2 pairwise (by rank count only)
const DecisionTable kAlltoallv = {
    {4, {}, 2}, {64, {}, 1}, {128, {}, 2}, {256, {}, 1}, {1024, {}, 2}, {INT_MAX, {}, 1},
};

// 1 non-overlapping, 2 recursive_halving, 3 ring, 4 butterfly (sizes: the total of the shares)
const DecisionTable kReduceScatter = {
    {4, {{65536, 3}, {131072, 4}}, 3},
    {8, {{8, 1}, {262144, 2}}, 3},
    {32, {{262144, 2}}, 3},
    {64, {{64, 1}, {2048, 2}, {524288, 4}}, 3},
    {128, {{256, 1}, {512, 2}, {2048, 4}, {4096, 2}}, 4},
    {256, {{256, 1}, {512, 2}}, 4},
    {512, {{256, 1}, {1024, 2}}, 4},
    {1024, {{512, 1}, {2048, 2}, {8192, 4}, {16384, 2}}, 4},
    {2048, {{512, 1}, {4096, 2}, {16384, 4}, {32768, 2}}, 4},
    {4096, {{512, 1}, {4096, 2}}, 4},
    {INT_MAX, {{1024, 1}, {8192, 2}}, 4},
};

/** Runs algorithm number `chosen` (1-based) of `by_number`. */
void run(const std::vector<Algorithm>& by_number, int chosen, PointToPoint& p2p, const trace::Action& action,
         const trace::CountPool& counts, int tag)
{
  by_number.at(chosen - 1)(p2p, action, counts, tag);
}

} // namespace

void ompi_bcast(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  static const std::vector<Algorithm> by_number = {
      linear_bcast,          tuned_chain_bcast,    tuned_chain_bcast,   tuned_split_binary_tree_bcast,
      tuned_binary_tree_bcast, tuned_binomial_bcast, tuned_knomial_bcast, tuned_scatter_allgather_bcast};
  run(by_number, decide(kBcast, p2p.size(), action.bytes), p2p, action, counts, tag);
}

void ompi_reduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  static const std::vector<Algorithm> by_number = {
      tuned_linear_reduce,   tuned_chain_reduce,           tuned_chain_reduce, tuned_binary_reduce,
      tuned_binomial_reduce, tuned_in_order_binary_reduce, tuned_rabenseifner_reduce};
  run(by_number, decide(kReduce, p2p.size(), action.bytes), p2p, action, counts, tag);
}

void ompi_allreduce(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  static const std::vector<Algorithm> by_number = {
      tuned_linear_allreduce, tuned_nonoverlapping_allreduce, recursive_doubling_allreduce,
      tuned_ring_allreduce,   tuned_ring_allreduce,           tuned_rabenseifner_allreduce};
  run(by_number, decide(kAllreduce, p2p.size(), action.bytes), p2p, action, counts, tag);
}

void ompi_barrier(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  static const std::vector<Algorithm> by_number = {ompi_linear_barrier,        ompi_double_ring_barrier,
                                                   recursive_doubling_barrier, dissemination_barrier,
                                                   ompi_two_procs_barrier,     ompi_tree_barrier};
  run(by_number, decide(kBarrier, p2p.size(), 0), p2p, action, counts, tag);
}

void ompi_alltoall(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  static const std::vector<Algorithm> by_number = {linear_alltoall, shift_exchange, bruck_alltoall,
                                                   ompi_linear_sync_alltoall, ompi_two_procs_alltoall};
  run(by_number, decide(kAlltoall, p2p.size(), action.bytes), p2p, action, counts, tag);
}

void ompi_allgather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  static const std::vector<Algorithm> by_number = {ompi_linear_allgather, ompi_bruck_allgather,
                                                   ompi_recursive_doubling_allgather, ompi_ring_allgather,
                                                   ompi_neighbor_exchange_allgather, ompi_two_procs_allgather};
  run(by_number, decide(kAllgather, p2p.size(), action.bytes), p2p, action, counts, tag);
}

void ompi_allgatherv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  static const std::vector<Algorithm> by_number = {ompi_default_allgatherv, ompi_bruck_allgatherv,
                                                   ompi_ring_allgatherv, ompi_neighbor_exchange_allgatherv,
                                                   ompi_two_procs_allgatherv};
  const int64_t* sizes = counts.data() + action.vector;
  const int64_t total  = std::accumulate(sizes, sizes + p2p.size(), int64_t{0});
  run(by_number, decide(kAllgatherv, p2p.size(), total / p2p.size()), p2p, action, counts, tag);
}

void ompi_alltoallv(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  static const std::vector<Algorithm> by_number = {tuned_linear_alltoallv, tuned_pairwise_alltoallv};
  run(by_number, decide(kAlltoallv, p2p.size(), 0), p2p, action, counts, tag);
}

void ompi_gather(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  static const std::vector<Algorithm> by_number = {tuned_linear_gather, tuned_binomial_gather,
                                                   tuned_linear_sync_gather};
  const int64_t block = p2p.rank() == action.root ? action.bytes2 : action.bytes;
  run(by_number, decide(kGather, p2p.size(), block), p2p, action, counts, tag);
}

void ompi_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  static const std::vector<Algorithm> by_number = {tuned_linear_scatter, tuned_binomial_scatter,
                                                   tuned_linear_nb_scatter};
  const int64_t block = p2p.rank() == action.root ? action.bytes : action.bytes2;
  run(by_number, decide(kScatter, p2p.size(), block), p2p, action, counts, tag);
}

void ompi_reduce_scatter(PointToPoint& p2p, const trace::Action& action, const trace::CountPool& counts, int tag)
{
  static const std::vector<Algorithm> by_number = {ompi_nonoverlapping_reduce_scatter,
                                                   recursive_halving_reduce_scatter, ompi_ring_reduce_scatter,
                                                   ompi_butterfly_reduce_scatter};
  const int64_t* share = counts.data() + action.vector;
  const int64_t total  = std::accumulate(share, share + p2p.size(), int64_t{0});
  run(by_number, decide(kReduceScatter, p2p.size(), total), p2p, action, counts, tag);
}

} // namespace progsim::models::collectives::algorithms
