/*
 * How SimGrid's max-min solver shares a FATPIPE link, on the SimGrid the engine runs on (scripts/build_simgrid.sh,
 * change 9: a FATPIPE link's usage kept by a count of the unset flows at its largest weight/penalty instead of a scan
 * of every flow each time one is set). Every route out of a compiled platform's NUMA domain crosses such a link.
 *
 * The expected ends follow from maxmin.cpp's rule: a FATPIPE link of bandwidth B gives each of its flows, when it
 * saturates, B x p_min / p, where p is the flow's sharing penalty (its route's latency under CM02 without factors)
 * and p_min the smallest penalty among the flows still unset in that solve; it subtracts nothing. Flows that another
 * link fixes first leave the link's usage: when the last flow at the smallest penalty leaves, the others speed up.
 */
#include "ChildEngine.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

constexpr double kBandwidth = 1e9;  // the FATPIPE link fp, B/s
constexpr double kSlow      = 1e8;  // link s, shared: it fixes g's flow before fp saturates
constexpr double kStart     = 1.0;

/* From a, every route crosses fp (1 ms). g: fp and s (0 ms): penalty 1 ms, fixed by s at 0.1 GB/s; g2: fp alone,
 * 1 ms too (a tie with g at fp's largest 1/p); h1, h2: fp and h (1 ms): 2 ms; h3: fp and w (3 ms): 4 ms. */
const std::string kPlatform = progsim::testing::full_routing_platform(R"(
    <host id="a" speed="1Gf"/>
    <host id="g" speed="1Gf"/>
    <host id="g2" speed="1Gf"/>
    <host id="h1" speed="1Gf"/>
    <host id="h2" speed="1Gf"/>
    <host id="h3" speed="1Gf"/>
    <link id="fp" bandwidth="1GBps" latency="1ms" sharing_policy="FATPIPE"/>
    <link id="s" bandwidth="100MBps" latency="0ms"/>
    <link id="h" bandwidth="1000GBps" latency="1ms"/>
    <link id="w" bandwidth="1000GBps" latency="3ms"/>
    <route src="a" dst="g"><link_ctn id="fp"/><link_ctn id="s"/></route>
    <route src="a" dst="g2"><link_ctn id="fp"/></route>
    <route src="a" dst="h1"><link_ctn id="fp"/><link_ctn id="h"/></route>
    <route src="a" dst="h2"><link_ctn id="fp"/><link_ctn id="h"/></route>
    <route src="a" dst="h3"><link_ctn id="fp"/><link_ctn id="w"/></route>
)");

const std::vector<std::string> kCm02 = {"--cfg=network/model:CM02", "--cfg=network/crosstraffic:0",
                                        "--cfg=network/TCP-gamma:1e15"};

struct Flow {
  const char* destination;
  double bytes;
  double expected_end;
};

/* Every flow starts at 1 s and flows once its route's latency is over: g and g2 from 1.001 s, h1 and h2 from
 * 1.002 s, h3 from 1.004 s.
 * - g: s fixes it first at 0.1 GB/s in every solve: 1.5 MB in 15 ms, it ends at 1.016 s.
 * - g2: g, fixed by s, leaves fp's largest 1/p to g2 (a tie): p_min stays 1 ms and g2 gets B: 10 MB by 1.011 s.
 * - h1, h2 from 1.002 s: B x 1/2 until g2 ends (4.5 MB); from 1.011 s g, unset at fp's largest 1/p alone, leaves it
 *   when s fixes it, so p_min = 2 ms: B for the 5.5 MB left, 1.0165 s.
 * - h3 from 1.004 s: B/4 until 1.011 s (1.75 MB), B/2 until 1.0165 s (2.75 MB), then B alone: 5.5 MB, 1.022 s.
 * A usage left at g's 1/p once s fixed g (no rescan) would give h1 and h2 B/2 after 1.011 s; one lowered when g left
 * while g2 was there (a tie taken for the last flow at the largest) would give them B from 1.002 s. */
const std::vector<Flow> kFlows = {{"g", 1.5e6, kStart + 0.016},
                                  {"g2", 1e7, kStart + 0.011},
                                  {"h1", 1e7, kStart + 0.0165},
                                  {"h2", 1e7, kStart + 0.0165},
                                  {"h3", 1e7, kStart + 0.022}};

} // namespace

TEST(FatPipeSharing, FlowsOfLargerPenaltiesSpeedUpWhenTheLastFlowAtTheSmallestLeaves)
{
  EXPECT_EQ(progsim::testing::simulate_in_child(kPlatform, kCm02, [](progsim::testing::Failures& failures) {
              for (auto const& flow : kFlows)
                sg4::Actor::create(std::string("to-") + flow.destination, sg4::Host::by_name("a"),
                                   [&failures, flow]() {
                                     sg4::this_actor::sleep_until(kStart);
                                     sg4::Comm::sendto_async(sg4::Host::by_name("a"),
                                                             sg4::Host::by_name(flow.destination),
                                                             static_cast<uint64_t>(flow.bytes))
                                         ->wait();
                                     progsim::testing::expect_near(failures,
                                                                   std::string("the end of a -> ") + flow.destination,
                                                                   sg4::Engine::get_clock(), flow.expected_end);
                                   });
            }),
            0);
  static_assert(kSlow * 0.015 == 1.5e6 && kBandwidth * 0.01 == 1e7, "the flows' sizes above follow these rates");
}
