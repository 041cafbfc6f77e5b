"""What each progress mechanism does with cores, NICs and copies: expected times from the platform's parameters
(analytic_platform.py), one test per behaviour the mechanism stands for. Progress threads: test_progress_threads.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analytic_platform import (BIG, COMPUTE, CONTROL, LATENCY, NIC_BANDWIDTH, NO_POLLING, OVERHEAD, SPEED, T_DATA,
                               TWO_COMPUTING_RANKS, W, copy, platform, replay, steps, transfer)
from conftest import write_platform


# ---------------------------------------------------------------- cores are resources

@pytest.mark.parametrize("progress,settings,slowdown", [
    ("none", (), 1), ("ideal", (), 1), ("offload", (), 1),
    ("thread", (), 1),                                   # 2 ranks + 2 polling shares of 10 % fit in 4 cores
    ("dedicated-core", ("dedicated-cores:2",), 1),      # 4 - 2 reserved = 2 cores for 2 ranks
    ("dedicated-core", ("dedicated-cores:3",), 2),      # 4 - 3 reserved = 1 core shared by 2 ranks
])
def test_ranks_compute_on_the_cores_their_node_has_left(tmp_path: Path, progress: str, settings: tuple[str, ...],
                                                        slowdown: int) -> None:
    results = replay(tmp_path, TWO_COMPUTING_RANKS, progress, settings=settings, nodes=1, cores=4, ranks_per_node=2)
    assert [r["compute_time"] for r in results["ranks"]] == [pytest.approx(slowdown * COMPUTE, rel=1e-6)] * 2


@pytest.mark.parametrize("per,slowdowns", [("node", [2, 1, 2, 1]), ("numa", [2, 2, 2, 2])])
def test_dedicated_cores_are_reserved_per_node_or_per_numa_domain(tmp_path: Path, per: str,
                                                                 slowdowns: list[int]) -> None:
    # One node of two NUMA domains with two cores each; ranks alternate between the domains (0, 2 on d0).
    path = write_platform(tmp_path, f"""\
        name: numa2
        nodes: 1
        node: {{sockets: 2, numa_per_socket: 1, cores_per_numa: 2, core_speed: {SPEED},
               memory: {{bandwidth: 1.0e+10, latency: 0}}, inter_socket: {{bandwidth: 1.0e+10, latency: 0}}}}
        interconnect: {{topology: flat, link: {{bandwidth: 1.0e+10, latency: 0}}}}
        mpi: {{eager_threshold: 65536, rendezvous: get}}
        progress: {{dedicated_core: {{per: {per}, cores: 1}}}}
        placement: {{policy: numa}}
        """)
    ranks = [f"{r} init\n{r} compute {W}\n{r} finalize" for r in range(4)]
    results = replay(tmp_path, ranks, "dedicated-core", platform_file=path)
    # Per node, the reserved core is on the first rank's domain: its two ranks share the one core left there.
    assert [r["compute_time"] for r in results["ranks"]] == [pytest.approx(s * COMPUTE, rel=1e-6) for s in slowdowns]


@pytest.mark.parametrize("poll", ["yes", "no"])
def test_a_rank_polling_in_its_wait_keeps_its_core_busy(tmp_path: Path, poll: str) -> None:
    # Two ranks on one core: rank 0 waits for rank 1, which computes first. A polling wait (Open MPI's and MPICH's
    # default) is a runnable task that gets half of the core; a rank that sleeps in its wait leaves it all.
    ranks = ["0 init\n0 recv 1 0 8\n0 finalize", f"1 init\n1 compute {W}\n1 send 0 0 8\n1 finalize"]
    results = replay(tmp_path, ranks, "none", nodes=1, cores=1, ranks_per_node=2, settings=(f"poll-in-wait:{poll}",))
    # Both post at once on the one core, so rank 1 computes at half speed while rank 0 posts its receive.
    expected = 2 * COMPUTE if poll == "yes" else COMPUTE + OVERHEAD
    assert results["ranks"][1]["compute_time"] == pytest.approx(expected, rel=1e-6)


def test_reserving_every_core_of_a_host_is_bad_input(tmp_path: Path) -> None:
    done = replay(tmp_path, TWO_COMPUTING_RANKS, "dedicated-core", settings=("dedicated-cores:2",), expect=2,
                  nodes=1, cores=2, ranks_per_node=2)
    assert "no core would be left" in done["stderr"] and "dedicated-cores" in done["stderr"]


@pytest.mark.parametrize("reserved", [1, 2])
def test_each_reserved_core_runs_its_own_agent(tmp_path: Path, reserved: int) -> None:
    # Two ranks of node 0 receive an eager message each at the same moment; a step costs 1 ms on a reserved core.
    step_cost = 1e-3
    ranks = ["0 init\n0 irecv 2 0 1024\n0 compute 1e8\n0 wait 2 0 0\n0 finalize",
             "1 init\n1 irecv 3 0 1024\n1 compute 1e8\n1 wait 3 1 0\n1 finalize",
             "2 init\n2 send 0 0 1024\n2 finalize", "3 init\n3 send 1 0 1024\n3 finalize"]
    timeline = tmp_path / "t.jsonl"
    replay(tmp_path, ranks, "dedicated-core", timeline=timeline, cores=4, ranks_per_node=2,
           settings=(f"dedicated-cores:{reserved}", f"dedicated-step-cost:{step_cost}"))
    first, second = sorted(s["t"] for s in steps(timeline) if s["step"] == "match")
    # One core serves both ranks in turn (its step and the copy out of the eager buffer); two serve one each.
    expected_gap = step_cost + copy(1024) if reserved == 1 else 0.0
    assert second - first == pytest.approx(expected_gap, rel=1e-6, abs=1e-12)


@pytest.mark.parametrize("progress,cores", [("thread", 2), ("dedicated-core", 3), ("none", 1)])
def test_a_deadlock_after_many_waits_is_still_seen_at_once(tmp_path: Path, progress: str, cores: int) -> None:
    # Every rank waits, then runs again, ten times (background loads and polling stop and start each time), then
    # rank 0 waits for a message nobody sends: the deadlock is reported at the time it happens, not when some
    # endless load would end.
    exchanges = "\n".join(f"{{r}} sendRecv 8 {{p}} 8 {{p}}" for _ in range(10))
    ranks = [f"0 init\n{exchanges.format(r=0, p=1)}\n0 compute 1e6\n0 recv 1 9 8\n0 finalize",
             f"1 init\n{exchanges.format(r=1, p=0)}\n1 compute 1e6\n1 finalize"]
    done = replay(tmp_path, ranks, progress, nodes=1, cores=cores, ranks_per_node=2, expect=3)
    when = float(done["stderr"].split("Deadlock at simulated time ")[1].split(" s")[0])
    assert when < 0.01


# ---------------------------------------------------------------- NICs

EAGER_AND_RENDEZVOUS = [
    "0 init\n0 send 1 0 1024\n0 isend 1 1 16777216\n0 wait 0 1 1\n0 finalize",
    f"1 init\n1 irecv 0 0 1024\n1 irecv 0 1 16777216\n1 compute {W}\n1 waitall\n1 finalize",
]


@pytest.mark.parametrize("offload,expected", [
    ("[matching, rendezvous]", {(1, "match", "nic"), (1, "match-rendezvous", "nic"), (1, "transfer-done", "nic"),
                                (0, "finish", "nic")}),
    ("[matching]", {(1, "match", "nic"), (1, "match-rendezvous", "rank"), (1, "transfer-done", "rank"),
                    (0, "finish", "rank")}),
    ("[]", {(1, "match", "rank"), (1, "match-rendezvous", "rank"), (1, "transfer-done", "rank"),
            (0, "finish", "rank")}),
])
def test_a_nic_runs_the_steps_it_offloads_and_no_others(tmp_path: Path, offload: str, expected: set) -> None:
    timeline = tmp_path / "t.jsonl"
    replay(tmp_path, EAGER_AND_RENDEZVOUS, "offload", timeline=timeline, offload=offload)
    assert {(e["rank"], e["step"], e["by"]) for e in steps(timeline)} == expected


@pytest.mark.parametrize("intra_node,executor", [("no", "rank"), ("yes", "nic")])
def test_messages_inside_a_node_use_shared_memory_unless_routed_through_the_nic(tmp_path: Path, intra_node: str,
                                                                                executor: str) -> None:
    timeline = tmp_path / "t.jsonl"
    replay(tmp_path, EAGER_AND_RENDEZVOUS, "offload", timeline=timeline, nodes=1, ranks_per_node=2,
           settings=(f"offload-intra-node:{intra_node}",))
    assert {e["by"] for e in steps(timeline)} == {executor}


def test_each_nic_is_an_agent_of_its_own(tmp_path: Path) -> None:
    # Two NUMA domains per node, each with its NIC; a NIC step takes 1 ms. Ranks 0 and 1 (node 0, one per domain)
    # each receive an eager message through their own NIC at the same moment: both match at once.
    path = write_platform(tmp_path, f"""\
        name: twonics
        nodes: 2
        node: {{sockets: 2, numa_per_socket: 1, cores_per_numa: 2, core_speed: {SPEED},
               memory: {{bandwidth: 1.0e+12, latency: 0}}, inter_socket: {{bandwidth: 1.0e+12, latency: 0}}}}
        nics: [{{numa: 0, bandwidth: {NIC_BANDWIDTH}, latency: 1.0e-6, offload: [matching, rendezvous]}},
               {{numa: 1, bandwidth: {NIC_BANDWIDTH}, latency: 1.0e-6, offload: [matching, rendezvous]}}]
        interconnect: {{topology: flat, link: {{bandwidth: 1.0e+12, latency: 0}}}}
        mpi: {{eager_threshold: 65536, rendezvous: get}}
        progress: {{offload: {{step_latency: 1.0e-3}}}}
        placement: {{policy: numa, ranks_per_node: 2}}
        """)
    ranks = ["0 init\n0 recv 2 0 1024\n0 finalize", "1 init\n1 recv 3 0 1024\n1 finalize",
             "2 init\n2 send 0 0 1024\n2 finalize", "3 init\n3 send 1 0 1024\n3 finalize"]
    timeline = tmp_path / "t.jsonl"
    replay(tmp_path, ranks, "offload", platform_file=path, timeline=timeline)
    first, second = sorted(e["t"] for e in steps(timeline) if e["step"] == "match")
    assert second == pytest.approx(first, rel=1e-6)


# ---------------------------------------------------------------- copies

EAGER_TO_A_BUSY_RECEIVER = ["0 init\n0 send 1 0 1024\n0 finalize",
                            f"1 init\n1 compute {W}\n1 recv 0 0 1024\n1 finalize"]


@pytest.mark.parametrize("progress,settings,receiver_copies", [
    ("none", (), 1),                                # matched in the recv's wait: copied once, into the receive
    ("none", ("rank-progress:every-call",), 2),     # matched as unexpected on entry to recv: copied twice
    ("thread", NO_POLLING, 2),                      # the thread queues it as unexpected, the recv copies it out
    ("offload", (), 1),                             # the NIC puts it in an overflow buffer by DMA; one CPU copy
])
def test_eager_messages_are_copied_at_both_ends(tmp_path: Path, progress: str, settings: tuple[str, ...],
                                                receiver_copies: int) -> None:
    results = replay(tmp_path, EAGER_TO_A_BUSY_RECEIVER, progress, settings=settings)
    c, s = copy(1024), OVERHEAD
    sender, receiver = results["ranks"]
    assert sender["end_time"] == pytest.approx(OVERHEAD + c, rel=1e-6)
    assert sender["copy_cpu_time"] == pytest.approx(c, rel=1e-6)
    assert receiver["copy_cpu_time"] == pytest.approx(receiver_copies * c, rel=1e-6)
    # The rank's own work after its computation: the receive's overhead, and its matching steps and copies.
    own_steps = 2 if "rank-progress:every-call" in settings else 1
    own_copies = receiver_copies if progress == "none" else 1
    expected = COMPUTE + OVERHEAD + own_steps * s + own_copies * c
    assert receiver["end_time"] == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("memory_bandwidth", [1e12, 2e8])
def test_a_copy_also_crosses_the_memory_bus(tmp_path: Path, memory_bandwidth: float) -> None:
    # The sender's eager copy of 32 KiB: CPU work at the core's copy bandwidth, and twice the bytes (read and
    # write) through its NUMA domain's memory bus; it takes the longer of the two.
    size = 32768
    ranks = [f"0 init\n0 send 1 0 {size}\n0 finalize", f"1 init\n1 recv 0 0 {size}\n1 finalize"]
    results = replay(tmp_path, ranks, "none", memory_bandwidth=memory_bandwidth)
    expected = OVERHEAD + max(copy(size), 2 * size / memory_bandwidth)
    assert results["ranks"][0]["end_time"] == pytest.approx(expected, rel=1e-6)
    assert results["ranks"][0]["copy_cpu_time"] == pytest.approx(copy(size), rel=1e-6)


def test_a_shared_memory_single_copy_keeps_the_receivers_core_busy(tmp_path: Path) -> None:
    # One core, two ranks: rank 0 computes while rank 1 pulls 16 MiB (rendezvous-get in shared memory): the copy
    # is rank 1's CPU work and shares the core with rank 0's computation, so it takes twice its time.
    ranks = ["0 init\n0 isend 1 0 16777216\n0 compute 1e8\n0 wait 0 1 0\n0 finalize",
             "1 init\n1 irecv 0 0 16777216\n1 wait 0 1 0\n1 finalize"]
    results = replay(tmp_path, ranks, "none", nodes=1, cores=1, ranks_per_node=2)
    s = OVERHEAD
    posted = 2 * OVERHEAD                       # both post at once on the one core
    arrival = posted + 64 / 1e12                # the request-to-send crosses the memory bus
    expected = arrival + 2 * s + 2 * copy(BIG) + 2 * s
    assert results["ranks"][1]["end_time"] == pytest.approx(expected, rel=1e-6)
    assert results["ranks"][1]["copy_cpu_time"] == pytest.approx(copy(BIG), rel=1e-6)


# ---------------------------------------------------------------- blocking sends as the capture saw them

EXCHANGE_16K = ["0 init\n0 send 1 0 16384\n0 recv 1 0 16384\n0 finalize",
                "1 init\n1 send 0 0 16384\n1 recv 0 0 16384\n1 finalize"]


@pytest.mark.parametrize("progress", ["none", "thread", "dedicated-core", "offload"])
def test_a_16k_exchange_at_an_8k_threshold_completes_with_buffered_sends(tmp_path: Path, progress: str) -> None:
    timeline = tmp_path / "t.jsonl"
    replay(tmp_path, EXCHANGE_16K, progress, timeline=timeline, settings=("eager-threshold:8192",))
    events = [json.loads(line) for line in timeline.read_text().splitlines()]
    # Each send returns once its data is copied aside (SMPI buffers blocking sends below 64 KiB).
    recv_entries = [e["t"] for e in events if e.get("action") == "recv" and e.get("state") == "mpi"]
    assert recv_entries == [pytest.approx(OVERHEAD + copy(16384), rel=1e-6)] * 2


@pytest.mark.parametrize("progress", ["none", "thread", "dedicated-core", "offload"])
def test_strict_blocking_sends_deadlock_and_the_report_names_the_cycle(tmp_path: Path, progress: str) -> None:
    done = replay(tmp_path, EXCHANGE_16K, progress, settings=("eager-threshold:8192", "buffered-send-threshold:0"),
                  expect=3)
    assert "waiting cycle: rank 0 (send 16384 B) -> rank 1 (send 16384 B) -> rank 0" in done["stderr"]
    assert "progsim/buffered-send-threshold" in done["stderr"]


# ---------------------------------------------------------------- where and what MPI calls progress

PROGRESS_IN_AN_ISEND = [
    "0 init\n0 isend 1 0 16777216\n0 irecv 1 5 8\n0 wait 0 1 0\n0 wait 1 0 5\n0 finalize",
    "1 init\n1 irecv 0 0 16777216\n1 compute 5e6\n1 isend 0 5 8\n1 compute 5e6\n1 wait 0 1 0\n1 finalize",
]


@pytest.mark.parametrize("where", ["wait", "every-call"])
def test_none_progresses_in_wait_and_test_or_in_every_call(tmp_path: Path, where: str) -> None:
    results = replay(tmp_path, PROGRESS_IN_AN_ISEND, "none", settings=(f"rank-progress:{where}",))
    s, half = OVERHEAD, 5e-3
    own = OVERHEAD + half + OVERHEAD + copy(8) + half  # irecv, compute, the isend of 8 B (eager), compute
    if where == "every-call":  # the isend matched the request-to-send: the pull ran during the second half
        expected = own + s + s
    else:  # nothing moved until the wait
        expected = own + s + T_DATA + s
    assert results["ranks"][1]["end_time"] == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("progress", ["none", "thread", "dedicated-core", "offload"])
def test_a_wait_call_costs_a_call_even_with_nothing_pending(tmp_path: Path, progress: str) -> None:
    calls = ["0 waitall"] * 111  # (a wait or a test must name a request that was posted)
    ranks = ["0 init\n" + "\n".join(calls) + "\n0 finalize", "1 init\n1 finalize"]
    results = replay(tmp_path, ranks, progress, settings=("overhead-call:1e-6",))
    assert results["ranks"][0]["end_time"] == pytest.approx(111 * 1e-6, rel=1e-6)


# ---------------------------------------------------------------- protocol details

@pytest.mark.parametrize("depth", [1, 3])
def test_a_pipelined_rendezvous_keeps_a_window_of_fragments_in_flight(tmp_path: Path, depth: int) -> None:
    fragment = 1024 * 1024
    ranks = [f"0 init\n0 isend 1 0 {3 * fragment}\n0 wait 0 1 0\n0 finalize",
             f"1 init\n1 irecv 0 0 {3 * fragment}\n1 wait 0 1 0\n1 finalize"]
    results = replay(tmp_path, ranks, "none", rendezvous="pipelined",
                     settings=(f"fragment-size:{fragment}", f"pipeline-depth:{depth}"))
    s = OVERHEAD
    clear_to_send = OVERHEAD + CONTROL + s + CONTROL + s  # request-to-send, matched; clear-to-send, handled
    if depth == 3:  # three fragments share the NIC at once, then three steps (the first carries the envelope)
        expected = clear_to_send + LATENCY + 3 * fragment / NIC_BANDWIDTH + 3 * s
    else:  # one at a time: a latency, a fragment and a step each
        expected = clear_to_send + 3 * LATENCY + (3 * fragment + 16) / NIC_BANDWIDTH + 3 * s
    assert results["ranks"][0]["end_time"] == pytest.approx(expected, rel=1e-6)
    assert transfer(fragment) > s  # the window matters only because a fragment outlasts a step
