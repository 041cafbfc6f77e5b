/*
 * RankClock: a rank's date, which its CPU work moves ahead of SimGrid's clock, and the one pause that brings
 * SimGrid's clock there. Each case is one simulation of one actor, in a child process (SimGrid's engine is global).
 */
#include "sched/RankClock.hpp"
#include "ChildEngine.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <gtest/gtest.h>

#include <functional>

namespace sg4 = simgrid::s4u;
using progsim::sched::RankClock;
using progsim::sched::TimedPause;
using progsim::testing::expect;
using progsim::testing::expect_near;
using progsim::testing::Failures;

namespace {

const std::string kPlatform = progsim::testing::full_routing_platform(R"(
    <host id="core" speed="1Gf"/>
)");

/** Runs `body` as the one actor of a simulation; the child exits 0 when it saw nothing wrong. */
int in_actor(const std::function<void(Failures&, RankClock&, TimedPause&)>& body)
{
  return progsim::testing::simulate_in_child(kPlatform, {}, [&body](Failures& failures) {
    sg4::Actor::create("rank", sg4::Engine::get_instance()->host_by_name("core"), [&failures, &body]() {
      RankClock clock;
      TimedPause pause;
      body(failures, clock, pause);
    });
  });
}

double simgrid_clock()
{
  return sg4::Engine::get_clock();
}

} // namespace

TEST(RankClock, CpuWorkMovesTheRanksDateAndOnePauseBringsSimGridThere)
{
  EXPECT_EQ(in_actor([](Failures& failures, RankClock& clock, TimedPause& pause) {
              clock.work(1e-3);
              clock.work(2.5e-4);
              expect_near(failures, "the rank's date after two pieces of work", clock.now(), 1.25e-3, 0);
              expect_near(failures, "SimGrid's clock before the catch-up", simgrid_clock(), 0, 0);
              expect(failures, "the rank is ahead", clock.ahead());
              clock.catch_up(pause);
              expect_near(failures, "SimGrid's clock after the catch-up", simgrid_clock(), 1.25e-3, 0);
              expect(failures, "the rank is no longer ahead", not clock.ahead());
              clock.work(1e-4); // from the date reached
              expect_near(failures, "the rank's date after more work", clock.now(), 1.35e-3, 0);
            }),
            0);
}

TEST(RankClock, HandingOverGivesTheDateAndLeavesSimGridsClock)
{
  EXPECT_EQ(in_actor([](Failures& failures, RankClock& clock, TimedPause&) {
              expect_near(failures, "a rank with no work hands over SimGrid's clock", clock.hand_over(), 0, 0);
              clock.work(5e-4);
              expect_near(failures, "the date handed over", clock.hand_over(), 5e-4, 0);
              expect(failures, "nothing left ahead", not clock.ahead());
              expect_near(failures, "the rank's date is SimGrid's again", clock.now(), 0, 0);
            }),
            0);
}

TEST(RankClock, ACatchUpWhenSimGridsClockPassedTheDateDoesNotPause)
{
  EXPECT_EQ(in_actor([](Failures& failures, RankClock& clock, TimedPause& pause) {
              clock.work(1e-3);
              pause.until(2e-3); // blocked past its date (a wait that outlasted the work)
              expect_near(failures, "the rank's date is SimGrid's", clock.now(), 2e-3, 0);
              expect(failures, "not ahead", not clock.ahead());
              clock.catch_up(pause);
              expect_near(failures, "SimGrid's clock after a catch-up with nothing owed", simgrid_clock(), 2e-3, 0);
              clock.work(1e-4);
              expect_near(failures, "new work starts from SimGrid's clock", clock.now(), 2.1e-3, 0);
            }),
            0);
}
