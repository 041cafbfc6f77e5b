#!/usr/bin/env python3
"""Benchmarks progsim-engine's replay speed against stock SMPI replay (smpirun -replay) on a ring trace, and how it
scales with ranks and message size (--curves, --csv, --plot).

Run from anywhere: `python3 scripts/benchmark.py --help`.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Optional, Sequence

SCRIPTS = Path(__file__).resolve().parent
REPOSITORY = SCRIPTS.parent
for folder in (REPOSITORY, SCRIPTS):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from benchmark_report import SMPI, Row, plot, print_table, size_text, summary, table, write_csv  # noqa: E402
from benchmark_runs import (Progress, best_of, check_ideal, engine_command, parse_engine, parse_smpi,  # noqa: E402
                            run_timed, smpi_command)
from progsim.engine_info import engine_binary, progress_mechanisms  # noqa: E402
from progsim.platform import Compiled, compile_platform, load_platform  # noqa: E402
from progsim.platform.quantity import parse_quantity  # noqa: E402
from progsim.workloads.tracegen import RING_ACTIONS_PER_ITERATION, write_ring  # noqa: E402

DEFAULT_MECHANISMS = ("ideal", "none", "thread", "dedicated-core", "offload")
DEFAULT_RANKS = (64, 1024)
DEFAULT_BYTES = (1024,)
CURVES_RANKS = (64, 256, 1024, 4096, 16384)  # --curves: the rank counts of issue 17's scaling curves
CURVES_BYTES = (1 << 10, 1 << 20)  # an eager and a rendezvous message
HUGE_RANKS = 65536  # --huge; stock SMPI takes about 2 h there, so it runs only with --smpi-huge
CORES_PER_NODE = 16
CORE_SPEED = 1.0e9  # flop/s
EAGER_THRESHOLD = 65536  # the platform's (mpi.eager_threshold), and SMPI's smpi/send-is-detached-thresh
ACTIONS_PER_ITERATION = RING_ACTIONS_PER_ITERATION  # irecv, isend, compute, wait, wait
SHARED_TRACE_ABOVE = 20000  # one shared trace file instead of one file per rank (file-descriptor limits)

PLATFORM_YAML = """\
name: bench-flat
description: flat benchmark cluster, {nodes} nodes of {cores} cores (1 NUMA domain, 1 NIC each)
nodes: {nodes}
node: {{sockets: 1, numa_per_socket: 1, cores_per_numa: {cores}, core_speed: {speed!r}, memory: {{bandwidth: 2.0e10, latency: 1.0e-7}}}}
nics: [{{numa: 0, bandwidth: 1.0e10, latency: 1.0e-6}}]
interconnect: {{topology: flat, link: {{bandwidth: 1.25e10, latency: 1.0e-7}}}}
mpi: {{eager_threshold: {eager}, rendezvous: get}}
placement: {{policy: block}}
"""

DESCRIPTION = """\
Measures how fast progsim-engine replays an SMPI time-independent trace, compared with stock SMPI replay, and how
that speed scales with the number of ranks.

For each rank count N (--ranks) and message size S (--bytes), the script generates a ring trace: every rank runs
--iterations iterations of `irecv left; isend right; compute FLOPS; wait; wait` (5 actions) with S-byte messages,
plus init and finalize, so the trace holds N x (5 x iterations + 2) actions. It compiles a flat platform for it
(ceil(N/16) nodes of 16 cores at 1 Gflop/s, one NUMA domain and one NIC each, all NICs on one flat interconnect;
eager threshold 64 KiB: 1 KiB messages are eager, 1 MiB ones rendezvous; --spare-cores K gives each node K cores
more, still with 16 ranks), then replays the same trace with
progsim-engine under each progress mechanism (--progress) and with `smpirun -replay` (SimGrid's own replay,
unless --skip-smpi).

Measured, per run (each child runs under /usr/bin/time; best of --repeat runs, by wall time):
  wall s        elapsed wall-clock time of the child process, including trace parsing and platform loading
  actions/s     trace actions replayed per wall-clock second
  vs SMPI       actions/s divided by smpirun's actions/s on the same trace (same N and S; > 1: faster than SMPI)
  peak RSS MiB  maximum resident set size of the child (and its descendants), from /usr/bin/time %M
  sim time s    simulated time printed by the tool (6 significant digits)

