/*
 * Open MPI 4.1's trees, algorithms and default selection (models/collectives/algorithms/OpenMpiTrees, tuned_*,
 * ompi_selection): expected trees are the ones coll_base_topo.c draws in its comments or that follow from its
 * definitions by hand; expected choices are rows of coll_tuned_decision_fixed.c (Open MPI 4.1.4).
 */
#include "collectives/ScheduleRecorder.hpp"
#include "collectives/SmpiDefault.hpp"
#include "collectives/algorithms/OpenMpiTrees.hpp"
#include "trace/Action.hpp"

#include "ScheduleText.hpp"
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coll = progsim::models::collectives::smpi_default;
namespace ompi = progsim::models::collectives::algorithms::ompi;
using progsim::mpi::Schedule;
using progsim::trace::Action;
using progsim::trace::ActionType;

using progsim::testing::describe;

namespace {

using Children = std::vector<int>;

Schedule blocking(ActionType type, int rank, int size, const std::string& choice, int64_t bytes, int root = 0,
                  int64_t element = 8)
{
  Action action;
  action.type   = type;
  action.bytes  = bytes;
  action.bytes2 = element;
  action.root   = root;
  progsim::trace::CountPool counts;
  return coll::make_collectives(choice)->schedule(action, rank, size, counts);
}

/** Every rank's parent in a tree, checked against the children lists (each rank the child of its parent only). */
template <typename Build>
std::vector<int> parents_checked(int size, Build build)
{
  std::vector<int> parent(size, -1);
  for (int r = 0; r < size; r++) {
    parent[r] = build(r).parent;
    for (int child : build(r).children)
      EXPECT_EQ(build(child).parent, r) << "child " << child << " of " << r;
  }
  int roots = 0;
  for (int r = 0; r < size; r++)
    roots += parent[r] < 0;
  EXPECT_EQ(roots, 1);
  return parent;
}

} // namespace

TEST(OpenMpiTrees, TheBinaryTreeFillsLevelByLevel)
{
  // coll_base_topo.c's example, fan-out 2 and 7 ranks: 0 -> 1 2; 1 -> 3 5; 2 -> 4 6.
  auto tree = [](int r) { return ompi::level_tree(r, 7, 0, 2); };
  EXPECT_EQ(tree(0).children, (Children{1, 2}));
  EXPECT_EQ(tree(1).children, (Children{3, 5}));
  EXPECT_EQ(tree(2).children, (Children{4, 6}));
  EXPECT_EQ(parents_checked(7, tree), (std::vector<int>{-1, 0, 0, 1, 2, 1, 2}));
  // Shifted by the root: with root 3 of 7, shifted rank 1 (real 4) has shifted children 3 and 5 (real 6 and 1).
  EXPECT_EQ(ompi::level_tree(4, 7, 3, 2).children, (Children{6, 1}));
  parents_checked(100, [](int r) { return ompi::level_tree(r, 100, 17, 2); });
}

TEST(OpenMpiTrees, TheKnomialTreeOfRadix4MatchesOpenMpisPicture)
{
  // coll_base_topo.c's drawing for 10 ranks, radix 4: 0 -> 4 8 1 2 3; 4 -> 5 6 7; 8 -> 9.
  auto tree = [](int r) { return ompi::knomial_tree(r, 10, 0, 4); };
  EXPECT_EQ(tree(0).children, (Children{4, 8, 1, 2, 3}));
  EXPECT_EQ(tree(4).children, (Children{5, 6, 7}));
  EXPECT_EQ(tree(8).children, (Children{9}));
  EXPECT_EQ(parents_checked(10, tree), (std::vector<int>{-1, 0, 0, 0, 0, 4, 4, 4, 0, 8}));
  parents_checked(77, [](int r) { return ompi::knomial_tree(r, 77, 5, 4); });
}

TEST(OpenMpiTrees, BinomialTreesClearTheHighestOrTheLowestBit)
{
  // bmtree: parent clears the highest bit, children above it smallest first: 0 -> 1 2 4; 1 -> 3 5; 3 -> 7.
  auto bm = [](int r) { return ompi::binomial_tree(r, 8, 0); };
  EXPECT_EQ(bm(0).children, (Children{1, 2, 4}));
  EXPECT_EQ(bm(1).children, (Children{3, 5}));
  EXPECT_EQ(parents_checked(8, bm), (std::vector<int>{-1, 0, 0, 1, 0, 1, 2, 3}));
  // in-order bmtree: parent clears the lowest bit: 0 -> 1 2 4; 4 -> 5 6; 6 -> 7.
  auto in_order = [](int r) { return ompi::in_order_binomial_tree(r, 8, 0); };
  EXPECT_EQ(in_order(4).children, (Children{5, 6}));
  EXPECT_EQ(parents_checked(8, in_order), (std::vector<int>{-1, 0, 0, 2, 0, 4, 4, 6}));
  parents_checked(45, [](int r) { return ompi::binomial_tree(r, 45, 44); });
  parents_checked(45, [](int r) { return ompi::in_order_binomial_tree(r, 45, 3); });
}

