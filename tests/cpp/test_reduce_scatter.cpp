/*
 * The reduce_scatter algorithms of Open MPI 4.1 (coll_base_reduce_scatter.c) and MPICH 4.0 (reduce_scatter/) and
 * the two selections: rounds, peers and sizes derived by hand from the descriptions in the algorithms' files, with
 * uneven shares (rank i's share is 10 (i + 1) bytes unless said otherwise) and rank counts that are not powers of
 * two; the selections against rows of coll_tuned_decision_fixed.c and generic.json.
 */
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

using progsim::testing::describe;

namespace {

/** Rank `rank`'s schedule of a reduce_scatter of `shares` (bytes, one per rank) by `choice`. */
std::string run(const std::vector<int64_t>& shares, int rank, const std::string& choice, int64_t element = 2)
{
  Action action;
  action.type   = ActionType::ReduceScatter;
  action.vector = 0;
  action.bytes2 = element;
  progsim::trace::CountPool counts(shares.begin(), shares.end());
  return describe(coll::make_collectives(choice)->schedule(action, rank, static_cast<int>(shares.size()), counts));
}

std::string reduce(int64_t bytes, int rank, int size, const std::string& choice)
{
  Action action;
  action.type   = ActionType::Reduce;
  action.bytes  = bytes;
  action.bytes2 = 2;
  action.root   = 0;
  progsim::trace::CountPool counts;
  return describe(coll::make_collectives(choice)->schedule(action, rank, size, counts));
}

/** Rank i's share is 10 (i + 1) bytes. */
std::vector<int64_t> growing(int size)
{
  std::vector<int64_t> shares;
  for (int i = 0; i < size; i++)
    shares.push_back(10 * (i + 1));
  return shares;
}

/** p shares adding up to `total` bytes, uneven: the last rank gets the remainder. */
std::vector<int64_t> adding_up_to(int size, int64_t total)
{
  std::vector<int64_t> shares(size, total / size / 2);
  shares.back() += total - (total / size / 2) * size;
  return shares;
}

} // namespace

TEST(ReduceScatter, RecursiveHalvingFoldsTheExtraRanksThenHalvesTheGroupsOfShares)
{
  // 6 ranks: 0 and 2 hand their 210 bytes to 1 and 3; virtual ranks 0..3 are 1, 3, 4, 5 and hold the groups
  // 30 (shares 0 + 1), 70 (2 + 3), 50, 60. Distance 2, then 1; at last 1 and 3 send 0 and 2 their shares.
  const auto shares = growing(6);
  for (auto const& name : {"reducescatter:ompi_recursive_halving", "reducescatter:mpich_recursive_halving"}) {
    EXPECT_EQ(run(shares, 0, name), "S1:210 | R1:10");
    EXPECT_EQ(run(shares, 1, name), "R0:210 | R4:100 S4:110 | R3:30 S3:70 | S0:10");
    EXPECT_EQ(run(shares, 2, name), "S3:210 | R3:30");
    EXPECT_EQ(run(shares, 3, name), "R2:210 | R5:100 S5:110 | R1:70 S1:30 | S2:30");
    EXPECT_EQ(run(shares, 4, name), "R1:110 S1:100 | R5:50 S5:60");
    EXPECT_EQ(run(shares, 5, name), "R3:110 S3:100 | R4:60 S4:50");
  }
  // An empty side is left out, and a step with both sides empty posts nothing.
  const std::vector<int64_t> sparse = {0, 0, 30, 40};
  EXPECT_EQ(run(sparse, 0, "reducescatter:ompi_recursive_halving"), "S2:70");
  EXPECT_EQ(run(sparse, 1, "reducescatter:ompi_recursive_halving"), "S3:70");
  EXPECT_EQ(run(sparse, 2, "reducescatter:ompi_recursive_halving"), "R0:70 | R3:30 S3:40");
  // Nothing at all to reduce: nothing moves.
  EXPECT_EQ(run({0, 0, 0}, 1, "reducescatter:ompi_recursive_halving"), "");
}

