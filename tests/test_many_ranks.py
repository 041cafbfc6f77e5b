"""Tens of thousands of actors: SimGrid guards each actor's stack with a page that splits its memory mapping in two,
and Linux caps a process's mappings (vm.max_map_count, 65 530 by default). 16 384 ranks under `thread`, a progress
thread each, would need 65 536 guarded stacks' worth of mappings and abort; the engine drops the guards past half
the cap (simulator/main.cpp), as SimGrid's documentation advises for large simulations. And one max-min component
of thousands of links, which SimGrid's solver walks past its recursion (scripts/build_simgrid.sh)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import flat_platform, run_cli, write_platform
from progsim.workloads.tracegen import write_ring

RANKS = 16384

PLATFORM = flat_platform("many", nodes=RANKS // 16, cores=16, ranks_per_node=16)


def test_sixteen_thousand_ranks_with_a_progress_thread_each_run(tmp_path: Path) -> None:
    trace = tmp_path / "trace.txt"  # one shared file: every rank's init, then every rank's finalize
    trace.write_text("".join(f"{r} init\n" for r in range(RANKS)) + "".join(f"{r} finalize\n" for r in range(RANKS)))
    platform = write_platform(tmp_path, PLATFORM)
    out = tmp_path / "results.json"
    done = run_cli("replay", str(trace), "--platform", str(platform), "--progress", "thread", "--out", str(out))
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(out.read_text())
    assert results["ranks_count"] == RANKS and len(results["ranks"]) == RANKS
    assert results["simulated_time"] == 0


@pytest.mark.parametrize("mechanism", ["ideal", "none"])
def test_a_ring_deeper_than_the_solvers_recursion_shares_its_links_as_two_nodes_do(tmp_path: Path,
                                                                                 mechanism: str) -> None:
    """A ring of one rank per node chains all of its flows into one max-min component (each node's NIC link carries
    the message to the next node and the one from the previous), about one constraint deeper per node: 2 048 nodes
    take SimGrid's walk of the constraints a change reaches past the 1 024 calls where it leaves its recursion
    (scripts/build_simgrid.sh, deep-modified-set). Every flow there crosses links loaded as in a ring of two nodes
    (one message out and one in per NIC, each direction of a cable once, the acknowledgements' cross-traffic alike),
    so both rings take the same time, unless the walk missed a constraint whose flows then keep stale rates."""
    times = {}
    for ranks in (2, 2048):
        (tmp_path / str(ranks)).mkdir()
        platform = write_platform(tmp_path / str(ranks), flat_platform("chain", nodes=ranks, cores=1,
                                                                      ranks_per_node=1))
        trace = write_ring(ranks, iterations=2, message_bytes=1 << 20, flops=1e5, directory=tmp_path / str(ranks),
                           shared=True)
        out = tmp_path / str(ranks) / "results.json"
        done = run_cli("replay", str(trace), "--platform", str(platform), "--progress", mechanism, "--out", str(out))
        assert done.returncode == 0, done.stderr[-2000:]
        times[ranks] = json.loads(out.read_text())["simulated_time"]
    assert times[2] > 2 * (1 << 20) / 1.0e10  # two 1 MiB messages one after the other, at most at the NIC's speed
    assert times[2048] == pytest.approx(times[2], rel=1e-9)
