"""A rank's steps in its waits run by SimGrid's kernel: `progsim/steps-in-kernel` (simulator/mpi/WaitInKernel.hpp).

On a host whose cores are shared, each step a rank runs in its wait is CPU work on those cores, which the rank's actor
would park for, once per step. With `steps-in-kernel: yes` the kernel runs the wait: each step's work is an execution
whose end has the step take effect, and the actor parks once for the whole wait call. That is a way to run the model,
not a model: the reference is the same run with `steps-in-kernel: no`, where the actor runs each step itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analytic_platform import platform, replay, steps
from conftest import run_cli, write_ranks
from test_bus_sharing import CONTENTION
from test_control_messages import same_times
from test_run_ahead import CASES

# Same-date events (a step taking effect as its CPU work ends, a rank resumed at that date) may run in another order,
# and SimGrid's solver then updates its flows at other events: the same times up to rounding.
PRECISION = 1e-10

# Where a rank and its progress thread both see a message at its arrival date, whoever looks first runs its step.
# A rank's actor looked among the actors resumed at that date, its thread sometimes before it; from the kernel, the
# rank, spinning in its wait, looks first. Thread polls then fall on other dates: in the collectives case, a finish
# message arrives as both wait for it; the thread, which looked first, went on to its next poll and took an eager
# message that arrived on its way (0.8 us earlier than the rank would); now it sleeps until that arrival and polls
# at its next tick, after the rank took the message: 8.5e-7 s on 1.63 ms with put, 1.2e-8 s with get.
TIES = {("thread", "collectives")}

# Hosts whose cores are shared, so that the ranks' waits run from the kernel: a progress thread per rank beside two
# ranks on four cores; two ranks on one core under the mechanisms whose ranks run their own steps; a reserved core.
SHARED = {
    "thread": {"cores": 4},
    "none": {"cores": 1},
    "offload": {"cores": 1, "offload": "[]"},
    "dedicated-core": {"cores": 2},
    "ideal": {"cores": 1},
}


def both(folder: Path, ranks: list[str], progress: str, settings: tuple[str, ...] = (),
         **options: object) -> dict[str, dict]:
    runs: dict[str, dict] = {}
    for kernel in ("yes", "no"):
        path = folder / kernel
        path.mkdir(parents=True)
        runs[kernel] = replay(path, ranks, progress, ranks_per_node=2, nodes=len(ranks) // 2,
                              memory_bandwidth=2e10, memory_latency=1e-7,
                              settings=(*settings, f"progsim/steps-in-kernel:{kernel}"), **options)
    return runs


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("progress", list(SHARED))
@pytest.mark.parametrize("rendezvous", ["get", "put"])
def test_steps_run_by_the_kernel_give_the_times_of_the_ranks_running_them(tmp_path: Path, case: str, progress: str,
                                                                           rendezvous: str) -> None:
    runs = both(tmp_path, CASES[case], progress, rendezvous=rendezvous, **SHARED[progress])
    assert runs["yes"]["simulated_time"] > 0
    if (progress, case) in TIES:
        assert runs["yes"]["simulated_time"] == pytest.approx(runs["no"]["simulated_time"], rel=1e-3)
        return
    same_times(runs["yes"], runs["no"], PRECISION)


@pytest.mark.parametrize("progress", ["thread", "none"])
def test_contended_buses_give_the_same_times(tmp_path: Path, progress: str) -> None:
    """Eight ranks copying, streaming and pulling over a slow bus, where a copy in the middle of a step's effect (a
    pull in shared memory) goes on from the kernel at the copy's end."""
    runs = both(tmp_path, CONTENTION, progress, ("progsim/run-ahead:no",), **SHARED[progress])
    if progress == "thread":  # a rank and its thread reach a message at one date (TIES): 2.5e-7 s on 2.0 ms
        assert runs["yes"]["simulated_time"] == pytest.approx(runs["no"]["simulated_time"], rel=2e-4)
        return
    same_times(runs["yes"], runs["no"], PRECISION)


def kernel_steps(tmp_path: Path, progress: str, *settings: str, **platform_options: object) -> int:
    """How many steps the kernel ran in the ranks' waits (the engine's verbose log)."""
    trace = tmp_path / "trace"
    trace.mkdir(parents=True)
    path = platform(tmp_path, ranks_per_node=2, **platform_options)  # type: ignore[arg-type]
    listing = write_ranks(trace, CASES["rendezvous while computing"])
    arguments = [arg for setting in settings for arg in ("--set", setting)]
    done = run_cli("replay", str(listing), "--platform", str(path), "--progress", progress,
                   "--log", "progsim_kernel_steps.thres:verbose", *arguments)
    assert done.returncode == 0, done.stderr
    return done.stderr.count("the kernel runs a step for rank-")


def test_the_kernel_runs_the_steps_of_waits_on_shared_cores_only(tmp_path: Path) -> None:
    # Two ranks on one core: their waits' steps (the pull's end, the finish) run from the kernel.
    assert kernel_steps(tmp_path / "a", "none", cores=1) > 0
    assert kernel_steps(tmp_path / "b", "thread", cores=4) > 0
    # A core each, nobody else: the CPU work is a pause, the ranks run their steps; and the setting's `no`.
    assert kernel_steps(tmp_path / "c", "none", cores=2) == 0
    assert kernel_steps(tmp_path / "d", "none", "progsim/steps-in-kernel:no", cores=1) == 0


def test_timelines_name_the_rank_for_the_steps_the_kernel_runs(tmp_path: Path) -> None:
    timeline = tmp_path / "events.jsonl"
    replay(tmp_path, CASES["rendezvous while computing"], "none", cores=1, ranks_per_node=2, nodes=1,
           timeline=timeline)
    by_rank = [step for step in steps(timeline) if step["by"] == "rank"]
    assert by_rank
    assert all(step["agent"] == f"rank-{step['rank']}" for step in by_rank)
    assert all(step["from_agent"].startswith(("rank-", "progress-")) for step in by_rank)
