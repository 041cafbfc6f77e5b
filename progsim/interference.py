"""`progsim interference PLATFORM.yaml`: the benchmark of Denis, Jeannot and Swartvagher (ICPP 2021, sections 2.3
and 4), in simulation, on any platform.

Two ranks, one on each of two nodes, ping-pong messages of each size; meanwhile k other ranks on each of these nodes
run a kernel of arithmetic intensity I (flops per byte it moves through memory: a STREAM-like loop when low,
CPU-bound when high). Each quantity is measured alone and loaded, the other activity running throughout:
  - the ping-pong's half round trip (the latency of small messages; size over it is the bandwidth of large ones);
  - the kernel's memory bandwidth per computing rank (bytes moved over the kernel's time).
The paper's set-up: a process per node, a communicating thread and up to 35 computing threads (here: ranks), STREAM
arrays near the NIC (here: --data nic, the default, puts every rank's data in the NUMA domain of its node's NIC;
local leaves each rank's in its own domain; ranks placed by --placement). The NIC's DMA loads the memory buses at
both ends under every mechanism, `ideal` included (dma-loads-bus:yes; --set dma-loads-bus:no leaves it out); the
platform's contention policy shares each bus (node.memory_contention). A kernel runs at the core's speed unless
--kernel-flop-rate says what it attains (a loop with a dependency chain is far from the core's peak).
"""

from __future__ import annotations

import argparse
import math
import shutil
import statistics
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from progsim.errors import InputError
from progsim.platform import Compiled

COLUMNS = ["intensity_flop_per_byte", "computing_ranks", "size_bytes", "pingpong_us_alone", "pingpong_us_loaded",
           "kernel_GBps_per_rank_alone", "kernel_GBps_per_rank_loaded"]
DEFAULT_SIZES = "4B,64B,1KiB,16KiB,256KiB,4MiB,64MiB"
DEFAULT_INTENSITIES = "0.0833,1,6,20,100"  # a STREAM triad (2 flops per 24 bytes) up to CPU-bound
DEFAULT_COMPUTING = "1,4,16"
ROUND_TRIPS = 4  # simulated round trips are all alike after the first: a few suffice
PROBE_BYTES = 64 * 2 ** 20  # the kernel alone, to learn its speed
OUTLAST = 4.0  # the activity that must run throughout lasts at least this many times the other, alone
ATTEMPTS = 6  # each doubling the outlasting activity, should the other slow down more than that
MAX_ROUND_TRIPS = 20_000  # the longest ping-pong replayed: a kernel is shortened to fit in it


@dataclass(frozen=True)
class Point:
    intensity: float  # flop/B
    computing: int  # computing ranks on each of the two nodes
    size: int  # bytes of each ping-pong message


@dataclass(frozen=True)
class Setup:
    platform: Path
    progress: str
    settings: tuple[str, ...]
    workdir: Path
    compiled: dict[int, Compiled]  # per count of computing ranks: compiled once, before the workers start
    flop_scale: float = 1.0  # trace flops per kernel flop: the core's speed over the rate the kernel attains


class Layout:
    """Ranks on two nodes: the ping-pong rank first on each, then its node's computing ranks."""

    def __init__(self, computing: int):
        self.per_node = computing + 1
        self.ping, self.pong = 0, self.per_node
        self.computing = [r for r in range(2 * self.per_node) if r not in (self.ping, self.pong)]

    @property
    def ranks(self) -> int:
        return 2 * self.per_node

    def traces(self, size: int, round_trips: int, kernel_bytes: float, flop_per_byte: float) -> list[list[str]]:
        lines: list[list[str]] = []
        for r in range(self.ranks):
            body: list[str] = []
            if r in (self.ping, self.pong) and round_trips > 0:
                peer = self.pong if r == self.ping else self.ping
                first, second = (f"{r} send {peer} 0 {size}", f"{r} recv {peer} 0 {size}")
                body = [first, second] * round_trips if r == self.ping else [second, first] * round_trips
            elif r not in (self.ping, self.pong) and kernel_bytes > 0:
                body = [f"{r} compute {flop_per_byte * kernel_bytes:.17g} {kernel_bytes:.0f}"]
            lines.append([f"{r} init", *body, f"{r} finalize"])
        return lines


