"""Expected times derived from the platform's parameters, for the protocol under each progress mechanism.

The platform uses SimGrid's CM02 network model without cross-traffic, so that one transfer of S bytes between the
two nodes takes exactly L + S / B: L = the two NIC latencies, B = the NIC bandwidth (the bottleneck of the route).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_cli, write_platform, write_ranks

NIC_LATENCY = 1e-6
NIC_BANDWIDTH = 1e10
SPEED = 1e9
OVERHEAD = 1e-6  # send, receive and step overheads
CONTROL_BYTES = 64
ENVELOPE = 16
LATENCY = 2 * NIC_LATENCY
POLL_INTERVAL, POLL_COST = 9e-6, 1e-6
SIMPLE_NETWORK = ["network/model:CM02", "network/crosstraffic:0"]


def transfer(size: int) -> float:
    return LATENCY + size / NIC_BANDWIDTH


CONTROL = transfer(CONTROL_BYTES)
BIG = 16 * 1024 * 1024
T_DATA = transfer(BIG + ENVELOPE)


def platform(directory: Path, cores: int, rendezvous: str = "get") -> Path:
    return write_platform(directory, f"""\
        name: analytic
        nodes: 2
        node:
          sockets: 1
          numa_per_socket: 1
          cores_per_numa: {cores}
          core_speed: {SPEED}
          memory: {{bandwidth: 1.0e+12, latency: 0}}
        nics: [{{numa: 0, bandwidth: {NIC_BANDWIDTH}, latency: {NIC_LATENCY}, offload: [matching, rendezvous]}}]
        interconnect: {{topology: flat, link: {{bandwidth: 1.0e+12, latency: 0}}}}
        mpi:
          eager_threshold: 65536
          rendezvous: {rendezvous}
          overheads: {{send: {OVERHEAD}, recv: {OVERHEAD}, step: {OVERHEAD}}}
        progress:
          thread: {{poll_interval: {POLL_INTERVAL}, poll_cost: {POLL_COST}}}
          dedicated_core: {{per: node, cores: 1, step_cost: {OVERHEAD}}}
          offload: {{step_latency: {OVERHEAD}}}
        placement: {{policy: round-robin, ranks_per_node: 1}}
        """)


def replay(tmp_path: Path, ranks: list[str], progress: str, cores: int = 2, rendezvous: str = "get",
           timeline: Path | None = None) -> dict:
    import json

    trace = write_ranks(tmp_path, ranks)
    out = tmp_path / f"{progress}.json"
    settings = [arg for setting in SIMPLE_NETWORK for arg in ("--set", setting)]
    extra = ["--timeline", str(timeline)] if timeline else []
    done = run_cli("replay", str(trace), "--platform", str(platform(tmp_path, cores, rendezvous)),
                   "--progress", progress, "--out", str(out), *settings, *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())


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


def test_dedicated_core_takes_a_core_from_the_application(tmp_path: Path) -> None:
    results = replay(tmp_path, RENDEZVOUS_WITH_BUSY_RECEIVER, "dedicated-core", cores=1)
    # One core per node, reserved for progression: the rank shares what is left, so it computes at half speed.
    assert results["ranks"][1]["compute_time"] == pytest.approx(2 * 1e7 / SPEED, rel=1e-6)


def test_thread_polling_stretches_the_computation_on_an_oversubscribed_core(tmp_path: Path) -> None:
    results = replay(tmp_path, RENDEZVOUS_WITH_BUSY_RECEIVER, "thread", cores=1)
    share = POLL_COST / (POLL_COST + POLL_INTERVAL)  # of a core, taken by idle polling
    stretched = 1e7 / SPEED / (1 - share)
    compute = results["ranks"][1]["compute_time"]
    # The polling share alone gives `stretched`; the few protocol steps the thread runs add microseconds.
    assert stretched <= compute <= stretched + 20e-6
    # And the handshake is answered while the receiver computes: the sender is done long before.
    assert results["ranks"][0]["end_time"] < T_DATA + 50e-6
    assert results["ranks"][0]["progress_cpu_time"] > 0


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
    # The sender pays its posting overhead and goes on (SMPI: detached below 64 KiB, no overhead at all).
    # Two cores per node: the rank keeps a whole core next to a polling thread or a reserved core.
    expected = 0.0 if progress == "ideal" else OVERHEAD
    assert results["ranks"][0]["end_time"] == pytest.approx(expected, rel=1e-6, abs=1e-12)


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
    import json

    timeline = tmp_path / "t.jsonl"
    replay(tmp_path, RENDEZVOUS_WITH_BUSY_RECEIVER, progress, timeline=timeline)
    steps = [json.loads(line) for line in timeline.read_text().splitlines() if '"step"' in line]
    assert {s["by"] for s in steps} == {executor}
    # Rank 1 matches the request-to-send: after its computation under `none`, as soon as it arrives otherwise.
    match = next(s for s in steps if s["rank"] == 1 and s["step"] == "match")
    arrival = OVERHEAD + CONTROL
    if progress == "none":
        assert match["t"] == pytest.approx(OVERHEAD + 1e7 / SPEED, rel=1e-6)
    elif progress == "thread":
        assert arrival <= match["t"] <= arrival + POLL_INTERVAL + POLL_COST  # at the thread's next poll
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


@pytest.mark.parametrize("per,slowed", [("node", [True, False]), ("numa", [True, True])])
def test_dedicated_cores_are_reserved_per_node_or_per_numa_domain(tmp_path: Path, per: str,
                                                                 slowed: list[bool]) -> None:
    import json

    from conftest import write_platform

    # One node of two NUMA domains with one core each; a rank computes 10 ms on each domain.
    path = write_platform(tmp_path, f"""\
        name: numa2
        nodes: 1
        node: {{sockets: 2, numa_per_socket: 1, cores_per_numa: 1, core_speed: {SPEED},
               memory: {{bandwidth: 1.0e+10, latency: 0}}, inter_socket: {{bandwidth: 1.0e+10, latency: 0}}}}
        interconnect: {{topology: flat, link: {{bandwidth: 1.0e+10, latency: 0}}}}
        mpi: {{eager_threshold: 65536, rendezvous: get}}
        progress: {{dedicated_core: {{per: {per}, cores: 1}}}}
        placement: {{policy: numa}}
        """)
    trace = write_ranks(tmp_path, ["0 init\n0 compute 1e7\n0 finalize", "1 init\n1 compute 1e7\n1 finalize"])
    out = tmp_path / "r.json"
    done = run_cli("replay", str(trace), "--platform", str(path), "--progress", "dedicated-core", "--out", str(out))
    assert done.returncode == 0, done.stderr
    compute = [r["compute_time"] for r in json.loads(out.read_text())["ranks"]]
    # A domain whose only core is reserved gives its rank half a core: the computation takes twice as long.
    assert compute == [pytest.approx((2 if s else 1) * 1e7 / SPEED, rel=1e-6) for s in slowed]
