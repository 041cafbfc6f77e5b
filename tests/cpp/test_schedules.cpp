/*
 * Collectives as data: the rounds ScheduleRecorder draws from an algorithm written with point-to-point calls
 * (models/collectives/ScheduleRecorder), and the schedules the default selector gives the engine for trace actions.
 * A round is what an algorithm posts before it waits; the next round starts once all of it completed. The
 * non-blocking collectives' schedules here; the blocking algorithms' (SMPI's, MPICH's, Open MPI's):
 * test_schedules_blocking.cpp.
 */
#include "collectives/ScheduleRecorder.hpp"
#include "collectives/SmpiDefault.hpp"
#include "trace/Action.hpp"

#include "ScheduleText.hpp"
#include <gtest/gtest.h>

#include <algorithm>
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

/** "S0 S1 | R0": sends and receives by peer, rounds separated by bars. */
Schedule recorded(int rank, int size, void (*algorithm)(progsim::models::collectives::PointToPoint&))
{
  ScheduleRecorder recorder(rank, size);
  algorithm(recorder);
  return recorder.take();
}

} // namespace

TEST(Schedule, TheBarrierRootReceivesFromAllInOneRoundThenReleasesAllInTheNext)
{
  EXPECT_EQ(describe(recorded(0, 4, coll::barrier)), "R1 R2 R3 | S1 S2 S3");
  EXPECT_EQ(describe(recorded(2, 4, coll::barrier)), "S0 | R0"); // blocking send, then blocking receive
}

TEST(Schedule, AnAllreduceIsALinearReduceThenABinomialBroadcast)
{
  Action allreduce;
  allreduce.type  = ActionType::AllReduce;
  allreduce.bytes = 8;
  progsim::trace::CountPool traces;
  auto algorithms = coll::make_collectives();
  EXPECT_EQ(describe(algorithms->schedule(allreduce, 0, 4, traces)), "R1 R2 R3 | S2 | S1");
  EXPECT_EQ(describe(algorithms->schedule(allreduce, 3, 4, traces)), "S0 | R2");
  EXPECT_EQ(algorithms->schedule(allreduce, 0, 4, traces).rounds[0].transfers[0].bytes, 8);
}

TEST(Schedule, ANonCollectiveActionHasNoSchedule)
{
  Action send;
  send.type = ActionType::Send;
  progsim::trace::CountPool traces;
  EXPECT_THROW(coll::make_collectives()->schedule(send, 0, 2, traces), std::logic_error);
}

TEST(ScheduleRecorder, ARoundMayLeaveATransferInFlightForTheNextToWaitFor)
{
  ScheduleRecorder recorder(0, 3);
  auto a = recorder.isend(1, 0, 8);
  auto b = recorder.isend(2, 0, 8);
  recorder.wait(a);
  auto c = recorder.irecv(1, 0, 8); // b still in flight
  recorder.wait(b);
  recorder.wait(c);
  Schedule schedule = recorder.take();
  ASSERT_EQ(schedule.rounds.size(), 2u);
  EXPECT_EQ(describe(schedule), "S1 S2 | R1");
  ASSERT_EQ(schedule.rounds[0].waits.size(), 1u); // a only
  EXPECT_EQ(schedule.rounds[0].waits[0].round, 0u);
  EXPECT_EQ(schedule.rounds[0].waits[0].index, 0u);
  ASSERT_EQ(schedule.rounds[1].waits.size(), 2u); // b, carried over, then c
  EXPECT_EQ(schedule.rounds[1].waits[0].round, 0u);
  EXPECT_EQ(schedule.rounds[1].waits[0].index, 1u);
  EXPECT_EQ(schedule.rounds[1].waits[1].round, 1u);
  // A round that waits for all its own transfers, in any order, names none.
  ScheduleRecorder plain(0, 3);
  auto x = plain.isend(1, 0, 8);
  auto y = plain.irecv(2, 0, 8);
  plain.wait(y);
  plain.wait(x);
  EXPECT_TRUE(plain.take().rounds[0].waits.empty());
}

TEST(ScheduleRecorder, RefusesRequestsNeverWaited)
{
  ScheduleRecorder recorder(0, 2);
  recorder.isend(1, 0, 8);
  EXPECT_THROW(recorder.take(), std::logic_error);
}