TEST(OpenMpiTrees, TheInOrderBinaryTreeHangsFromTheLastRank)
{
  // 7 ranks: 6 -> 5 (left: ranks 3..5) and 2 (right: ranks 0..2); 5 -> 4 3; 2 -> 1 0.
  auto tree = [](int r) { return ompi::in_order_binary_tree(r, 7); };
  EXPECT_EQ(tree(6).children, (Children{5, 2}));
  EXPECT_EQ(tree(5).children, (Children{4, 3}));
  EXPECT_EQ(tree(2).children, (Children{1, 0}));
  EXPECT_EQ(parents_checked(7, tree), (std::vector<int>{2, 2, 6, 5, 5, 6, -1}));
  for (int size : {1, 2, 3, 4, 10, 33})
    parents_checked(size, [size](int r) { return ompi::in_order_binary_tree(r, size); });
}

TEST(OpenMpiAlgorithms, TreeBroadcastsReceiveWholeThenSendToAllChildrenAtOnce)
{
  EXPECT_EQ(describe(blocking(ActionType::Bcast, 0, 10, "bcast:tuned_knomial", 800)),
            "S4:800 S8:800 S1:800 S2:800 S3:800");
  EXPECT_EQ(describe(blocking(ActionType::Bcast, 4, 10, "bcast:tuned_knomial", 800)), "R0:800 | S5:800 S6:800 S7:800");
  EXPECT_EQ(describe(blocking(ActionType::Bcast, 3, 5, "bcast:tuned_chain", 800)), "R2:800 | S4:800");
  EXPECT_EQ(describe(blocking(ActionType::Bcast, 1, 7, "bcast:tuned_binary_tree", 800)), "R0:800 | S3:800 S5:800");
}

TEST(OpenMpiAlgorithms, TheSplitBinaryTreeSendsHalvesDownEachSubtreeThenSwapsThem)
{
  // 7 ranks, 101 elements of 8 B: halves of 51 and 50 elements (408 and 400 B). Root: first half left, then the
  // second right, each send blocking; odd count, so the root takes no part in the swap.
  EXPECT_EQ(describe(blocking(ActionType::Bcast, 0, 7, "bcast:tuned_split_binary_tree", 808)), "S1:408 | S2:400");
  // Rank 1 (left) forwards the first half to 3 and 5, then swaps with its twin 2.
  EXPECT_EQ(describe(blocking(ActionType::Bcast, 1, 7, "bcast:tuned_split_binary_tree", 808)),
            "R0:408 | S3:408 | S5:408 | S2:408 R2:400");
  // 8 ranks: the last one (7, left) has no twin: it gets the second half from the root.
  EXPECT_EQ(describe(blocking(ActionType::Bcast, 7, 8, "bcast:tuned_split_binary_tree", 808)), "R3:408 | R0:400");
  EXPECT_EQ(describe(blocking(ActionType::Bcast, 0, 8, "bcast:tuned_split_binary_tree", 808)),
            "S1:408 | S2:400 | S7:400");
}

TEST(OpenMpiAlgorithms, TheScatterAllgatherBroadcastSpreadsShortPartnersPiecesByHalving)
{
  // 6 ranks, 60 elements of 8 B: pieces of 10 elements (80 B). At distance 4, ranks 2 and 3 have no partner
  // (6 and 7 do not exist): the group 0..3 holds 0..3's pieces; 0 and 1 got 4..5's (160 B) from 4 and 5 and pass
  // them on to 2 and 3 by halving (distance 2).
  auto rank = [](int r) { return describe(blocking(ActionType::Bcast, r, 6, "bcast:tuned_scatter_allgather", 480)); };
  EXPECT_EQ(rank(0), "S4:160 | S2:160 | S1:80 | S1:80 R1:80 | S2:160 R2:160 | S4:320 R4:160 | S2:160");
  EXPECT_EQ(rank(3), "R2:80 | S2:80 R2:80 | S1:160 R1:160 | R1:160");
  EXPECT_EQ(rank(5), "R4:80 | S4:80 R4:80 | S1:160 R1:320");
  // Fewer elements than ranks: the linear broadcast.
  EXPECT_EQ(describe(blocking(ActionType::Bcast, 0, 6, "bcast:tuned_scatter_allgather", 40)),
            "S1:40 S2:40 S3:40 S4:40 S5:40");
}

