/*
 * Real simulations, run in the engine's own process: a two-host platform written inline, one message, and the
 * times that follow from the platform and the default parameters. SimGrid's engine is global, so each simulation
 * runs in a child process of its own (as WRENCH's tests do).
 */
#include "config/Parameters.hpp"
#include "Placement.hpp"
#include "collectives/SmpiDefault.hpp"
#include "sched/TimedPause.hpp"
#include "mpi/World.hpp"
#include "protocol/Protocols.hpp"
#include "trace/TraceSource.hpp"
#include "ChildEngine.hpp"
#include "TempDir.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;
namespace fs  = std::filesystem;

namespace {

constexpr double kLatency   = 1e-6; // s
constexpr double kBandwidth = 1e9;  // B/s

/** Two one-core hosts joined by one link, and a trace of one 1000-byte message from rank 0 to rank 1. */
void write_inputs(const progsim::testing::TempDir& dir)
{
  dir.write("platform.xml", progsim::testing::full_routing_platform(R"(
    <host id="a" speed="1Gf"/>
    <host id="b" speed="1Gf"/>
    <link id="wire" bandwidth="1GBps" latency="1us"/>
    <route src="a" dst="b"><link_ctn id="wire"/></route>
)"));
  dir.write("hostfile", "a\nb\n");
  const std::string rank0 = dir.write("rank-0.txt", "0 init\n0 send 1 0 1000\n0 finalize\n");
  const std::string rank1 = dir.write("rank-1.txt", "1 init\n1 recv 0 0 1000\n1 finalize\n");
  dir.write("list.txt", rank0 + "\n" + rank1 + "\n");
}

/** A SimGrid engine on the inline platform of `dir`, with the analytical network model and `extra` settings. */
std::unique_ptr<sg4::Engine> make_engine(const fs::path& dir, const std::string& extra = "")
{
  std::vector<std::string> options = {"--cfg=network/model:CM02", "--cfg=network/crosstraffic:0",
                                      "--log=root.thres:critical"};
  if (not extra.empty())
    options.push_back(extra);
  auto engine = progsim::testing::child_engine(options);
  engine->load_platform((dir / "platform.xml").string());
  return engine;
}

/** Runs `simulation` on the inputs of write_inputs() in a child process (SimGrid's engine is global); returns the
 * child's exit status: 0 when the simulation returned true. */
int in_child_process(const std::function<bool(const fs::path&)>& simulation)
{
  const progsim::testing::TempDir dir; // the parent's: removed once the child is done
  write_inputs(dir);
  return progsim::testing::in_child([&]() { return simulation(dir.path()) ? 0 : 1; });
}

/** Runs the message under `progress` in a child process; the child exits 0 when both end times match. */
int simulate(const std::string& progress, double expected_sender, double expected_receiver)
{
  return in_child_process([&](const fs::path& dir) {
    progsim::declare_parameters();
    auto engine = make_engine(dir, "--cfg=progsim/progress:" + progress);
    auto parameters = progsim::Parameters::from_flags();
    progsim::trace::TraceSource traces((dir / "list.txt").string());
    auto placement  = progsim::read_placement((dir / "hostfile").string(), 2);
    progsim::mpi::World world(parameters, std::move(traces), std::move(placement),
                              progsim::models::progress::make_progress_model(parameters),
                              progsim::models::protocol::make_protocols(),
                              progsim::models::collectives::smpi_default::make_collectives(),
                              progsim::models::contention::make_bus_policy(parameters.memory));
    world.start();
    engine->run();
    auto close = [](double a, double b) { return std::fabs(a - b) <= 1e-6 * b + 1e-12; };
    return world.all_finished() && close(world.record(0).end_time, expected_sender) &&
           close(world.record(1).end_time, expected_receiver);
  });
}

} // namespace

TEST(Simulation, AnEagerMessageUnderNoneCostsOverheadsCopiesAndOneTransfer)
{
  // Defaults: 0.5 us to post, 0.2 us a step, 16 B of envelope, copies at 10 GB/s. The sender posts and copies; the
  // receiver, waiting since it posted, matches the message when it arrives and copies it out.
  const double o = 5e-7, step = 2e-7, copy = 1000 / 1e10;
  const double sent = o + copy;
  const double arrival = sent + kLatency + (1000 + 16) / kBandwidth;
  EXPECT_EQ(simulate("none", sent, arrival + step + copy), 0);
}

TEST(Simulation, IdealReproducesSmpisSingleTransfer)
{
  // SMPI's assumption: no overheads, the sender detached below 64 KiB, the receiver done when the transfer ends.
  EXPECT_EQ(simulate("ideal", 0.0, kLatency + (1000 + 16) / kBandwidth), 0);
}

namespace {
/** Sends `bytes` from host a to host b as a direct host-to-host transfer bounded at `rate` B/s, in a child process;
 * returns the child's exit status: 0 when it took `expected` seconds. */
int paced_transfer(double bytes, double rate, double expected)
{
  return in_child_process([&](const fs::path& dir) {
    auto engine = make_engine(dir);
    double took = -1;
    sg4::Actor::create("sender", sg4::Host::by_name("a"), [&took, bytes, rate]() {
      sg4::CommPtr flow = sg4::Comm::sendto_init();
      flow->set_payload_size(static_cast<uint64_t>(bytes));
      flow->set_rate(rate);
      flow->set_source(sg4::Host::by_name("a"));
      flow->set_destination(sg4::Host::by_name("b"));
      flow->wait();
      took = sg4::Engine::get_clock();
    });
    engine->run();
    return std::fabs(took - expected) <= 1e-9 * expected;
  });
}
} // namespace

TEST(Simulation, TheSimgridBuildKeepsTheRateOfHostToHostTransfers)
{
  // Memory flows rely on it (MemorySystem::paced_flow): scripts/build_simgrid.sh patches SimGrid so that a direct
  // transfer keeps its rate; stock SimGrid bounds mailbox transfers only. 1 MB at 100 MB/s over a 1 GB/s, 1 us link.
  const double bytes = 1e6, rate = 1e8;
  EXPECT_EQ(paced_transfer(bytes, rate, kLatency + bytes / rate), 0);
}

namespace {
/** On host a, one actor computes 1 Gflop (1 s) while another waits `wait` seconds, by TimedPause (`timed`) or by
 * SimGrid's sleep; in a child process whose exit status is 0 when the waiter woke at `expected` and the computation
 * ended at 1 s. */
int wait_beside_a_computation(bool timed, double wait, double expected)
{
  return in_child_process([&](const fs::path& dir) {
    auto engine = make_engine(dir, "--cfg=surf/precision:1e-9"); // as progsim-engine sets it (and smpirun)
    progsim::sched::TimedPause pause;
    double computed = -1, woke = -1;
    sg4::Actor::create("computer", sg4::Host::by_name("a"), [&computed]() {
      sg4::this_actor::execute(1e9);
      computed = sg4::Engine::get_clock();
    });
    sg4::Actor::create("waiter", sg4::Host::by_name("a"), [&pause, &woke, timed, wait]() {
      if (timed) { // in two parts: the second starts where the first ended
        pause.pass(wait / 2);
        pause.until(sg4::Engine::get_clock() + wait / 2);
      } else {
        sg4::this_actor::sleep_for(wait);
      }
      woke = sg4::Engine::get_clock();
    });
    engine->run();
    return woke == expected && computed == 1.0;
  });
}
} // namespace

TEST(Simulation, ATimedPauseEndsAtItsDateWhereSimgridsSleepEndsWithAnEventLessThanItsPrecisionBefore)
{
  // 1 s + 0.5 ns: a sleep ends with the computation's end at 1 s, 0.5 ns early (SimGrid 3.32 ends every CPU action
  // within surf/precision of the next event); the pause, a kernel timer, at its date. Neither slows the computation.
  const double wait = 1.0 + 5e-10;
  EXPECT_EQ(wait_beside_a_computation(false, wait, 1.0), 0);
  EXPECT_EQ(wait_beside_a_computation(true, wait, (0.0 + wait / 2) + wait / 2), 0);
}

TEST(Simulation, TimedPausesEndingTogetherResumeTheirActorsInTheOrderTheyBegan)
{
  // Eight actors start together and pause until the same date; a symmetric start (every rank's first overhead)
  // depends on a stated order. With a kernel timer each, SimGrid's timer heap (not first-in first-out among equal
  // dates) resumed them out of order.
  const int status = in_child_process([](const fs::path& dir) {
    auto engine = make_engine(dir);
    progsim::sched::TimedPause pause;
    std::vector<int> resumed;
    for (int i = 0; i < 8; i++)
      sg4::Actor::create("a" + std::to_string(i), sg4::Host::by_name(i % 2 == 0 ? "a" : "b"), [&pause, &resumed, i]() {
        pause.until(1e-6);
        resumed.push_back(i);
      });
    engine->run();
    return resumed == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7} && sg4::Engine::get_clock() == 1e-6;
  });
  EXPECT_EQ(status, 0); // the child exits 0 when they resumed in order
}
