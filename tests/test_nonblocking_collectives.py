"""Non-blocking collectives as SMPI 3.32 traces them (ibcast, iallreduce, ... and the wait and test lines that name
their requests by tag), replayed with SMPI's non-blocking algorithms (models/collectives/SmpiNonBlocking.cpp: every
message posted at once, in one round) under each progress mechanism.

Expected values from the analytic platform (tests/analytic_platform.py): 4 nodes, one rank each, NICs of B = 10 GB/s
(one SimGrid link per NIC, which its incoming and outgoing messages share). SMPI's iallreduce sends S to every other
rank and receives S from each: 6 S through each NIC, about 6 S / B. A rank that posts it, computes C = 20 ms and
then waits:
  - none: the rendezvous of each message waits for its receiver's MPI call, so nothing moves while the ranks compute:
    the wait ends about C + 6 S / B;
  - dedicated-core, offload (matching and rendezvous in the NIC), ideal: the messages move during the computation:
    the wait ends at C, on a rank that computed on its core undisturbed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analytic_platform import BIG, NIC_BANDWIDTH, replay
from conftest import REPOSITORY, run_cli

RANKS = 4
COMPUTE = 0.02  # seconds, at the analytic platform's 1 Gflop/s
SIZE = BIG // 4  # 4 MiB: a rendezvous; alone the iallreduce takes 6 S / B = 2.5 ms
IALLREDUCE_TAG = -4446  # SMPI's COLL_TAG_ALLREDUCE - 1: what its tracer writes in the wait
NBC_TRACE = REPOSITORY / "validation" / "traces" / "nbc-base-16"


def iallreduce(compute: float, size: int = SIZE) -> list[str]:
    body = f"iallreduce {size} 0"
    lines = [f"{{r}} {body}", *([f"{{r}} compute {compute * 1e9:.0f}"] if compute else []),
             f"{{r}} wait -1 -1 {IALLREDUCE_TAG}"]
    return [f"{r} init\n" + "\n".join(line.format(r=r) for line in lines) + f"\n{r} finalize" for r in range(RANKS)]


def end(tmp_path: Path, progress: str, compute: float) -> float:
    results = replay(tmp_path, iallreduce(compute), progress, nodes=RANKS)
    return max(r["end_time"] for r in results["ranks"])


def test_alone_an_iallreduce_moves_six_messages_through_each_nic(tmp_path: Path) -> None:
    assert end(tmp_path, "none", 0) == pytest.approx(6 * SIZE / NIC_BANDWIDTH, rel=0.01)


def test_without_progression_the_iallreduce_starts_at_the_wait(tmp_path: Path) -> None:
    alone = end(tmp_path, "none", 0)
    assert end(tmp_path, "none", COMPUTE) == pytest.approx(COMPUTE + alone, rel=0.01)


@pytest.mark.parametrize("progress", ["dedicated-core", "offload", "ideal"])
def test_with_progression_the_iallreduce_completes_during_the_computation(tmp_path: Path, progress: str) -> None:
    alone = end(tmp_path, "none", 0)
    assert alone < COMPUTE / 2
    assert end(tmp_path, progress, COMPUTE) == pytest.approx(COMPUTE, abs=0.01 * alone)


def test_a_wait_with_no_such_collective_pending_is_named(tmp_path: Path) -> None:
    ranks = [f"{r} init\n{r} wait -1 -1 {IALLREDUCE_TAG}\n{r} finalize" for r in range(RANKS)]
    done = replay(tmp_path, ranks, "none", nodes=RANKS, expect=2)
    assert f"wait for (non-blocking collective, tag {IALLREDUCE_TAG}) but no non-blocking collective of its kind" \
        in done["stderr"]


def test_a_bad_line_names_the_action_as_written(tmp_path: Path) -> None:
    ranks = [f"{r} init\n{r} ibcast\n{r} finalize" for r in range(RANKS)]
    done = replay(tmp_path, ranks, "none", nodes=RANKS, expect=2)
    assert "expected '<rank> ibcast <count> [root] [datatype]'" in done["stderr"]


def test_the_captured_trace_holds_every_form_that_smpi_writes() -> None:
    # validation/apps/nbc.c, captured by SMPI 3.32 (scripts/capture_traces.sh).
    words = {line.split()[1] for path in NBC_TRACE.glob("rank-*.txt") for line in path.read_text().splitlines()}
    assert {"ibarrier", "ibcast", "ireduce", "iallreduce", "ialltoall", "ialltoallv", "igather", "igatherv",
            "iscatter", "iscatterv", "iallgather", "iallgatherv", "ireducescatter", "iscan", "iexscan",
            "wait", "test", "waitall"} <= words


@pytest.mark.parametrize("progress", ["ideal", "none", "thread", "dedicated-core", "offload"])
def test_every_mechanism_replays_the_captured_trace(tmp_path: Path, progress: str) -> None:
    out = tmp_path / "out.json"
    done = run_cli("replay", str(NBC_TRACE / "trace_list.txt"), "--platform",
                   str(REPOSITORY / "platforms" / "bora.yaml"), "--ranks-per-node", "2", "--progress", progress,
                   "--out", str(out))
    assert done.returncode == 0, done.stderr
    import json

    ranks = json.loads(out.read_text())["ranks"]
    assert len(ranks) == 16 and all(r["end_time"] > 0 for r in ranks)