TEST(OpenMpiAlgorithms, ReductionsReceiveFromEveryChildThenSendUp)
{
  // Linear: the root receives one at a time from the last rank down.
  EXPECT_EQ(describe(blocking(ActionType::Reduce, 0, 4, "reduce:ompi_basic_linear", 80)), "R3:80 | R2:80 | R1:80");
  // In-order binomial: 4 of 8 receives from 5 and 6 together, then sends to 0.
  EXPECT_EQ(describe(blocking(ActionType::Reduce, 4, 8, "reduce:tuned_binomial", 80)), "R5:80 R6:80 | S0:80");
  // The root of 8 has children 1, 2, 4: two receives in flight at a time, each child's posted before the wait for
  // the one before it (its round waits for child 1 only; the next, for 2 and 4).
  Schedule root = blocking(ActionType::Reduce, 0, 8, "reduce:tuned_binomial", 80);
  EXPECT_EQ(describe(root), "R1:80 R2:80 | R4:80");
  ASSERT_EQ(root.rounds.size(), 2u);
  EXPECT_EQ(root.rounds[0].waits.size(), 1u);
  EXPECT_EQ(root.rounds[1].waits.size(), 2u);
  // In-order binary with root 0 of 7: the tree's root 6 reduces, then hands the result to 0.
  EXPECT_EQ(describe(blocking(ActionType::Reduce, 6, 7, "reduce:tuned_in_order_binary", 80)), "R5:80 R2:80 | S0:80");
  EXPECT_EQ(describe(blocking(ActionType::Reduce, 0, 7, "reduce:tuned_in_order_binary", 80)), "S2:80 | R6:80");
}

TEST(OpenMpiAlgorithms, AllreducesPairTheExtraRanksEvenToOdd)
{
  // 6 ranks (p' = 4, 2 extra): even ranks 0 and 2 hand over to 1 and 3; the others are new ranks 0..3.
  EXPECT_EQ(describe(blocking(ActionType::AllReduce, 2, 6, "allreduce:rdb", 80)),
            "S3:80 | R3:80");
  EXPECT_EQ(describe(blocking(ActionType::AllReduce, 1, 6, "allreduce:rdb", 80)),
            "R0:80 | S3:80 R3:80 | S4:80 R4:80 | S0:80");
  // Rabenseifner, 6 ranks, 100 elements: pairs swap halves of 50, the odd one sends its half; then windows of
  // 100 -> 50 -> 25 among new ranks 0..3 (real 0, 2, 4, 5); rank 4 is new rank 2, its partners 5 then 0.
  EXPECT_EQ(describe(blocking(ActionType::AllReduce, 1, 6, "allreduce:tuned_rabenseifner", 800)),
            "S0:400 R0:400 | S0:400 | R0:800");
  EXPECT_EQ(describe(blocking(ActionType::AllReduce, 4, 6, "allreduce:tuned_rabenseifner", 800)),
            "S5:400 R5:400 | S0:200 R0:200 | S0:200 R0:200 | S5:400 R5:400");
  // The reduction's version, root 1 (odd, so it sat out of the reduce-scatter): rank 0 hands it its quarter, and it
  // gathers the rest down the tree, from new rank 2 (real 4) then new rank 1 (real 2).
  EXPECT_EQ(describe(blocking(ActionType::Reduce, 1, 6, "reduce:tuned_rabenseifner", 800, 1)),
            "S0:400 R0:400 | S0:400 | R0:200 | R4:200 | R2:400");
  EXPECT_EQ(describe(blocking(ActionType::Reduce, 0, 6, "reduce:tuned_rabenseifner", 800, 1)),
            "S1:400 R1:400 | R1:400 | S2:400 R2:400 | S4:200 R4:200 | S1:200");
  // The ring on fewer elements than ranks is recursive doubling.
  EXPECT_EQ(describe(blocking(ActionType::AllReduce, 1, 6, "allreduce:tuned_ring", 40)),
            describe(blocking(ActionType::AllReduce, 1, 6, "allreduce:rdb", 40)));
}

