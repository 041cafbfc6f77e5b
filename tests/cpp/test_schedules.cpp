/*
 * Collectives as data: the rounds ScheduleRecorder draws from an algorithm written with point-to-point calls
 * (models/collectives/ScheduleRecorder), and the schedules the default selector gives the engine for trace actions.
 * A round is what an algorithm posts before it waits; the next round starts once all of it completed.
 */
#include "collectives/ScheduleRecorder.hpp"
#include "collectives/SmpiDefault.hpp"
#include "trace/Action.hpp"
#include "trace/TraceSet.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace coll = progsim::models::collectives::smpi_default;
using progsim::models::collectives::ScheduleRecorder;
using progsim::mpi::Schedule;
using progsim::trace::Action;
using progsim::trace::ActionType;

namespace {

/** "S0 S1 | R0": sends and receives by peer, rounds separated by bars. */
std::string describe(const Schedule& schedule)
{
  std::string out;
  for (auto const& round : schedule.rounds) {
    if (not out.empty())
      out += " | ";
    std::string items;
    for (auto const& t : round.transfers)
      items += (items.empty() ? "" : " ") + std::string(t.is_send ? "S" : "R") + std::to_string(t.peer);
    out += items;
  }
  return out;
}

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

TEST(ScheduleRecorder, RefusesAnAlgorithmThatPostsBeforeWaitingForEverything)
{
  ScheduleRecorder recorder(0, 3);
  auto a = recorder.isend(1, 0, 8);
  auto b = recorder.isend(2, 0, 8);
  recorder.wait(a);
  EXPECT_THROW(recorder.irecv(1, 0, 8), std::logic_error); // b is still in flight: not a round
}

TEST(ScheduleRecorder, RefusesRequestsNeverWaited)
{
  ScheduleRecorder recorder(0, 2);
  recorder.isend(1, 0, 8);
  EXPECT_THROW(recorder.take(), std::logic_error);
}
