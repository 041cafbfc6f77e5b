/*
 * Allgatherv as Open MPI 4.1 (coll/base: default, bruck, ring, neighbor exchange, two_proc) and MPICH 4.0
 * (recursive doubling, Bruck, ring) run it, and their selections (models/collectives/algorithms/, the allgatherv files,
 * ompi_selection, mpich_selection). Expected rounds are derived by hand from the algorithms' definitions, with
 * per-rank sizes that differ (and an empty block); expected choices are rows of Open MPI 4.1.4's
 * ompi_coll_tuned_allgatherv_intra_dec_fixed and of MPICH 4.0.2's generic.json.
 */
#include "collectives/ScheduleRecorder.hpp"
#include "collectives/SmpiDefault.hpp"
#include "trace/Action.hpp"

#include "ScheduleText.hpp"
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coll = progsim::models::collectives::smpi_default;
using progsim::mpi::Schedule;
using progsim::trace::Action;
using progsim::trace::ActionType;
using Sizes = std::vector<int64_t>;

using progsim::testing::describe;

namespace {

/** Rank `rank`'s allgatherv under `choice`, every rank's block of the size `sizes` gives it (and the rank's send of
 * `send` bytes when given: a send type other than the receive type). */
std::string allgatherv(const std::string& choice, int rank, const Sizes& sizes, int64_t send = -1)
{
  Action action;
  action.type   = ActionType::AllGatherV;
  action.bytes  = send >= 0 ? send : sizes[rank];
  action.vector = 0;
  progsim::trace::CountPool counts(sizes.begin(), sizes.end());
  return describe(coll::make_collectives(choice)->schedule(action, rank, static_cast<int>(sizes.size()), counts));
}

std::string bcast(const std::string& choice, int rank, int size, int64_t bytes)
{
  Action action;
  action.type   = ActionType::Bcast;
  action.bytes  = bytes;
  action.bytes2 = 1;
  action.root   = 0;
  progsim::trace::CountPool counts;
  return describe(coll::make_collectives(choice)->schedule(action, rank, size, counts));
}

const Sizes kFive = {10, 20, 0, 40, 50};      // 5 ranks, rank 2's block empty
const Sizes kSix  = {10, 20, 30, 40, 50, 60}; // 6 ranks

} // namespace

TEST(Allgatherv, OpenMpisRingForwardsTheBlockReceivedTheRoundBefore)
{
  // Rank 1 of 5 sends blocks 1, 0, 4, 3 to rank 2 and receives blocks 0, 4, 3, 2 (empty, still sent) from rank 0.
  EXPECT_EQ(allgatherv("allgatherv:ompi_ring", 1, kFive), "S2:20 R0:10 | S2:10 R0:50 | S2:50 R0:40 | S2:40 R0:0");
  EXPECT_EQ(allgatherv("allgatherv:ompi_ring", 3, kFive), "S4:40 R2:0 | S4:0 R2:20 | S4:20 R2:10 | S4:10 R2:50");
}

TEST(Allgatherv, BruckSendsTheBlocksHeldSoFarToRankMinusTheDistance)
{
  // Rank 1 of 5: distance 1 sends block 1 to 0 and gets block 2 (empty) from 2; distance 2 sends blocks 1-2 to 4
  // and gets blocks 3-4 from 3; distance 4 (> 5 / 2) carries the one block left: 1 to 2, 0 from 0.
  EXPECT_EQ(allgatherv("allgatherv:ompi_bruck", 1, kFive), "S0:20 R2:0 | S4:20 R3:90 | S2:20 R0:10");
  EXPECT_EQ(allgatherv("allgatherv:mpich_bruck", 1, kFive), allgatherv("allgatherv:ompi_bruck", 1, kFive));
  // Rank 4 of 6: blocks 4 / 5 | 4-5 to 2 / 0-1 from 0 | 4-5 to 0 / 2-3 from 2.
  EXPECT_EQ(allgatherv("allgatherv:ompi_bruck", 4, kSix), "S3:50 R5:60 | S2:110 R0:30 | S0:110 R2:70");
  // Nothing to gather: Open MPI still exchanges the empty messages, MPICH returns at once.
  const Sizes empty(5, 0);
  EXPECT_EQ(allgatherv("allgatherv:ompi_bruck", 0, empty), "S4:0 R1:0 | S3:0 R2:0 | S1:0 R4:0");
  EXPECT_EQ(allgatherv("allgatherv:mpich_bruck", 0, empty), "");
}