After the table, a summary gives each mechanism's speed and peak RSS as multiples of SMPI's, per (N, S), against
the targets of issue 17: at 1 024 and 4 096 ranks every mechanism at least 1x SMPI's speed and ideal and none at
least 2x; at 16 384 ranks at least 2x with a peak RSS no larger than SMPI's; and those of issue 47 at 1 048 576
ranks (one shared trace file, no SMPI run: --skip-smpi): under 30 minutes and 16 GiB ("target met" / "target missed").
Speed is measured, not tested: a missed target does not change the exit status.
When SMPI ran, the script also checks that the `ideal` mechanism (SMPI's own progression assumption) predicts
SMPI's simulated time within 1 %, per (N, S); the exit status is 1 if a check fails or a run fails.

Scaling curves, in one run:
  --curves      ranks 64 256 1024 4096 16384 with 1 KiB and 1 MiB messages (explicit --ranks/--bytes override;
                with the default 30 iterations, an estimated 30-60 min on 2 cores, most of it at 16 384 ranks)
  --huge        adds 65 536 ranks (one shared trace file); stock SMPI is skipped there (about 2 h) unless --smpi-huge
  --csv PATH    every run's figures, rewritten after each run, so an interrupted run keeps what it measured
  --plot PNG    actions/s (top) and peak RSS (bottom) against ranks, one column of panels per message size

Examples:
  python3 scripts/benchmark.py --ranks 64 1024 --repeat 3
  python3 scripts/benchmark.py --ranks 1024 --bytes 1KiB 1MiB --progress ideal none
  python3 scripts/benchmark.py --curves --csv curves.csv --plot curves.png
"""


def node_count(ranks: int) -> int:
    return max(1, math.ceil(ranks / CORES_PER_NODE))


def platform_yaml(ranks: int, spare_cores: int = 0) -> str:
    return PLATFORM_YAML.format(nodes=node_count(ranks), cores=CORES_PER_NODE + spare_cores, speed=CORE_SPEED,
                                eager=EAGER_THRESHOLD)


def tools_for(ranks: int, args: argparse.Namespace) -> list[str]:
    """The engine's mechanisms, then SMPI unless skipped (always with --skip-smpi, at --huge sizes by default)."""
    smpi = not args.skip_smpi and (ranks < HUGE_RANKS or args.smpi_huge)
    return [*args.progress, *([SMPI] if smpi else [])]


def prepare_platform(ranks: int, workdir: Path, spare_cores: int = 0) -> Compiled:
    """The benchmark's platform and its 16 ranks per node; with `spare_cores`, each node has that many more cores,
    which no rank holds (a reserved core for dedicated-core, say, where the ranks keep a core each)."""
    source = workdir / "platform.yaml"
    source.write_text(platform_yaml(ranks))
    compiled = compile_platform(load_platform(source), workdir / "compiled", ranks)
    if spare_cores == 0:
        return compiled
    spare_source = workdir / "platform-spare.yaml"
    spare_source.write_text(platform_yaml(ranks, spare_cores))
    every_core = node_count(ranks) * (CORES_PER_NODE + spare_cores)  # so that the compiler keeps every node
    spare = compile_platform(load_platform(spare_source), workdir / "compiled-spare", every_core)
    spare.hostfile.write_text(compiled.hostfile.read_text())  # the same nodes, by name: still 16 ranks each
    return dataclasses.replace(spare, ranks=ranks)


def benchmark(ranks: int, args: argparse.Namespace, progress: Progress, root: Path,
              measured: Callable[[Row], None]) -> None:
    """Replays the ring of `ranks` ranks at each message size under each tool; `measured` gets each row at once."""
    workdir = root / f"n{ranks}"
    workdir.mkdir(parents=True, exist_ok=True)
    compiled = prepare_platform(ranks, workdir, args.spare_cores)
    shared = ranks > SHARED_TRACE_ABOVE or args.shared_trace
    actions = ranks * (ACTIONS_PER_ITERATION * args.iterations + 2)
    tools = tools_for(ranks, args)
    if SMPI not in tools and not args.skip_smpi:
        print(f"N={ranks}: stock SMPI skipped (about 2 h at this size; --smpi-huge runs it)", file=sys.stderr)
    for size in args.bytes:
        label = f"N={ranks} {size_text(size)}"
        start = time.perf_counter()
        folder = workdir / f"trace-{size}"
        trace = write_ring(ranks, args.iterations, size, args.flops, folder, shared=shared)
        print(f"{label}: trace ({'shared file' if shared else 'one file per rank'}) written in "
              f"{time.perf_counter() - start:.2f} s", file=sys.stderr, flush=True)
        for tool in tools:
            command = smpi_command(trace, compiled) if tool == SMPI else engine_command(trace, compiled, tool,
                                                                                         args.set)
            parse = parse_smpi if tool == SMPI else parse_engine
            progress.start(f"{label} {tool}")
            measure = best_of(args.repeat, lambda: run_timed(command, workdir, args.timeout, parse))
            progress.finish(f"{label} {tool}", measure)
            measured(Row(ranks, size, actions, tool, measure))
        if not args.keep:
            for path in folder.iterdir():
                path.unlink()


def checks(rows: list[Row]) -> bool:
    """Per (ranks, bytes), whether ideal's simulated time matches SMPI's; True if all match."""
    good = True
    for ranks, size in sorted({row.cell for row in rows}):
        found = {row.tool: row.measure for row in rows if row.cell == (ranks, size)}
        case = f" with {size_text(size)} messages"
        good = check_ideal(f"N={ranks}", found.get("ideal"), found.get(SMPI), case) and good
    return good


def parse_size(text: str) -> int:
    """--bytes: a whole number of bytes, plain (1048576) or with a unit (1MiB, 64KiB, 1kB)."""
    try:
        value = parse_quantity(text, "B")
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if not math.isfinite(value) or value < 0 or value != int(value):
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole, non-negative number of bytes")
    return int(value)


def parse_arguments(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="benchmark.py", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ranks", type=int, nargs="+", default=None, metavar="N",
                        help="rank counts to benchmark (default: 64 1024; with --curves: "
                             f"{' '.join(map(str, CURVES_RANKS))})")
    parser.add_argument("--iterations", type=int, default=30, metavar="M",
                        help="ring iterations per rank, 5 actions each (default: 30)")
    parser.add_argument("--bytes", type=parse_size, nargs="+", default=None, metavar="SIZE",
                        help="message sizes, in bytes or with a unit (default: 1024; with --curves: 1KiB 1MiB; "
                             "e.g. 1048576 or 1MiB, a rendezvous)")
    parser.add_argument("--flops", type=float, default=1e6,
                        help="flops of each compute action (default: 1e6, i.e. 1 ms at 1 Gflop/s)")
    parser.add_argument("--progress", nargs="+", default=list(DEFAULT_MECHANISMS), choices=progress_mechanisms(),
                        metavar="MECHANISM",
                        help=f"progress mechanisms to run the engine with (default: {' '.join(DEFAULT_MECHANISMS)})")
    parser.add_argument("--set", action="append", default=[], metavar="NAME:VALUE",
                        help="set an engine parameter for every engine run, e.g. --set copy-loads-bus:no")
    parser.add_argument("--curves", action="store_true",
                        help="the scaling curves: ranks 64 to 16 384 (x4), 1 KiB and 1 MiB messages")
    parser.add_argument("--huge", action="store_true",
                        help=f"add {HUGE_RANKS} ranks to the rank counts (the preset's or --ranks)")
    parser.add_argument("--smpi-huge", action="store_true",
                        help=f"run stock SMPI at {HUGE_RANKS} ranks and more too (about 2 h)")
    parser.add_argument("--skip-smpi", action="store_true", help="do not run stock smpirun at all")
    parser.add_argument("--spare-cores", type=int, default=0, metavar="K",
                        help="give each node K cores more than its 16 ranks (default 0): with 1, dedicated-core "
                             "reserves a core that no rank needed, as it is deployed, instead of oversubscribing")
    parser.add_argument("--csv", type=Path, default=None, metavar="PATH",
                        help="write every run's figures to this CSV (rewritten atomically after each run)")
    parser.add_argument("--plot", type=Path, default=None, metavar="PNG",
                        help="draw actions/s and peak RSS against ranks, one column per message size (matplotlib)")
    parser.add_argument("--repeat", type=int, default=1, metavar="K",
                        help="run each measurement K times and keep the fastest (default: 1)")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="kill any single run after this many seconds (default: none)")
    parser.add_argument("--shared-trace", action="store_true",
                        help=f"write one shared trace file even for N <= {SHARED_TRACE_ABOVE} (automatic above)")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="write traces and platforms here instead of a temporary folder")
    parser.add_argument("--keep", action="store_true", help="keep the generated traces (with --workdir)")
    args = parser.parse_args(argv)
    # Explicit --ranks/--bytes override the preset; duplicates would measure (and draw) a point twice.
    args.ranks = list(dict.fromkeys(args.ranks or (CURVES_RANKS if args.curves else DEFAULT_RANKS)))
    if args.huge and HUGE_RANKS not in args.ranks:
        args.ranks.append(HUGE_RANKS)
    args.bytes = list(dict.fromkeys(args.bytes or (CURVES_BYTES if args.curves else DEFAULT_BYTES)))
    if any(n < 2 for n in args.ranks):
        parser.error("--ranks: a ring needs at least 2 ranks")
    if args.iterations < 1 or args.repeat < 1 or args.flops < 0 or args.spare_cores < 0:
        parser.error("--iterations and --repeat must be >= 1, --flops and --spare-cores >= 0")
    for option, path in (("--csv", args.csv), ("--plot", args.plot)):
        if path is not None and not path.resolve().parent.is_dir():  # fail now, not after an hour of runs
            parser.error(f"{option} {path}: folder {path.resolve().parent} does not exist")
    if args.plot is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            parser.error("--plot needs matplotlib (apt-get install python3-matplotlib)")
    return args