namespace {
Schedule nonblocking(ActionType type, int rank, int size, const std::string& choice, int root = 0, int64_t bytes = 8)
{
  Action action;
  action.type        = type;
  action.nonblocking = true;
  action.bytes       = bytes;
  // per-peer receive size, or the element size of a vector (bytes: 1)
  action.bytes2      = type == ActionType::AllToAll || type == ActionType::AllGather ? bytes : 1;
  action.root        = root;
  progsim::trace::CountPool counts;
  return coll::make_collectives("", choice)->schedule(action, rank, size, counts);
}

/** A binomial broadcast's tree, read off the schedules: each rank's parent (-1 for the root). */
std::vector<int> parents(int size, int root)
{
  std::vector<int> parent(size, -1);
  for (int r = 0; r < size; r++)
    for (auto const& round : nonblocking(ActionType::Bcast, r, size, "ibcast:binomial", root).rounds)
      for (auto const& t : round.transfers)
        if (not t.is_send) {
          EXPECT_EQ(parent[r], -1) << "rank " << r << " receives twice";
          parent[r] = t.peer;
        }
  return parent;
}
} // namespace

TEST(NonBlockingSchedule, SmpisOwnPostsEverythingInOneRound)
{
  EXPECT_EQ(describe(nonblocking(ActionType::Bcast, 0, 4, "")), "S1 S2 S3");
  EXPECT_EQ(describe(nonblocking(ActionType::Bcast, 2, 4, "")), "R0");
  EXPECT_EQ(describe(nonblocking(ActionType::AllReduce, 1, 3, "")), "S0 R0 S2 R2");
  EXPECT_EQ(describe(nonblocking(ActionType::AllToAll, 1, 4, "")), "R2 R3 R0 S0 S3 S2");
  EXPECT_EQ(nonblocking(ActionType::Bcast, 0, 4, "").rounds[0].transfers[0].tag, -3335); // SMPI's request tag
}

TEST(NonBlockingSchedule, ABinomialBroadcastOf16RanksHas4Levels)
{
  for (int root : {0, 5}) {
    std::vector<int> parent = parents(16, root);
    int deepest = 0;
    for (int r = 0; r < 16; r++) {
      int depth = 0;
      for (int at = r; at != root; at = parent[at]) {
        ASSERT_NE(parent[at], -1) << "rank " << at << " never receives (root " << root << ")";
        depth++;
      }
      deepest = std::max(deepest, depth);
    }
    EXPECT_EQ(deepest, 4) << "root " << root; // ceil(log2 16)
  }
  // A rank receives from its parent, then sends to all its children in one round: the root's four at once.
  EXPECT_EQ(describe(nonblocking(ActionType::Bcast, 0, 16, "ibcast:binomial")), "S8 S4 S2 S1");
  EXPECT_EQ(describe(nonblocking(ActionType::Bcast, 8, 16, "ibcast:binomial")), "R0 | S12 S10 S9");
  EXPECT_EQ(describe(nonblocking(ActionType::Bcast, 15, 16, "ibcast:binomial")), "R14");
}

TEST(NonBlockingSchedule, RecursiveDoublingExchangesWithOneBitFlippedPerRound)
{
  EXPECT_EQ(describe(nonblocking(ActionType::AllReduce, 5, 8, "iallreduce:recursive-doubling")),
            "S4 R4 | S7 R7 | S1 R1");
  // 6 ranks: ranks 0 and 2 hand their vector to 1 and 3, which take part in the 4-rank exchange, and get the result
  // (MPICH's, Open MPI's and SMPI's pairing).
  EXPECT_EQ(describe(nonblocking(ActionType::AllReduce, 0, 6, "iallreduce:recursive-doubling")), "S1 | R1");
  EXPECT_EQ(describe(nonblocking(ActionType::AllReduce, 1, 6, "iallreduce:recursive-doubling")),
            "R0 | S3 R3 | S4 R4 | S0");
}

