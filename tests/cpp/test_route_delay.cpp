/*
 * RouteDelay: the piecewise factors it reads as SimGrid's SMPI network model does (network_smpi.cpp, 3.32: sorted
 * by size, the factor of the largest threshold strictly below the size, 1 if none), and the dates it gives
 * transfers over loopback links, against SimGrid's own transfers (each simulation in a child process: SimGrid's
 * engine is global). Control messages' dates are checked against transfers in tests/test_control_messages.py.
 */
#include "resources/RouteDelay.hpp"
#include "sched/TransferStarts.hpp"
#include "sched/TransferWatch.hpp"
#include "ChildEngine.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace sg4             = simgrid::s4u;
namespace transfer_starts = progsim::sched::transfer_starts;
using progsim::resources::RouteDelay;

// SimGrid 3.32's default smpi/lat-factor (sg_config.cpp), written largest threshold first, as SimGrid writes it.
// Its description there says "if (size >= thresholdN) return valueN"; the code (network_smpi.cpp) returns the
// value of the threshold below as long as size <= threshold, so a size equal to a threshold takes the one below.
constexpr const char* kDefaultLatency =
    "65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;1426:1.61075;732:1.9503;257:1.95341;"
    "0:2.01467";

TEST(RouteDelay, TakesTheFactorOfTheLargestThresholdStrictlyBelowTheSize)
{
  EXPECT_DOUBLE_EQ(RouteDelay::piecewise_factor(kDefaultLatency, 64), 2.01467);
  EXPECT_DOUBLE_EQ(RouteDelay::piecewise_factor(kDefaultLatency, 257), 2.01467); // 257 <= 257: the one below
  EXPECT_DOUBLE_EQ(RouteDelay::piecewise_factor(kDefaultLatency, 258), 1.95341);
  EXPECT_DOUBLE_EQ(RouteDelay::piecewise_factor(kDefaultLatency, 1e6), 11.6436);
  EXPECT_DOUBLE_EQ(RouteDelay::piecewise_factor(kDefaultLatency, 0), 1.0); // no threshold below 0
}

TEST(RouteDelay, IgnoresFurtherValuesAndEmptyChunks)
{
  EXPECT_DOUBLE_EQ(RouteDelay::piecewise_factor("0:2:7;;100:3:8;", 64), 2.0);
  EXPECT_DOUBLE_EQ(RouteDelay::piecewise_factor("", 64), 1.0);
}

TEST(RouteDelay, RefusesWhatSimGridCouldNotRead)
{
  for (const char* bad : {"0:2;x:3", "0", "0:abc", "0:2x", "0:0", "0:-1", "-5:2", "0:inf"})
    EXPECT_THROW(RouteDelay::piecewise_factor(bad, 64), std::invalid_argument) << bad;
}

namespace {

constexpr double kBandwidth = 1e9;  // B/s, every link
constexpr double kLatency   = 1e-3; // s, every link but "far"
constexpr double kFar       = 3e-3; // s
constexpr double kBytes     = 1e7;  // 10 ms at the full bandwidth
constexpr double kStart     = 1.0;

/* Host a's route to itself is its loopback "lo"; b's crosses "fp", a FATPIPE link that b's route to c crosses too;
 * a reaches b over "lo" and "ab". */
const std::string kPlatform = progsim::testing::full_routing_platform(R"(
    <host id="a" speed="1Gf"/>
    <host id="b" speed="1Gf"/>
    <host id="c" speed="1Gf"/>
    <link id="lo" bandwidth="1GBps" latency="1ms" sharing_policy="FATPIPE">
      <prop id="progsim:loopback" value="yes"/>
    </link>
    <link id="fp" bandwidth="1GBps" latency="1ms" sharing_policy="FATPIPE"/>
    <link id="far" bandwidth="1000GBps" latency="3ms"/>
    <link id="ab" bandwidth="1GBps" latency="1ms"/>
    <route src="a" dst="a"><link_ctn id="lo"/></route>
    <route src="b" dst="b"><link_ctn id="fp"/></route>
    <route src="b" dst="c"><link_ctn id="fp"/><link_ctn id="far"/></route>
    <route src="a" dst="b"><link_ctn id="lo"/><link_ctn id="ab"/></route>
)");

const std::vector<std::string> kCm02 = {"--cfg=network/model:CM02", "--cfg=network/crosstraffic:0",
                                        "--cfg=network/TCP-gamma:1e15"};

using progsim::testing::expect_near;
using progsim::testing::Failures;

/** Runs `scenario` (it creates actors; a TransferWatch is there for them) on kPlatform under SimGrid's `options`
 * in a child process: 0 when it saw nothing wrong. */
int run(const std::vector<std::string>& options,
        const std::function<void(progsim::sched::TransferWatch&, Failures&)>& scenario)
{
  std::optional<progsim::sched::TransferWatch> watch; // made in the child, once its engine is
  return progsim::testing::simulate_in_child(kPlatform, options, [&](Failures& failures) {
    watch.emplace();
    scenario(*watch, failures);
  });
}

/** A transfer of `bytes` over a's loopback ends when RouteDelay said it would, under SimGrid's `options`. */
int loopback_transfer_ends_at_its_date(const std::vector<std::string>& options, double bytes)
{
  return run(options, [bytes](progsim::sched::TransferWatch& watch, Failures& failures) {
    sg4::Actor::create("sender", sg4::Host::by_name("a"), [&watch, &failures, bytes]() {
      RouteDelay delay;
      sg4::this_actor::sleep_until(kStart);
      auto* a      = sg4::Host::by_name("a");
      double date  = delay.loopback_arrival(a, a, kStart, static_cast<int64_t>(bytes));
      auto transfer = transfer_starts::sendto(a, a, static_cast<uint64_t>(bytes));
      watch.park_until_ended(transfer);
      expect_near(failures, "the loopback transfer's end", sg4::Engine::get_clock(), date);
    });
  });
}

} // namespace