TEST(OpenMpiAlgorithms, GathersAndScattersMoveSubtreesOfBlocks)
{
  auto run = [](ActionType type, int rank, int size, const std::string& choice) {
    Action action;
    action.type   = type;
    action.bytes  = 100; // a rank's block, sent and received
    action.bytes2 = 100;
    progsim::trace::CountPool counts;
    return describe(coll::make_collectives(choice)->schedule(action, rank, size, counts));
  };
  // Binomial gather on 6 ranks: 4 gets 5's block, then sends 4 and 5's to 0; 0 gets 1, then 2..3, then 4..5.
  EXPECT_EQ(run(ActionType::Gather, 4, 6, "gather:ompi_binomial"), "R5:100 | S0:200");
  EXPECT_EQ(run(ActionType::Gather, 0, 6, "gather:ompi_binomial"), "R1:100 | R2:200 | R4:200");
  // Binomial scatter: the reverse, largest subtree first.
  EXPECT_EQ(run(ActionType::Scatter, 0, 6, "scatter:tuned_binomial"), "S4:200 | S2:200 | S1:100");
  EXPECT_EQ(run(ActionType::Scatter, 2, 6, "scatter:tuned_binomial"), "R0:200 | S3:100");
  // Linear gather with a go-ahead: per rank, the block's receive and an empty go-ahead, then an empty rest.
  EXPECT_EQ(run(ActionType::Gather, 0, 3, "gather:tuned_linear_sync"), "R1:100 S1:0 | R1:0 | R2:100 S2:0 | R2:0");
  EXPECT_EQ(run(ActionType::Gather, 2, 3, "gather:tuned_linear_sync"), "R0:0 | S0:100 | S0:0");
  // Linear gather: one block at a time from rank 0 up; linear scatter the same way out.
  EXPECT_EQ(run(ActionType::Gather, 0, 3, "gather:ompi_basic_linear"), "R1:100 | R2:100");
  EXPECT_EQ(run(ActionType::Scatter, 0, 3, "scatter:ompi_basic_linear"), "S1:100 | S2:100");
  EXPECT_EQ(run(ActionType::Scatter, 0, 3, "scatter:ompi_linear_nb"), "S1:100 S2:100");
  // Gather and scatter by Open MPI's selection: 8..255 ranks, the binomial trees; 2..3 ranks, 1 byte: linear_sync.
  EXPECT_EQ(run(ActionType::Gather, 0, 9, "ompi"), run(ActionType::Gather, 0, 9, "gather:ompi_binomial"));
  EXPECT_EQ(run(ActionType::Scatter, 0, 9, "ompi"), run(ActionType::Scatter, 0, 9, "scatter:tuned_binomial"));
  EXPECT_EQ(run(ActionType::Scatter, 0, 70, "ompi"), run(ActionType::Scatter, 0, 70, "scatter:tuned_binomial"));
}

TEST(VectorCollectives, AlltoallvsPostLinearlyPairwiseOrThrottledWithTheirOwnSizes)
{
  // Rank r sends 10 r + i bytes to rank i, except nothing from rank 1 to rank 2.
  const int p = 5;
  progsim::trace::CountPool counts;
  Action action;
  action.type = ActionType::AllToAllV;
  auto schedule = [&](int rank, const std::string& choice) {
    counts.clear();
    for (int i = 0; i < p; i++)
      counts.push_back(rank == 1 && i == 2 ? 0 : 10 * rank + i); // sent to i
    for (int i = 0; i < p; i++)
      counts.push_back(i == 1 && rank == 2 ? 0 : 10 * i + rank); // received from i
    action.vector  = 0;
    action.vector2 = p;
    return describe(coll::make_collectives(choice)->schedule(action, rank, p, counts));
  };
  EXPECT_EQ(schedule(1, "alltoallv:ompi_basic_linear"), "R0:1 R2:21 R3:31 R4:41 S0:10 S2:0 S3:13 S4:14");
  EXPECT_EQ(schedule(1, "alltoallv:tuned_pairwise"), "S2:0 R0:1 | S3:13 R4:41 | S4:14 R3:31 | S0:10 R2:21");
  // MPICH: the rank's own pair first, empty messages left out, one block while fewer than 33 ranks.
  EXPECT_EQ(schedule(1, "alltoallv:scattered"), "R1:11 R2:21 R3:31 R4:41 R0:1 S1:11 S0:10 S4:14 S3:13");
  // Open MPI selects by rank count only: pairwise below 4 ranks and at 64..127, linear at 4..63.
  EXPECT_EQ(schedule(1, "ompi"), schedule(1, "alltoallv:ompi_basic_linear"));
  EXPECT_EQ(schedule(1, "mpich"), schedule(1, "alltoallv:scattered"));
}