TEST(Allgatherv, NeighborExchangeMovesPairsOfBlocksTwoRanksARound)
{
  // Rank 2 of 6 (even): own blocks with 3; blocks 2-3 to 1 for 0-1; blocks 0-1 to 3 for 4-5.
  EXPECT_EQ(allgatherv("allgatherv:ompi_neighborexchange", 2, kSix), "S3:30 R3:40 | S1:70 R1:30 | S3:30 R3:110");
  // Rank 3 (odd): own blocks with 2; blocks 2-3 to 4 for 4-5; blocks 4-5 to 2 for 0-1.
  EXPECT_EQ(allgatherv("allgatherv:ompi_neighborexchange", 3, kSix), "S2:40 R2:30 | S4:70 R4:110 | S2:110 R2:30");
  // Odd rank count: Open MPI's ring.
  for (int rank = 0; rank < 5; rank++)
    EXPECT_EQ(allgatherv("allgatherv:ompi_neighborexchange", rank, kFive),
              allgatherv("allgatherv:ompi_ring", rank, kFive));
}

TEST(Allgatherv, TheTwoProcessFormSwapsTheBlocksAndRefusesOtherCounts)
{
  EXPECT_EQ(allgatherv("allgatherv:ompi_two_proc", 0, {10, 20}), "S1:10 R1:20");
  EXPECT_EQ(allgatherv("allgatherv:ompi_two_proc", 1, {10, 20}), "S0:20 R0:10");
  EXPECT_THROW(allgatherv("allgatherv:ompi_two_proc", 0, {10, 20, 30}), std::invalid_argument);
}

TEST(Allgatherv, RecursiveDoublingExchangesTheSumsOfAlignedGroups)
{
  EXPECT_EQ(allgatherv("allgatherv:mpich_rdb", 1, {10, 20, 30, 40}), "S0:20 R0:10 | S3:30 R3:70");
  // 6 ranks: at distance 4 ranks 2 and 3 have no partner; rank 1 got blocks 4-5 from 5 and passes them to 3, rank 0
  // to 2; ranks 4 and 5 have no partner at distance 2.
  EXPECT_EQ(allgatherv("allgatherv:mpich_rdb", 1, kSix), "S0:20 R0:10 | S3:30 R3:70 | S5:100 R5:110 | S3:110");
  EXPECT_EQ(allgatherv("allgatherv:mpich_rdb", 3, kSix), "S2:40 R2:30 | S1:70 R1:30 | R1:110");
  EXPECT_EQ(allgatherv("allgatherv:mpich_rdb", 2, kSix), "S3:30 R3:40 | S0:70 R0:30 | R0:110");
  EXPECT_EQ(allgatherv("allgatherv:mpich_rdb", 5, kSix), "S4:60 R4:50 | S1:110 R1:100");
  EXPECT_EQ(allgatherv("allgatherv:mpich_rdb", 0, Sizes(4, 0)), "");
}

