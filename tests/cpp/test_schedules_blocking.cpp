/*
 * The schedules of the blocking collectives, as the rounds the engine gets for trace actions: SMPI's algorithms,
 * MPICH's choices, and Open MPI 4.1's barrier, alltoall and allgather algorithms (coll/base). A round is what an
 * algorithm posts before it waits; the next round starts once all of it completed. The recorder and the
 * non-blocking collectives: test_schedules.cpp.
 */
#include "collectives/ScheduleRecorder.hpp"
#include "collectives/algorithms/Algorithms.hpp"
#include "collectives/SmpiDefault.hpp"
#include "trace/Action.hpp"

#include "ScheduleText.hpp"
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace coll = progsim::models::collectives::smpi_default;
using progsim::models::collectives::ScheduleRecorder;
using progsim::mpi::Schedule;
using progsim::trace::Action;
using progsim::trace::ActionType;

namespace {
std::string describe(const progsim::mpi::Schedule& schedule) { return progsim::testing::describe_peers(schedule); }
} // namespace

namespace {
Schedule blocking(ActionType type, int rank, int size, const std::string& choice, int64_t bytes = 8,
                  int64_t element = 8)
{
  Action action;
  action.type   = type;
  action.bytes  = bytes;
  action.bytes2 = type == ActionType::AllToAll || type == ActionType::AllGather ? bytes : element;
  progsim::trace::CountPool counts;
  return coll::make_collectives(choice)->schedule(action, rank, size, counts);
}

int64_t total_sent(const Schedule& schedule)
{
  int64_t sum = 0;
  for (auto const& round : schedule.rounds)
    for (auto const& t : round.transfers)
      sum += t.is_send ? t.bytes : 0;
  return sum;
}
} // namespace

TEST(BlockingSchedule, SmpisBinomialTreeSendsToOneChildAtATime)
{
  // Each send blocks (a round of its own), largest subtree first; binomial_bcast.cpp posts them together.
  EXPECT_EQ(describe(blocking(ActionType::Bcast, 0, 8, "bcast:binomial_tree")), "S4 | S2 | S1");
  EXPECT_EQ(describe(blocking(ActionType::Bcast, 6, 8, "bcast:binomial_tree")), "R4 | S7");
  EXPECT_EQ(describe(blocking(ActionType::Bcast, 0, 8, "bcast:binomial_tree;bcast:smpi")),
            describe(blocking(ActionType::Bcast, 0, 8, ""))); // SMPI's default is that tree
}

TEST(BlockingSchedule, TheLogicalRingSendsOneChunkPerStepAndLeavesTheRestToTheDefault)
{
  // 10 elements of 8 bytes over 4 ranks: 6 steps of 2 elements, then the 2 left over reduced and broadcast.
  auto lr = blocking(ActionType::AllReduce, 1, 4, "allreduce:lr", 80);
  ASSERT_EQ(lr.rounds.size(), 6u + 2u); // rank 1: send to root 0, then receive from it
  EXPECT_EQ(describe(lr).substr(0, 5), "S2 R0");
  EXPECT_EQ(lr.rounds[0].transfers[0].bytes, 16);
  EXPECT_EQ(lr.rounds[6].transfers[0].bytes, 16); // the remainder: 2 elements to the root
  // Fewer elements than ranks: the default reduce + broadcast alone.
  EXPECT_EQ(describe(blocking(ActionType::AllReduce, 1, 4, "allreduce:lr", 24)),
            describe(blocking(ActionType::AllReduce, 1, 4, "allreduce:redbcast", 24)));
}

TEST(BlockingSchedule, RecursiveDoublingAllgatherDoublesWhatItSendsAndFixesUpMissingPartners)
{
  // 8 ranks: 3 exchanges of 1, 2 and 4 blocks.
  auto full = blocking(ActionType::AllGather, 5, 8, "allgather:rdb", 100);
  EXPECT_EQ(describe(full), "S4 R4 | S7 R7 | S1 R1");
  EXPECT_EQ(full.rounds[2].transfers[0].bytes, 400);
  // Whatever the rank count, every rank ends with the p - 1 other blocks.
  for (int p : {5, 6, 7, 12}) {
    for (int r = 0; r < p; r++) {
      auto schedule  = blocking(ActionType::AllGather, r, p, "allgather:rdb", 100);
      int64_t received = 0;
      for (auto const& round : schedule.rounds)
        for (auto const& t : round.transfers)
          received += t.is_send ? 0 : t.bytes;
      EXPECT_EQ(received, 100 * (p - 1)) << p << " ranks, rank " << r;
    }
  }
}

