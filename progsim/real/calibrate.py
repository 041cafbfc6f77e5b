"""Calibration: a platform fitted, through the simulator, to what a real MPI library does on this machine
(progsim/real/calibration_probe.py measures it: ping-pongs, protocols, what its threads take from a rank's core).

Fit the model's free parameters (latency and bandwidth of the path, the copy bandwidth of a core) by least squares on
log(simulated / measured) half round trips, every simulated value a replay of the same ping-pong by progsim-engine
under `none` (a real library without asynchronous progress). The per-call overheads are the measured post and test
times themselves. SimGrid's network model is CM02 without cross-traffic, so that the fitted latency and bandwidth
are what a transfer takes (SMPI's default factors were fitted on another cluster).

The result is a platform YAML whose every value says where it comes from, and the residual per size.
"""

from __future__ import annotations

import argparse
import copy
import datetime
import math
import shlex
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import yaml

from progsim.engine_info import REPOSITORY, engine_default
from progsim.errors import InputError
from progsim.platform.annotated_yaml import annotated_lines, leaves
from progsim.platform.yamlsource import set_path
from progsim.real.calibration_probe import PROBE_S, PROBE_SIZES, Measured, measure_library
from progsim.real.mpi_library import LIBRARIES, TRANSPORTS, parse_env

PINGPONG_ITERATIONS = 4  # simulated: every iteration takes the same time, the first included
SIMULATED_MECHANISM = "none"
LATE_WEIGHT = 1.0  # the late receive counts as one ping-pong size in the least squares


# ---- simulating ---------------------------------------------------------------------------------------------------

def pingpong_lines(size: int, iterations: int = PINGPONG_ITERATIONS) -> list[list[str]]:
    """Blocking ping-pongs between ranks 0 and 1, as the benchmark's: send, then receive the same size back."""
    ping = ["0 init", *[line for _ in range(iterations) for line in (f"0 send 1 0 {size}", f"0 recv 1 0 {size}")],
            "0 finalize"]
    pong = ["1 init", *[line for _ in range(iterations) for line in (f"1 recv 0 0 {size}", f"1 send 0 0 {size}")],
            "1 finalize"]
    return [ping, pong]


def simulated_half_rtt(compiled: Any, size: int) -> float:
    from progsim.engine import replay
    from progsim.workloads.tracegen import write_trace

    with tempfile.TemporaryDirectory(prefix="progsim-calibrate-") as scratch:
        trace = write_trace(pingpong_lines(size), Path(scratch) / "trace")
        run = replay(trace, compiled, SIMULATED_MECHANISM, Path(scratch) / "results.json")
    if run.returncode != 0 or run.results is None:
        raise InputError(f"{compiled.directory}: the simulated ping-pong of {size} B failed: {run.stderr[-500:]}")
    return float(run.results["simulated_time"]) / (2 * PINGPONG_ITERATIONS)


def simulated_late_receive(compiled: Any, flops: float) -> float:
    """The probe's receiver in the simulator: its time in MPI when its smallest message arrived while it computed."""
    from progsim.workloads import overlap

    cell = overlap.Cell(PROBE_SIZES[0], flops, "receiver")
    with tempfile.TemporaryDirectory(prefix="progsim-calibrate-") as scratch:
        ranks = overlap.replay_ranks(overlap.overlapped(cell), "late", compiled, SIMULATED_MECHANISM, Path(scratch), None)
    return float(ranks[1]["mpi_time"])


class Simulator:
    """Simulated half round trips of a platform (one replay a size) and the probe's late receive, on worker
    processes."""

    def __init__(self, jobs: int):
        self.pool = ProcessPoolExecutor(max_workers=jobs)

    def observe(self, platform: Path, sizes: Sequence[int]) -> tuple[list[float], float]:
        from progsim.platform import compile_platform, load_platform

        model = load_platform(platform)
        compiled = compile_platform(model, platform.with_suffix(".compiled"), 2)
        late = self.pool.submit(simulated_late_receive, compiled, PROBE_S * model.node.core_speed)
        return list(self.pool.map(simulated_half_rtt, [compiled] * len(sizes), sizes)), late.result()

    def close(self) -> None:
        self.pool.shutdown()


# ---- the platform -------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Free:
    """A parameter the fit moves: a path into the platform YAML, its first guess, and why it is free."""

    path: str
    guess: float
    meaning: str