def _replay(setup: Setup, layout: Layout, traces: list[list[str]], name: str) -> list[dict]:
    from progsim.engine import replay
    from progsim.workloads.tracegen import write_trace

    compiled = setup.compiled[layout.per_node - 1]
    folder = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=setup.workdir))
    run = replay(write_trace(traces, folder / "trace"), compiled, setup.progress, folder / "results.json",
                 settings=list(setup.settings))
    if run.returncode != 0 or run.results is None:
        raise InputError(f"{setup.platform}: the {name} replay failed (exit {run.returncode}): {run.stderr[-1500:]}")
    ranks: list[dict] = run.results["ranks"]
    return ranks


def _kernel_rate(ranks: list[dict], layout: Layout, kernel_bytes: float) -> float:
    """Median bytes per second of the computing ranks."""
    middle = statistics.median(ranks[r]["compute_time"] for r in layout.computing)
    return kernel_bytes / middle if middle > 0 else math.inf


def _pingpong_end(ranks: list[dict], layout: Layout) -> float:
    return max(ranks[layout.ping]["end_time"], ranks[layout.pong]["end_time"])


def _kernel_end(ranks: list[dict], layout: Layout) -> float:
    return max(ranks[r]["end_time"] for r in layout.computing)


def measure_point(point: Point, setup: Setup) -> dict[str, str]:
    layout = Layout(point.computing)
    point_flops = point.intensity * setup.flop_scale  # what the trace's flops must be at the core's speed
    # Alone: the ping-pong without the kernel, and the kernel (all its ranks) without the ping-pong.
    alone = _replay(setup, layout, layout.traces(point.size, ROUND_TRIPS, 0, point_flops), "pingpong")
    pingpong_alone = _pingpong_end(alone, layout) / (2 * ROUND_TRIPS)
    if point.computing == 0:
        return row(point, pingpong_alone, pingpong_alone, math.nan, math.nan)
    round_trip = 2 * pingpong_alone
    probe = _replay(setup, layout, layout.traces(point.size, 0, PROBE_BYTES, point_flops), "kernel")
    rate = _kernel_rate(probe, layout, PROBE_BYTES)
    # The kernel alone and loaded move the same bytes: as many as a ping-pong of MAX_ROUND_TRIPS can outlast.
    measured_bytes = float(min(PROBE_BYTES, MAX_ROUND_TRIPS * round_trip * rate / OUTLAST))
    if measured_bytes < PROBE_BYTES:
        probe = _replay(setup, layout, layout.traces(point.size, 0, measured_bytes, point_flops), "kernel")
    kernel_alone = _kernel_rate(probe, layout, measured_bytes)
    # The ping-pong loaded, beside a kernel that outlasts it; then the kernel, beside a ping-pong that outlasts it.
    kernel_bytes = max(1.0, math.ceil(OUTLAST * ROUND_TRIPS * round_trip * kernel_alone))
    ranks = _together(setup, layout, point, ROUND_TRIPS, kernel_bytes, measured="pingpong")
    pingpong_loaded = _pingpong_end(ranks, layout) / (2 * ROUND_TRIPS)
    round_trips = math.ceil(OUTLAST * (measured_bytes / kernel_alone) / round_trip)
    ranks = _together(setup, layout, point, round_trips, measured_bytes, measured="kernel")
    return row(point, pingpong_alone, pingpong_loaded, kernel_alone, _kernel_rate(ranks, layout, measured_bytes))


