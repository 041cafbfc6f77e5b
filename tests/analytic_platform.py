"""Small platforms whose times follow from their parameters, and replays of inline traces on them.

The network is SimGrid's CM02 model without cross-traffic, so that one transfer of S bytes between two nodes takes
exactly L + S / B: L = the two NIC latencies, B = the NIC bandwidth (the bottleneck of the route).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from conftest import run_cli, write_platform, write_ranks

NIC_LATENCY = 1e-6
NIC_BANDWIDTH = 1e10
SPEED = 1e9
OVERHEAD = 1e-6  # send, receive and step overheads
COPY_BANDWIDTH = 1e9  # B/s a core copies
CONTROL_BYTES = 64
ENVELOPE = 16
LATENCY = 2 * NIC_LATENCY
POLL_INTERVAL, POLL_COST = 9e-6, 1e-6
SIMPLE_NETWORK = ["network/model:CM02", "network/crosstraffic:0"]
# The network models that RouteDelay follows, with and without cross-traffic, SMPI's factors and TCP-gamma's cap.
NETWORKS = {
    "CM02": SIMPLE_NETWORK,
    "CM02 cross-traffic": ["network/model:CM02", "network/crosstraffic:1"],
    "LV08": ["network/model:LV08", "network/crosstraffic:1"],
    "SMPI": ["network/model:SMPI", "network/crosstraffic:1"],
    "SMPI, its own factors": ["network/model:SMPI", "network/crosstraffic:0",
                              "smpi/lat-factor:0:3.5;32:2.5;1000:1.5", "smpi/bw-factor:0:0.5;100:0.8"],
    "CM02, TCP-gamma binds": ["network/model:CM02", "network/crosstraffic:1", "network/TCP-gamma:1000"],
}


def transfer(size: int) -> float:
    return LATENCY + size / NIC_BANDWIDTH


def copy(size: int) -> float:
    return size / COPY_BANDWIDTH


CONTROL = transfer(CONTROL_BYTES)
BIG = 16 * 1024 * 1024
T_DATA = transfer(BIG + ENVELOPE)

# The mechanisms' tests' workloads (test_mechanisms.py, test_progress_threads.py)
W = 1e7  # flops of a computation: 10 ms on one core
COMPUTE = W / SPEED
TWO_COMPUTING_RANKS = [f"0 init\n0 compute {W}\n0 finalize", f"1 init\n1 compute {W}\n1 finalize"]
NO_POLLING = ("thread-poll-interval:0", "thread-poll-cost:0")


def platform(directory: Path, cores: int = 2, rendezvous: str = "get", nodes: int = 2, ranks_per_node: int = 1,
             extra_mpi: str = "", extra_progress: str = "", offload: str = "[matching, rendezvous]",
             memory_bandwidth: float = 1e12, memory_latency: float = 0) -> Path:
    return write_platform(directory, f"""\
        name: analytic
        nodes: {nodes}
        node:
          sockets: 1
          numa_per_socket: 1
          cores_per_numa: {cores}
          core_speed: {SPEED}
          copy_bandwidth: {COPY_BANDWIDTH}
          memory: {{bandwidth: {memory_bandwidth}, latency: {memory_latency}}}
        nics: [{{numa: 0, bandwidth: {NIC_BANDWIDTH}, latency: {NIC_LATENCY}, offload: {offload}}}]
        interconnect: {{topology: flat, link: {{bandwidth: 1.0e+12, latency: 0}}}}
        mpi:
          eager_threshold: 65536
          rendezvous: {rendezvous}
          overheads: {{send: {OVERHEAD}, recv: {OVERHEAD}, step: {OVERHEAD}, call: 0}}
          {extra_mpi}
        progress:
          thread: {{poll_interval: {POLL_INTERVAL}, poll_cost: {POLL_COST}}}
          dedicated_core: {{per: node, step_cost: {OVERHEAD}}}
          offload: {{step_latency: {OVERHEAD}}}
          {extra_progress}
        placement: {{policy: block, ranks_per_node: {ranks_per_node}}}
        """)


def replay(directory: Path, ranks: list[str], progress: str, platform_file: Path | None = None,
           settings: tuple[str, ...] = (), timeline: Path | None = None, expect: int = 0,
           **platform_options: Any) -> dict:
    """Replays the inline rank traces; returns the results (or, when `expect` is not 0, the finished process)."""
    trace = write_ranks(directory, ranks)
    out = directory / f"{progress}.json"
    path = platform_file or platform(directory, **platform_options)
    arguments = [arg for setting in (*SIMPLE_NETWORK, *settings) for arg in ("--set", setting)]
    extra = ["--timeline", str(timeline)] if timeline else []
    done = run_cli("replay", str(trace), "--platform", str(path), "--progress", progress, "--out", str(out),
                   *arguments, *extra)
    assert done.returncode == expect, done.stderr
    if expect != 0:
        return {"stderr": done.stderr}
    return json.loads(out.read_text())


def steps(timeline: Path) -> list[dict]:
    return [json.loads(line) for line in timeline.read_text().splitlines() if '"step"' in line]


def ping_pong(ranks: int, ping: int, pong: int, size: int, round_trips: int, other: Callable[[int], str]) -> list[str]:
    """Rank traces where `ping` and `pong` exchange `size` bytes `round_trips` times (blocking send, then receive)
    and every other rank r runs `other(r)`."""
    traces = []
    for r in range(ranks):
        if r in (ping, pong):
            peer = pong if r == ping else ping
            send, recv = f"{r} send {peer} 0 {size}", f"{r} recv {peer} 0 {size}"
            body = "\n".join([send, recv] * round_trips if r == ping else [recv, send] * round_trips)
        else:
            body = other(r)
        traces.append(f"{r} init\n{body}\n{r} finalize")
    return traces
