"""`progsim explain`: per rank, where the time went, and the first step that waited for progression.

The run: rank 0 sends 16 MiB (a `get` rendezvous) to rank 1 on another node, and rank 1 computes 10 ms between its
irecv and its wait. The request-to-send leaves rank 0 after its send overhead and lands a control message's
transfer later; whoever runs rank 1's steps matches it. Under `none` that is rank 1 in its wait, so rank 0 waits for
progression from the landing to the end of the computation: COMPUTE - CONTROL, analytically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from analytic_platform import CONTROL, OVERHEAD, POLL_COST, POLL_INTERVAL, replay, steps
from conftest import run_cli
from progsim.explain import RankTime, rank_times, stalls, costly, blocked_intervals
from progsim.timeline import read_timeline

RENDEZVOUS_WITH_BUSY_RECEIVER = [
    "0 init\n0 isend 1 0 16777216\n0 wait 0 1 0\n0 finalize",
    "1 init\n1 irecv 0 0 16777216\n1 compute 1e7\n1 wait 0 1 0\n1 finalize",
]
COMPUTE = 1e7 / 1e9
MECHANISMS = ("none", "thread", "dedicated-core", "offload", "ideal")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    found = {}
    for progress in MECHANISMS:
        folder = tmp_path_factory.mktemp(progress)
        timeline = folder / "events.jsonl"
        results = replay(folder, RENDEZVOUS_WITH_BUSY_RECEIVER, progress, timeline=timeline)
        found[progress] = {"timeline": timeline, "results": results, "results_file": folder / f"{progress}.json"}
    return found


def times(run: dict[str, Any]) -> dict[int, RankTime]:
    timeline = read_timeline(run["timeline"])
    found = costly(stalls(timeline), blocked_intervals(timeline))
    return {t.rank: t for t in rank_times(timeline, found)}


def test_the_engine_says_when_the_request_to_send_arrived(runs: dict) -> None:
    match = next(e for e in steps(runs["none"]["timeline"]) if e["step"] == "match-rendezvous")
    assert match["from_t"] == pytest.approx(OVERHEAD)
    assert match["arrived"] == pytest.approx(OVERHEAD + CONTROL)  # one control message's transfer later
    assert match["t"] == pytest.approx(OVERHEAD + COMPUTE)       # rank 1 matched it in its wait
    for event in steps(runs["thread"]["timeline"]):
        if "from_t" in event:
            assert event["from_t"] <= event["arrived"] <= event["t"]


@pytest.mark.parametrize("progress", MECHANISMS)
def test_the_parts_add_up_to_each_ranks_time_and_match_the_results(runs: dict, progress: str) -> None:
    run = runs[progress]
    for rank, time in times(run).items():
        result = run["results"]["ranks"][rank]
        assert time.total == pytest.approx(result["end_time"], rel=1e-9)
        assert time.compute + time.sleep + time.mpi + time.peer + time.progression == pytest.approx(time.total)
        assert time.compute == pytest.approx(result["compute_time"], rel=1e-9)
        assert time.peer + time.progression == pytest.approx(result["wait_time"], rel=1e-9, abs=1e-12)
        assert min(time.peer, time.progression, time.mpi) >= 0


def test_without_progression_the_sender_waits_for_the_receivers_computation(runs: dict) -> None:
    sender, receiver = times(runs["none"])[0], times(runs["none"])[1]
    assert sender.progression == pytest.approx(COMPUTE - CONTROL, rel=1e-9)
    assert receiver.progression == 0  # rank 1 computed meanwhile: it waited for nobody's progression


def test_a_progress_thread_leaves_at_most_a_poll_interval_of_waiting(runs: dict) -> None:
    sender = times(runs["thread"])[0]
    assert 0 < sender.progression <= POLL_INTERVAL + POLL_COST


@pytest.mark.parametrize("progress", ["dedicated-core", "offload", "ideal"])
def test_an_agent_that_is_always_there_leaves_no_waiting_for_progression(runs: dict, progress: str) -> None:
    assert all(t.progression == 0 for t in times(runs[progress]).values())
    done = run_cli("explain", str(runs[progress]["timeline"]))
    assert done.returncode == 0, done.stderr
    assert "No blocked rank waited for progression" in done.stdout


def test_the_screen_names_the_first_step_that_waited_and_why(runs: dict) -> None:
    done = run_cli("explain", str(runs["none"]["timeline"]), "--results", str(runs["none"]["results_file"]))
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "under 'none', 2 ranks" in text
    assert "rank 1's match-rendezvous step of message 1 (16 MiB from rank 0)" in text
    assert "rank 1 was computing (trace line 3)" in text and "blocked in wait (trace line 4)" in text
    assert f"{(COMPUTE - CONTROL) * 1e3:.4g} ms waiting for progression" in text
    assert len(text.splitlines()) <= 24 and max(len(line) for line in text.splitlines()) <= 130
    thread = run_cli("explain", str(runs["thread"]["timeline"])).stdout
    assert "by its progress thread (progress-thread-1)" in thread


def test_a_large_run_stays_on_one_screen(tmp_path: Path) -> None:
    """64 ranks of a real halo exchange: the 12 ranks that waited longest, and the mean of all."""
    repository = Path(__file__).resolve().parent.parent
    timeline = tmp_path / "halo.jsonl"
    done = run_cli("replay", str(repository / "validation/traces/halo2d-32k-64/trace_list.txt"), "--platform",
                   str(repository / "platforms/lima.yaml"), "--progress", "none", "--timeline", str(timeline))
    assert done.returncode == 0, done.stderr
    shown = run_cli("explain", str(timeline))
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert len(lines) <= 30 and "12 of 64 ranks shown" in shown.stdout and any(line.startswith("  all") for line in lines)
    picked = run_cli("explain", str(timeline), "--ranks", "60-63").stdout
    assert [line.split()[0] for line in picked.splitlines()[4:8]] == ["60", "61", "62", "63"]


def test_bad_input_exits_2_and_names_what_to_give(tmp_path: Path, runs: dict) -> None:
    results = run_cli("explain", str(runs["none"]["results_file"]))
    assert results.returncode == 2 and "a results JSON" in results.stderr and "--timeline" in results.stderr
    missing = run_cli("explain", str(tmp_path / "nothing.jsonl"))
    assert missing.returncode == 2 and "nothing.jsonl" in missing.stderr
    old = tmp_path / "old.jsonl"  # an older engine's steps: no arrival times
    old.write_text("\n".join(line.split(', "arrived"')[0] + ("}" if '"arrived"' in line else "")
                             for line in runs["none"]["timeline"].read_text().splitlines()) + "\n")
    older = run_cli("explain", str(old))
    assert older.returncode == 2 and "no arrival times" in older.stderr
    ranks = run_cli("explain", str(runs["none"]["timeline"]), "--ranks", "5-9")
    assert ranks.returncode == 2 and "has ranks 0-1" in ranks.stderr