TEST(VectorCollectives, GathervAndScattervGoOneRankAtATimeInOpenMpiAllAtOnceInMpich)
{
  progsim::trace::CountPool counts = {0, 10, 0, 30}; // the root's per-rank sizes
  auto schedule = [&](ActionType type, int rank, const std::string& choice) {
    Action action;
    action.type   = type;
    action.vector = 0;
    action.bytes  = counts[rank]; // a gatherv's own send
    action.bytes2 = counts[rank]; // a scatterv's own receive
    return describe(coll::make_collectives(choice)->schedule(action, rank, 4, counts));
  };
  EXPECT_EQ(schedule(ActionType::GatherV, 0, "ompi"), "R1:10 | R3:30");
  EXPECT_EQ(schedule(ActionType::GatherV, 0, "mpich"), "R1:10 R3:30");
  EXPECT_EQ(schedule(ActionType::GatherV, 2, "ompi"), ""); // nothing to send
  EXPECT_EQ(schedule(ActionType::GatherV, 3, "mpich"), "S0:30");
  EXPECT_EQ(schedule(ActionType::ScatterV, 0, "ompi"), "S1:10 | S3:30");
  EXPECT_EQ(schedule(ActionType::ScatterV, 0, "mpich"), "S1:10 S3:30");
  EXPECT_EQ(schedule(ActionType::ScatterV, 1, "mpich"), "R0:10");
}

TEST(Scans, OpenMpiChainsThemAndMpichDoublesTheDistance)
{
  for (ActionType type : {ActionType::Scan, ActionType::ExScan}) {
    EXPECT_EQ(describe(blocking(type, 0, 5, "ompi", 80)), "S1:80");
    EXPECT_EQ(describe(blocking(type, 2, 5, "ompi", 80)), "R1:80 | S3:80");
    EXPECT_EQ(describe(blocking(type, 4, 5, "ompi", 80)), "R3:80");
    EXPECT_EQ(describe(blocking(type, 2, 5, "mpich", 80)), "S3:80 R3:80 | S0:80 R0:80"); // 6 does not exist
    EXPECT_EQ(describe(blocking(type, 4, 5, "mpich", 80)), "S0:80 R0:80");
  }
}