TEST(ReduceScatter, TheRingPassesEachShareRightAndKeepsTheNextReceivePosted)
{
  // 4 ranks, rank 1: the receive of share 3 (from 0) stays posted while share 0 goes to 2; then per step a
  // receive is posted while the previous one is waited for, and the share just completed goes right.
  const auto shares = growing(4);
  EXPECT_EQ(run(shares, 1, "reducescatter:ompi_ring"), "R0:40 S2:10 | R0:30 | S2:40 | R0:20 | S2:30");
  EXPECT_EQ(run(shares, 0, "reducescatter:ompi_ring"), "R3:30 S1:40 | R3:20 | S1:30 | R3:10 | S1:20");
  // Two ranks: one exchange of each other's share; one rank: nothing.
  EXPECT_EQ(run({10, 20}, 0, "reducescatter:ompi_ring"), "R1:10 S1:20");
  EXPECT_EQ(run({10}, 0, "reducescatter:ompi_ring"), "");
}

TEST(ReduceScatter, TheButterflyEndsWithAMirrorExchange)
{
  // 6 ranks as above; blocks 0..3 hold 30, 70, 50, 60 bytes. Virtual rank v ends with block mirror(v): 0 -> 0,
  // 1 -> 2, 2 -> 1, 3 -> 3.
  const auto shares = growing(6);
  const std::string name = "reducescatter:ompi_butterfly";
  EXPECT_EQ(run(shares, 0, name), "S1:210 | R1:10");
  EXPECT_EQ(run(shares, 2, name), "S3:210 | R4:30"); // block 1 (shares 2, 3) ends on virtual 2, rank 4
  EXPECT_EQ(run(shares, 1, name), "R0:210 | S3:110 R3:100 | S4:70 R4:30 | S0:10");
  EXPECT_EQ(run(shares, 3, name), "R2:210 | S1:100 R1:110 | S5:60 R5:50 | S4:50 R4:40");
  EXPECT_EQ(run(shares, 4, name), "S5:110 R5:100 | S1:30 R1:70 | S2:30 | S3:40 R3:50");
  EXPECT_EQ(run(shares, 5, name), "S4:100 R4:110 | S3:50 R3:60");
  // Empty shares still travel.
  EXPECT_EQ(run({0, 0}, 0, name), "S1:0 R1:0");
}

TEST(ReduceScatter, NonOverlappingIsOpenMpisReduceThenItsLinearScatterv)
{
  // 100 bytes on 4 ranks: Open MPI's reduce (binary tree at that size) to rank 0, then rank 0 sends each share
  // in turn; empty shares are left out.
  const auto shares = growing(4);
  const std::string name = "reducescatter:ompi_nonoverlapping";
  EXPECT_EQ(run(shares, 0, name), reduce(100, 0, 4, "reduce:tuned_binary") + " | S1:20 | S2:30 | S3:40");
  EXPECT_EQ(run(shares, 2, name), reduce(100, 2, 4, "reduce:tuned_binary") + " | R0:30");
  EXPECT_EQ(run({10, 0, 30, 40}, 0, name), reduce(80, 0, 4, "reduce:tuned_binary") + " | S2:30 | S3:40");
}

TEST(ReduceScatter, PairwiseSendsRankPlusIItsShareAndReceivesFromRankMinusI)
{
  const auto shares = growing(4);
  EXPECT_EQ(run(shares, 1, "reducescatter:mpich_pair"), "S2:30 R0:20 | S3:40 R3:20 | S0:10 R2:20");
}

TEST(ReduceScatter, SmpisDefaultRunsMpichsRecursiveDoublingOrPairwiseOnUnevenShares)
{
  // SMPI's default: uneven shares of at most 524288 elements, recursive doubling; beyond, pairwise; even shares,
  // its reduce and scatterv (not checked here).
  const auto shares = growing(6);
  for (int rank : {0, 3, 5})
    EXPECT_EQ(run(shares, rank, ""), run(shares, rank, "reducescatter:mpich_rdb"));
  // Rank 1 of 6: at distance 1 it sends 0 all but its own share (190) and gets all but 0's (200); at distance 2,
  // all but shares 0..1 (180) against all but 2..3 (140); at distance 4, all but 0..3 (110) against 0..3 (100), and
  // as the subtree of 4 lacks rank 7, the ranks of its own subtree that have a partner (0, 1) forward those 100
  // bytes to the ones that do not (2, 3).
  EXPECT_EQ(run(shares, 1, "reducescatter:mpich_rdb"), "S0:190 R0:200 | S3:180 R3:140 | S5:110 R5:100 | S3:100");
  const auto large = adding_up_to(6, 2 * 524290); // 524290 elements of 2 bytes
  for (int rank : {0, 4})
    EXPECT_EQ(run(large, rank, ""), run(large, rank, "reducescatter:mpich_pair"));
}

