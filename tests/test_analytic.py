"""Expected times derived from the platform's parameters, for the protocol under each progress mechanism
(platform and helpers: analytic_platform.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analytic_platform import (BIG, CONTROL, CONTROL_BYTES, ENVELOPE, LATENCY, NIC_BANDWIDTH, OVERHEAD, POLL_COST,
                               POLL_INTERVAL, SPEED, T_DATA, copy, replay)
from conftest import run_cli, write_platform, write_ranks


RENDEZVOUS_WITH_BUSY_RECEIVER = [
    """0 init
       0 isend 1 0 16777216
       0 wait 0 1 0
       0 finalize""",
    """1 init
       1 irecv 0 0 16777216
       1 compute 1e7
       1 wait 0 1 0
       1 finalize""",
]


def test_none_serializes_the_rendezvous_behind_the_receivers_computation(tmp_path: Path) -> None:
    results = replay(tmp_path, RENDEZVOUS_WITH_BUSY_RECEIVER, "none")
    # The request-to-send waits for the receiver's wait (after o_r + 10 ms), then: a step to match it, the pull,
    # a step to finish it, the finish message, and the sender's step to complete its request.
    receiver_wait = OVERHEAD + 1e7 / SPEED
    expected = receiver_wait + OVERHEAD + T_DATA + OVERHEAD + CONTROL + OVERHEAD
    assert results["ranks"][0]["end_time"] == pytest.approx(expected, rel=1e-6)
    assert results["ranks"][1]["end_time"] == pytest.approx(receiver_wait + OVERHEAD + T_DATA + OVERHEAD, rel=1e-6)


def test_ideal_overlaps_the_transfer_with_the_computation(tmp_path: Path) -> None:
    results = replay(tmp_path, RENDEZVOUS_WITH_BUSY_RECEIVER, "ideal")
    # SMPI's assumption: both sides posted at time 0, the transfer runs at once, no overheads.
    assert results["ranks"][0]["end_time"] == pytest.approx(T_DATA, rel=1e-6)
    assert results["simulated_time"] == pytest.approx(1e7 / SPEED, rel=1e-6)


@pytest.mark.parametrize("progress", ["dedicated-core", "offload"])
def test_agents_answer_the_handshake_while_the_receiver_computes(tmp_path: Path, progress: str) -> None:
    results = replay(tmp_path, RENDEZVOUS_WITH_BUSY_RECEIVER, progress)
    # o_s, the request-to-send, a step to match, the pull, a step to finish, the finish message, a step to complete:
    # the agent's steps take 1 us each (dedicated core step cost, or NIC step latency).
    expected = OVERHEAD + CONTROL + OVERHEAD + T_DATA + OVERHEAD + CONTROL + OVERHEAD
    assert results["ranks"][0]["end_time"] == pytest.approx(expected, rel=1e-6)
    # Two cores per node, one reserved by dedicated-core: the computation keeps a full core.
    assert results["ranks"][1]["compute_time"] == pytest.approx(1e7 / SPEED, rel=1e-6)


@pytest.mark.parametrize("progress", ["none", "thread", "dedicated-core", "offload", "ideal"])
def test_an_eager_message_completes_at_once_on_the_sender(tmp_path: Path, progress: str) -> None:
    ranks = ["""0 init
                0 send 1 0 1024
                0 finalize""",
             """1 init
                1 compute 1e7
                1 recv 0 0 1024
                1 finalize"""]
    results = replay(tmp_path, ranks, progress)
    # The sender pays its posting overhead and the copy of the data into an eager buffer, and goes on (SMPI:
    # detached below 64 KiB, no overhead at all). Two cores per node: the rank keeps a whole core next to a polling
    # thread or a reserved core.
    expected = 0.0 if progress == "ideal" else OVERHEAD + copy(1024)
    assert results["ranks"][0]["end_time"] == pytest.approx(expected, rel=1e-6, abs=1e-12)


A_BYTES, B_BYTES, B_POSTED = 4194304, 1048576, 1e-4
TWO_TRANSFERS_ON_ONE_ROUTE = [
    f"""0 init
        0 isend 1 0 {A_BYTES}
        0 compute {B_POSTED * SPEED:g}
        0 isend 1 1 {B_BYTES}
        0 wait 0 1 1
        0 compute 1e6
        0 wait 0 1 0
        0 finalize""",
    f"""1 init
        1 irecv 0 0 {A_BYTES}
        1 irecv 0 1 {B_BYTES}
        1 wait 0 1 0
        1 wait 0 1 1
        1 finalize""",
]


@pytest.mark.parametrize("carried", ["yes", "no"])
def test_two_transfers_on_one_route_share_it_as_max_min_says(tmp_path: Path, carried: str) -> None:
    # Under `ideal` each transfer starts as its send is posted. A (4 MiB) runs alone until B (1 MiB, posted 100 us
    # later) has paid its latency; then each gets half of the NIC's bandwidth until B ends, and A alone again: B ends
    # at t_B + L + 2 S_B / B, A at L + (S_A + S_B) / B (the NIC never idles). With network/carry-flows (the engine's
    # default) both ride one max-min variable from B's arrival on; without, each has its own: the same times.
    results = replay(tmp_path, TWO_TRANSFERS_ON_ONE_ROUTE, "ideal", settings=(f"network/carry-flows:{carried}",))
    size_a, size_b = A_BYTES + ENVELOPE, B_BYTES + ENVELOPE
    assert B_POSTED * NIC_BANDWIDTH + size_b < size_a  # B ends first
    b_ends = B_POSTED + LATENCY + 2 * size_b / NIC_BANDWIDTH
    a_ends = LATENCY + (size_a + size_b) / NIC_BANDWIDTH
    assert results["ranks"][0]["end_time"] == pytest.approx(b_ends + 1e6 / SPEED, rel=1e-9)
    assert results["ranks"][1]["end_time"] == pytest.approx(a_ends, rel=1e-9)


BUSY_RECEIVER_WITH_A_TEST = [
    RENDEZVOUS_WITH_BUSY_RECEIVER[0],
    """1 init
       1 irecv 0 0 16777216
       1 compute 5e6
       1 test 0 1 0
       1 compute 5e6
       1 wait 0 1 0
       1 finalize""",
]


def test_a_test_call_lets_none_start_the_pull_during_the_computation(tmp_path: Path) -> None:
    results = replay(tmp_path, BUSY_RECEIVER_WITH_A_TEST, "none")
    # The test (after o_r + 5 ms) matches the request-to-send (a step) and starts the pull, which ends during the
    # second half of the computation; the wait only finishes it (a step) and sends the finish message.
    receiver_wait = OVERHEAD + 5e-3 + OVERHEAD + 5e-3
    assert results["ranks"][1]["end_time"] == pytest.approx(receiver_wait + OVERHEAD, rel=1e-6)
    assert results["ranks"][0]["end_time"] == pytest.approx(receiver_wait + OVERHEAD + CONTROL + OVERHEAD, rel=1e-6)


def test_with_a_put_rendezvous_the_test_lets_the_sender_push_at_once(tmp_path: Path) -> None:
    results = replay(tmp_path, BUSY_RECEIVER_WITH_A_TEST, "none", rendezvous="put")
    # The test answers with clear-to-send; the sender, blocked in its wait, pushes the data and completes.
    test_time = OVERHEAD + 5e-3
    expected = test_time + OVERHEAD + CONTROL + OVERHEAD + T_DATA + OVERHEAD
    assert results["ranks"][0]["end_time"] == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("progress,executor", [("none", "rank"), ("thread", "progress-thread"),
                                               ("dedicated-core", "dedicated-core"), ("offload", "nic")])
def test_the_timeline_says_who_runs_each_step_and_when(tmp_path: Path, progress: str, executor: str) -> None:
    timeline = tmp_path / "t.jsonl"
    replay(tmp_path, RENDEZVOUS_WITH_BUSY_RECEIVER, progress, timeline=timeline)
    steps = [json.loads(line) for line in timeline.read_text().splitlines() if '"step"' in line]
    if progress == "thread":  # the receiver computes: its thread runs its steps; the sender, polling in its wait,
        # runs its own finish before its thread's next poll (both call the progress engine; the first one runs it)
        assert {(s["rank"], s["by"]) for s in steps} == {(1, executor), (0, "rank")}
    else:
        assert {s["by"] for s in steps} == {executor}
    # Rank 1 matches the request-to-send: after its computation under `none`, as soon as it arrives otherwise.
    match = next(s for s in steps if s["rank"] == 1 and s["step"] == "match-rendezvous")
    arrival = OVERHEAD + CONTROL
    if progress == "none":
        assert match["t"] == pytest.approx(OVERHEAD + 1e7 / SPEED, rel=1e-6)
    elif progress == "thread":
        # At the thread's next poll, which costs CPU shared with the computation and the idle polling.
        assert arrival <= match["t"] <= arrival + POLL_INTERVAL + 2 * POLL_COST
    else:
        assert match["t"] == pytest.approx(arrival, rel=1e-6)
    assert [s["step"] for s in steps if s["rank"] == 0] == ["finish"]


@pytest.mark.parametrize("progress,rendezvous", [("none", "get"), ("none", "put"), ("offload", "pipelined"),
                                                 ("ideal", "get")])
def test_bytes_sent_count_data_and_control_messages(tmp_path: Path, progress: str, rendezvous: str) -> None:
    results = replay(tmp_path, RENDEZVOUS_WITH_BUSY_RECEIVER, progress, rendezvous=rendezvous)
    sent = [r["bytes_sent"] for r in results["ranks"]]
    if progress == "ideal":  # SMPI: one transfer of the data and its 16-byte envelope
        assert sent == [BIG + ENVELOPE, 0]
    elif rendezvous == "get":  # request-to-send and the pulled data / the finish message
        assert sent == [CONTROL_BYTES + BIG + ENVELOPE, CONTROL_BYTES]
    else:  # request-to-send, the data (in fragments or not) and finish / clear-to-send
        assert sent == [CONTROL_BYTES + BIG + ENVELOPE + CONTROL_BYTES, CONTROL_BYTES]
