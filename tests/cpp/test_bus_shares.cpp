/*
 * BusShares against SimGrid's own flows: the same flows (bytes, a rate bound or none, a start date) run on two
 * identical links in one simulation, as SimGrid transfers on one and through BusShares on the other; every flow must
 * end at the same date on both. SimGrid's engine is global, so each simulation runs in a child process of its own.
 */
#include "resources/BusShares.hpp"
#include "resources/RouteDelay.hpp"
#include "sched/TransferStarts.hpp"
#include "sched/TransferWatch.hpp"
#include "ChildEngine.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

const std::string kPlatform = progsim::testing::full_routing_platform(R"(
    <host id="core1" speed="1Gf"/><host id="mem1" speed="1f"/>
    <host id="core2" speed="1Gf"/><host id="mem2" speed="1f"/>
    <link id="bus1" bandwidth="20GBps" latency="100ns"/>
    <link id="bus2" bandwidth="20GBps" latency="100ns"/>
    <route src="core1" dst="mem1"><link_ctn id="bus1"/></route>
    <route src="core2" dst="mem2"><link_ctn id="bus2"/></route>
)");

struct FlowSpec {
  double start;
  double bytes;
  double rate = 0;
};

using progsim::testing::expect_near;
using progsim::testing::Failures;

int same_ends(const std::vector<FlowSpec>& flows, const std::vector<std::string>& options)
{
  std::optional<progsim::sched::TransferWatch> watch;
  std::unique_ptr<progsim::resources::BusShares> shares;
  auto simgrid_end = std::make_shared<std::vector<double>>(flows.size(), -1);
  auto closed_end  = std::make_shared<std::vector<double>>(flows.size(), -1);
  return progsim::testing::simulate_in_child(
      kPlatform, options,
      [&](Failures&) {
        watch.emplace();
        const progsim::resources::RouteDelay network;
        shares = std::make_unique<progsim::resources::BusShares>(
            progsim::resources::BusShares::Model::of(*sg4::Link::by_name("bus2"), network));
        auto* e = sg4::Engine::get_instance();
        for (size_t i = 0; i < flows.size(); i++) {
          FlowSpec f = flows[i];
          sg4::Actor::create("flow" + std::to_string(i), e->host_by_name("core1"),
                             [&watch, &shares, e, f, i, simgrid_end, closed_end]() {
            auto comm = progsim::sched::transfer_starts::sendto(e->host_by_name("core1"), e->host_by_name("mem1"),
                                                              static_cast<uint64_t>(f.bytes), f.rate, f.start);
            shares->start(f.bytes, f.rate, f.start)->on_end.emplace_back([i, closed_end]() {
              (*closed_end)[i] = sg4::Engine::get_clock();
            });
            watch->park_until_ended(comm);
            (*simgrid_end)[i] = sg4::Engine::get_clock();
          });
        }
      },
      [&](Failures& failures) {
        for (size_t i = 0; i < flows.size(); i++)
          expect_near(failures, "flow " + std::to_string(i), (*closed_end)[i], (*simgrid_end)[i],
                      1e-9);
      });
}

const std::vector<std::string> kSmpi = {"--cfg=network/model:SMPI", "--cfg=surf/precision:1e-9"};
const std::vector<std::string> kCm02 = {"--cfg=network/model:CM02", "--cfg=surf/precision:1e-9"};
const std::vector<std::string> kLv08 = {"--cfg=network/model:LV08", "--cfg=surf/precision:1e-9"};
const std::vector<std::string> kNoCrossTraffic = {"--cfg=network/model:SMPI", "--cfg=network/crosstraffic:0",
                                                  "--cfg=surf/precision:1e-9"};

} // namespace