def calibrated_data(base: dict[str, Any], measured: Measured, name: str) -> dict[str, Any]:
    """The base platform reshaped for the two ranks of the benchmark on this machine: one node whose cores share
    memory (shm), or two one-core nodes joined by the loopback (tcp), with the measured overheads and protocols."""
    data = copy.deepcopy(base)
    data["name"] = name
    protocols = measured.protocols
    overheads = {"send": measured.isend_post, "recv": measured.irecv_post, "call": measured.test}
    data.setdefault("mpi", {})
    data["mpi"]["overheads"] = {**data["mpi"].get("overheads", {}), **overheads}
    data["network"] = {"model": "CM02", "crosstraffic": False}
    if measured.transport == "shm":
        data["nodes"] = 1
        data["mpi"]["shared_memory"] = {**data["mpi"].get("shared_memory", {}),
                                        "eager_threshold": protocols.eager_threshold,
                                        "rendezvous": protocols.rendezvous}
        data["placement"] = {"policy": "block", "ranks_per_node": 2}
    else:
        data["nodes"] = 2
        data["node"]["cores_per_numa"] = 1
        data["node"]["sockets"] = 1
        data["node"]["numa_per_socket"] = 1
        data["mpi"]["eager_threshold"] = protocols.eager_threshold
        data["mpi"]["rendezvous"] = protocols.rendezvous
        data["interconnect"] = {"topology": "flat", "link": {"bandwidth": 1.0e12, "latency": 0.0}}
        data["placement"] = {"policy": "block", "ranks_per_node": 1}
    progress = data.setdefault("progress", {})
    progress.setdefault("dedicated_core", {})["cores"] = 1
    thread = progress.setdefault("thread", {})
    core = measured.core
    if core.spinning: # a thread spins on the rank's core: slices in turn
        thread["busy"] = True
        thread["sched_quantum"] = core.slice_s
        thread.pop("spare_core", None)
    else: # a polling thread takes, between its polls, the share of the core the probe saw the threads take
        thread["busy"] = False
        interval = float(thread.get("poll_interval", engine_default("thread-poll-interval")))
        thread["poll_interval"] = interval
        thread["poll_cost"] = float(f"{max(core.stolen, 0.001) * interval:.3g}")
    if measured.transport == "tcp":
        progress.pop("dedicated_core", None)  # one core a node: none to reserve
    return data


def free_parameters(measured: Measured) -> list[Free]:
    """First guesses from the measurements themselves: half the smallest half round trip as the path's latency,
    the largest size over its half round trip as its bandwidth."""
    latency = max(measured.half_rtt[0] - measured.isend_post - measured.irecv_post, 1e-8) / 2
    bandwidth = measured.sizes[-1] / measured.half_rtt[-1]
    step = Free("mpi.overheads.step", max(measured.irecv_post, 1e-8), "CPU time to handle one protocol message")
    if measured.transport == "shm":
        return [step, Free("node.memory.latency", latency, "the latency of a message inside the node"),
                Free("node.copy_bandwidth", bandwidth, "bytes/s one core copies (eager copies, the single copy)"),
                Free("node.memory.bandwidth", 2 * bandwidth, "the memory bus every copy crosses twice")]
    return [step, Free("nics[0].latency", latency, "the loopback's latency (each NIC's half)"),
            Free("nics[0].bandwidth", bandwidth, "the loopback's bandwidth"),
            Free("node.copy_bandwidth", 4 * bandwidth, "bytes/s one core copies (eager copies)")]


@dataclass(frozen=True)
class Fit:
    data: dict[str, Any]
    values: dict[str, float]
    simulated: list[float]
    evaluations: int
    late_receive: float = math.nan  # simulated

    def residuals(self, measured: Measured) -> list[float]:
        return [s / m - 1 for s, m in zip(self.simulated, measured.half_rtt)]


