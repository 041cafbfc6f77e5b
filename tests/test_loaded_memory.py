"""Memory under load: the latency of an access behind the computations' queued requests, and message buffers that
stay in the caches. Expected values from the platform's parameters:

  - Little's law (progsim/loaded-latency): k cores streaming at c B/s from a memory of bus bandwidth B keep
    k c / B times more requests queued than the bus serves in its idle latency L0, so an access waits
    L0 max(1, k c / B); every link to the memory (bus, inter-domain ports) adds its own. The core that handles an
    arriving message reads what the NIC wrote: each message's receiving step stalls L0 (max(1, k c / B) - 1).
  - Cached messages (progsim/cached-message-bytes): a message that fits stays in the caches, so its copies and DMA do
    not delay it; their bytes still reach memory as write-backs, which the bus carries beside the streams: the
    streams end (write-back bytes) / B later.

Platform: a bus of B = 10 GB/s with an idle latency L0 = 1 us, cores that stream at most c = 4 GB/s, a NIC of
10 GB/s, no other latency or overhead; ranks 0 and 4 (one per node) ping-pong while k ranks of each node stream.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analytic_platform import ping_pong, replay
from conftest import REPOSITORY, write_platform

BUS, CORE, NIC, L0 = 1e10, 4e9, 1e10, 1e-6
PORT, PORT_LATENCY = 5e9, 5e-7
STREAMED = 40_000_000_000  # bytes each computing rank streams: it outlasts the ping-pong
ROUND_TRIPS = 10


def platform(directory: Path, domains: int = 1) -> Path:
    return write_platform(directory, f"""\
        name: loaded
        nodes: 2
        node: {{sockets: {domains}, numa_per_socket: 1, cores_per_numa: 4, core_speed: 1.0e+9,
               memory: {{bandwidth: {BUS}, latency: {L0}}}, core_memory_bandwidth: {CORE},
               inter_socket: {{bandwidth: {PORT}, latency: {PORT_LATENCY}}}}}
        nics: [{{numa: 0, bandwidth: {NIC}, latency: 0}}]
        interconnect: {{topology: flat, link: {{bandwidth: 1.0e+12, latency: 0}}}}
        mpi: {{eager_threshold: 1048576, rendezvous: get, overheads: {{send: 0, recv: 0, step: 0, call: 0}}}}
        placement: {{policy: block, ranks_per_node: {4 * domains}}}
        """)


def ping_pong_beside_streams(per_node: int, computing: int, size: int, streamed: int = STREAMED,
                             round_trips: int = ROUND_TRIPS) -> list[str]:
    def stream(r: int) -> str:
        return f"{r} compute 1e3 {streamed if r % per_node <= computing else 0}"

    return ping_pong(2 * per_node, 0, per_node, size, round_trips, stream)


def half_round_trip(tmp_path: Path, computing: int, size: int = 4, settings: tuple[str, ...] = (),
                    progress: str = "none", domains: int = 1) -> float:
    per_node = 4 * domains
    results = replay(tmp_path, ping_pong_beside_streams(per_node, computing, size), progress,
                     platform_file=platform(tmp_path, domains),
                     settings=("cached-message-bytes:1048576", *settings))
    return float(results["ranks"][0]["end_time"]) / (2 * ROUND_TRIPS)


def stall(demand: float, bandwidth: float = BUS, idle: float = L0) -> float:
    return idle * (max(1.0, demand / bandwidth) - 1)


@pytest.mark.parametrize("progress", ["none", "ideal"])
@pytest.mark.parametrize("computing", [1, 2, 3])
def test_an_arriving_message_waits_behind_the_queued_requests(tmp_path: Path, computing: int, progress: str) -> None:
    # k = 1, 2: 4 and 8 GB/s fit in the bus, no queue; k = 3: 12 GB/s, each access waits 1.2 L0.
    alone = half_round_trip(tmp_path, 0, progress=progress)
    loaded = half_round_trip(tmp_path, computing, progress=progress)
    assert loaded - alone == pytest.approx(stall(computing * CORE), abs=1e-12)


def test_computations_at_the_pace_of_their_flops_ask_less(tmp_path: Path) -> None:
    # Three CPU-bound ranks moving 1 GB/s each (1e9 flop/s, 1 flop per byte) ask 3 GB/s: no queue.
    ranks = ping_pong_beside_streams(4, 3, 4, streamed=1_000_000)
    ranks = [line.replace("compute 1e3 1000000", "compute 1e6 1000000") for line in ranks]
    settings = ("cached-message-bytes:64",)
    alone = replay(tmp_path, ping_pong_beside_streams(4, 0, 4), "none", platform_file=platform(tmp_path),
                   settings=settings)
    loaded = replay(tmp_path, ranks, "none", platform_file=platform(tmp_path), settings=settings)
    assert loaded["ranks"][0]["end_time"] == pytest.approx(alone["ranks"][0]["end_time"], rel=1e-9)


def test_no_loaded_latency_leaves_the_message_alone(tmp_path: Path) -> None:
    settings = ("loaded-latency:no",)
    assert half_round_trip(tmp_path, 3, settings=settings) == \
        pytest.approx(half_round_trip(tmp_path, 0, settings=settings), rel=1e-9)


def test_the_ports_on_the_way_to_far_data_queue_too(tmp_path: Path) -> None:
    # Two domains per node, every rank's data in domain 1; the ping-pong's rank and three streams in domain 0. The
    # streams (12 GB/s) ask the two 5 GB/s ports they cross and domain 1's bus, and an arriving message's read waits at
    # all three. A stream gets 2.5 GB/s through the ports, which is what it moves, not what it asks.
    settings = ("data-numa:1",)
    alone = half_round_trip(tmp_path, 0, settings=settings, domains=2)
    loaded = half_round_trip(tmp_path, 3, settings=settings, domains=2)
    port_latency = PORT_LATENCY / 2  # the inter-socket latency is split between the two domains' ports
    expected = stall(3 * CORE) + 2 * stall(3 * CORE, PORT, port_latency)
    assert loaded - alone == pytest.approx(expected, abs=1e-12)


def kernel_end(results: dict, per_node: int = 4) -> float:
    return max(r["end_time"] for i, r in enumerate(results["ranks"]) if i % per_node != 0)


def test_a_cached_message_does_not_wait_for_its_memory_traffic(tmp_path: Path) -> None:
    # 64 KiB eager messages beside three streams that saturate the bus: cached, the ping-pong's only loss is the stall;
    # uncached, its copies and DMA wait for their share of the bus.
    size = 65536
    alone = half_round_trip(tmp_path, 0, size)
    cached = half_round_trip(tmp_path, 3, size)
    uncached = half_round_trip(tmp_path, 3, size, settings=("cached-message-bytes:0",))
    assert cached - alone == pytest.approx(stall(3 * CORE), abs=1e-12)
    assert uncached > cached + 1e-6


def test_the_write_backs_of_cached_messages_still_slow_the_streams(tmp_path: Path) -> None:
    # Per round trip each node's bus carries, besides the streams, the sender's copy (read and write: 2 S), the DMA
    # read (S), the receiver's DMA write (S) and copy (2 S): 6 S. With the bus saturated the streams end 6 S N / B later.
    size, streamed = 65536, 4_000_000_000
    settings = ("cached-message-bytes:1048576",)
    quiet = replay(tmp_path, ping_pong_beside_streams(4, 3, size, streamed, round_trips=0), "none",
                   platform_file=platform(tmp_path), settings=settings)
    busy = replay(tmp_path, ping_pong_beside_streams(4, 3, size, streamed), "none",
                  platform_file=platform(tmp_path), settings=settings)
    assert kernel_end(busy) - kernel_end(quiet) == pytest.approx(6 * size * ROUND_TRIPS / BUS, rel=1e-3)


def test_henri_reproduces_the_papers_latency_near_the_nic_alone_and_under_stream() -> None:
    # platforms/henri.yaml derives its NIC latency from the 1.39 us half round trip with the thread and data near the
    # NIC (Denis et al. 2021, L169). Under 35 STREAM cores (all asking 12 GB/s of domain 0's 51.2 GB/s bus), each
    # arriving message waits 85 ns (35 x 12 / 51.2 - 1) more: about 2 us, the paper's "stays around 2 us" (L167).
    from progsim.interference import simulate

    row = simulate(REPOSITORY / "platforms" / "henri.yaml", [0.0833], [35], [4])[0]
    assert float(row["pingpong_us_alone"]) == pytest.approx(1.39, rel=0.01)
    stall_us = 0.085 * (35 * 12e9 / 51.2e9 - 1)
    assert float(row["pingpong_us_loaded"]) - float(row["pingpong_us_alone"]) == pytest.approx(stall_us, rel=1e-3)