TEST(BlockingSchedule, BarriersExchangeLog2RoundsOfEmptyMessages)
{
  EXPECT_EQ(describe(blocking(ActionType::Barrier, 3, 8, "barrier:ompi_recursivedoubling")), "S2 R2 | S1 R1 | S7 R7");
  // 6 ranks: 4 and 5 check in with 0 and 1, which release them after the 4-rank exchange.
  EXPECT_EQ(describe(blocking(ActionType::Barrier, 5, 6, "barrier:ompi_recursivedoubling")), "S1 R1");
  EXPECT_EQ(describe(blocking(ActionType::Barrier, 1, 6, "barrier:ompi_recursivedoubling")), "R5 | S0 R0 | S3 R3 | S5");
  EXPECT_EQ(total_sent(blocking(ActionType::Barrier, 1, 6, "barrier:ompi_bruck")), 0);
}

TEST(BlockingSchedule, AlltoallsMoveTheSameBytesInDifferentRounds)
{
  // p - 1 blocks leave each rank whatever the algorithm; Bruck packs them into log2 p rounds of p / 2 blocks.
  for (const char* algorithm : {"alltoall:pair", "alltoall:ring", "alltoall:basic_linear"})
    EXPECT_EQ(total_sent(blocking(ActionType::AllToAll, 3, 8, algorithm, 10)), 70) << algorithm;
  auto bruck = blocking(ActionType::AllToAll, 3, 8, "alltoall:bruck", 10);
  EXPECT_EQ(bruck.rounds.size(), 3u);
  EXPECT_EQ(total_sent(bruck), 3 * 40);
  EXPECT_EQ(describe(blocking(ActionType::AllToAll, 3, 4, "alltoall:pair")), "S2 R2 | S1 R1 | S0 R0");
  EXPECT_THROW(blocking(ActionType::AllToAll, 3, 6, "alltoall:pair"), std::invalid_argument);
  EXPECT_THROW(coll::make_collectives("ibcast:binomial"), std::invalid_argument); // that is a non-blocking choice
}

