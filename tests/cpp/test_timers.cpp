/*
 * The engine's kernel timers (sched/Timers.hpp): one queue under one SimGrid timer. Each timer fires at its date, in
 * SimGrid's kernel; timers of one date fire in the order they were set (a moved timer as if set anew); a cancelled
 * timer never fires, and SimGrid's clock stops only at dates where a timer fires. SimGrid's engine is global, so each
 * simulation runs in a child process of its own.
 */
#include "sched/Timers.hpp"
#include "ChildEngine.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;
namespace timers = progsim::sched::timers;

namespace {

const std::string kPlatform = progsim::testing::full_routing_platform(R"(
    <host id="a" speed="1Gf"/>
)");

using progsim::testing::expect;
using progsim::testing::expect_near;
using progsim::testing::Failures;

/** What fired, in order, and where SimGrid's clock stopped. */
struct Seen {
  std::vector<std::string> fired;
  std::vector<double> dates;
  std::vector<double> clock_stops;
};

/** Runs `setup` (which sets timers, from an actor at date 0) and then `check`, in a child; 0 when all held. */
int run(const std::function<void(Seen&)>& setup, const std::function<void(const Seen&, Failures&)>& check)
{
  Seen seen;
  return progsim::testing::simulate_in_child(
      kPlatform, {},
      [&](Failures&) {
        sg4::Engine::on_time_advance_cb([&seen](double) { seen.clock_stops.push_back(sg4::Engine::get_clock()); });
        sg4::Actor::create("setter", sg4::Host::by_name("a"), [&seen, &setup]() { setup(seen); });
      },
      [&](Failures& failures) { check(seen, failures); });
}

/** The timers fired in the order `names`, at `dates`. */
void expect_fired(const Seen& seen, const std::vector<std::string>& names, const std::vector<double>& dates,
                  Failures& failures)
{
  expect(failures, "the order they fired in", seen.fired == names);
  for (size_t i = 0; i < std::min(dates.size(), seen.dates.size()); i++)
    expect_near(failures, "the date of " + seen.fired[i], seen.dates[i], dates[i]);
}

std::function<void()> note(Seen& seen, const std::string& name)
{
  return [&seen, name]() {
    seen.fired.push_back(name);
    seen.dates.push_back(sg4::Engine::get_clock());
  };
}

} // namespace

TEST(Timers, FireAtTheirDatesAndAtOneDateInTheOrderSet)
{
  EXPECT_EQ(run(
                [](Seen& seen) {
                  timers::set(3.0, note(seen, "c"));
                  timers::set(1.0, note(seen, "a1"));
                  timers::set(2.0, note(seen, "b"));
                  timers::set(1.0, note(seen, "a2"));
                  timers::set(1.0, [&seen]() { // one set for now, from a timer: it fires at this date, after those due
                    note(seen, "a3")();
                    timers::set(sg4::Engine::get_clock(), note(seen, "a4"));
                  });
                },
                [](const Seen& seen, Failures& failures) {
                  expect_fired(seen, {"a1", "a2", "a3", "a4", "b", "c"}, {1, 1, 1, 1, 2, 3}, failures);
                }),
            0);
}

TEST(Timers, ACancelledTimerNeverFiresAndTheClockDoesNotStopAtItsDate)
{
  EXPECT_EQ(run(
                [](Seen& seen) {
                  timers::Timer* first = timers::set(1.0, note(seen, "cancelled first"));
                  timers::set(2.0, note(seen, "second"));
                  timers::Timer* deep = timers::set(3.0, note(seen, "cancelled deeper"));
                  timers::set(4.0, note(seen, "last"));
                  timers::cancel(first);
                  timers::cancel(deep);
                },
                [](const Seen& seen, Failures& failures) {
                  expect(failures, "fired", seen.fired == std::vector<std::string>{"second", "last"});
                  expect(failures, "the clock stops at 2 and 4 only", seen.clock_stops.size() == 2);
                  for (double stop : seen.clock_stops)
                    expect(failures, "a stop at " + std::to_string(stop), stop == 2.0 || stop == 4.0);
                }),
            0);
}

TEST(Timers, AMovedTimerFiresAtItsNewDateAsIfSetAnew)
{
  EXPECT_EQ(run(
                [](Seen& seen) {
                  timers::Timer* moved = timers::set(1.0, note(seen, "moved"));
                  timers::set(2.0, note(seen, "set before the move"));
                  timers::Timer* earlier = timers::set(5.0, note(seen, "moved earlier"));
                  timers::move(moved, 2.0);
                  timers::move(earlier, 0.5);
                },
                [](const Seen& seen, Failures& failures) {
                  expect_fired(seen, {"moved earlier", "set before the move", "moved"}, {0.5, 2, 2}, failures);
                  expect(failures, "the clock stops at 0.5 and 2 only", seen.clock_stops.size() == 2);
                }),
            0);
}

TEST(Timers, ATimerMovedAwayAndBackFiresAfterThoseSetInBetween)
{
  // Each date keeps its timers in a list: a timer that leaves a date and comes back is last in it, and a date all of
  // whose timers left (then came back) is still fired once, where the clock stops once.
  EXPECT_EQ(run(
                [](Seen& seen) {
                  timers::Timer* roaming = timers::set(1.0, note(seen, "roaming"));
                  timers::Timer* alone   = timers::set(2.0, note(seen, "alone"));
                  timers::set(1.0, note(seen, "stays"));
                  timers::move(roaming, 3.0);
                  timers::move(alone, 3.0); // date 2 has no timer left
                  timers::move(roaming, 1.0);
                  timers::move(alone, 2.0); // and has one again
                  timers::set(1.0, [&seen, alone]() { // one fired timer's slot serves a new one: no stale entry fires
                    note(seen, "cancels alone")();
                    timers::cancel(alone);
                    timers::set(2.0, note(seen, "in alone's slot"));
                  });
                },
                [](const Seen& seen, Failures& failures) {
                  expect_fired(seen, {"stays", "roaming", "cancels alone", "in alone's slot"}, {1, 1, 1, 2}, failures);
                  expect(failures, "the clock stops at 1 and 2 only", seen.clock_stops.size() == 2);
                }),
            0);
}
