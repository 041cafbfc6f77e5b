/*
 * Deferred transfer starts (sched/TransferStarts.hpp) and parked waits for a transfer's end (TransferWatch): a transfer
 * asked for by an actor is not started while the actor runs on, starts at the date it was asked for (or a later one
 * given), and ends when SimGrid's network model says: on one link of bandwidth B and latency L, under CM02 (no
 * factors), a TCP window too large to bound anything and no cross traffic, S bytes alone take L + S / B, at most at
 * rate r take L + S / r, and two flows sharing the link get B / 2 each. SimGrid's engine is global, so each
 * simulation runs in a child process of its own.
 */
#include "sched/TransferStarts.hpp"
#include "sched/TransferWatch.hpp"
#include "ChildEngine.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sg4             = simgrid::s4u;
namespace transfer_starts = progsim::sched::transfer_starts;

namespace {

constexpr double kBandwidth = 1e9;  // B/s
constexpr double kLatency   = 1e-3; // s
constexpr double kAsked     = 1.0;  // the date the transfers are asked for
constexpr double kBytes     = 1e6;

const std::string kPlatform = progsim::testing::full_routing_platform(R"(
    <host id="a" speed="1Gf"/>
    <host id="b" speed="1Gf"/>
    <link id="ab" bandwidth="1GBps" latency="1ms"/>
    <route src="a" dst="b"><link_ctn id="ab"/></route>
)");

using progsim::testing::expect;
using progsim::testing::expect_near;
using progsim::testing::Failures;

/** Runs `scenario` (which creates actors on hosts a and b) in a child process; 0 when it saw nothing wrong. */
int run(const std::function<void(progsim::sched::TransferWatch&, Failures&)>& scenario)
{
  std::optional<progsim::sched::TransferWatch> watch; // made in the child, once its engine is
  return progsim::testing::simulate_in_child(
      kPlatform, {"--cfg=network/model:CM02", "--cfg=network/TCP-gamma:1e15", "--cfg=network/crosstraffic:0"},
      [&](Failures& failures) {
        watch.emplace();
        scenario(*watch, failures);
      });
}

} // namespace

TEST(TransferStarts, StartsAtTheDateAskedOnceTheActorYieldsAndEndsAsTheNetworkModelSays)
{
  EXPECT_EQ(run([](progsim::sched::TransferWatch& watch, Failures& failures) {
              sg4::Actor::create("asker", sg4::Host::by_name("a"), [&watch, &failures]() {
                sg4::this_actor::sleep_until(kAsked);
                auto transfer =
                    transfer_starts::sendto(sg4::Host::by_name("a"), sg4::Host::by_name("b"), kBytes);
                expect(failures, "the asking actor goes on with the transfer not started yet",
                            transfer->get_state() == sg4::Activity::State::STARTING);
                expect_near(failures, "the asking actor's clock", sg4::Engine::get_clock(), kAsked);
                watch.park_until_ended(transfer);
                expect_near(failures, "the transfer's start", transfer->get_start_time(), kAsked);
                expect_near(failures, "the end of its wait", sg4::Engine::get_clock(), kAsked + kLatency + kBytes / kBandwidth);
              });
            }),
            0);
}

TEST(TransferStarts, KeepsTheRateBound)
{
  constexpr double rate = kBandwidth / 4;
  EXPECT_EQ(run([](progsim::sched::TransferWatch& watch, Failures& failures) {
              sg4::Actor::create("asker", sg4::Host::by_name("a"), [&watch, &failures]() {
                sg4::this_actor::sleep_until(kAsked);
                auto transfer = transfer_starts::sendto(sg4::Host::by_name("a"), sg4::Host::by_name("b"),
                                                        kBytes, rate);
                watch.park_until_ended(transfer);
                expect_near(failures, "the end of a paced transfer", sg4::Engine::get_clock(), kAsked + kLatency + kBytes / rate);
              });
            }),
            0);
}

TEST(TransferStarts, TransfersAskedTogetherShareTheLink)
{
  EXPECT_EQ(run([](progsim::sched::TransferWatch& watch, Failures& failures) {
              for (int i = 0; i < 2; i++)
                sg4::Actor::create("asker-" + std::to_string(i), sg4::Host::by_name("a"), [&watch, &failures]() {
                  sg4::this_actor::sleep_until(kAsked);
                  auto transfer = transfer_starts::sendto(sg4::Host::by_name("a"),
                                                          sg4::Host::by_name("b"), kBytes);
                  watch.park_until_ended(transfer);
                  expect_near(failures, "the end of each of two flows on one link", sg4::Engine::get_clock(),
                                   kAsked + kLatency + 2 * kBytes / kBandwidth);
                });
            }),
            0);
}

TEST(TransferStarts, FromTheKernelATransferStartsAtOnce)
{
  EXPECT_EQ(run([](progsim::sched::TransferWatch&, Failures& failures) {
              simgrid::kernel::timer::Timer::set(kAsked, [&failures]() {
                auto transfer =
                    transfer_starts::sendto(sg4::Host::by_name("a"), sg4::Host::by_name("b"), kBytes);
                expect(failures, "a transfer asked for in the maestro is started",
                            transfer->get_state() == sg4::Activity::State::STARTED);
              });
            }),
            0);
}

TEST(TransferStarts, AWaitForAnEndedTransferReturnsAtOnce)
{
  EXPECT_EQ(run([](progsim::sched::TransferWatch& watch, Failures& failures) {
              sg4::Actor::create("asker", sg4::Host::by_name("a"), [&watch, &failures]() {
                auto transfer =
                    transfer_starts::sendto(sg4::Host::by_name("a"), sg4::Host::by_name("b"), kBytes);
                sg4::this_actor::sleep_until(kAsked);
                watch.park_until_ended(transfer);
                expect_near(failures, "a wait that begins after the end", sg4::Engine::get_clock(), kAsked);
              });
            }),
            0);
}

TEST(TransferStarts, AStartAtALaterDateWaitsForIt)
{
  constexpr double later = kAsked + 0.5;
  EXPECT_EQ(run([](progsim::sched::TransferWatch& watch, Failures& failures) {
              sg4::Actor::create("asker", sg4::Host::by_name("a"), [&watch, &failures]() {
                sg4::this_actor::sleep_until(kAsked);
                auto transfer = transfer_starts::sendto(sg4::Host::by_name("a"), sg4::Host::by_name("b"),
                                                        kBytes, 0, later);
                watch.park_until_ended(transfer);
                expect_near(failures, "the transfer's start", transfer->get_start_time(), later);
                expect_near(failures, "the end of its wait", sg4::Engine::get_clock(), later + kLatency + kBytes / kBandwidth);
              });
            }),
            0);
}