def flops_text(flops: float) -> str:
    """'1 Mflop (1 ms)': the compute action's size and its duration on the platform's cores."""
    amount = next((f"{flops / scale:g} {unit}" for unit, scale in (("Gflop", 1e9), ("Mflop", 1e6), ("kflop", 1e3))
                   if flops >= scale), f"{flops:g} flop")
    return f"{amount} ({flops / CORE_SPEED * 1e3:g} ms)"


def trace_text(args: argparse.Namespace) -> str:
    return (f"ring trace: {args.iterations} iterations of irecv, isend, compute {flops_text(args.flops)}, wait, wait "
            f"per rank (+ init, finalize)")


def report(rows: list[Row], args: argparse.Namespace) -> None:
    """The table, the summary against the issue's targets, and the curves."""
    print(f"\n{trace_text(args)}; messages of {', '.join(size_text(size) for size in args.bytes)}; "
          f"best of {args.repeat}")
    print_table(*table(rows))
    header, body = summary(rows)
    if body:
        print("\nsummary: each mechanism's speed and peak RSS as multiples of SMPI's on the same trace, against "
              "the targets of issues 17 and 47")
        print_table(header, body)
    if args.plot is not None and rows:
        titles = plot(rows, args.bytes, args.plot, trace_text(args), EAGER_THRESHOLD)
        print(f"\nplot: {args.plot} (panels: {'; '.join(titles)})")
    if args.csv is not None:
        print(f"csv: {args.csv} ({len(rows)} rows)")


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_arguments(argv)
    if not Path("/usr/bin/time").is_file():
        print("benchmark.py: /usr/bin/time is needed (apt-get install time)", file=sys.stderr)
        return 2
    try:
        print(f"engine: {engine_binary()}", file=sys.stderr)
    except FileNotFoundError as error:
        print(f"benchmark.py: {error}", file=sys.stderr)
        return 2
    progress = Progress(sum(len(tools_for(ranks, args)) for ranks in args.ranks) * len(args.bytes))
    rows: list[Row] = []

    def measured(row: Row) -> None:
        rows.append(row)
        if args.csv is not None:  # after every run: a long run's figures survive an interruption
            write_csv(rows, args.csv)

    with tempfile.TemporaryDirectory(prefix="progsim-bench-") as temporary:
        root = args.workdir if args.workdir is not None else Path(temporary)
        for ranks in args.ranks:
            benchmark(ranks, args, progress, root, measured)
    progress.close()
    report(rows, args)
    good = checks(rows)
    failed = [row for row in rows if row.measure.error]
    for row in failed:
        print(f"N={row.ranks} {size_text(row.size)} {row.tool} failed: {row.measure.error}")
    return 0 if good and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