TEST(RouteDelay, ALoopbackTransferEndsAtTheDateItsRouteGives)
{
  // CM02 without factors: L + S / B.
  EXPECT_EQ(run(kCm02,
                [](progsim::sched::TransferWatch&, Failures& failures) {
                  sg4::Actor::create("asker", sg4::Host::by_name("a"), [&failures]() {
                    auto* a = sg4::Host::by_name("a");
                    expect_near(failures, "CM02's date", RouteDelay().loopback_arrival(a, a, kStart, 1e7),
                                kStart + kLatency + kBytes / kBandwidth);
                  });
                }),
            0);
  EXPECT_EQ(loopback_transfer_ends_at_its_date(kCm02, kBytes), 0);
  // The factors of LV08 and cross-traffic, TCP-gamma's bound, SMPI's factors for the size.
  EXPECT_EQ(loopback_transfer_ends_at_its_date({"--cfg=network/model:LV08", "--cfg=network/crosstraffic:1"}, kBytes), 0);
  EXPECT_EQ(loopback_transfer_ends_at_its_date({"--cfg=network/model:CM02", "--cfg=network/TCP-gamma:1000"}, 1e5), 0);
  for (double bytes : {64.0, 5e3, kBytes})
    EXPECT_EQ(loopback_transfer_ends_at_its_date({"--cfg=network/model:SMPI", "--cfg=network/crosstraffic:1",
                                                  "--cfg=smpi/lat-factor:0:3.5;32:2.5;1000:1.5",
                                                  "--cfg=smpi/bw-factor:0:0.5;100:0.8;10000:0.9"},
                                                 bytes),
              0)
        << bytes << " B";
}

TEST(RouteDelay, OnlyRoutesOfLoopbacksHaveADate)
{
  EXPECT_EQ(run(kCm02,
                [](progsim::sched::TransferWatch&, Failures& failures) {
                  sg4::Actor::create("asker", sg4::Host::by_name("a"), [&failures]() {
                    RouteDelay delay;
                    auto* a = sg4::Host::by_name("a");
                    auto* b = sg4::Host::by_name("b");
                    if (delay.loopback_arrival(b, b, kStart, 1) != -1)
                      failures.emplace_back("a FATPIPE link the platform does not mark is no loopback");
                    if (delay.loopback_arrival(a, b, kStart, 1) != -1)
                      failures.emplace_back("a route with a loopback and another link has no date");
                    if (delay.arrival(a, b, kStart, 1) < 0)
                      failures.emplace_back("a control message has a date on any followed route");
                  });
                }),
            0);
}

TEST(RouteDelay, ARecentRouteGivesTheTablesDates)
{
  // One sender's Recent holds two routes: going round three destinations (and back to a recent one) exercises a
  // hit on either entry and a miss; every date must be the one the table gives.
  EXPECT_EQ(run(kCm02,
                [](progsim::sched::TransferWatch&, Failures& failures) {
                  sg4::Actor::create("asker", sg4::Host::by_name("a"), [&failures]() {
                    RouteDelay delay;
                    RouteDelay::Recent recent;
                    const char* order[] = {"b", "c", "b", "a", "c", "c", "a", "b", "a"};
                    auto* a            = sg4::Host::by_name("a");
                    for (const char* name : order) {
                      auto* to = sg4::Host::by_name(name);
                      if (delay.arrival(a, to, kStart, 1000, recent) != delay.arrival(a, to, kStart, 1000))
                        failures.emplace_back(std::string("a recent route to ") + name + " gives another date");
                      if (delay.loopback_arrival(to, to, kStart, 1000, recent) !=
                          delay.loopback_arrival(to, to, kStart, 1000))
                        failures.emplace_back(std::string("a recent loopback of ") + name + " gives another date");
                    }
                  });
                }),
            0);
}

/* Why a loopback must be a link of its own: SimGrid gives a flow on a FATPIPE link its bandwidth times the
 * smallest sharing penalty there over its own (maxmin.cpp), and a flow's penalty is its route's latency
 * (network_cm02.cpp). b -> b (1 ms) and b -> c (4 ms) both start at 1 s: the first flows from 1.001 s to 1.011 s;
 * the second, from 1.004 s, gets B x 1/4 until 1.011 s (1.75 MB), then B: it ends at 1.01925 s, not 1.014 s. */
TEST(RouteDelay, AFatPipeSlowsTheFlowsOfLongerRoutes)
{
  EXPECT_EQ(run(kCm02,
                [](progsim::sched::TransferWatch& watch, Failures& failures) {
                  for (const char* destination : {"b", "c"})
                    sg4::Actor::create(std::string("to-") + destination, sg4::Host::by_name("b"),
                                       [&watch, &failures, destination]() {
                                         sg4::this_actor::sleep_until(kStart);
                                         auto transfer = transfer_starts::sendto(
                                             sg4::Host::by_name("b"), sg4::Host::by_name(destination), kBytes);
                                         watch.park_until_ended(transfer);
                                         double near_end = kStart + kLatency + kBytes / kBandwidth;
                                         double shared   = (near_end - (kStart + kLatency + kFar)) * kBandwidth / 4;
                                         double far_end  = near_end + (kBytes - shared) / kBandwidth;
                                         expect_near(failures, std::string("the end of b -> ") + destination,
                                                     sg4::Engine::get_clock(),
                                                     destination[0] == 'b' ? near_end : far_end);
                                       });
                }),
            0);
}