TEST(BlockingSchedule, MpichChoosesByMessageSizeAndRankCount)
{
  auto same = [](ActionType type, int rank, int size, int64_t bytes, const std::string& algorithm) {
    return describe(blocking(type, rank, size, "mpich", bytes, 1)) ==
           describe(blocking(type, rank, size, algorithm, bytes, 1));
  };
  // bcast: binomial below 12 288 B or 8 ranks; scatter + recursive doubling below 512 KiB on 2^k ranks; else ring.
  EXPECT_TRUE(same(ActionType::Bcast, 5, 16, 12287, "bcast:binomial_tree"));
  EXPECT_TRUE(same(ActionType::Bcast, 5, 4, 1 << 20, "bcast:binomial_tree"));
  EXPECT_TRUE(same(ActionType::Bcast, 5, 16, 12288, "bcast:scatter_rdb_allgather"));
  EXPECT_TRUE(same(ActionType::Bcast, 5, 12, 12288, "bcast:scatter_LR_allgather"));
  EXPECT_TRUE(same(ActionType::Bcast, 5, 16, 524288, "bcast:scatter_LR_allgather"));
  EXPECT_FALSE(same(ActionType::Bcast, 5, 16, 524288, "bcast:scatter_rdb_allgather"));
  // allreduce (MPICH 4.0): recursive doubling up to 8 B or fewer elements than 2^k ranks, Rabenseifner above.
  EXPECT_TRUE(same(ActionType::AllReduce, 5, 16, 8, "allreduce:rdb"));
  EXPECT_TRUE(same(ActionType::AllReduce, 5, 16, 15, "allreduce:rdb")); // 15 elements of 1 B on 16 ranks
  EXPECT_TRUE(same(ActionType::AllReduce, 5, 16, 16, "allreduce:rab_rdb"));
  EXPECT_FALSE(same(ActionType::AllReduce, 5, 16, 16, "allreduce:rdb"));
  // reduce: binomial up to 2 048 B, reduce-scatter + gather above; gather and scatter: binomial always.
  EXPECT_TRUE(same(ActionType::Reduce, 5, 16, 2048, "reduce:binomial"));
  EXPECT_TRUE(same(ActionType::Reduce, 5, 16, 2049, "reduce:scatter_gather"));
  EXPECT_FALSE(same(ActionType::Reduce, 5, 16, 2049, "reduce:binomial"));
  EXPECT_TRUE(same(ActionType::Gather, 5, 16, 1 << 20, "gather:ompi_binomial"));
  // allgather (t: all the ranks' blocks): recursive doubling below 512 KiB on 2^k ranks, Bruck below 80 KiB
  // otherwise, the ring above.
  EXPECT_TRUE(same(ActionType::AllGather, 5, 16, 32767, "allgather:rdb"));
  EXPECT_TRUE(same(ActionType::AllGather, 5, 16, 32768, "allgather:ompi_ring"));
  EXPECT_TRUE(same(ActionType::AllGather, 5, 12, 6826, "allgather:bruck"));
  EXPECT_TRUE(same(ActionType::AllGather, 5, 12, 6827, "allgather:ompi_ring"));
  EXPECT_TRUE(same(ActionType::Scatter, 5, 16, 1 << 20, "scatter:tuned_binomial"));
  // alltoall: Bruck up to 256 B on 8 ranks or more, scattered up to 32 KiB, pairwise beyond.
  EXPECT_TRUE(same(ActionType::AllToAll, 5, 8, 256, "alltoall:bruck"));
  EXPECT_TRUE(same(ActionType::AllToAll, 5, 4, 256, "alltoall:scattered"));
  EXPECT_TRUE(same(ActionType::AllToAll, 5, 8, 32768, "alltoall:scattered"));
  EXPECT_TRUE(same(ActionType::AllToAll, 5, 8, 32769, "alltoall:pair"));
  EXPECT_TRUE(same(ActionType::AllToAll, 5, 12, 32769, "alltoall:ring"));
  EXPECT_TRUE(same(ActionType::Barrier, 5, 12, 0, "barrier:dissemination"));
  // MPICH throttles its scattered exchange at 32 pairs a round, MVAPICH2 (SMPI's scatter_dest) at 4.
  EXPECT_EQ(blocking(ActionType::AllToAll, 0, 64, "alltoall:scattered", 1000).rounds.size(), 2u);
  EXPECT_EQ(blocking(ActionType::AllToAll, 0, 64, "alltoall:mvapich2_scatter_dest", 1000).rounds.size(), 16u);
}

// Open MPI 4.1's barrier, alltoall and allgather (coll/base), their rounds worked out by hand from the algorithms.

TEST(BlockingSchedule, OpenMpisTreeBarrierGathersUpABinomialTreeAndReleasesDownIt)
{
  // 8 ranks: rank 0's children are 1, 2 and 4; rank 4's are 5 and 6; rank 6's is 7; rank 3 is a leaf under 2.
  EXPECT_EQ(describe(blocking(ActionType::Barrier, 0, 8, "barrier:ompi_tree")), "R1 | R2 | R4 | S4 | S2 | S1");
  EXPECT_EQ(describe(blocking(ActionType::Barrier, 4, 8, "barrier:ompi_tree")), "R5 | R6 | S0 | R0 | S6 | S5");
  EXPECT_EQ(describe(blocking(ActionType::Barrier, 6, 8, "barrier:ompi_tree")), "R7 | S4 | R4 | S7");
  EXPECT_EQ(describe(blocking(ActionType::Barrier, 3, 8, "barrier:ompi_tree")), "S2 | R2");
  // 6 ranks: ranks 6 and 7 do not exist, so rank 2 has the one child 3 and rank 4 the one child 5.
  EXPECT_EQ(describe(blocking(ActionType::Barrier, 4, 6, "barrier:ompi_tree")), "R5 | S0 | R0 | S5");
  EXPECT_EQ(describe(blocking(ActionType::Barrier, 2, 6, "barrier:ompi_tree")), "R3 | S0 | R0 | S3");
  EXPECT_EQ(describe(blocking(ActionType::Barrier, 0, 6, "barrier:ompi_tree")), "R1 | R2 | R4 | S4 | S2 | S1");
}