TEST(ReduceScatter, OpenMpisSelectionFollowsItsFixedDecision)
{
  auto same = [](const std::vector<int64_t>& shares, const std::string& algorithm) {
    const int size = static_cast<int>(shares.size());
    for (int rank : {0, 1, size - 1})
      if (run(shares, rank, "ompi") != run(shares, rank, algorithm))
        return false;
    return true;
  };
  // 2..3 ranks: ring below 64 KiB, butterfly below 128 KiB, ring beyond.
  EXPECT_TRUE(same(adding_up_to(3, 65534), "reducescatter:ompi_ring"));
  EXPECT_TRUE(same(adding_up_to(3, 65536), "reducescatter:ompi_butterfly"));
  EXPECT_TRUE(same(adding_up_to(3, 131072), "reducescatter:ompi_ring"));
  // 4..7 ranks: non-overlapping below 8 B, recursive halving below 256 KiB, ring beyond.
  EXPECT_TRUE(same({2, 2, 2, 0, 0}, "reducescatter:ompi_nonoverlapping"));
  EXPECT_TRUE(same(adding_up_to(6, 8), "reducescatter:ompi_recursive_halving"));
  EXPECT_TRUE(same(adding_up_to(6, 262144), "reducescatter:ompi_ring"));
  // 32..63 ranks: non-overlapping below 64 B, recursive halving below 2 KiB, butterfly below 512 KiB, ring beyond.
  EXPECT_TRUE(same(adding_up_to(48, 62), "reducescatter:ompi_nonoverlapping"));
  EXPECT_TRUE(same(adding_up_to(48, 64), "reducescatter:ompi_recursive_halving"));
  EXPECT_TRUE(same(adding_up_to(48, 2048), "reducescatter:ompi_butterfly"));
  EXPECT_TRUE(same(adding_up_to(48, 524288), "reducescatter:ompi_ring"));
  // 64..127 ranks: butterfly at 512..2047 B, recursive halving again at 2..4 KiB, butterfly from there.
  EXPECT_TRUE(same(adding_up_to(100, 1000), "reducescatter:ompi_butterfly"));
  EXPECT_TRUE(same(adding_up_to(100, 3000), "reducescatter:ompi_recursive_halving"));
  EXPECT_TRUE(same(adding_up_to(100, 5000), "reducescatter:ompi_butterfly"));
  // The rows differ in their choice: the test above would pass for any algorithm if they did not.
  EXPECT_NE(run(growing(6), 1, "reducescatter:ompi_ring"), run(growing(6), 1, "reducescatter:ompi_butterfly"));
}

TEST(ReduceScatter, MpichsSelectionHalvesBelow512KiBAndPairsBeyond)
{
  auto same = [](const std::vector<int64_t>& shares, const std::string& algorithm) {
    const int size = static_cast<int>(shares.size());
    for (int rank : {0, 1, size - 1})
      if (run(shares, rank, "mpich") != run(shares, rank, algorithm))
        return false;
    return true;
  };
  EXPECT_TRUE(same(adding_up_to(6, 524286), "reducescatter:mpich_recursive_halving"));
  EXPECT_TRUE(same(adding_up_to(6, 524288), "reducescatter:mpich_pair"));
  EXPECT_TRUE(same(adding_up_to(8, 100), "reducescatter:mpich_recursive_halving"));
  EXPECT_FALSE(same(adding_up_to(8, 100), "reducescatter:mpich_pair"));
}