def _together(setup: Setup, layout: Layout, point: Point, round_trips: int, kernel_bytes: float,
              measured: str) -> list[dict]:
    """The ping-pong and the kernel at once; the one not `measured` is doubled until it outlasts the other."""
    for _ in range(ATTEMPTS):
        ranks = _replay(setup, layout, layout.traces(point.size, round_trips, kernel_bytes,
                                                     point.intensity * setup.flop_scale), f"{measured}-loaded")
        pingpong, kernel = _pingpong_end(ranks, layout), _kernel_end(ranks, layout)
        if (kernel >= pingpong) if measured == "pingpong" else (pingpong >= kernel):
            return ranks
        kernel_bytes, round_trips = (kernel_bytes * 2, round_trips) if measured == "pingpong" else \
            (kernel_bytes, round_trips * 2)
    other = "kernel" if measured == "pingpong" else "ping-pong"
    raise InputError(f"{setup.platform}: at {describe(point)} the {other} never outlasted the {measured}")


def describe(point: Point) -> str:
    return f"intensity {point.intensity:g} flop/B, {point.computing} computing ranks, {point.size} B"


def row(point: Point, pingpong_alone: float, pingpong_loaded: float, kernel_alone: float,
        kernel_loaded: float) -> dict[str, str]:
    return {"intensity_flop_per_byte": f"{point.intensity:g}", "computing_ranks": str(point.computing),
            "size_bytes": str(point.size), "pingpong_us_alone": f"{pingpong_alone * 1e6:.6g}",
            "pingpong_us_loaded": f"{pingpong_loaded * 1e6:.6g}",
            "kernel_GBps_per_rank_alone": f"{kernel_alone / 1e9:.6g}",
            "kernel_GBps_per_rank_loaded": f"{kernel_loaded / 1e9:.6g}"}


def check_platform(platform: Path, largest: int) -> None:
    from progsim.platform import load_platform

    model = load_platform(platform)
    if model.nodes < 2:
        raise InputError(f"{platform}: nodes: the benchmark ping-pongs between two nodes, the platform has "
                         f"{model.nodes}")
    if largest + 1 > model.node.cores:
        raise InputError(f"{platform}: --computing-ranks {largest}: a node has {model.node.cores} cores, room for "
                         f"{model.node.cores - 1} computing ranks beside the ping-pong's")


def run_points(points: Sequence[Point], setup: Setup, jobs: int) -> list[dict[str, str]]:
    from progsim.progress_bar import ProgressBar

    bar = ProgressBar(len(points), "interference")
    rows: list[dict[str, str]] = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for result in pool.map(measure_point, points, [setup] * len(points)):
            rows.append(result)
            bar(1)
    bar.close()
    return rows


def plot(rows: list[dict[str, str]], path: Path) -> None:
    """Per intensity: the loaded/alone ratio of the ping-pong's half round trip over the message size, one curve per
    count of computing ranks; and the kernel's bandwidth per rank alone and loaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    frame = pd.DataFrame(rows).astype(float)
    intensities = sorted(frame["intensity_flop_per_byte"].unique())
    figure, axes = plt.subplots(2, len(intensities), figsize=(4 * len(intensities), 7), squeeze=False)
    for column, intensity in enumerate(intensities):
        part = frame[frame["intensity_flop_per_byte"] == intensity]
        top, bottom = axes[0][column], axes[1][column]
        for computing, curve in part.groupby("computing_ranks"):
            curve = curve.sort_values("size_bytes")
            top.plot(curve["size_bytes"], curve["pingpong_us_loaded"] / curve["pingpong_us_alone"], marker="o",
                     label=f"{int(computing)} computing")
        top.set_xscale("log", base=2)
        top.set_title(f"{intensity:g} flop/B")
        top.set_xlabel("message size (B)")
        top.set_ylabel("ping-pong time, loaded / alone")
        top.legend(fontsize="small")
        kernel = part.groupby("computing_ranks")[["kernel_GBps_per_rank_alone", "kernel_GBps_per_rank_loaded"]]
        largest = part[part["size_bytes"] == part["size_bytes"].max()].set_index("computing_ranks")
        bottom.plot(kernel.median().index, kernel.median()["kernel_GBps_per_rank_alone"], marker="o", label="alone")
        bottom.plot(largest.index, largest["kernel_GBps_per_rank_loaded"], marker="s",
                    label=f"beside {int(part['size_bytes'].max())} B messages")
        bottom.set_xlabel("computing ranks per node")
        bottom.set_ylabel("kernel GB/s per rank")
        bottom.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


HELP = __doc__.split("\n", 1)[1] + """
Every point is four to six replays: the ping-pong alone, the kernel alone, the ping-pong beside a kernel that
outlasts it, the kernel beside a ping-pong that outlasts it. The simulated round trips are alike, so a few suffice.
"""

EXAMPLES = """examples:
  progsim interference platforms/henri.yaml --computing-ranks 1,5,35 --intensities 0.0833 --out henri.csv
  progsim interference my-node.yaml --sizes 4B,64MiB --plot interference.png --set network/model:CM02