TEST(BusShares, OneFlowTakesItsLatencyThenItsBytes)
{
  // Sizes on both sides of SMPI's factor steps (257, 1 426, 65 472 B); a start later than the request.
  for (double bytes : {64.0, 257.0, 258.0, 1000.0, 65472.0, 65473.0, 2097152.0})
    EXPECT_EQ(same_ends({{1e-6, bytes}}, kSmpi), 0) << bytes;
  EXPECT_EQ(same_ends({{0, 2097152, 1e9}}, kCm02), 0);
}

TEST(BusShares, SixteenPacedCopiesAndTwoDmaFlowsShareTheBus)
{
  std::vector<FlowSpec> flows;
  for (int i = 0; i < 16; i++)
    flows.push_back({i * 3e-6, 2097152, 2e10});
  flows.push_back({5e-6, 1048576});
  flows.push_back({2e-5, 1048576});
  EXPECT_EQ(same_ends(flows, kSmpi), 0);
  EXPECT_EQ(same_ends(flows, kCm02), 0);
  EXPECT_EQ(same_ends(flows, kLv08), 0);
  EXPECT_EQ(same_ends(flows, kNoCrossTraffic), 0);
}

TEST(BusShares, FortyFlowsOfRandomSizesRatesAndStarts)
{
  std::mt19937 random(7);
  std::uniform_real_distribution<double> start(0, 1e-3), log_bytes(10, 22), log_rate(9, 10.5), coin(0, 1);
  std::vector<FlowSpec> flows;
  for (int i = 0; i < 40; i++)
    flows.push_back({start(random), std::floor(std::pow(2, log_bytes(random))),
                     coin(random) < 0.5 ? 0 : std::pow(10, log_rate(random))});
  EXPECT_EQ(same_ends(flows, kSmpi), 0);
  EXPECT_EQ(same_ends(flows, kCm02), 0);
  EXPECT_EQ(same_ends(flows, kLv08), 0);
  EXPECT_EQ(same_ends(flows, kNoCrossTraffic), 0);
}

TEST(BusShares, ABurstOfShortFlowsWhoseLatenciesOverlap)
{
  // 48-byte flows 10 ns apart behind a 100 ns latency: each starts to move while others still wait their latency,
  // and ends 2.4 ns later; the latencies' ends change the shares between ends.
  std::vector<FlowSpec> flows;
  for (int i = 0; i < 32; i++)
    flows.push_back({i * 1e-8, 48});
  flows.push_back({5e-8, 1048576});
  EXPECT_EQ(same_ends(flows, kSmpi), 0);
  EXPECT_EQ(same_ends(flows, kCm02), 0);
}

namespace {
/** Whether SimGrid's clock moves `expected` times while `flows` run through BusShares alone (0: yes). */
int clock_moves(const std::vector<FlowSpec>& flows, int expected)
{
  std::unique_ptr<progsim::resources::BusShares> shares;
  auto moves = std::make_shared<int>(0);
  return progsim::testing::simulate_in_child(
      kPlatform, kSmpi,
      [&](Failures&) {
        const progsim::resources::RouteDelay network;
        shares = std::make_unique<progsim::resources::BusShares>(
            progsim::resources::BusShares::Model::of(*sg4::Link::by_name("bus2"), network));
        sg4::Engine::on_time_advance_cb([moves](double) { ++*moves; });
        sg4::Actor::create("starter", sg4::Engine::get_instance()->host_by_name("core1"), [&shares, flows]() {
          for (auto const& f : flows)
            shares->start(f.bytes, f.rate, f.start);
        });
      },
      [&](Failures& failures) { expect_near(failures, "clock moves", *moves, expected, 0); });
}
} // namespace

TEST(BusShares, OnlyTheFlowsEndsMoveTheClock)
{
  // 16 flows of 1 KiB, 30 ns apart behind a 100 ns latency: 16 latencies' ends and 16 ends, at 32 dates. The
  // latencies' ends tell nobody, so the kernel stops at the 16 ends alone.
  std::vector<FlowSpec> flows;
  for (int i = 0; i < 16; i++)
    flows.push_back({i * 3e-8, 1024});
  EXPECT_EQ(clock_moves(flows, 16), 0);
}