def fit(data: dict[str, Any], measured: Measured, free: list[Free], simulator: Simulator, folder: Path,
        progress: Callable[[str], None]) -> Fit:
    """Least squares on log(simulated / measured) over the ping-pong sizes, in log space of the free parameters
    (each allowed a factor 1000 around its guess)."""
    import numpy
    from scipy.optimize import least_squares

    evaluations = 0
    cache: dict[tuple[float, ...], tuple[list[float], float]] = {}

    def platform_for(x: Sequence[float]) -> tuple[dict[str, Any], Path]:
        trial = copy.deepcopy(data)
        for parameter, value in zip(free, x):
            set_path(trial, parameter.path, float(f"{math.exp(value):.6g}"))
        path = folder / f"trial-{abs(hash(tuple(x))) % 10 ** 12}.yaml"
        path.write_text(yaml.safe_dump(trial, sort_keys=False))
        return trial, path

    def simulate(x: Sequence[float]) -> tuple[list[float], float]:
        nonlocal evaluations
        key = tuple(float(f"{math.exp(v):.6g}") for v in x)
        if key not in cache:
            evaluations += 1
            cache[key] = simulator.observe(platform_for(x)[1], measured.sizes)
        return cache[key]

    def residual(x: Sequence[float]) -> Any:
        simulated, late = simulate(x)
        error = [math.log(s / m) for s, m in zip(simulated, measured.half_rtt)]
        # The late receive tells the receiver's CPU per message from the latency, which the ping-pong mixes up.
        error.append(LATE_WEIGHT * math.log(late / measured.protocols.late_receive))
        if evaluations % 10 == 0:
            progress(f"calibrate: {evaluations} simulated ping-pongs, rms log error "
                     f"{math.sqrt(sum(e * e for e in error) / len(error)):.3f}")
        return numpy.array(error)

    start = numpy.array([math.log(p.guess) for p in free])
    result = least_squares(residual, start, bounds=(start - math.log(1000), start + math.log(1000)),
                           diff_step=0.02, x_scale=1.0, max_nfev=60)
    trial, _ = platform_for(result.x)
    values = {p.path: float(f"{math.exp(v):.6g}") for p, v in zip(free, result.x)}
    simulated, late = simulate(result.x)
    return Fit(trial, values, simulated, evaluations, late)


# ---- writing it ---------------------------------------------------------------------------------------------------

def platform_text(data: dict[str, Any], measured: Measured, result: Fit, free: list[Free], base: Path,
                  command: str) -> str:
    today = datetime.date.today().isoformat()
    case = f"{measured.library} {measured.version} over {measured.transport}" + (
        f" with {' '.join(f'{k}={v}' for k, v in measured.env)}" if measured.env else "")
    protocol = measured.protocols
    notes = {p.path: f"fitted: {p.meaning}, through the simulator (first guess {p.guess:.3g})" for p in free}
    notes.update({
        "mpi.overheads.send": f"measured here: MPI_Isend post time, {measured.sizes[0]} B, median",
        "mpi.overheads.recv": f"measured here: MPI_Irecv post time, {measured.sizes[0]} B, median",
        "mpi.overheads.call": "measured here: one MPI_Test that finds nothing, median",
        "progress.thread.busy": "measured here: computations alone with the library's threads: "
                                f"{measured.core.describe()}" + ("; a thread spins on the rank's core"
                                                                 if measured.core.spinning else ""),
        "network.model": "calibrated: the fitted latency and bandwidth are what a transfer takes",
        "nodes": "the benchmark's two ranks: " + ("one node, shared memory" if measured.transport == "shm"
                                                  else "two one-core nodes joined by the loopback"),
    })
    if not measured.core.spinning:
        notes["progress.thread.poll_cost"] = (f"measured here: a computation of {measured.core.asked[-1] * 1e3:g} ms "
                                              f"alone lost a share {measured.core.stolen:.3f} of its core to the "
                                              "library's threads (0.001 at least)")
    else:
        notes["progress.thread.sched_quantum"] = ("fitted: the time slice after which the spinning thread takes the "
                                                  "core for as long, to the stretches above (least squares)")
    threshold_key = "mpi.shared_memory" if measured.transport == "shm" else "mpi"
    notes[f"{threshold_key}.eager_threshold"] = f"measured here: {protocol.evidence.split(';')[0]}"
    notes[f"{threshold_key}.rendezvous"] = "measured here: " + (protocol.evidence.split("; ")[1]
                                                                if ";" in protocol.evidence else protocol.evidence)
    for leaf in leaves(data):
        notes.setdefault(leaf, f"kept from {base.name} (its comment there says where it comes from)")
    notes["name"] = "the calibration's name"
    header = [
        f"# progsim platform: this machine as {case} sees it.",
        f"# Calibrated on {today} by: {command}",
        f"# Base platform (cores, core speed, memory): {base.name}. Values marked 'fitted' were moved by least",
        "# squares until progsim-engine's ping-pongs (progress 'none') matched the measured ones; 'measured here'",
        "# values are the benchmark's own readings (bench/overlap.c). Nothing here is tuned by hand.",
        f"# Fit: {result.evaluations} simulated ping-pong sweeps. Half round trips, measured and simulated:",
        "#        size      measured     simulated   residual",
    ]
    for size, real, simulated in zip(measured.sizes, measured.half_rtt, result.simulated):
        header.append(f"# {size:>11} {real * 1e6:>10.3f}us {simulated * 1e6:>10.3f}us {simulated / real - 1:>+9.1%}")
    late = measured.protocols.late_receive
    header.append(f"# and a receiver's time in MPI when its {PROBE_SIZES[0]} B message arrived while it computed: "
                  f"{late * 1e6:.3f}us measured, {result.late_receive * 1e6:.3f}us simulated")
    body = dict(data)
    body["description"] = (f"This machine's two cores as {case} sees them (progsim calibrate, {today}); "
                           f"base: {base.name}")
    return "\n".join([*header, *annotated_lines(body, notes)]) + "\n"


