"""`progsim interference` (progsim/interference.py): the benchmark of Denis, Jeannot and Swartvagher (ICPP 2021) in
simulation. Expected values from the platform's parameters: a 10 GB/s memory bus per node, cores that stream 4 GB/s
at most, a 10 GB/s NIC, no latencies (so that SimGrid's solver, which weighs each flow by its route's latency, shares
the bus equally: docs/engine.md).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from conftest import run_cli, write_platform

BUS, CORE, NIC, SIZE = 1e10, 4e9, 1e10, 100_000_000


def platform(directory: Path, nodes: int = 2) -> Path:
    return write_platform(directory, f"""\
        name: membus
        nodes: {nodes}
        node: {{sockets: 1, numa_per_socket: 1, cores_per_numa: 4, core_speed: 1.0e+9,
               memory: {{bandwidth: {BUS}, latency: 0}}, core_memory_bandwidth: {CORE}}}
        nics: [{{numa: 0, bandwidth: {NIC}, latency: 0}}]
        interconnect: {{topology: flat, link: {{bandwidth: 1.0e+12, latency: 0}}}}
        mpi: {{eager_threshold: 65536, rendezvous: get}}
        placement: {{policy: block, ranks_per_node: 4}}
        """)


def interference(tmp_path: Path, *options: str) -> tuple[int, str, list[dict[str, str]]]:
    out = tmp_path / "out.csv"
    done = run_cli("interference", str(platform(tmp_path)), "--sizes", str(SIZE), "--progress", "ideal",
                   "--set", "network/model:CM02", "--set", "network/crosstraffic:0", "--out", str(out), *options)
    rows = list(csv.DictReader(out.open())) if out.exists() else []
    return done.returncode, done.stderr, rows


def test_memory_bound_neighbours_slow_the_ping_pong_and_the_ping_pong_slows_them(tmp_path: Path) -> None:
    code, stderr, rows = interference(tmp_path, "--intensities", "0.01,100", "--computing-ranks", "0,3",
                                      "--plot", str(tmp_path / "plot.png"))
    assert code == 0, stderr
    got = {(float(r["intensity_flop_per_byte"]), int(r["computing_ranks"])): r for r in rows}
    alone_us = SIZE / NIC * 1e6
    for intensity in (0.01, 100):
        assert float(got[intensity, 0]["pingpong_us_loaded"]) == pytest.approx(alone_us, rel=1e-6)
    # Memory-bound (0.01 flop/B): three streams of at most 4 GB/s share 10 GB/s alone; with a transfer on each
    # node's bus, four flows share it equally: the transfer and each stream get 2.5 GB/s.
    memory_bound = got[0.01, 3]
    assert float(memory_bound["pingpong_us_alone"]) == pytest.approx(alone_us, rel=1e-6)
    assert float(memory_bound["pingpong_us_loaded"]) == pytest.approx(SIZE / (BUS / 4) * 1e6, rel=1e-6)
    assert float(memory_bound["kernel_GBps_per_rank_alone"]) == pytest.approx(BUS / 3 / 1e9, rel=1e-5)
    assert float(memory_bound["kernel_GBps_per_rank_loaded"]) == pytest.approx(BUS / 4 / 1e9, rel=1e-3)
    # CPU-bound (100 flop/B at 1 Gflop/s: 10 MB/s each, spread over the computation): the transfer keeps the rest.
    cpu_bound = got[100.0, 3]
    assert float(cpu_bound["kernel_GBps_per_rank_alone"]) == pytest.approx(0.01, rel=1e-6)
    assert float(cpu_bound["pingpong_us_loaded"]) == pytest.approx(SIZE / (BUS - 3 * 1e7) * 1e6, rel=1e-6)
    assert (tmp_path / "plot.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("options,message", [
    (("--intensities", "-1"), "--intensities -1: expected non-negative numbers"),
    (("--computing-ranks", "4"), "a node has 4 cores, room for 3 computing ranks"),
    (("--computing-ranks", "two"), "--computing-ranks two: expected comma-separated integers"),
])
def test_bad_options_are_named(tmp_path: Path, options: tuple[str, ...], message: str) -> None:
    code, stderr, rows = interference(tmp_path, *options)
    assert code == 2 and message in stderr and rows == []


def test_a_one_node_platform_is_refused(tmp_path: Path) -> None:
    done = run_cli("interference", str(platform(tmp_path, nodes=1)))
    assert done.returncode == 2 and "two nodes" in done.stderr


def test_a_far_communicating_rank_pays_the_inter_domain_latency(tmp_path: Path) -> None:
    # Two sockets joined with 1 us of latency (two ports of 0.5 us): the ping-pong's ranks on the other socket than
    # their NICs (with their data, so that no copy crosses the ports) reach the NIC through both ports, at each end of
    # each message: a half round trip takes exactly 2 us more.
    path = write_platform(tmp_path, f"""\
        name: twosockets
        nodes: 2
        node: {{sockets: 2, numa_per_socket: 1, cores_per_numa: 2, core_speed: 1.0e+9,
               memory: {{bandwidth: {BUS}, latency: 0}}, inter_socket: {{bandwidth: {BUS}, latency: 1.0e-6}}}}
        nics: [{{numa: 0, bandwidth: {NIC}, latency: 0}}]
        interconnect: {{topology: flat, link: {{bandwidth: 1.0e+12, latency: 0}}}}
        mpi: {{eager_threshold: 65536, rendezvous: get}}
        placement: {{policy: block, ranks_per_node: 4}}
        network: {{model: CM02, crosstraffic: false}}
        """)
    halves = {}
    for comm in ("near", "far"):
        out = tmp_path / f"{comm}.csv"
        done = run_cli("interference", str(path), "--sizes", "4", "--computing-ranks", "1", "--intensities", "1",
                       "--comm", comm, "--data", "local", "--out", str(out))
        assert done.returncode == 0, done.stderr
        halves[comm] = float(next(csv.DictReader(out.open()))["pingpong_us_alone"])
    assert halves["far"] - halves["near"] == pytest.approx(2.0, rel=1e-3)
