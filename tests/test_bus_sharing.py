"""Memory buses shared in closed form: `progsim/bus-sharing` (simulator/resources/BusShares.hpp).

Where only flows to a NUMA domain's memory cross its bus, the engine shares the bus itself, as SimGrid's network model
would share the link (tests/cpp/test_bus_shares.cpp holds each flow's end to SimGrid's within 1 ns), instead of making
each copy, stream and DMA a SimGrid transfer. The reference here is the same run with `bus-sharing: simgrid`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analytic_platform import replay
from conftest import run_cli, write_platform, write_ranks
from test_control_messages import same_times
from test_run_ahead import CASES

# Four ranks per node on a slow bus: eager copies, pulls and streams contend on it, with DMA of messages between nodes.
CONTENTION = [
    f"{r} init\n{r} irecv {(r + 7) % 8} 0 40000\n{r} isend {(r + 1) % 8} 0 40000\n{r} compute 2e5 4000000\n"
    f"{r} irecv {(r + 4) % 8} 1 3000000\n{r} isend {(r + 4) % 8} 1 3000000\n{r} compute 1e5\n{r} waitall\n"
    f"{r} allreduce 100000 1e5\n{r} finalize"
    for r in range(8)
]

# Each flow ends within 1 ns of SimGrid's, and these runs have a few hundred flows.
PRECISION = 1e-8


def run_both(folder: Path, ranks: list[str], progress: str, *settings: str) -> dict[str, dict]:
    runs = {}
    for sharing in ("closed-form", "simgrid"):
        path = folder / sharing
        path.mkdir(parents=True)
        runs[sharing] = replay(path, ranks, progress, cores=8, ranks_per_node=4, nodes=len(ranks) // 4 or 1,
                               memory_bandwidth=4e9, memory_latency=1e-7, offload="[]",
                               settings=(*settings, f"progsim/bus-sharing:{sharing}"))
    return runs


@pytest.mark.parametrize("progress", ["none", "thread", "dedicated-core", "offload", "ideal"])
def test_a_bus_shared_in_closed_form_gives_simgrids_times(tmp_path: Path, progress: str) -> None:
    for name, ranks in CASES.items():
        runs = run_both(tmp_path / name.replace(" ", "-").replace(",", ""), ranks, progress)
        same_times(runs["closed-form"], runs["simgrid"], PRECISION)
    # Eight ranks streaming, copying and sending at the same dates: the same times when each rank pauses for each
    # piece of CPU work and runs each of its steps itself. Running ahead, or with their steps run by the kernel, ranks
    # whose streams end at one date resume in another order (BusShares ends them in the order they began, SimGrid in
    # its heap's), and the ties fall otherwise: 2.5e-4 here under `none` running ahead, 1.4e-3 (2.9e-6 s) under
    # `thread` with the kernel's steps (a rank's steps take effect from SimGrid's timers, before its ended transfers).
    runs = run_both(tmp_path / "contention", CONTENTION, progress, "progsim/run-ahead:no",
                    "progsim/steps-in-kernel:no")
    same_times(runs["closed-form"], runs["simgrid"], PRECISION)
    runs = run_both(tmp_path / "contention-ahead", CONTENTION, progress)
    assert runs["closed-form"]["simulated_time"] == pytest.approx(runs["simgrid"]["simulated_time"], rel=1e-3)


def shared_buses(tmp_path: Path, node: str, placement: str = "{policy: block, ranks_per_node: 4}",
                 settings: tuple[str, ...] = ()) -> int:
    """How many buses the engine shares in closed form (its verbose log), on two nodes of `node`."""
    tmp_path.mkdir(parents=True)
    path = write_platform(tmp_path, f"""\
        name: buses
        nodes: 2
        node: {node}
        nics: [{{numa: 0, bandwidth: 1.0e+10, latency: 1.0e-6}}]
        interconnect: {{topology: flat, link: {{bandwidth: 1.0e+10, latency: 1.0e-7}}}}
        mpi: {{eager_threshold: 65536, rendezvous: get}}
        placement: {placement}
        """)
    trace = tmp_path / "trace"
    trace.mkdir()
    listing = write_ranks(trace, CONTENTION)
    arguments = [arg for setting in settings for arg in ("--set", setting)]
    done = run_cli("replay", str(listing), "--platform", str(path), "--progress", "none", "--log",
                   "progsim_memory.thres:verbose", *arguments)
    assert done.returncode == 0, done.stderr
    lines = [text for text in done.stderr.splitlines() if "shared in closed form" in text]
    assert len(lines) <= 1, done.stderr[-2000:]
    return int(lines[0].split("]")[-1].split()[0]) if lines else 0  # no line: every bus is SimGrid's


ONE_DOMAIN = "{sockets: 1, numa_per_socket: 1, cores_per_numa: 4, core_speed: 1.0e+9, memory: {bandwidth: 2.0e+10, latency: 1.0e-7}}"
TWO_DOMAINS = ("{sockets: 1, numa_per_socket: 2, cores_per_numa: 2, core_speed: 1.0e+9, memory: {bandwidth: 2.0e+10, "
               "latency: 1.0e-7}, inter_socket: {bandwidth: 1.0e+10, latency: 4.0e-8}}")


def test_only_buses_that_flows_to_their_memory_alone_cross_are_shared_in_closed_form(tmp_path: Path) -> None:
    assert shared_buses(tmp_path / "a", ONE_DOMAIN) == 2
    # Domain 1's data reaches its NIC (in domain 0) through the ports on its messages' network route: its DMA loads
    # its bus alone, and every bus is shared in closed form.
    assert shared_buses(tmp_path / "b", TWO_DOMAINS) == 4
    # Data in domain 0 for every rank: domain 1's cores stream to it through the ports.
    assert shared_buses(tmp_path / "c", TWO_DOMAINS, settings=("progsim/data-numa:0",)) == 0
    assert shared_buses(tmp_path / "d", ONE_DOMAIN, settings=("progsim/bus-sharing:simgrid",)) == 0
    # A calibrated bus's capacity follows its flow count: not a linear sharing.
    calibrated = ONE_DOMAIN[:-1] + ", memory_contention: {policy: calibrated, stream_curve: {1: 4.0e+9, 4: 8.0e+9}}}"
    assert shared_buses(tmp_path / "e", calibrated) == 0
