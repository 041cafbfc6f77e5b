"""What a progress thread does (the `thread` mechanism): it takes its steps' time before they take effect, waits for
a time slice on a busy core, spins in slices beside its rank, or runs on a spare core; expected times from the
platform's parameters (analytic_platform.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from analytic_platform import (COMPUTE, CONTROL, NO_POLLING, OVERHEAD, SPEED, T_DATA, TWO_COMPUTING_RANKS, W, copy,
                               platform, replay, steps)

RENDEZVOUS_WITH_BUSY_RECEIVER = [
    "0 init\n0 isend 1 0 16777216\n0 wait 0 1 0\n0 finalize",
    f"1 init\n1 irecv 0 0 16777216\n1 compute {W}\n1 wait 0 1 0\n1 finalize",
]


@pytest.mark.parametrize("step", [1e-6, 1e-4])
def test_a_thread_step_takes_its_time_before_it_takes_effect(tmp_path: Path, step: float) -> None:
    # A spare core for each thread (one rank per 2-core node): the thread answers at once, and each of its three
    # steps (match and pull, end of the pull, finish on the sender) delays what comes after it.
    results = replay(tmp_path, RENDEZVOUS_WITH_BUSY_RECEIVER, "thread",
                     settings=(*NO_POLLING, f"overhead-step:{step}"))
    expected = OVERHEAD + CONTROL + step + T_DATA + step + CONTROL + step
    assert results["ranks"][0]["end_time"] == pytest.approx(expected, rel=1e-6)
    assert results["ranks"][1]["compute_time"] == pytest.approx(COMPUTE, rel=1e-6)


def test_a_thread_woken_on_a_busy_core_waits_for_the_next_time_slice(tmp_path: Path) -> None:
    # One core per node: while rank 1 computes, its thread gets the core only when a 1 ms slice ends, and then
    # shares it with the computation (a step of s takes 2 s, and the computation loses s).
    quantum, s = 1e-3, OVERHEAD
    results = replay(tmp_path, RENDEZVOUS_WITH_BUSY_RECEIVER, "thread", cores=1,
                     settings=(*NO_POLLING, f"sched-quantum:{quantum}"))
    match = quantum                                   # the request-to-send came at 3 us: first slice boundary
    pull_end = match + 2 * s + T_DATA                 # 2.68 ms: the end of the pull waits for the slice at 3 ms
    assert pull_end < 3 * quantum
    expected = 3 * quantum + 2 * s + CONTROL + s      # then the finish message, run at once by the idle sender's thread
    assert results["ranks"][0]["end_time"] == pytest.approx(expected, rel=1e-6)
    assert results["ranks"][1]["compute_time"] == pytest.approx(COMPUTE + 2 * s, rel=1e-6)


def test_a_thread_waiting_for_a_slice_gets_the_core_when_the_rank_stops_computing(tmp_path: Path) -> None:
    # Rank 1 computes 0.5 ms, less than a 1 ms slice, then blocks in its wait: its core is free from then on.
    short = 5e5
    ranks = [RENDEZVOUS_WITH_BUSY_RECEIVER[0], f"1 init\n1 irecv 0 0 16777216\n1 compute {short}\n1 wait 0 1 0\n1 finalize"]
    results = replay(tmp_path, ranks, "thread", cores=1, settings=(*NO_POLLING, "sched-quantum:1e-3"))
    s = OVERHEAD
    expected = OVERHEAD + short / SPEED + s + T_DATA + s + CONTROL + s
    assert results["ranks"][0]["end_time"] == pytest.approx(expected, rel=1e-6)


def test_a_thread_pinned_to_a_spare_core_neither_waits_nor_steals(tmp_path: Path) -> None:
    s = OVERHEAD
    results = replay(tmp_path, RENDEZVOUS_WITH_BUSY_RECEIVER, "thread", cores=1,
                     settings=(*NO_POLLING, "sched-quantum:1e-3", "thread-spare-core:yes"))
    expected = OVERHEAD + CONTROL + s + T_DATA + s + CONTROL + s
    assert results["ranks"][0]["end_time"] == pytest.approx(expected, rel=1e-6)
    assert results["ranks"][1]["compute_time"] == pytest.approx(COMPUTE, rel=1e-6)


@pytest.mark.parametrize("spare_core", ["no", "yes"])
def test_two_ranks_and_two_threads_on_two_cores_serialize_the_receivers_computation(tmp_path: Path,
                                                                                     spare_core: str) -> None:
    # Real MPICH with its asynchronous thread, 2 ranks x 2 threads on 2 cores: the receiver's computation stays
    # serialized with the transfer (r ~ 1). The sender polls in its wait and the receiver computes: both cores are
    # held, so the receiver's thread waits for a 3 ms slice, longer than the 1 ms computation; the receiver then
    # matches and copies (shared-memory rendezvous-get) in its own wait. Threads on spare cores overlap instead.
    mib = 1048576
    ranks = [f"0 init\n0 isend 1 0 {mib}\n0 wait 0 1 0\n0 finalize",
             f"1 init\n1 irecv 0 0 {mib}\n1 compute 1e6\n1 wait 0 1 0\n1 finalize"]
    results = replay(tmp_path, ranks, "thread", nodes=1, cores=2, ranks_per_node=2,
                     settings=(*NO_POLLING, f"thread-spare-core:{spare_core}"))
    s, arrival = OVERHEAD, OVERHEAD + 64 / 1e12
    if spare_core == "no":
        expected = OVERHEAD + 1e-3 + s + copy(mib) + s   # what `none` gives
    else:
        expected = arrival + s + copy(mib) + s             # done while the receiver computes
    # SimGrid ends each activity within surf/precision (1e-9 s): a chain of a few of them, a few nanoseconds.
    assert results["ranks"][1]["end_time"] == pytest.approx(expected, rel=1e-6, abs=1e-8)


# A thread that spins on its rank's core (MPICH's asynchronous progress thread): slices of one 4 ms tick in turn.
SLICE = 4e-3
BUSY = ("thread-busy:yes", f"sched-quantum:{SLICE}")


@pytest.mark.parametrize("seconds,stretched", [
    (3e-3, 3e-3),     # within the rank's first slice
    (4e-3, 4e-3),     # exactly one slice: done before the thread's turn
    (10e-3, 18e-3),   # 4 rank, 4 thread, 4 rank, 4 thread, 2 rank (measured with MPICH 4.0.2 here: 1.82x)
    (30e-3, 58e-3),   # seven turns of the thread (measured: 1.95x)
])
def test_a_spinning_thread_takes_every_other_slice_of_its_ranks_computation(tmp_path: Path, seconds: float,
                                                                           stretched: float) -> None:
    results = replay(tmp_path, [f"0 init\n0 compute {seconds * SPEED}\n0 finalize"], "thread", settings=BUSY)
    rank = results["ranks"][0]
    assert rank["compute_time"] == pytest.approx(stretched, rel=1e-6)
    assert rank["progress_cpu_time"] >= stretched - seconds - 1e-9  # the slices given to the thread are counted


def test_a_ranks_wait_that_completes_in_the_threads_slice_returns_when_the_rank_has_the_core(tmp_path: Path) -> None:
    # Rank 1 sleeps (not runnable: no slices) then sends 8 B eagerly; rank 0 spins in its receive meanwhile. Sent at
    # 3 ms the message completes the receive in rank 0's own first slice; sent at 5 ms, in its thread's [4, 8) ms
    # slice: the receive returns at 8 ms (MPICH 4.0.2 here: most waits beside a 16 MiB message ended at 8.0 ms).
    def receive_end(sent: float) -> float:
        ranks = ["0 init\n0 recv 1 0 8\n0 finalize", f"1 init\n1 sleep {sent}\n1 send 0 0 8\n1 finalize"]
        return replay(tmp_path, ranks, "thread", settings=BUSY)["ranks"][0]["end_time"]

    early = receive_end(3e-3)
    assert 3e-3 < early < 3e-3 + 1e-4
    assert receive_end(5e-3) == pytest.approx(2 * SLICE, rel=1e-9)


def test_a_spinning_thread_runs_the_rendezvous_in_its_slice(tmp_path: Path) -> None:
    # The receiver computes 10 ms from its irecv on: its thread has the core from 4 ms, matches the request-to-send
    # and pulls the data in its slice. The sender, spinning in its wait, sees the finish only in its next own slice.
    results = replay(tmp_path, RENDEZVOUS_WITH_BUSY_RECEIVER, "thread", settings=BUSY)
    assert SLICE + 3 * OVERHEAD + T_DATA + CONTROL < 2 * SLICE  # the finish arrives in the thread's slice
    assert results["ranks"][0]["end_time"] == pytest.approx(2 * SLICE, rel=1e-9)
    # 10 ms of work from the irecv's end (1 us): up to 4 ms, [8, 12) ms, and the last 2.001 ms from 16 ms.
    assert results["ranks"][1]["compute_time"] == pytest.approx(18e-3, rel=1e-6)


def test_a_computation_shorter_than_a_slice_leaves_the_rendezvous_to_the_wait(tmp_path: Path) -> None:
    # 3 ms: the thread never gets the receiver's core while it computes; the receiver's wait pulls the data, as
    # under `none`, but the transfer ends in the thread's slice: both waits return at the next rank slice, 8 ms.
    ranks = [RENDEZVOUS_WITH_BUSY_RECEIVER[0],
             f"1 init\n1 irecv 0 0 16777216\n1 compute {3e-3 * SPEED}\n1 wait 0 1 0\n1 finalize"]
    results = replay(tmp_path, ranks, "thread", settings=BUSY)
    s = OVERHEAD
    assert SLICE < OVERHEAD + 3e-3 + s + T_DATA + s < 2 * SLICE
    assert [r["end_time"] for r in results["ranks"]] == [pytest.approx(2 * SLICE, rel=1e-9)] * 2


def test_a_spinning_thread_cannot_also_have_a_spare_core(tmp_path: Path) -> None:
    done = replay(tmp_path, TWO_COMPUTING_RANKS, "thread", settings=(*BUSY, "thread-spare-core:yes"), expect=2)
    assert "thread-busy" in done["stderr"] and "thread-spare-core" in done["stderr"]


def test_matching_an_unexpected_request_to_send_in_irecv_costs_a_step(tmp_path: Path) -> None:
    # The thread finds the request-to-send first (no receive yet); the rank's irecv then matches it itself.
    ranks = ["0 init\n0 isend 1 0 16777216\n0 wait 0 1 0\n0 finalize",
             f"1 init\n1 compute {W}\n1 irecv 0 0 16777216\n1 wait 0 1 0\n1 finalize"]
    timeline = tmp_path / "t.jsonl"
    results = replay(tmp_path, ranks, "thread", settings=NO_POLLING, timeline=timeline)
    s = OVERHEAD
    matches = [(e["by"], e["t"]) for e in steps(timeline) if e["rank"] == 1 and e["step"] == "match-rendezvous"]
    assert matches == [("progress-thread", pytest.approx(OVERHEAD + CONTROL, rel=1e-6)),
                       ("rank", pytest.approx(COMPUTE + OVERHEAD, rel=1e-6))]
    assert results["ranks"][1]["end_time"] == pytest.approx(COMPUTE + OVERHEAD + s + T_DATA + s, rel=1e-6)