TEST(NonBlockingSchedule, DisseminationAndPairwiseTakeLog2AndPMinus1Rounds)
{
  EXPECT_EQ(nonblocking(ActionType::Barrier, 3, 16, "ibarrier:dissemination").rounds.size(), 4u);
  EXPECT_EQ(describe(nonblocking(ActionType::Barrier, 3, 5, "ibarrier:dissemination")), "S4 R2 | S0 R1 | S2 R4");
  EXPECT_EQ(nonblocking(ActionType::AllToAll, 3, 16, "ialltoall:pairwise").rounds.size(), 15u);
  EXPECT_EQ(describe(nonblocking(ActionType::AllToAll, 1, 3, "ialltoall:pairwise")), "S2 R0 | S0 R2");
}

TEST(NonBlockingSchedule, AnUnknownChoiceIsNamed)
{
  try {
    coll::make_collectives("", "ibcast:ring");
    FAIL() << "no error";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("'ibcast:ring': no such algorithm; known: ibarrier:dissemination"),
              std::string::npos)
        << error.what();
  }
  EXPECT_THROW(coll::make_collectives("", "bcast:binomial"), std::invalid_argument);
  EXPECT_EQ(describe(nonblocking(ActionType::Bcast, 0, 4, "ibcast:binomial;ibcast:smpi")), "S1 S2 S3");
}

namespace {
Schedule nonblocking_bcast(int rank, int size, int64_t bytes, const std::string& choice)
{
  return nonblocking(ActionType::Bcast, rank, size, choice, 0, bytes);
}
} // namespace

TEST(NonBlockingSchedule, AChainForwardsEachFragmentWhileTheNextArrives)
{
  // 3 fragments of 32 KiB (the last one short) over 4 ranks.
  EXPECT_EQ(describe(nonblocking_bcast(0, 4, 70000, "ibcast:chain")), "S1 | S1 | S1");
  EXPECT_EQ(describe(nonblocking_bcast(1, 4, 70000, "ibcast:chain")), "R0 | S2 R0 | S2 R0 | S2");
  EXPECT_EQ(describe(nonblocking_bcast(3, 4, 70000, "ibcast:chain")), "R2 | R2 | R2");
  EXPECT_EQ(nonblocking_bcast(3, 4, 70000, "ibcast:chain").rounds[2].transfers[0].bytes, 70000 - 2 * 32768);
}

TEST(NonBlockingSchedule, LibnbcSelectsLinearBinomialOrChainAsOpenMpiDoes)
{
  // ompi/mca/coll/libnbc/nbc_ibcast.c: linear up to 4 ranks, binomial below 64 KiB, chain of 8 KiB fragments
  // below 512 KiB, of 32 KiB above; "libnbc" alone chooses it for every collective that has it.
  EXPECT_EQ(describe(nonblocking_bcast(0, 4, 1 << 20, "libnbc")), "S1 S2 S3");
  EXPECT_EQ(describe(nonblocking_bcast(0, 16, 1024, "libnbc")), "S8 S4 S2 S1");
  EXPECT_EQ(nonblocking_bcast(0, 16, 100 * 1024, "libnbc").rounds.size(), 13u);   // 100 KiB / 8 KiB
  EXPECT_EQ(nonblocking_bcast(0, 16, 1 << 20, "ibcast:libnbc").rounds.size(), 32u); // 1 MiB / 32 KiB
  EXPECT_THROW(coll::make_collectives("", "mvapich"), std::invalid_argument);
}

namespace {
Schedule nonblocking_allreduce(int rank, int size, int64_t bytes, const std::string& choice)
{
  return nonblocking(ActionType::AllReduce, rank, size, choice, 0, bytes);
}
} // namespace

TEST(NonBlockingSchedule, AllreduceAlgorithmsAsTheirRoundsSay)
{
  // Binomial: the reduction up to rank 0 (a receive a round), then the binomial broadcast down.
  EXPECT_EQ(describe(nonblocking_allreduce(0, 8, 8, "iallreduce:binomial")), "R1 | R2 | R4 | S4 S2 S1");
  EXPECT_EQ(describe(nonblocking_allreduce(3, 8, 8, "iallreduce:binomial")), "S2 | R2");
  // Ring: 2 (p - 1) rounds, a segment to the right while one arrives from the left.
  Schedule ring = nonblocking_allreduce(0, 4, 4000, "iallreduce:ring");
  ASSERT_EQ(ring.rounds.size(), 6u);
  EXPECT_EQ(describe(Schedule{{ring.rounds[0]}, std::nullopt}), "S1 R3");
  EXPECT_EQ(ring.rounds[0].transfers[0].bytes, 1000);
  // Rabenseifner on 8: vector halving with distance doubling (partners 4, 7, 1 for rank 5 at distances 1, 2, 4;
  // half, quarter, eighth), then the reverse, as MPICH and libnbc order it.
  Schedule rs = nonblocking_allreduce(5, 8, 8000, "iallreduce:rabenseifner");
  EXPECT_EQ(describe(rs), "S4 R4 | S7 R7 | S1 R1 | S1 R1 | S7 R7 | S4 R4");
  std::vector<int64_t> sizes;
  for (auto const& round : rs.rounds)
    sizes.push_back(round.transfers[0].bytes);
  EXPECT_EQ(sizes, (std::vector<int64_t>{4000, 2000, 1000, 1000, 2000, 4000}));
}