TEST(BlockingSchedule, OpenMpisRingAndLinearBarriers)
{
  // The double ring: rank 0 starts each lap and sees it end; the others pass the token on, twice.
  EXPECT_EQ(describe(blocking(ActionType::Barrier, 0, 4, "barrier:ompi_doublering")), "S1 | R3 | S1 | R3");
  EXPECT_EQ(describe(blocking(ActionType::Barrier, 2, 4, "barrier:ompi_doublering")), "R1 | S3 | R1 | S3");
  // The linear barrier: rank 0 receives from all at once, then releases them one blocking send at a time.
  EXPECT_EQ(describe(blocking(ActionType::Barrier, 0, 4, "barrier:ompi_basic_linear")), "R1 R2 R3 | S1 | S2 | S3");
  EXPECT_EQ(describe(blocking(ActionType::Barrier, 2, 4, "barrier:ompi_basic_linear")), "S0 | R0");
  // Two processes: one exchange; nothing on one rank; refused on three.
  EXPECT_EQ(describe(blocking(ActionType::Barrier, 1, 2, "barrier:ompi_two_procs")), "S0 R0");
  EXPECT_EQ(describe(blocking(ActionType::Barrier, 0, 1, "barrier:ompi_two_procs")), "");
  EXPECT_THROW(blocking(ActionType::Barrier, 0, 3, "barrier:ompi_two_procs"), std::invalid_argument);
}

namespace {
Schedule linear_sync(int rank, int size, int max_requests)
{
  Action action;
  action.type   = ActionType::AllToAll;
  action.bytes  = 10;
  action.bytes2 = 10;
  ScheduleRecorder recorder(rank, size);
  progsim::models::collectives::algorithms::ompi_linear_sync_alltoall(recorder, action, 7, max_requests);
  return recorder.take();
}
} // namespace

TEST(BlockingSchedule, OpenMpisLinearSyncAlltoallPostsMaxRequestsPerRound)
{
  // 8 ranks, 3 at a time: receives from 1, 2, 3 and sends to 7, 6, 5; then the next three; then the last one.
  EXPECT_EQ(describe(linear_sync(0, 8, 3)), "R1 R2 R3 S7 S6 S5 | R4 R5 R6 S4 S3 S2 | R7 S1");
  EXPECT_EQ(linear_sync(5, 8, 1).rounds.size(), 7u);
  EXPECT_EQ(linear_sync(5, 16, 4).rounds.size(), 4u); // ceil(15 / 4)
  // No limit (0, coll/tuned's default) or a limit of p - 1 or more: everything at once, the basic linear alltoall.
  const std::string linear = describe(blocking(ActionType::AllToAll, 5, 8, "alltoall:basic_linear", 10));
  EXPECT_EQ(linear, "R6 R7 R0 R1 R2 R3 R4 S4 S3 S2 S1 S0 S7 S6");
  EXPECT_EQ(describe(linear_sync(5, 8, 0)), linear);
  EXPECT_EQ(describe(linear_sync(5, 8, 7)), linear);
  EXPECT_EQ(describe(linear_sync(5, 8, 100)), linear);
  EXPECT_EQ(describe(blocking(ActionType::AllToAll, 5, 8, "alltoall:ompi_linear_sync", 10)), linear);
  // The two-process alltoall: one exchange, refused on other rank counts.
  EXPECT_EQ(describe(blocking(ActionType::AllToAll, 0, 2, "alltoall:ompi_two_proc", 10)), "S1 R1");
  EXPECT_THROW(blocking(ActionType::AllToAll, 0, 4, "alltoall:ompi_two_proc"), std::invalid_argument);
}

namespace {
int64_t total_received(const Schedule& schedule)
{
  int64_t sum = 0;
  for (auto const& round : schedule.rounds)
    for (auto const& t : round.transfers)
      sum += t.is_send ? 0 : t.bytes;
  return sum;
}
std::vector<int64_t> sent_per_round(const Schedule& schedule)
{
  std::vector<int64_t> out;
  for (auto const& round : schedule.rounds) {
    int64_t sum = 0;
    for (auto const& t : round.transfers)
      sum += t.is_send ? t.bytes : 0;
    out.push_back(sum);
  }
  return out;
}
} // namespace

