"""A rank's CPU work running ahead of SimGrid's clock: `progsim/run-ahead` (simulator/sched/RankClock.hpp).

A rank whose core no other execution uses, under a mechanism that leaves its queues to it alone (`none`, `offload`
for a rank whose NIC offloads nothing), keeps its overheads and computations on a clock of its own and pauses once
before it next looks at arrivals, starts memory traffic, sleeps or ends; what it posts meanwhile (receives, messages,
transfers, copies) takes effect at its own date. That is a way to run the model, not a model: the reference is the
same run with `run-ahead: no`, which pauses for each piece of CPU work, and the formulas of the analytic platform.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analytic_platform import BIG, CONTROL, OVERHEAD, SPEED, T_DATA, platform, replay
from conftest import REPOSITORY, run_cli, write_ranks
from test_control_messages import same_times

# Same-date events (two ranks resumed at one date, flows started at one date) may run in another order when a rank
# pauses less often, and SimGrid's solver updates its flows at other events: the same times up to rounding.
PRECISION = 1e-10

# Every place where the rank must catch up with SimGrid's clock, or may not: posting and computing run ahead; waits,
# tests, sleeps, computations with memory traffic, blocking calls and collectives look at arrivals or share a bus.
CASES = {
    "rendezvous while computing": [
        "0 init\n0 irecv 1 0 16777216\n0 isend 1 1 16777216\n0 compute 2e6\n0 wait 1 0 0\n0 wait 0 1 1\n0 finalize",
        "1 init\n1 irecv 0 1 16777216\n1 isend 0 0 16777216\n1 compute 1e6\n1 wait 0 1 1\n1 wait 1 0 0\n1 finalize",
    ],
    "eager, tests and a sleep": [
        "0 init\n0 isend 1 0 1024\n0 compute 1e5\n0 test 0 1 0\n0 sleep 0.0001\n0 test 0 1 0\n0 wait 0 1 0\n"
        "0 recv 1 0 4096\n0 finalize",
        "1 init\n1 compute 3e5\n1 irecv 0 0 1024\n1 test 0 1 0\n1 wait 0 1 0\n1 send 0 0 4096\n1 finalize",
    ],
    "memory traffic": [
        "0 init\n0 isend 1 0 16777216\n0 compute 1e6 80000000\n0 wait 0 1 0\n0 compute 1e5\n0 finalize",
        "1 init\n1 compute 2e5\n1 irecv 0 0 16777216\n1 compute 1e6 40000000\n1 wait 0 1 0\n1 finalize",
    ],
    "collectives": [
        f"{r} init\n{r} compute {r + 1}e5\n{r} allreduce 4096 1e5\n{r} ibcast 1048576 0\n{r} compute 1e6\n"
        f"{r} wait -333 -333 -3335\n{r} bcast 70000 1\n{r} sendRecv 512 {(r + 1) % 4} 512 {(r + 3) % 4}\n{r} finalize"
        for r in range(4)
    ],
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("progress, offload", [("none", "[]"), ("offload", "[]")])
@pytest.mark.parametrize("rendezvous", ["get", "put"])
def test_running_ahead_gives_the_times_of_a_pause_each(tmp_path: Path, case: str, progress: str, offload: str,
                                                        rendezvous: str) -> None:
    runs: dict[str, dict] = {}
    for ahead in ("yes", "no"):
        folder = tmp_path / ahead
        folder.mkdir()
        runs[ahead] = replay(folder, CASES[case], progress, cores=4, ranks_per_node=2, nodes=len(CASES[case]) // 2,
                             rendezvous=rendezvous, offload=offload, memory_bandwidth=2e10, memory_latency=1e-7,
                             settings=(f"progsim/run-ahead:{ahead}",))
    same_times(runs["yes"], runs["no"], PRECISION)
    assert runs["yes"]["simulated_time"] > 0


def ranks_running_ahead(tmp_path: Path, progress: str, **platform_options: object) -> int:
    """How many ranks say that their CPU work runs ahead (the engine's verbose log)."""
    trace = tmp_path / "trace"
    trace.mkdir(parents=True)
    path = platform(tmp_path, **platform_options)  # type: ignore[arg-type]
    listing = write_ranks(trace, CASES["rendezvous while computing"])
    done = run_cli("replay", str(listing), "--platform", str(path), "--progress", progress,
                   "--log", "progsim_rank.thres:verbose")
    assert done.returncode == 0, done.stderr
    return done.stderr.count("runs ahead of SimGrid's clock")


def test_only_ranks_alone_on_their_core_and_queues_run_ahead(tmp_path: Path) -> None:
    assert ranks_running_ahead(tmp_path / "a", "none", cores=2) == 2
    assert ranks_running_ahead(tmp_path / "b", "offload", cores=2, offload="[]") == 2
    # Two ranks on one core share it; a NIC that matches touches the rank's queues; an agent runs steps.
    assert ranks_running_ahead(tmp_path / "c", "none", cores=1, nodes=1, ranks_per_node=2) == 0
    assert ranks_running_ahead(tmp_path / "d", "offload", cores=2) == 0
    assert ranks_running_ahead(tmp_path / "e", "thread", cores=4) == 0
    assert ranks_running_ahead(tmp_path / "f", "ideal", cores=2) == 0


def test_a_message_leaves_at_the_senders_own_date(tmp_path: Path) -> None:
    """The sender computes, then posts a rendezvous, all ahead of SimGrid's clock; its request-to-send leaves at its
    own date, so the receiver, waiting, pulls the data at 2 ms + the send overhead + the control message's time."""
    ranks = [f"0 init\n0 compute 2e6\n0 isend 1 0 {BIG}\n0 wait 0 1 0\n0 finalize",
             f"1 init\n1 irecv 0 0 {BIG}\n1 wait 0 1 0\n1 finalize"]
    result = replay(tmp_path, ranks, "none", cores=2)
    request_to_send = 2e6 / SPEED + OVERHEAD + CONTROL
    # The receiver: its posting, then the request-to-send's step, the pull and the step at its end.
    receiver_end = request_to_send + OVERHEAD + T_DATA + OVERHEAD
    assert result["ranks"][1]["end_time"] == pytest.approx(receiver_end, rel=1e-9)
    # The sender: the finish message, then its step.
    assert result["ranks"][0]["end_time"] == pytest.approx(receiver_end + CONTROL + OVERHEAD, rel=1e-9)


def test_a_deadlock_is_reported_at_the_same_date(tmp_path: Path) -> None:
    ranks = ["0 init\n0 compute 1e6\n0 irecv 1 5 8\n0 wait 1 0 5\n0 finalize",
             "1 init\n1 compute 3e6\n1 recv 0 7 8\n1 finalize"]
    reports = {}
    for ahead in ("yes", "no"):
        folder = tmp_path / ahead
        folder.mkdir()
        reports[ahead] = replay(folder, ranks, "none", cores=2, expect=3,
                                settings=(f"progsim/run-ahead:{ahead}",))["stderr"]
    assert "Deadlock at simulated time 0.003" in reports["yes"]
    assert reports["yes"].replace(str(tmp_path / "yes"), "") == reports["no"].replace(str(tmp_path / "no"), "")


# Where copies and DMA share a bus, these captures are chaotic: a send overhead longer by 1e-15 s moves the
# collectives' end by 5e-4 (3.9 us of 7.79 ms), since flows that end together share the bus in another order; running
# ahead moves it by 4e-3, halo2d by 8e-4 (both later). Without bus flows, every time is the same within 1e-10 with a
# max-min variable per flow (network/carry-flows:no, as here). With the engine's carried flows, collectives-base-64
# moves by 2.1e-4 ahead or not (1.5 us of 7.33 ms), where a send overhead moved by 1e-15 s moves it by 4e-12:
# carriers are sensitive to the order of a date's starts, which running ahead changes (docs/speed.md, change 12).
@pytest.mark.parametrize("trace", ["p2p_mix-base-64", "halo2d-32k-64", "collectives-base-64"])
@pytest.mark.parametrize("progress", ["none", "offload"])
def test_real_captures_replay_the_same_ahead_or_not(tmp_path: Path, trace: str, progress: str) -> None:
    listing = REPOSITORY / "validation/traces" / trace / "trace_list.txt"
    path = platform(tmp_path, cores=16, nodes=8, ranks_per_node=8, memory_bandwidth=2e10, memory_latency=1e-7,
                    offload="[]")
    runs: dict[str, dict] = {}
    for ahead in ("yes", "no"):
        out = tmp_path / f"{ahead}.json"
        done = run_cli("replay", str(listing), "--platform", str(path), "--progress", progress, "--out", str(out),
                       "--set", f"progsim/run-ahead:{ahead}", "--set", "copy-loads-bus:no", "--set", "dma-loads-bus:no",
                       "--set", "network/carry-flows:no")
        assert done.returncode == 0, done.stderr
        runs[ahead] = json.loads(out.read_text())
    same_times(runs["yes"], runs["no"], PRECISION)


# Settings that change what a rank posts, copies or streams, or when it looks at arrivals.
SETTINGS = [("progsim/rank-progress:every-call",), ("progsim/buffered-send-threshold:0",),
            ("progsim/cached-message-bytes:4096",), ("progsim/data-numa:nic",), ("progsim/compute-intensity:0.5",),
            ("progsim/contention:weighted", "progsim/nic-bus-weight:2"), ("progsim/control-transfers:yes",),
            ("progsim/loopback-transfers:yes",), ("progsim/poll-in-wait:no",), ("progsim/rendezvous:pipelined",)]


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda setting: " ".join(setting))
def test_running_ahead_under_other_settings(tmp_path: Path, setting: tuple[str, ...]) -> None:
    for case, ranks in CASES.items():
        runs: dict[str, dict] = {}
        for ahead in ("yes", "no"):
            folder = tmp_path / f"{len(runs)}-{case.replace(' ', '-').replace(',', '')}"
            folder.mkdir()
            runs[ahead] = replay(folder, ranks, "none", cores=4, ranks_per_node=2, nodes=len(ranks) // 2,
                                 memory_bandwidth=2e10, memory_latency=1e-7,
                                 settings=(*setting, f"progsim/run-ahead:{ahead}"))
        same_times(runs["yes"], runs["no"], PRECISION)
