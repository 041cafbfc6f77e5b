"""Computations that move memory (issue: memory-bus contention): a `compute` line may give the bytes it streams
(`<rank> compute <flops> [bytes]`, progsim's extension), or the run an arithmetic intensity for the lines that give
none. The bytes cross the NUMA domain's memory bus, which the domain's copies and NIC transfers share, at most one
core's memory bandwidth each. Expected times follow from the platform below: a computation takes the longer of its
flops at the core's speed and its bytes at its share of the bus (a roofline), and SimGrid's max-min sharing gives
every flow on the bus an equal share, up to its own limit.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analytic_platform import replay
from conftest import write_platform

SPEED = 1e9  # flop/s of a core
BUS = 1e10  # B/s of a NUMA domain's memory bus
CORE_MEMORY = 4e9  # B/s one core streams at most
NIC = 1e10  # B/s of the NIC, as fast as the bus


def platform(directory: Path, core_memory: bool = True) -> Path:
    limit = f"core_memory_bandwidth: {CORE_MEMORY}" if core_memory else ""
    return write_platform(directory, f"""\
        name: membus
        nodes: 2
        node: {{sockets: 1, numa_per_socket: 1, cores_per_numa: 4, core_speed: {SPEED},
               memory: {{bandwidth: {BUS}, latency: 0}}, {limit}}}
        nics: [{{numa: 0, bandwidth: {NIC}, latency: 0}}]
        interconnect: {{topology: flat, link: {{bandwidth: 1.0e+12, latency: 0}}}}
        mpi: {{eager_threshold: 65536, rendezvous: get}}
        placement: {{policy: block, ranks_per_node: 4}}
        """)


def compute_times(tmp_path: Path, ranks: list[str], settings: tuple[str, ...] = (), **options: bool) -> list[float]:
    results = replay(tmp_path, ranks, "ideal", platform_file=platform(tmp_path, **options), settings=settings)
    return [r["compute_time"] for r in results["ranks"]]


@pytest.mark.parametrize("flops,bytes_,expected", [
    (1e7, 1e6, 1e7 / SPEED),          # CPU-bound: 10 ms of flops, 0.25 ms of traffic
    (1e6, 1e8, 1e8 / CORE_MEMORY),    # memory-bound: 1 ms of flops, 25 ms of traffic at one core's bandwidth
    (1e6, 0, 1e6 / SPEED),            # an explicit 0: cache-resident
])
def test_a_computation_takes_the_longer_of_its_flops_and_its_bytes(tmp_path: Path, flops: float, bytes_: float,
                                                                  expected: float) -> None:
    assert compute_times(tmp_path, [f"0 init\n0 compute {flops} {bytes_:.0f}\n0 finalize"]) == \
        [pytest.approx(expected, rel=1e-6)]


@pytest.mark.parametrize("computing,per_rank", [
    (1, CORE_MEMORY),   # one core cannot fill the bus
    (2, CORE_MEMORY),   # 8 GB/s of 10
    (4, BUS / 4),       # 16 GB/s asked of 10: an equal share each
])
def test_memory_bound_ranks_share_their_domains_bus(tmp_path: Path, computing: int, per_rank: float) -> None:
    ranks = [f"{r} init\n{r} compute 1e6 100000000\n{r} finalize" for r in range(computing)]
    assert compute_times(tmp_path, ranks) == [pytest.approx(1e8 / per_rank, rel=1e-6)] * computing


def test_an_intensity_gives_bytes_to_the_computations_that_have_none(tmp_path: Path) -> None:
    # 1e6 flops at 0.01 flop/B move 1e8 B; a line that gives its bytes keeps them.
    ranks = ["0 init\n0 compute 1e6\n0 finalize", "1 init\n1 compute 1e6 0\n1 finalize"]
    assert compute_times(tmp_path, ranks, settings=("compute-intensity:0.01",)) == \
        [pytest.approx(1e8 / CORE_MEMORY, rel=1e-6), pytest.approx(1e6 / SPEED, rel=1e-6)]


def test_without_a_core_limit_one_rank_takes_the_whole_bus(tmp_path: Path) -> None:
    assert compute_times(tmp_path, ["0 init\n0 compute 1e6 100000000\n0 finalize"], core_memory=False) == \
        [pytest.approx(1e8 / BUS, rel=1e-6)]


def neighbours_and_transfer(computing: int, size: int) -> list[str]:
    """Rank 0 (node 0) sends `size` B to rank 4 (node 1) while `computing` other ranks of node 0 stream far more
    than the transfer lasts."""
    streamed = 10_000_000_000
    ranks = [f"0 init\n0 send 4 0 {size}\n0 finalize"]
    ranks += [f"{r} init\n{r} compute 1e6 {streamed if r <= computing else 0}\n{r} finalize" for r in (1, 2, 3)]
    return ranks + [f"4 init\n4 recv 0 0 {size}\n4 finalize"]


@pytest.mark.parametrize("computing", [0, 1, 3])
def test_memory_bound_neighbours_take_the_bus_from_the_nics_transfers(tmp_path: Path, computing: int) -> None:
    # One transfer (ideal's), whose DMA crosses node 0's bus with the streams (dma-loads-bus): alone it gets the
    # NIC's 10 GB/s; beside k streams of at most 4 GB/s each, max-min gives it max(10 - 4k, 10 / (k + 1)).
    size = 100_000_000
    results = replay(tmp_path, neighbours_and_transfer(computing, size), "ideal", platform_file=platform(tmp_path),
                     settings=("dma-loads-bus:yes",))
    share = NIC if computing == 0 else max(BUS - CORE_MEMORY * computing, BUS / (computing + 1))
    assert results["ranks"][4]["end_time"] == pytest.approx(size / share, rel=1e-6)


def test_ideal_leaves_dma_off_the_bus_as_smpi_does(tmp_path: Path) -> None:
    # SMPI's model has no DMA: under `ideal` by default the streams leave the transfer its NIC's 10 GB/s.
    size = 100_000_000
    results = replay(tmp_path, neighbours_and_transfer(3, size), "ideal", platform_file=platform(tmp_path))
    assert results["ranks"][4]["end_time"] == pytest.approx(size / NIC, rel=1e-6)


@pytest.mark.parametrize("line,message", [
    ("0 compute 1e6 -5", "negative bytes"),
    ("0 compute 1e6 lots", "'lots' is not a number (bytes)"),
])
def test_a_bad_byte_count_names_its_line(tmp_path: Path, line: str, message: str) -> None:
    done = replay(tmp_path, [f"0 init\n{line}\n0 finalize"], "ideal", platform_file=platform(tmp_path), expect=2)
    assert message in done["stderr"] and ":2" in done["stderr"]


def test_a_core_bandwidth_of_zero_is_bad_input_naming_its_yaml_path(tmp_path: Path) -> None:
    path = platform(tmp_path)
    path.write_text(path.read_text().replace(f"core_memory_bandwidth: {CORE_MEMORY}", "core_memory_bandwidth: 0"))
    done = replay(tmp_path, ["0 init\n0 finalize"], "ideal", platform_file=path, expect=2)
    assert "node.core_memory_bandwidth" in done["stderr"] and "positive" in done["stderr"]


def test_a_negative_intensity_is_bad_input(tmp_path: Path) -> None:
    done = replay(tmp_path, ["0 init\n0 compute 1e6\n0 finalize"], "ideal", platform_file=platform(tmp_path),
                  settings=("compute-intensity:-1",), expect=2)
    assert "compute-intensity" in done["stderr"] and "non-negative" in done["stderr"]
