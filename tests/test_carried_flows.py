"""Carried flows (SimGrid change `carry-flows`, scripts/build_simgrid.sh): in the engine's runs, the network flows of
one route, size class and bound that have paid their latency ride one max-min variable, which consumes on each link
what all of them would. Expected values: the same run with SimGrid's own sharing, a variable per flow
(network/carry-flows:no), as the reference.

At SimGrid's default precisions the solver clamps a constraint's remaining capacity and usage to zero once they fall
below maxmin/precision (1e-5 of the bound); a carrier meets those clamps in one sum where per-flow sharing has a term
per flow, so that real captures move by 1e-6 (ideal) to 1e-4 (thread) of their time. With fine precisions the two
agree to the bit on a flat cluster (SimGrid's per-flow solver aborts there on routes of several links: a constraint's
usage left at 1.6e-9 by its many subtractions, above a 1e-9 precision).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from conftest import REPOSITORY
from progsim.engine import replay
from progsim.platform import compile_platform, load_platform
from progsim.platform.model import PlacementSpec

FINE_PRECISION = ["maxmin/precision:1e-9", "surf/precision:1e-12"]
# The benchmarks' flat cluster (scripts/benchmark.py): four nodes of 16 cores, a NIC each, one switch.
FLAT = """\
name: bench-flat
nodes: 4
node: {sockets: 1, numa_per_socket: 1, cores_per_numa: 16, core_speed: 1.0e+9, memory: {bandwidth: 2.0e10, latency: 1.0e-7}}
nics: [{numa: 0, bandwidth: 1.0e10, latency: 1.0e-6}]
interconnect: {topology: flat, link: {bandwidth: 1.25e10, latency: 1.0e-7}}
mpi: {eager_threshold: 65536, rendezvous: get}
placement: {policy: block}
"""


def compiled_for(tmp_path: Path, platform_name: str, ranks: int, per_node: int):
    if platform_name == "bench-flat":
        (tmp_path / "flat.yaml").write_text(FLAT)
        platform = load_platform(tmp_path / "flat.yaml")
    else:
        platform = load_platform(REPOSITORY / "platforms" / f"{platform_name}.yaml")
    platform = dataclasses.replace(platform, placement=PlacementSpec("block", per_node))
    return compile_platform(platform, tmp_path / "platform", ranks)


def simulated_times(tmp_path: Path, trace: Path, compiled, mechanism: str, settings: list[str]) -> dict[str, float]:
    times = {}
    for carried in ("yes", "no"):
        run = replay(trace, compiled, mechanism, tmp_path / f"{carried}.json",
                     settings=[*settings, f"network/carry-flows:{carried}"])
        assert run.returncode == 0, f"carry-flows:{carried}: {run.stderr[-3000:]}"
        times[carried] = run.results["simulated_time"]
    return times


@pytest.mark.parametrize("mechanism", ["ideal", "none", "offload"])
def test_a_real_capture_times_as_with_a_variable_per_flow(tmp_path: Path, mechanism: str) -> None:
    # HPCC's HPL at 64 ranks, 16 per node of a flat cluster: panel broadcasts and row swaps between four nodes.
    # Ranks pause for each piece of CPU work (run-ahead: no): running ahead, a rank orders its same-date events by its
    # own clock, and HPL, whose 120 B flows are dates, ends 5.1e-5 apart where a carrier's rounding flips such a tie.
    compiled = compiled_for(tmp_path, "bench-flat", 64, 16)
    trace = REPOSITORY / "validation" / "real" / "hpcc-hpl-64" / "trace_list.txt"
    times = simulated_times(tmp_path, trace, compiled, mechanism, [*FINE_PRECISION, "progsim/run-ahead:no"])
    assert times["yes"] == pytest.approx(times["no"], rel=1e-12)


def write_alltoall_burst(directory: Path, ranks: int, alltoalls: int) -> Path:
    """Ranks that reach each alltoall (4 KiB per peer: ranks x (ranks - 1) eager messages) up to 200 us apart."""
    directory.mkdir()
    for rank in range(ranks):
        lines = [f"{rank} init"]
        for i in range(alltoalls):
            lines += [f"{rank} compute {((rank * 31 + 17 * i) % 64 + 1) * 3000}", f"{rank} alltoall 512 512 0 0"]
        lines.append(f"{rank} finalize")
        (directory / f"rank-{rank}.txt").write_text("\n".join(lines) + "\n")
    trace = directory / "trace_list.txt"
    trace.write_text("".join(f"{directory / f'rank-{rank}.txt'}\n" for rank in range(ranks)))
    return trace


@pytest.mark.parametrize("mechanism,platform_name", [("ideal", "blue-waters-xe6"), ("none", "bench-flat")])
def test_an_alltoall_burst_shares_the_links_as_with_a_variable_per_flow(tmp_path: Path, mechanism: str,
                                                                        platform_name: str) -> None:
    # The case carriers are for: thousands of flows at once between four nodes, on a torus's routes of several links
    # (with cross-traffic on the links back) and on a flat cluster's NIC links with the eager copies' memory flows.
    compiled = compiled_for(tmp_path, platform_name, 64, 16)
    trace = write_alltoall_burst(tmp_path / "trace", 64, 2 if mechanism == "ideal" else 1)
    # At SimGrid's default precisions (a finer one makes its solver abort on this burst, with a carrier or without):
    # the solver's clamps move the eager copies' flows by 1e-8 of the run here.
    times = simulated_times(tmp_path, trace, compiled, mechanism, [])
    assert times["yes"] == pytest.approx(times["no"], rel=1e-6)