TEST(Allgatherv, MpichsRingCutsBlocksBeyond32KiBAndSkipsEmptyOnes)
{
  const Sizes sizes = {10, 0, 40000, 30};
  // Rank 0 sends blocks 0, 3, 2 to 1 and receives 3, 2, 1 (empty) from 3; block 2 goes as 32768 + 7232 B.
  EXPECT_EQ(allgatherv("allgatherv:mpich4_ring", 0, sizes),
            "S1:10 R3:30 | S1:30 R3:32768 | S1:32768 R3:7232 | S1:7232");
  // Rank 2 sends 2, 1 (empty), 0 and receives 1 (empty), 0, 3: a send alone, then a receive alone.
  EXPECT_EQ(allgatherv("allgatherv:mpich4_ring", 2, sizes), "S3:32768 | S3:7232 R1:10 | R1:30 | S3:10");
  // SMPI's: pieces of at least 256 KiB, so block 2 whole.
  EXPECT_EQ(allgatherv("allgatherv:mpich_ring", 0, sizes), "S1:10 R3:30 | S1:30 R3:40000 | S1:40000");
  // Blocks of at most 32 KiB go whole in both.
  EXPECT_EQ(allgatherv("allgatherv:mpich4_ring", 1, kSix), allgatherv("allgatherv:mpich_ring", 1, kSix));
  EXPECT_EQ(allgatherv("allgatherv:mpich4_ring", 1, kSix),
            "S2:20 R0:10 | S2:10 R0:60 | S2:60 R0:50 | S2:50 R0:40 | S2:40 R0:30");
}

TEST(Allgatherv, TheDefaultGathersToZeroThenBroadcastsEveryBlock)
{
  const Sizes sizes = {10, 0, 30, 40};
  // Open MPI: rank 0 receives one rank at a time (nothing from the empty rank 1), then tuned's bcast of 80 B.
  EXPECT_EQ(allgatherv("allgatherv:ompi_default", 0, sizes), "R2:30 | R3:40 | " + bcast("ompi", 0, 4, 80));
  EXPECT_EQ(allgatherv("allgatherv:ompi_default", 1, sizes), bcast("ompi", 1, 4, 80));
  EXPECT_EQ(allgatherv("allgatherv:ompi_default", 3, sizes), "S0:40 | " + bcast("ompi", 3, 4, 80));
  // SMPI's GB: all of rank 0's receives at once, then a binomial tree.
  EXPECT_EQ(allgatherv("allgatherv:GB", 0, sizes), "R2:30 R3:40 | " + bcast("bcast:binomial_tree", 0, 4, 80));
  // The broadcast is tuned's decision for the whole size: on 40 ranks, a binomial tree below 2 KiB, knomial beyond.
  EXPECT_EQ(allgatherv("allgatherv:ompi_default", 5, Sizes(40, 50)),
            "S0:50 | " + bcast("bcast:tuned_binomial", 5, 40, 2000));
  EXPECT_EQ(allgatherv("allgatherv:ompi_default", 5, Sizes(40, 60)),
            "S0:60 | " + bcast("bcast:tuned_knomial", 5, 40, 2400));
  EXPECT_NE(bcast("bcast:tuned_binomial", 5, 40, 2400), bcast("bcast:tuned_knomial", 5, 40, 2400));
}

namespace {

/** `p` uneven sizes (alternately average - 3 and + 3, the remainder on rank 0) whose sum over p, rounded down, is
 * `average`. */
Sizes averaging(int p, int64_t average, int64_t remainder = 0)
{
  Sizes sizes(p, average);
  for (int i = 0; i + 1 < p; i += 2) {
    sizes[i] -= 3;
    sizes[i + 1] += 3;
  }
  sizes[0] += remainder;
  return sizes;
}

bool ompi_picks(const Sizes& sizes, const std::string& algorithm)
{
  const int p = static_cast<int>(sizes.size());
  for (int rank : {0, 1, p - 1})
    if (allgatherv("ompi", rank, sizes) != allgatherv(algorithm, rank, sizes))
      return false;
  return true;
}

bool mpich_picks(const Sizes& sizes, const std::string& algorithm)
{
  const int p = static_cast<int>(sizes.size());
  for (int rank : {0, 1, p - 1})
    if (allgatherv("mpich", rank, sizes) != allgatherv(algorithm, rank, sizes))
      return false;
  return true;
}

} // namespace

