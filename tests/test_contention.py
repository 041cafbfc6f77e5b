"""Contention policies on a NUMA domain's memory bus (models/contention): a NIC transfer's DMA shares the bus with
the cores' streams. Expected values from the platform's parameters and max-min sharing: a bus of B = 10 GB/s, cores
that stream at most c = 4 GB/s, a NIC of 10 GB/s, no latencies. Rank 0 (node 0) sends S = 100 MB to rank 4
(node 1) while k ranks of one node stream far more than the transfer lasts.

  - fair: the DMA is one flow among k + 1: min(NIC, max(B - k c, B / (k + 1)));
  - weighted w: the DMA weighs w streams: min(NIC, max(B - k c, w B / (k + w)));
  - calibrated: the bus's capacity is the measured curve at the number of flows on it, shared as under fair.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analytic_platform import replay
from conftest import write_platform

BUS, CORE, NIC, SIZE = 1e10, 4e9, 1e10, 100_000_000
STREAMED = 10_000_000_000  # bytes each computing rank streams: it outlasts the transfer


def platform(directory: Path, contention: str = "") -> Path:
    return write_platform(directory, f"""\
        name: membus
        nodes: 2
        node: {{sockets: 1, numa_per_socket: 1, cores_per_numa: 4, core_speed: 1.0e+9,
               memory: {{bandwidth: {BUS}, latency: 0}}, core_memory_bandwidth: {CORE},
               {contention}}}
        nics: [{{numa: 0, bandwidth: {NIC}, latency: 0}}]
        interconnect: {{topology: flat, link: {{bandwidth: 1.0e+12, latency: 0}}}}
        mpi: {{eager_threshold: 65536, rendezvous: get, overheads: {{send: 0, recv: 0, step: 0, call: 0}}}}
        placement: {{policy: block, ranks_per_node: 4}}
        """)


def transfer_beside_streams(computing: int, streaming_node: int = 0) -> list[str]:
    node = [0, 1, 2, 3] if streaming_node == 0 else [4, 5, 6, 7]
    streaming = node[1:1 + computing]
    ranks = []
    for r in range(8):
        body = {0: f"0 send 4 0 {SIZE}", 4: f"4 recv 0 0 {SIZE}"}.get(r, f"{r} compute 1e6 "
                                                                          f"{STREAMED if r in streaming else 0}")
        ranks.append(f"{r} init\n{body}\n{r} finalize")
    return ranks


def transfer_time(tmp_path: Path, contention: str, computing: int, progress: str = "ideal",
                  streaming_node: int = 0) -> float:
    results = replay(tmp_path, transfer_beside_streams(computing, streaming_node), progress,
                     platform_file=platform(tmp_path, contention), settings=("dma-loads-bus:yes",))
    return float(results["ranks"][4]["end_time"])


def dma_share(computing: int, weight: float = 1.0, bus: float = BUS) -> float:
    if computing == 0:
        return NIC
    return min(NIC, max(bus - CORE * computing, weight * bus / (computing + weight)))


@pytest.mark.parametrize("computing", [1, 2, 3])
@pytest.mark.parametrize("streaming_node", [0, 1])
def test_fair_gives_the_dma_one_share_among_the_streams_at_either_end(tmp_path: Path, computing: int,
                                                                       streaming_node: int) -> None:
    # Sender side: the NIC reads node 0's memory; receiver side: it writes node 1's.
    assert transfer_time(tmp_path, "", computing, streaming_node=streaming_node) == \
        pytest.approx(SIZE / dma_share(computing), rel=1e-6)


@pytest.mark.parametrize("weight,computing", [(2, 3), (3, 3), (0.5, 3), (2, 1), (1.5, 3), (0.75, 3)])
def test_weighted_gives_the_dma_the_share_of_w_streams(tmp_path: Path, weight: float, computing: int) -> None:
    # w = 2, k = 3: five equal flows of 2 GB/s, two of them the DMA's: 4 GB/s, where fair gives 2.5.
    # w = 1/2: each stream counts twice: the DMA gets 10/7 GB/s. w = 2, k = 1: the stream keeps its 4 GB/s.
    # w = 3/2 and 3/4: three DMA transfers against two or four per stream.
    contention = f"memory_contention: {{policy: weighted, nic_weight: {weight}}}"
    assert transfer_time(tmp_path, contention, computing) == \
        pytest.approx(SIZE / dma_share(computing, weight), rel=1e-6)


def test_calibrated_follows_the_measured_curve_of_the_bus(tmp_path: Path) -> None:
    # The bus moves 4 GB/s with one flow and 8 GB/s with four (a made-up saturation curve): three streams and the
    # DMA are four flows, 2 GB/s each.
    contention = "memory_contention: {policy: calibrated, stream_curve: {1: 4.0e+9, 4: 8.0e+9}}"
    assert transfer_time(tmp_path, contention, 3) == pytest.approx(SIZE / 2e9, rel=1e-6)


def test_calibrated_kernel_alone_gets_the_interpolated_capacity(tmp_path: Path) -> None:
    # Three streams alone: the curve between 1 (4 GB/s) and 4 flows (8 GB/s) gives 6.67 GB/s, 2.22 each.
    contention = "memory_contention: {policy: calibrated, stream_curve: {1: 4.0e+9, 4: 8.0e+9}}"
    ranks = [f"{r} init\n{r} compute 1e6 {SIZE if r < 3 else 0}\n{r} finalize" for r in range(8)]
    results = replay(tmp_path, ranks, "ideal", platform_file=platform(tmp_path, contention))
    per_stream = (4e9 + (8e9 - 4e9) * 2 / 3) / 3
    assert [r["compute_time"] for r in results["ranks"][:3]] == [pytest.approx(SIZE / per_stream, rel=1e-6)] * 3


@pytest.mark.parametrize("progress", ["none", "thread"])
def test_a_rendezvous_step_waits_for_the_dma_too(tmp_path: Path, progress: str) -> None:
    # The receiver pulls (rendezvous-get) and its step runs once the wire and both DMA flows are done: the transfer
    # lasts S over the DMA's fair share, plus control messages of a few bytes over a 1 TB/s cable.
    assert transfer_time(tmp_path, "", 3, progress=progress) == pytest.approx(SIZE / dma_share(3), rel=1e-6)


def test_no_dma_keeps_the_nics_bandwidth(tmp_path: Path) -> None:
    results = replay(tmp_path, transfer_beside_streams(3), "none", platform_file=platform(tmp_path),
                     settings=("dma-loads-bus:no",))
    assert results["ranks"][4]["end_time"] == pytest.approx(SIZE / NIC, rel=1e-6)


@pytest.mark.parametrize("contention,message", [
    ("memory_contention: {policy: calibrated}", "node.memory_contention: the calibrated policy needs 'stream_curve'"),
    ("memory_contention: {policy: weighted, nic_weight: 0}", "node.memory_contention.nic_weight"),
    ("memory_contention: {policy: fairest}", "node.memory_contention.policy"),
    ("memory_contention: {policy: calibrated, stream_curve: {0: 1.0e+9}}", "node.memory_contention.stream_curve"),
    ("memory_contention: {policy: calibrated, stream_curve: {2: -1}}", "node.memory_contention.stream_curve.2"),
    ("memory_contention: {policy: fair, colour: red}", "node.memory_contention"),
])
def test_bad_contention_settings_name_their_yaml_path(tmp_path: Path, contention: str, message: str) -> None:
    done = replay(tmp_path, ["0 init\n0 finalize"], "none", platform_file=platform(tmp_path, contention), expect=2)
    assert message in done["stderr"]


@pytest.mark.parametrize("setting,message", [
    ("contention:fairest", "progsim/contention: unknown policy 'fairest' (expected one of: fair, weighted, calibrated)"),
    ("bus-curve:1:4e9;1:5e9", "progsim/bus-curve: expected 'flows:B/s' points"),
    ("nic-bus-weight:100", "progsim/nic-bus-weight: expected a weight between 1/4 and 64"),
    ("nic-bus-weight:0.1", "progsim/nic-bus-weight: expected a weight between 1/4 and 64"),
])
def test_bad_engine_settings_are_named(tmp_path: Path, setting: str, message: str) -> None:
    policy = {"bus-curve": "contention:calibrated", "nic-bus-weight": "contention:weighted"}.get(
        setting.split(":")[0], "contention:fair")
    done = replay(tmp_path, ["0 init\n0 finalize"], "none", platform_file=platform(tmp_path),
                  settings=(policy, setting), expect=2)
    assert message in done["stderr"]


PORT = 5e9  # B/s of each NUMA domain's port into its node's fabric


def two_domain_platform(directory: Path) -> Path:
    return write_platform(directory, f"""\
        name: twodomains
        nodes: 2
        node: {{sockets: 2, numa_per_socket: 1, cores_per_numa: 4, core_speed: 1.0e+9,
               memory: {{bandwidth: {BUS}, latency: 0}}, core_memory_bandwidth: {CORE},
               inter_socket: {{bandwidth: {PORT}, latency: 0}}}}
        nics: [{{numa: 0, bandwidth: {NIC}, latency: 0}}]
        interconnect: {{topology: flat, link: {{bandwidth: 1.0e+12, latency: 0}}}}
        mpi: {{eager_threshold: 65536, rendezvous: get, overheads: {{send: 0, recv: 0, step: 0, call: 0}}}}
        placement: {{policy: block, ranks_per_node: 8}}
        """)


@pytest.mark.parametrize("data,per_rank", [
    ("local", CORE),       # each rank streams its own domain's memory at one core's 4 GB/s
    ("nic", PORT / 2),     # the data sits in domain 0, the NIC's: the two streams from domain 1 share its 5 GB/s port
    ("1", CORE),           # domain 1: their own
])
def test_data_in_another_domain_is_streamed_through_the_ports(tmp_path: Path, data: str, per_rank: float) -> None:
    # Ranks 4 and 5 run in domain 1 of node 0 (block placement fills domain 0 with ranks 0-3 first).
    ranks = [f"{r} init\n{r} compute 1e6 {SIZE if r in (4, 5) else 0}\n{r} finalize" for r in range(16)]
    results = replay(tmp_path, ranks, "none", platform_file=two_domain_platform(tmp_path),
                     settings=(f"data-numa:{data}",))
    assert [r["compute_time"] for r in results["ranks"][4:6]] == [pytest.approx(SIZE / per_rank, rel=1e-6)] * 2


def test_the_dma_of_data_far_from_the_nic_crosses_the_ports(tmp_path: Path) -> None:
    # Rank 0 (domain 0, the NIC's) sends S to rank 8 (node 1, domain 0) with every rank's data in domain 1: the NIC
    # reads it through the 5 GB/s ports at both ends, where it would move at its own 10 GB/s.
    ranks = [f"{r} init\n{r} finalize" for r in range(16)]
    ranks[0] = f"0 init\n0 send 8 0 {SIZE}\n0 finalize"
    ranks[8] = f"8 init\n8 recv 0 0 {SIZE}\n8 finalize"
    times = {}
    for data in ("local", "1"):
        results = replay(tmp_path, ranks, "none", platform_file=two_domain_platform(tmp_path),
                         settings=(f"data-numa:{data}",))
        times[data] = results["ranks"][8]["end_time"]
    assert times == {"local": pytest.approx(SIZE / NIC, rel=1e-6), "1": pytest.approx(SIZE / PORT, rel=1e-6)}


@pytest.mark.parametrize("data,message", [
    ("2", "progsim/data-numa: 2: the nodes have NUMA domains 0..1"),
    ("far", "progsim/data-numa:far: expected local, nic or a NUMA domain number, got 'far'"),
])
def test_a_bad_data_domain_is_named(tmp_path: Path, data: str, message: str) -> None:
    done = replay(tmp_path, [f"{r} init\n{r} finalize" for r in range(16)], "none",
                  platform_file=two_domain_platform(tmp_path), settings=(f"data-numa:{data}",), expect=2)
    assert message in done["stderr"]
