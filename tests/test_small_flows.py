"""A small message's flows without transfers: `progsim/small-flow-bytes`.

By default (auto: twice the control messages' size, 128 B, under every mechanism but `ideal`: a message of 64 B has
its copies' read and write traffic dated too) a message's flow of at most that many bytes (its transfer, the NIC's DMA of its data at either end, its copies' traffic on the memory bus) takes
the time SimGrid's network model would give it on an idle route (simulator/resources/RouteDelay.hpp) and loads nothing,
as control messages do. The reference is SimGrid itself: on idle routes the same runs with `small-flow-bytes: 0`
(every flow a transfer that the bandwidth solver shares) must give the same times, under every mechanism and every
network model the shortcut follows; where a bus is busy, the shortcut leaves out the small flow's share of it, which
the last tests state analytically.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analytic_platform import NETWORKS, ping_pong, replay
from conftest import write_platform

BUS, BUS_LATENCY, PORT, PORT_LATENCY, NIC, NIC_LATENCY = 1e10, 1e-7, 5e9, 4e-8, 1e10, 1e-6
COPY, OVERHEAD = 1e9, 1e-6
ROUND_TRIPS = 20



def platform(directory: Path, cores: int = 2, ranks_per_node: int = 2) -> Path:
    """Two nodes of two NUMA domains, the NIC in domain 0: a rank of domain 1 crosses the ports to reach it, and the
    NIC crosses them to reach that rank's data, as on the shipped Cray XE6."""
    return write_platform(directory, f"""\
        name: small
        nodes: 2
        node: {{sockets: 2, numa_per_socket: 1, cores_per_numa: {cores}, core_speed: 1.0e+9, copy_bandwidth: {COPY},
               memory: {{bandwidth: {BUS}, latency: {BUS_LATENCY}}},
               inter_socket: {{bandwidth: {PORT}, latency: {PORT_LATENCY}}}}}
        nics: [{{numa: 0, bandwidth: {NIC}, latency: {NIC_LATENCY}, offload: [matching, rendezvous]}}]
        interconnect: {{topology: flat, link: {{bandwidth: 1.0e+12, latency: 0}}}}
        mpi: {{eager_threshold: 65536, rendezvous: get,
              overheads: {{send: {OVERHEAD}, recv: {OVERHEAD}, step: {OVERHEAD}, call: 0}}}}
        progress: {{thread: {{poll_interval: 9.0e-6, poll_cost: 1.0e-6}},
                   dedicated_core: {{per: node, step_cost: {OVERHEAD}}}, offload: {{step_latency: {OVERHEAD}}}}}
        placement: {{policy: numa, ranks_per_node: {ranks_per_node}}}
        """)


# NUMA placement: ranks 0 and 2 in domain 0 of nodes 0 and 1, ranks 1 and 3 in their domain 1.
PAIRS = {"between nodes, data next to the NIC": (0, 2), "between nodes, data across the ports": (1, 3),
         "between the domains of a node": (0, 1)}


def pairs_ping_pong(pair: tuple[int, int], size: int, round_trips: int = ROUND_TRIPS) -> list[str]:
    return ping_pong(4, pair[0], pair[1], size, round_trips, lambda r: f"{r} compute 1e3")


# A flow ends within surf/precision (1 ns) of an event where SimGrid ends it, at its date exactly as a date; the runs
# agree within 1e-19 s but under `thread`, whose copies on shared cores take their idle flow's time after their CPU
# work (World::copy_on_shared_cores): 3.5 ns in 20 round trips. Between the domains of a node 8 B take 1.6 ns on
# the ports and each round trip crosses them eight times, so a wrong rate, factor or weight cannot hide.
PRECISION = ROUND_TRIPS * 1e-9


def same_times(a: dict, b: dict, precision: float = PRECISION) -> None:
    assert a["simulated_time"] == pytest.approx(b["simulated_time"], rel=0, abs=precision)
    for x, y in zip(a["ranks"], b["ranks"]):
        assert x["end_time"] == pytest.approx(y["end_time"], rel=0, abs=precision), x["rank"]


def both_ways(tmp_path: Path, ranks: list[str], progress: str, settings: tuple[str, ...] = (),
              cores: int = 2) -> dict[str, dict]:
    runs = {}
    for small in ("auto", "0"):
        folder = tmp_path / f"small-{small}"
        folder.mkdir()
        runs[small] = replay(folder, ranks, progress, platform_file=platform(folder, cores),
                             settings=(*settings, f"progsim/small-flow-bytes:{small}"))
    return runs