TEST(OpenMpiSelection, FollowsTheFixedDecisionTables)
{
  auto same = [](ActionType type, int size, int64_t bytes, const std::string& algorithm) {
    for (int rank : {0, 1, size - 1})
      if (describe(blocking(type, rank, size, "ompi", bytes)) != describe(blocking(type, rank, size, algorithm, bytes)))
        return false;
    return true;
  };
  // bcast, 16..31 ranks: knomial below 4 KiB, binomial below 1 MiB, scatter-allgather from there.
  EXPECT_TRUE(same(ActionType::Bcast, 16, 4088, "bcast:tuned_knomial"));
  EXPECT_TRUE(same(ActionType::Bcast, 16, 4096, "bcast:tuned_binomial"));
  EXPECT_TRUE(same(ActionType::Bcast, 31, 1048568, "bcast:tuned_binomial"));
  EXPECT_TRUE(same(ActionType::Bcast, 16, 1048576, "bcast:tuned_scatter_allgather"));
  // bcast, 4..7 ranks: binary tree below 64 B, linear from 8 KiB to 1 MiB, the chain above.
  EXPECT_TRUE(same(ActionType::Bcast, 5, 56, "bcast:tuned_binary_tree"));
  EXPECT_TRUE(same(ActionType::Bcast, 5, 8192, "bcast:flattree"));
  EXPECT_TRUE(same(ActionType::Bcast, 5, 1048576, "bcast:tuned_chain"));
  // bcast, 256..1023 ranks: the split binary tree between 16 and 32 KiB.
  EXPECT_TRUE(same(ActionType::Bcast, 300, 16384, "bcast:tuned_split_binary_tree"));
  EXPECT_FALSE(same(ActionType::Bcast, 300, 32768, "bcast:tuned_split_binary_tree"));
  // reduce: binary below 4 KiB on 4..7 ranks, binomial from 16 to 255 ranks, in-order binary at 256..511, 8-16 KiB.
  EXPECT_TRUE(same(ActionType::Reduce, 6, 4088, "reduce:tuned_binary"));
  EXPECT_TRUE(same(ActionType::Reduce, 6, 8192, "reduce:tuned_chain"));
  EXPECT_TRUE(same(ActionType::Reduce, 100, 1 << 20, "reduce:tuned_binomial"));
  EXPECT_TRUE(same(ActionType::Reduce, 300, 8192, "reduce:tuned_in_order_binary"));
  // allreduce: recursive doubling below 8 KiB on 8..15 ranks, Rabenseifner above; the ring on 2..3 ranks at 8 B.
  EXPECT_TRUE(same(ActionType::AllReduce, 12, 8184, "allreduce:rdb"));
  EXPECT_TRUE(same(ActionType::AllReduce, 12, 8192, "allreduce:tuned_rabenseifner"));
  EXPECT_TRUE(same(ActionType::AllReduce, 3, 8, "allreduce:tuned_ring"));
  // barrier by rank count: recursive doubling below 4 and at 8..63, linear at 4..7, Bruck at 64..255, tree at
  // 256..511.
  auto same_barrier = [&](int size, const std::string& algorithm) {
    return same(ActionType::Barrier, size, 0, algorithm);
  };
  EXPECT_TRUE(same_barrier(3, "barrier:ompi_recursivedoubling"));
  EXPECT_TRUE(same_barrier(5, "barrier:ompi_basic_linear"));
  EXPECT_TRUE(same_barrier(40, "barrier:ompi_recursivedoubling"));
  EXPECT_TRUE(same_barrier(100, "barrier:ompi_bruck"));
  EXPECT_TRUE(same_barrier(300, "barrier:ompi_tree"));
  // alltoall (the block for one peer): on 2 ranks pairwise or two_proc by size; Bruck below 512 B on 32..63 ranks,
  // then linear, then linear_sync from 512 KiB; pairwise from 256 KiB on 64..127.
  auto by_block = [&](ActionType type, int size, int64_t block, const std::string& algorithm) {
    for (int rank : {0, 1, size - 1}) {
      Action action;
      action.type   = type;
      action.bytes  = block;
      action.bytes2 = block;
      progsim::trace::CountPool counts;
      if (describe(coll::make_collectives("ompi")->schedule(action, rank, size, counts)) !=
          describe(coll::make_collectives(algorithm)->schedule(action, rank, size, counts)))
        return false;
    }
    return true;
  };
  auto a2a = [&](int size, int64_t block, const std::string& algorithm) {
    return by_block(ActionType::AllToAll, size, block, algorithm);
  };
  EXPECT_TRUE(a2a(2, 1, "alltoall:ompi_pairwise"));
  EXPECT_TRUE(a2a(2, 2, "alltoall:ompi_two_proc"));
  EXPECT_TRUE(a2a(40, 511, "alltoall:bruck"));
  EXPECT_TRUE(a2a(40, 512, "alltoall:basic_linear"));
  EXPECT_TRUE(a2a(40, 524288, "alltoall:ompi_linear_sync"));
  EXPECT_TRUE(a2a(100, 262144, "alltoall:ompi_pairwise"));
  // allgather (one rank's block): two_proc on 2 ranks, recursive doubling below 32, neighbor exchange at 32..63
  // from 1 KiB to 64 KiB, the ring above.
  auto ag = [&](int size, int64_t block, const std::string& algorithm) {
    return by_block(ActionType::AllGather, size, block, algorithm);
  };
  EXPECT_TRUE(ag(2, 100, "allgather:ompi_two_proc"));
  EXPECT_TRUE(ag(16, 100, "allgather:ompi_recursive_doubling"));
  EXPECT_TRUE(ag(40, 1024, "allgather:ompi_neighborexchange"));
  EXPECT_TRUE(ag(40, 65536, "allgather:ompi_ring"));
  // 128..255 ranks below 128 KiB: reduce to 0 then broadcast, each as Open MPI selects them.
  EXPECT_TRUE(same(ActionType::AllReduce, 200, 1024, "allreduce:tuned_nonoverlapping"));
  EXPECT_EQ(describe(blocking(ActionType::AllReduce, 0, 200, "ompi", 1024)),
            describe(blocking(ActionType::Reduce, 0, 200, "ompi", 1024)) + " | " +
                describe(blocking(ActionType::Bcast, 0, 200, "ompi", 1024)));
}