TEST(NonBlockingSchedule, LibnbcSelectsTheAllreduceAsOpenMpiDoes)
{
  // ompi/mca/coll/libnbc/nbc_iallreduce.c: binomial below 4 ranks or 64 KiB, reduce-scatter + allgather above.
  EXPECT_EQ(describe(nonblocking_allreduce(2, 3, 1 << 20, "libnbc")), "S0 | R0");
  EXPECT_EQ(describe(nonblocking_allreduce(1, 16, 1024, "libnbc")),
            describe(nonblocking_allreduce(1, 16, 1024, "iallreduce:binomial")));
  EXPECT_EQ(nonblocking_allreduce(1, 16, 1 << 20, "libnbc").rounds.size(), 8u); // 2 log2 16
}

TEST(NonBlockingSchedule, LibnbcPostsItsAlltoallInOneRoundAndDisseminatesItsBarrier)
{
  // nbc_ialltoall.c ends in its linear schedule for every size; nbc_ibarrier.c is a dissemination barrier.
  EXPECT_EQ(describe(nonblocking(ActionType::AllToAll, 1, 3, "libnbc")), "R0 S0 R2 S2");
  EXPECT_EQ(describe(nonblocking(ActionType::Barrier, 3, 5, "libnbc")),
            describe(nonblocking(ActionType::Barrier, 3, 5, "ibarrier:dissemination")));
}

TEST(NonBlockingSchedule, LibnbcReducesByHalvingOrDownItsBinomialTreeAndScattersTheShares)
{
  // nbc_ireduce.c: Rabenseifner's on more than 2 ranks with at least p' elements (8 B each here), binomial below.
  auto ireduce = [](int rank, int size, int64_t bytes, const std::string& choice) {
    Action action;
    action.type        = ActionType::Reduce;
    action.nonblocking = true;
    action.bytes       = bytes;
    action.bytes2      = 8;
    progsim::trace::CountPool counts;
    return describe(coll::make_collectives("", choice)->schedule(action, rank, size, counts));
  };
  EXPECT_EQ(ireduce(0, 6, 800, "libnbc"), ireduce(0, 6, 800, "ireduce:tuned_rabenseifner"));
  EXPECT_EQ(ireduce(0, 6, 24, "libnbc"), ireduce(0, 6, 24, "ireduce:binomial")); // 3 elements < 4
  EXPECT_EQ(ireduce(0, 6, 24, "libnbc"), "R1 | R2 | R4");                        // one child per round
  EXPECT_EQ(ireduce(0, 2, 800, "libnbc"), "R1");
  // nbc_ireduce_scatter.c: the whole vector reduced to rank 0 down the binomial tree, then each share sent.
  Action action;
  action.type        = ActionType::ReduceScatter;
  action.nonblocking = true;
  action.bytes2      = 8;
  progsim::trace::CountPool counts = {16, 24, 8, 8};
  action.vector                    = 0;
  auto rank = [&](int r) { return describe(coll::make_collectives("", "libnbc")->schedule(action, r, 4, counts)); };
  EXPECT_EQ(rank(0), "R1 | R2 | S1 S2 S3");
  EXPECT_EQ(rank(3), "S2 | R0");
  auto bytes = coll::make_collectives("", "libnbc")->schedule(action, 0, 4, counts);
  EXPECT_EQ(bytes.rounds[0].transfers[0].bytes, 56); // the whole vector
  EXPECT_EQ(bytes.rounds[2].transfers[1].bytes, 8);  // rank 2's share
}