"""


def command_interference(args: argparse.Namespace) -> int:
    from progsim.options import check_settings, option_quantities
    from progsim.row_tables import print_table, write_csv
    from progsim.outputs import check_outputs

    platform = Path(args.platform)
    sizes = [int(s) for s in option_quantities(args.sizes, "B", "--sizes")]
    try:
        intensities = [float(v) for v in args.intensities.split(",") if v.strip()]
    except ValueError:
        raise InputError(f"--intensities {args.intensities}: expected comma-separated numbers (flop/B)") from None
    if not intensities or any(not math.isfinite(i) or i < 0 for i in intensities):
        raise InputError(f"--intensities {args.intensities}: expected non-negative numbers (flop per byte)")
    try:
        computing = [int(v) for v in args.computing_ranks.split(",") if v.strip()]
    except ValueError:
        raise InputError(f"--computing-ranks {args.computing_ranks}: expected comma-separated integers") from None
    if not computing or any(k < 0 for k in computing):
        raise InputError(f"--computing-ranks {args.computing_ranks}: expected counts of 0 or more")
    if args.jobs < 1:
        raise InputError(f"--jobs {args.jobs}: expected 1 or more")
    check_settings(args.set)
    outputs = {"--out": args.out, "--plot": args.plot}
    check_outputs({k: v for k, v in outputs.items() if v}, [platform])
    kernel_rate = option_quantities(args.kernel_flop_rate, "f", "--kernel-flop-rate")[0] if args.kernel_flop_rate else None
    rows = simulate(platform, intensities, computing, sizes, args.progress, args.placement, args.set, args.data,
                    kernel_rate, args.jobs, args.comm)
    print_table(COLUMNS, rows)
    if args.out:
        write_csv(Path(args.out), COLUMNS, rows)
        print(f"wrote {args.out}")
    if args.plot:
        plot(rows, Path(args.plot))
        print(f"wrote {args.plot}")
    return 0


def place_communicating_rank(compiled: Compiled, per_node: int, far_domain: int, directory: Path) -> Compiled:
    """`compiled` with each node's communicating rank (its first) moved to NUMA domain `far_domain` of its node,
    swapped with a computing rank placed there if there is one (so that no domain gets more ranks than before)."""
    from progsim.platform.compiler import load_compiled

    hosts = compiled.hostfile.read_text().split()
    folder = directory / f"far-{per_node}"
    shutil.copytree(compiled.directory, folder)
    for first in range(0, len(hosts), per_node):
        block = hosts[first:first + per_node]
        far = f"{block[0].rsplit('.d', 1)[0]}.d{far_domain}"
        there = [i for i, host in enumerate(block) if host == far]
        if there:  # the last computing rank placed there takes the communicating rank's core
            block[0], block[there[-1]] = block[there[-1]], block[0]
        else:
            block[0] = far
        hosts[first:first + per_node] = block
    (folder / "hostfile").write_text("\n".join(hosts) + "\n")
    return load_compiled(folder)


def simulate(platform: Path, intensities: Sequence[float], computing: Sequence[int], sizes: Sequence[int],
             progress: str = "none", placement: str | None = None, settings: Sequence[str] = (), data: str = "nic",
             kernel_rate: float | None = None, jobs: int = 1, comm: str = "near") -> list[dict[str, str]]:
    """The benchmark's table: one row per (intensity, computing ranks, size)."""
    from progsim.platform_cache import prepare_platform
    from progsim.platform import load_platform

    if jobs < 1:
        raise InputError(f"--jobs {jobs}: expected 1 or more")
    check_platform(platform, max(computing))
    model = load_platform(platform)
    speed = model.node.core_speed
    if comm not in ("near", "far"):
        raise InputError(f"--comm {comm}: expected near or far")
    nic_domain = model.nics[0].numa if model.nics else 0
    far_domain = (nic_domain + model.node.numa_domains // 2) % model.node.numa_domains  # the other socket's first
    if kernel_rate is not None and not (0 < kernel_rate <= speed):
        raise InputError(f"--kernel-flop-rate {kernel_rate:g}: expected a rate above 0 and at most the core's speed "
                         f"({speed:g} flop/s)")
    points = [Point(i, k, s) for i in intensities for k in computing for s in sizes]
    # The NIC's DMA always loads the buses here; the user's settings come after, and may say otherwise.
    engine_settings = ("dma-loads-bus:yes", f"data-numa:{data}", *settings)
    with tempfile.TemporaryDirectory(prefix="progsim-interference-") as workdir:
        compiled = {k: prepare_platform(platform, 2 * (k + 1), k + 1, placement) for k in set(computing)}
        if comm == "far":
            if model.node.numa_domains < 2:
                raise InputError(f"{platform}: --comm far needs nodes of several NUMA domains")
            compiled = {k: place_communicating_rank(c, k + 1, far_domain, Path(workdir)) for k, c in compiled.items()}
        setup = Setup(platform, progress, engine_settings, Path(workdir), compiled,
                      speed / kernel_rate if kernel_rate else 1.0)
        return run_points(points, setup, jobs)


def add_command(commands: argparse._SubParsersAction) -> None:
    import os

    parser = commands.add_parser("interference", help="the memory-contention benchmark of Denis et al. (ICPP 2021), "
                                                     "simulated on a platform", description=HELP, epilog=EXAMPLES,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("platform", help="platform YAML with at least two nodes")
    parser.add_argument("--intensities", default=DEFAULT_INTENSITIES,
                        help=f"arithmetic intensities of the kernel, flop/B (default {DEFAULT_INTENSITIES}); 0: "
                             "memory traffic alone")
    parser.add_argument("--computing-ranks", default=DEFAULT_COMPUTING,
                        help=f"computing ranks per node beside the ping-pong's (default {DEFAULT_COMPUTING})")
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help=f"ping-pong message sizes (default {DEFAULT_SIZES})")
    parser.add_argument("--placement", choices=["block", "numa", "round-robin"],
                        help="ranks inside a node: block fills the first NUMA domain (the NIC's, usually) first, "
                             "numa alternates domains (default: the platform's)")
    parser.add_argument("--data", default="nic", metavar="WHERE",
                        help="where every rank's data lives: nic (the domain of its node's NIC, as in the paper; "
                             "default), local (its own domain), or a domain number")
    parser.add_argument("--comm", choices=["near", "far"], default="near",
                        help="where the ping-pong's rank runs: near the NIC (its NUMA domain; default) or far (the "
                             "other socket's first domain: the paper's 'far' communication thread, Table 1)")
    parser.add_argument("--kernel-flop-rate", metavar="RATE",
                        help="flop/s one core attains in the kernel (default: the core's speed), e.g. 8.8Gf")
    parser.add_argument("--progress", default="none", help="progress mechanism of the ping-pong (default none)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME:VALUE", help="override a parameter")
    parser.add_argument("--out", metavar="CSV", help="write the table here")
    parser.add_argument("--plot", metavar="PNG", help="draw the ping-pong's slowdown and the kernel's bandwidth")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="points replayed at once")
    parser.set_defaults(run=command_interference)