TEST(BlockingSchedule, OpenMpisNeighborExchangeAlternatesNeighboursWithTwoBlocksAfterTheFirst)
{
  // 6 ranks, 3 rounds: even ranks go up first, odd ones down first.
  auto even = blocking(ActionType::AllGather, 0, 6, "allgather:ompi_neighborexchange", 100);
  EXPECT_EQ(describe(even), "S1 R1 | S5 R5 | S1 R1");
  EXPECT_EQ(sent_per_round(even), (std::vector<int64_t>{100, 200, 200}));
  EXPECT_EQ(describe(blocking(ActionType::AllGather, 1, 6, "allgather:ompi_neighborexchange", 100)),
            "S0 R0 | S2 R2 | S0 R0");
  EXPECT_EQ(describe(blocking(ActionType::AllGather, 3, 6, "allgather:ompi_neighborexchange", 100)),
            "S2 R2 | S4 R4 | S2 R2");
  EXPECT_EQ(total_received(even), 500);
  // An odd count: Open MPI's ring instead, p - 1 rounds passing one block on to rank + 1.
  EXPECT_EQ(describe(blocking(ActionType::AllGather, 0, 5, "allgather:ompi_neighborexchange", 100)),
            "S1 R4 | S1 R4 | S1 R4 | S1 R4");
  EXPECT_EQ(describe(blocking(ActionType::AllGather, 0, 5, "allgather:ompi_ring", 100)),
            "S1 R4 | S1 R4 | S1 R4 | S1 R4");
}

TEST(BlockingSchedule, OpenMpisBruckAndRecursiveDoublingAllgathers)
{
  // Bruck on 6 ranks: distances 1, 2, 4 to rank - d from rank + d; 1, 2, then the 2 blocks still missing.
  auto bruck = blocking(ActionType::AllGather, 0, 6, "allgather:bruck", 100);
  EXPECT_EQ(describe(bruck), "S5 R1 | S4 R2 | S2 R4");
  EXPECT_EQ(sent_per_round(bruck), (std::vector<int64_t>{100, 200, 200}));
  for (int p : {2, 5, 6, 7, 8, 12})
    for (int r = 0; r < p; r++)
      EXPECT_EQ(total_received(blocking(ActionType::AllGather, r, p, "allgather:bruck", 100)), 100 * (p - 1))
          << p << " ranks, rank " << r;
  // Recursive doubling: on 8 ranks the exchanges with rank XOR 1, 2, 4; on 6, Open MPI's Bruck instead.
  auto rd = blocking(ActionType::AllGather, 5, 8, "allgather:ompi_recursive_doubling", 100);
  EXPECT_EQ(describe(rd), "S4 R4 | S7 R7 | S1 R1");
  EXPECT_EQ(sent_per_round(rd), (std::vector<int64_t>{100, 200, 400}));
  EXPECT_EQ(describe(blocking(ActionType::AllGather, 0, 6, "allgather:ompi_recursive_doubling", 100)),
            describe(bruck));
}

TEST(BlockingSchedule, OpenMpisLinearAndTwoProcessAllgathers)
{
  // A linear gather to rank 0 (one blocking receive at a time), then a binomial broadcast of all 4 blocks.
  auto root = blocking(ActionType::AllGather, 0, 4, "allgather:ompi_linear", 100);
  EXPECT_EQ(describe(root), "R1 | R2 | R3 | S2 | S1");
  EXPECT_EQ(sent_per_round(root).back(), 400);
  EXPECT_EQ(describe(blocking(ActionType::AllGather, 3, 4, "allgather:ompi_linear", 100)), "S0 | R2");
  EXPECT_EQ(describe(blocking(ActionType::AllGather, 1, 2, "allgather:ompi_two_proc", 100)), "S0 R0");
  EXPECT_THROW(blocking(ActionType::AllGather, 1, 3, "allgather:ompi_two_proc"), std::invalid_argument);
}
