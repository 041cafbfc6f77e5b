"""`ideal` progression against stock SMPI replay (SimGrid 3.32's smpirun -replay), both run for real.

Tolerances from the project's requirements: 1 % on point-to-point traces, 2 % on traces with collectives.
The captured traces come from real MPI programs (validation/apps) compiled with smpicc and run with
smpirun -trace-ti (scripts/capture_traces.sh).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import REPOSITORY
from progsim.engine import inspect_trace, replay, smpi_replay_time
from progsim.platform import compile_platform, load_platform
from progsim.workloads.tracegen import ring_lines, write_trace

TRACES = REPOSITORY / "validation" / "traces"
POINT_TO_POINT, COLLECTIVES = 0.01, 0.02

CAPTURED = [
    ("halo2d-32k-64", "bora", 8, COLLECTIVES),      # isend/irecv/waitall halos and an allreduce
    ("halo2d-256k-64", "supermuc-thin", 4, COLLECTIVES),
    ("p2p_mix-base-64", "henri", 32, POINT_TO_POINT),
    ("collectives-base-16", "grimoire", 2, COLLECTIVES),
    ("collectives-base-64", "exascale-hypothetical", 8, COLLECTIVES),
]


def compile_for(tmp_path: Path, platform_name: str, ranks: int, ranks_per_node: int):
    import dataclasses

    from progsim.platform.model import PlacementSpec

    platform = load_platform(REPOSITORY / "platforms" / f"{platform_name}.yaml")
    platform = dataclasses.replace(platform, placement=PlacementSpec("block", ranks_per_node))
    return compile_platform(platform, tmp_path / "platform", ranks)


def check(trace: Path, compiled, tolerance: float, tmp_path: Path) -> None:
    run = replay(trace, compiled, "ideal", tmp_path / "results.json")
    assert run.returncode == 0, run.stderr
    ours = run.results["simulated_time"]
    reference = smpi_replay_time(trace, compiled)
    assert ours == pytest.approx(reference, rel=tolerance), f"progsim {ours} s, smpirun {reference} s"


@pytest.mark.parametrize("name,platform_name,ranks_per_node,tolerance", CAPTURED)
def test_captured_traces_match_smpi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str,
                                    platform_name: str, ranks_per_node: int, tolerance: float) -> None:
    monkeypatch.chdir(REPOSITORY)  # the captured list files name their traces from the repository root
    trace = Path("validation/traces") / name / "trace_list.txt"
    compiled = compile_for(tmp_path, platform_name, inspect_trace(trace).ranks, ranks_per_node)
    check(trace, compiled, tolerance, tmp_path)


@pytest.mark.parametrize("platform_name,ranks,ranks_per_node", [
    ("lima", 64, 2),            # fat tree
    ("bluegene-q", 64, 1),      # torus
    ("exascale-hypothetical", 128, 8),  # dragonfly, ranks on several NUMA domains
    ("laptop-2core", 2, 2),     # shared memory only
])
@pytest.mark.parametrize("message_bytes", [1024, 1048576])
def test_generated_ring_matches_smpi(tmp_path: Path, platform_name: str, ranks: int, ranks_per_node: int,
                                     message_bytes: int) -> None:
    trace = write_trace(ring_lines(ranks, 10, message_bytes, 2e5), tmp_path / "trace")
    check(trace, compile_for(tmp_path, platform_name, ranks, ranks_per_node), POINT_TO_POINT, tmp_path)


def test_shared_trace_file_matches_smpi(tmp_path: Path) -> None:
    trace = write_trace(ring_lines(16, 10, 200000, 1e5), tmp_path / "trace", shared=True)
    check(trace, compile_for(tmp_path, "ice", 16, 4), POINT_TO_POINT, tmp_path)


def test_1024_rank_ring_matches_smpi(tmp_path: Path) -> None:
    trace = write_trace(ring_lines(1024, 10, 1048576, 1e6), tmp_path / "trace")
    check(trace, compile_for(tmp_path, "irene-bxi", 1024, 16), POINT_TO_POINT, tmp_path)


@pytest.mark.slow
def test_4096_rank_ring_matches_smpi(tmp_path: Path) -> None:
    trace = write_trace(ring_lines(4096, 10, 1048576, 1e6), tmp_path / "trace")
    check(trace, compile_for(tmp_path, "irene-bxi", 4096, 64), POINT_TO_POINT, tmp_path)