# ---- the command --------------------------------------------------------------------------------------------------

def command_calibrate(args: argparse.Namespace) -> int:
    from progsim.outputs import check_outputs
    from progsim.platform import load_platform
    from progsim.platform.yamlsource import load_located

    base = Path(args.base)
    load_platform(base)
    out = Path(args.out)
    check_outputs({"--out": str(out)}, [base])
    if args.transport not in TRANSPORTS:
        raise InputError(f"--transport {args.transport}: expected one of {', '.join(TRANSPORTS)}")
    env = parse_env(args.env)
    name = args.name or out.stem

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    measured = measure_library(args.library, args.transport, env, args.repetitions, progress)
    progress(f"calibrate: protocols: eager below {measured.protocols.eager_threshold} B, rendezvous "
             f"{measured.protocols.rendezvous} ({measured.protocols.evidence})")
    data = calibrated_data(load_located(base).data, measured, name)
    free = free_parameters(measured)
    simulator = Simulator(args.jobs)
    try:
        with tempfile.TemporaryDirectory(prefix="progsim-calibrate-") as scratch:
            result = fit(data, measured, free, simulator, Path(scratch), progress)
    finally:
        simulator.close()
    command = "progsim calibrate " + " ".join(shlex.quote(a) for a in sys.argv[2:]) if len(sys.argv) > 2 else \
        f"progsim calibrate --library {args.library} --transport {args.transport} --base {base} --out {out}"
    text = platform_text(result.data, measured, result, free, base, command)
    partial = out.with_name(f".{out.name}.writing")
    partial.write_text(text)
    load_platform(partial)  # what is written must load
    partial.replace(out)
    print(f"{'size':>10} {'measured':>12} {'simulated':>12} {'residual':>9}")
    for size, real, simulated in zip(measured.sizes, measured.half_rtt, result.simulated):
        print(f"{size:>10} {real * 1e6:>10.3f}us {simulated * 1e6:>10.3f}us {simulated / real - 1:>+9.1%}")
    for parameter in free:
        print(f"fitted {parameter.path} = {result.values[parameter.path]:.4g}")
    print(f"wrote {out}")
    return 0


HELP = """Measures a real MPI library's ping-pongs on this machine and fits a platform to them through the
simulator, so that progsim's ping-pongs take what the real ones take.

It measures (bench/overlap.c, built with the library's mpicc): half round trips for sizes from 8 B to 16 MiB, the
time to post an MPI_Isend and an MPI_Irecv, and one MPI_Test; finds the eager threshold (a send that completes
before a late receiver posts went eagerly) and the rendezvous (a receiver that pulls while the sender computes:
get; else put, or pipelined over TCP); then moves the path's latency and bandwidth and a core's copy bandwidth
until the simulated half round trips match (least squares on log ratios, each try a replay by progsim-engine). The
platform written says where each value comes from and the residual per size."""


def add_command(commands: Any) -> None:
    parser = commands.add_parser(
        "calibrate", help="fit a platform to a real MPI library's ping-pongs on this machine",
        description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  progsim calibrate --library openmpi --transport shm --out platforms/local/openmpi-shm.yaml\n"
               "  progsim calibrate --library mpich --transport shm --env MPIR_CVAR_ASYNC_PROGRESS=1 \\\n"
               "      --out platforms/local/mpich-shm-asyncthread.yaml")
    parser.add_argument("--library", required=True, choices=sorted(LIBRARIES), help="the MPI library to measure")
    parser.add_argument("--transport", required=True, choices=TRANSPORTS,
                        help="shm: shared memory inside the node; tcp: sockets through the loopback")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="environment of the runs, e.g. MPIR_CVAR_ASYNC_PROGRESS=1 (repeatable)")
    parser.add_argument("--base", default=str(REPOSITORY / "platforms" / "laptop-2core.yaml"),
                        help="the platform of this machine whose cores and memory are kept (default: "
                             "platforms/laptop-2core.yaml)")
    parser.add_argument("--out", required=True, help="the calibrated platform YAML to write")
    parser.add_argument("--name", help="the platform's name (default: the file's name)")
    parser.add_argument("--repetitions", type=int, default=200, help="ping-pongs per size (default 200)")
    parser.add_argument("--jobs", type=int, default=2, help="simulations at once (default 2)")
    parser.set_defaults(run=command_calibrate)