# 8 B: every flow small (24 B on the wire with the envelope, 16 B of copy traffic); 100 B: the wire's 116 B small, the
# copies' 200 B shared; 200 B: nothing small.
@pytest.mark.parametrize("size", [8, 100, 200])
@pytest.mark.parametrize("pair", PAIRS.values(), ids=PAIRS.keys())
@pytest.mark.parametrize("progress", ["none", "thread", "dedicated-core", "offload"])
def test_on_idle_routes_small_flows_take_what_their_transfers_take(tmp_path: Path, progress: str,
                                                                   pair: tuple[int, int], size: int) -> None:
    # Under `thread`, with its steps run from the kernel or by its actor, an agent woken by a dated arrival polls as
    # one rung by a transfer's end does, even where its blocked rank has had the step run meanwhile.
    for steps_in_kernel in (["yes", "no"] if progress == "thread" else ["yes"]):
        folder = tmp_path / f"kernel-{steps_in_kernel}"
        folder.mkdir()
        runs = both_ways(folder, pairs_ping_pong(pair, size), progress,
                         settings=(f"progsim/steps-in-kernel:{steps_in_kernel}",))
        same_times(runs["auto"], runs["0"])


@pytest.mark.parametrize("network", NETWORKS)
def test_every_network_model_the_dates_follow(tmp_path: Path, network: str) -> None:
    runs = both_ways(tmp_path, pairs_ping_pong(PAIRS["between nodes, data across the ports"], 8), "none",
                     settings=tuple(NETWORKS[network]))
    same_times(runs["auto"], runs["0"])


# Beside a stream on the bus: four ranks per node, NUMA placement (ranks 0 and 2 of node 0 in its domain 0, 4 and 6
# of node 1 in theirs). Ranks 0 and 4 ping-pong 8 B while ranks 2 and 6 stream 4 MB from their memory, which the bus
# moves alone at 10 GB/s in 400 us, longer than the ping-pong; the others idle.
STREAMED = 4_000_000


def stream_and_ping_pong(round_trips: int, streamed: int, size: int = 8) -> list[str]:
    return ping_pong(8, 0, 4, size, round_trips,
                     lambda r: f"{r} compute 1e3 {streamed}" if r in (2, 6) else f"{r} compute 1e3")


def beside_a_stream(tmp_path: Path, small: str, round_trips: int, streamed: int = STREAMED, size: int = 8) -> dict:
    folder = tmp_path / f"{small}-{round_trips}-{streamed}-{size}"
    folder.mkdir(exist_ok=True)
    return replay(folder, stream_and_ping_pong(round_trips, streamed, size), "none",
                  platform_file=platform(folder, ranks_per_node=4),
                  settings=("progsim/loaded-latency:no", f"progsim/small-flow-bytes:{small}"))


def test_small_flows_load_no_bus(tmp_path: Path) -> None:
    # As flows, each round trip puts on node 0's bus the send's copy (read and write: 16 B), the NIC's read of the
    # message (24 B with its envelope), the NIC's write of the answer (24 B) and the receive's copy (16 B): 80 B, which
    # the stream, saturating the bus, waits for. As dates they load nothing: the stream ends as it does alone.
    alone = beside_a_stream(tmp_path, "auto", 0)["ranks"][2]["end_time"]
    dated = beside_a_stream(tmp_path, "auto", ROUND_TRIPS)["ranks"][2]["end_time"]
    flows = beside_a_stream(tmp_path, "0", ROUND_TRIPS)["ranks"][2]["end_time"]
    assert alone == pytest.approx(STREAMED / BUS + BUS_LATENCY, rel=1e-9)  # its 1 us of CPU work meanwhile
    assert dated == pytest.approx(alone, rel=0, abs=1e-15)
    assert flows - alone == pytest.approx(80 * ROUND_TRIPS / BUS, rel=1e-2)


@pytest.mark.parametrize("size,loaded", [
    (64, 0),            # a control message's size: its wire (80 B), DMA and copies (128 B each) dates
    (72, 2 * 2 * 72),   # its wire (88 B) and DMA (72 B) dates, the send's and the answer's copies (144 B each) flows
])
def test_auto_dates_every_flow_of_a_message_no_larger_than_a_control_message(tmp_path: Path, size: int,
                                                                             loaded: int) -> None:
    alone = beside_a_stream(tmp_path, "auto", 0, size=size)["ranks"][2]["end_time"]
    dated = beside_a_stream(tmp_path, "auto", ROUND_TRIPS, size=size)["ranks"][2]["end_time"]
    assert dated - alone == pytest.approx(loaded * ROUND_TRIPS / BUS, rel=1e-2, abs=1e-15)


def test_beside_a_stream_a_small_message_takes_its_idle_time(tmp_path: Path) -> None:
    # The ping-pong's rank ends as it does with no stream when its flows are dates. As flows, its times are the same
    # here too: its DMA, slowed on the saturated bus (5 GB/s), still ends long before the wire's 2 us, and its copies,
    # paced at 2 GB/s, are below their share.
    def ping_pong_end(small: str, streamed: int) -> float:
        return float(beside_a_stream(tmp_path, small, ROUND_TRIPS, streamed)["ranks"][0]["end_time"])

    assert ping_pong_end("auto", STREAMED) == pytest.approx(ping_pong_end("auto", 0), rel=0, abs=1e-15)
    assert ping_pong_end("auto", STREAMED) == pytest.approx(ping_pong_end("0", STREAMED), rel=0, abs=PRECISION)