TEST(AllgathervSelection, OpenMpiFollowsTheFixedDecisionByTheAverageBlock)
{
  // 2 ranks: ring below 2 KiB, two_proc below 4 KiB, ring below 8 KiB, two_proc beyond. The two make the same
  // exchange but for the send: the ring sends the own receive block, two_proc the send buffer (here one byte more).
  auto two = [](const Sizes& sizes, const std::string& algorithm) {
    for (int rank : {0, 1})
      if (allgatherv("ompi", rank, sizes, sizes[rank] + 1) != allgatherv(algorithm, rank, sizes, sizes[rank] + 1))
        return false;
    return true;
  };
  EXPECT_TRUE(two({1000, 3095}, "allgatherv:ompi_ring"));     // average 2047.5, rounded down
  EXPECT_TRUE(two({1000, 3096}, "allgatherv:ompi_two_proc")); // 2048
  EXPECT_FALSE(two({1000, 3096}, "allgatherv:ompi_ring"));
  EXPECT_TRUE(two({5000, 3191}, "allgatherv:ompi_two_proc")); // 4095
  EXPECT_TRUE(two({5000, 3192}, "allgatherv:ompi_ring"));     // 4096
  EXPECT_TRUE(two({9000, 7383}, "allgatherv:ompi_ring"));     // 8191
  EXPECT_TRUE(two({9000, 7384}, "allgatherv:ompi_two_proc")); // 8192
  // 3..7 ranks: default below 256 B, neighbor exchange below 4 KiB, ring below 8 KiB, neighbor below 16 KiB, Bruck
  // below 256 KiB, neighbor beyond.
  EXPECT_TRUE(ompi_picks(averaging(6, 255, 5), "allgatherv:ompi_default"));
  EXPECT_TRUE(ompi_picks(averaging(6, 256), "allgatherv:ompi_neighborexchange"));
  EXPECT_TRUE(ompi_picks(averaging(6, 4096), "allgatherv:ompi_ring"));
  EXPECT_TRUE(ompi_picks(averaging(6, 8192), "allgatherv:ompi_neighborexchange"));
  EXPECT_TRUE(ompi_picks(averaging(6, 16384), "allgatherv:ompi_bruck"));
  EXPECT_TRUE(ompi_picks(averaging(6, 262144), "allgatherv:ompi_neighborexchange"));
  // 8..15: default below 1 KiB, Bruck beyond.
  EXPECT_TRUE(ompi_picks(averaging(10, 1023, 9), "allgatherv:ompi_default"));
  EXPECT_TRUE(ompi_picks(averaging(10, 1024), "allgatherv:ompi_bruck"));
  // 32..63: Bruck below 8 KiB, ring beyond; 128..255: neighbor exchange from 1 KiB to 64 KiB.
  EXPECT_TRUE(ompi_picks(averaging(40, 8191), "allgatherv:ompi_bruck"));
  EXPECT_TRUE(ompi_picks(averaging(40, 8192), "allgatherv:ompi_ring"));
  EXPECT_TRUE(ompi_picks(averaging(200, 1024), "allgatherv:ompi_neighborexchange"));
  EXPECT_TRUE(ompi_picks(averaging(200, 65536), "allgatherv:ompi_ring"));
}

TEST(AllgathervSelection, MpichFollowsTheTotalSize)
{
  // A power of two of ranks: recursive doubling below 512 KiB in all, the ring beyond.
  EXPECT_TRUE(mpich_picks(averaging(8, 65535, 7), "allgatherv:mpich_rdb"));      // 524287
  EXPECT_TRUE(mpich_picks(averaging(8, 65536), "allgatherv:mpich4_ring"));       // 524288
  EXPECT_FALSE(mpich_picks(averaging(8, 65536), "allgatherv:mpich_rdb"));
  // Other counts: Bruck below 80 KiB, the ring beyond.
  EXPECT_TRUE(mpich_picks(averaging(6, 13653, 1), "allgatherv:mpich_bruck"));    // 81919
  EXPECT_TRUE(mpich_picks(averaging(6, 13653, 2), "allgatherv:mpich4_ring"));    // 81920
  EXPECT_FALSE(mpich_picks(averaging(6, 13653, 2), "allgatherv:mpich_bruck"));
}
