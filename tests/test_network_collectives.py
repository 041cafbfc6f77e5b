"""Collectives that the network runs in hardware (mpi/NetworkCollectives; NICs with `offload: [collectives]` under
`offload`), against the formula of their model.

Expected values from the analytic platform (tests/analytic_platform.py): NICs of B = 10 GB/s, links of 1 TB/s, so
the collective bandwidth is B; a rank pays its send overhead O to hand its part to the NIC. With the network's
latency Lc (offload-collective-latency), a barrier, bcast, reduce or allreduce of S bytes that every rank enters at
time 0 ends at O + Lc + S / B on every rank, whatever the rank count: Gropp's "all_reduce is effectively
P-independent" on Blue Gene/Q (../shared/literature/gropp-communication-needs-slides.txt, "all_reduce(1) is only
4 alpha" at 524 288 ranks). Software algorithms, as the other mechanisms run them, take log2 p rounds or more.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analytic_platform import NIC_BANDWIDTH, OVERHEAD, replay

COLLECTIVE_LATENCY = 5e-6
SETTINGS = (f"offload-collective-latency:{COLLECTIVE_LATENCY}",)
WITH_COLLECTIVES = "[matching, rendezvous, collectives]"
SIZE = 1 << 20
COMPUTE = 0.02  # seconds at the analytic platform's 1 Gflop/s


def end(tmp_path: Path, lines: list[str], progress: str, nodes: int, offload: str = WITH_COLLECTIVES,
        settings: tuple[str, ...] = ()) -> float:
    ranks = [f"{r} init\n" + "\n".join(line.format(r=r) for line in lines) + f"\n{r} finalize" for r in range(nodes)]
    tmp_path.mkdir(parents=True, exist_ok=True)
    results = replay(tmp_path, ranks, progress, nodes=nodes, offload=offload, settings=SETTINGS + settings)
    return max(r["end_time"] for r in results["ranks"])


@pytest.mark.parametrize("nodes", [4, 16, 64])
@pytest.mark.parametrize("call,size", [("allreduce {size} 0", SIZE), ("bcast {size} 0", SIZE),
                                       ("reduce {size} 0 0", SIZE), ("barrier", 0)])
def test_the_network_runs_it_in_its_latency_plus_its_bytes_whatever_the_rank_count(tmp_path: Path, nodes: int,
                                                                                  call: str, size: int) -> None:
    line = "{r} " + call.format(size=size)
    assert end(tmp_path, [line], "offload", nodes) == \
        pytest.approx(OVERHEAD + COLLECTIVE_LATENCY + size / NIC_BANDWIDTH, abs=1e-8)  # SimGrid rounds to 1 ns


def test_software_allreduce_grows_with_the_rank_count_where_the_network_does_not(tmp_path: Path) -> None:
    line = [f"{{r}} allreduce {SIZE} 0"]
    software = [end(tmp_path / f"none-{n}", line, "none", n) for n in (4, 64)]
    hardware = [end(tmp_path / f"offload-{n}", line, "offload", n) for n in (4, 64)]
    assert software[1] > 2 * software[0]
    assert hardware[1] == pytest.approx(hardware[0], rel=1e-9)
    assert hardware[1] < software[1]


def test_without_the_offload_mechanism_the_host_runs_the_algorithm(tmp_path: Path) -> None:
    # The platform's hardware is used by `offload` only: under `none` the same NICs run SMPI's software allreduce.
    line = [f"{{r}} allreduce {SIZE} 0"]
    assert end(tmp_path / "a", line, "none", 16) == \
        pytest.approx(end(tmp_path / "b", line, "none", 16, offload="[matching, rendezvous]"), rel=1e-9)


def test_a_nonblocking_allreduce_completes_during_the_computation(tmp_path: Path) -> None:
    # No round for the host to start: the network completes it while the ranks compute, so the wait returns at once
    # (Blue Gene/Q's collective network). An offloading NIC without it runs Open MPI's rounds (Rabenseifner: 8 for
    # 16 ranks) one at a time, each next one started by the host in its wait: about 2 S more go through each NIC.
    lines = [f"{{r}} iallreduce {SIZE} 0", f"{{r}} compute {COMPUTE * 1e9:.0f}", "{r} wait -1 -1 -4446"]
    assert end(tmp_path / "hw", lines, "offload", 16) == pytest.approx(OVERHEAD + COMPUTE, abs=1e-8)
    rounds = end(tmp_path / "sw", lines, "offload", 16, offload="[matching, rendezvous]",
                 settings=("nbc-algorithms:libnbc",))
    assert rounds > COMPUTE + SIZE / NIC_BANDWIDTH


def test_other_collectives_stay_with_the_host(tmp_path: Path) -> None:
    # Combining trees reduce and broadcast; an alltoall is the host's algorithm even on such a network.
    line = [f"{{r}} alltoall {SIZE // 16} {SIZE // 16}"]
    assert end(tmp_path / "a", line, "offload", 16) == \
        pytest.approx(end(tmp_path / "b", line, "offload", 16, offload="[matching, rendezvous]"), rel=1e-9)


def test_a_rank_that_never_joins_is_named_not_waited_for(tmp_path: Path) -> None:
    # Ranks 0-2 hand their parts to the network; rank 3 waits for a message nobody sends instead.
    ranks = [f"{r} init\n{r} allreduce {SIZE} 0\n{r} finalize" for r in range(3)] + ["3 init\n3 recv 0 0 64\n3 finalize"]
    tmp_path.mkdir(parents=True, exist_ok=True)
    done = replay(tmp_path, ranks, "offload", nodes=4, offload=WITH_COLLECTIVES, settings=SETTINGS, expect=3)
    assert "pending part in a collective that the network runs" in done["stderr"]
    assert "rank 3" in done["stderr"]
