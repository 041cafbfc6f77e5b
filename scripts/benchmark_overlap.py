#!/usr/bin/env python3
"""Times a 20 x 20 point-to-point overlap heatmap (`progsim overlap`) on this machine, against a 15 s target.

Run from anywhere: `python3 scripts/benchmark_overlap.py --help`.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import subprocess
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

from benchmark_report import Measure, fmt, print_table  # noqa: E402
from benchmark_runs import best_of, run_timed  # noqa: E402
from progsim.engine_info import engine_binary, progress_mechanisms  # noqa: E402

TARGET_SECONDS = 15.0
REPLAYS_PER_CELL = 3  # communication alone, computation alone, both (progsim/workloads/overlap.py)

DESCRIPTION = f"""\
Measures how long `progsim overlap` takes to draw one point-to-point heatmap on this machine: by default 20 message
sizes log-spaced from 1 KiB to 16 MiB times 20 computation times log-spaced from 10 us to 100 ms, on
platforms/laptop-2core.yaml, under `none`, the receiver computing. The command runs as a user runs it (a child
process, platform compilation included, cells in --jobs worker processes, the table written as CSV); its wall time
is the best of --repeat runs.

A cell is {REPLAYS_PER_CELL} replays' worth (communication alone, computation alone, both), but the grid replays the
communication alone once per size and the computation alone once per computation time (progsim/sweep/run.py):
sizes x times + sizes + times replays run. Printed: wall s, cells/s, replays run per second, replays' worth per
second, and the ratio of the wall time to the {TARGET_SECONDS:g} s target (below 1: within it).

With --breakdown (automatic when over the target), the script also times the parts a grid is made of: starting
Python and importing progsim, compiling the platform, starting the engine, one replay as a worker runs it (trace
written, engine run, results read), and what is left for the process pool and Python. Exit status 1 if the run
fails or a cell fails."""


def log_spaced(low: float, high: float, count: int) -> list[float]:
    return [low * (high / low) ** (i / (count - 1)) for i in range(count)] if count > 1 else [low]


def grid_values(args: argparse.Namespace) -> tuple[list[int], list[float]]:
    sizes = sorted({round(s) for s in log_spaced(args.smallest, args.largest, args.sizes)})
    times = [float(f"{t:.6g}") for t in log_spaced(args.shortest, args.longest, args.times)]
    return sizes, times


def overlap_command(args: argparse.Namespace, table: Path) -> list[str]:
    sizes, times = grid_values(args)
    return [sys.executable, "-m", "progsim", "overlap", "--platform", str(args.platform.resolve()),
            "--progress", args.progress, "--side", "receiver", "--sizes", ",".join(map(str, sizes)),
            "--compute", ",".join(f"{t:g}" for t in times), "--jobs", str(args.jobs), "--csv", str(table)]


def printed_a_table(output: str) -> Optional[float]:
    """run_timed's check that the command got as far as its table."""
    return 1.0 if "overhead_ratio" in output else None


def failed_cells(table: Path) -> int:
    with table.open(newline="") as handle:
        return sum(1 for row in csv.DictReader(handle) if row["error"])


def timed(action: Callable[[], object], repeat: int) -> float:
    """The least wall time of `repeat` calls."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


def breakdown(args: argparse.Namespace, workdir: Path, wall: float) -> list[list[str]]:
    """Where a grid's time goes: each part timed alone, and what the measured wall time leaves to the pool."""
    from progsim.workloads import overlap
    from progsim.platform import compile_platform, load_platform

    sizes, times = grid_values(args)
    replays = len(sizes) * len(times) + len(sizes) + len(times)
    python = timed(lambda: subprocess.run([sys.executable, "-m", "progsim", "--version"], check=True,
                                          capture_output=True), 3)
    platform = load_platform(args.platform)
    folders = iter(workdir / f"part-{n}" for n in range(10 ** 6))
    compiled = compile_platform(platform, next(folders), 2)
    compile_seconds = timed(lambda: compile_platform(platform, next(folders), 2), 3)
    engine_start = timed(lambda: subprocess.run([str(engine_binary()), "--list-progress"], check=True,
                                                capture_output=True), 5)
    per_replay = []
    for size, seconds in ((sizes[0], times[0]), (sizes[-1], times[-1])):
        cell = overlap.Cell(size, seconds * platform.node.core_speed, "receiver")
        per_replay.append(timed(lambda: overlap.measure(cell, compiled, args.progress, next(folders)), 3)
                          / REPLAYS_PER_CELL)
    replay = statistics.mean(per_replay)
    replaying = replays * replay / args.jobs
    starting = replays * engine_start / args.jobs
    left = wall - python - compile_seconds - replaying
    return [["start Python, import progsim (once)", f"{python:.3f}", share(python, wall)],
            ["compile the platform (once)", f"{compile_seconds:.4f}", share(compile_seconds, wall)],
            [f"replays: {replays} x {replay * 1000:.1f} ms / {args.jobs} jobs", f"{replaying:.2f}",
             share(replaying, wall)],
            [f"  of which starting the engine: {replays} x {engine_start * 1000:.1f} ms / {args.jobs} jobs",
             f"{starting:.2f}", share(starting, wall)],
            ["left: process pool, workers' Python, the table", f"{left:.2f}", share(left, wall)]]


def share(part: float, wall: float) -> str:
    return f"{part / wall:.0%}"


def summary(args: argparse.Namespace, measure: Measure) -> tuple[list[str], list[list[str]]]:
    sizes, times = grid_values(args)
    cells = len(sizes) * len(times)
    replays = cells + len(sizes) + len(times)
    wall = measure.wall
    header = ["grid", "mechanism", "jobs", "wall s", "cells/s", "replays/s", "replays' worth/s", "vs target",
              "peak RSS MiB"]
    return header, [[f"{len(sizes)} x {len(times)}", args.progress, str(args.jobs), f"{wall:.2f}",
                     f"{cells / wall:.1f}", f"{replays / wall:.1f}", f"{REPLAYS_PER_CELL * cells / wall:.1f}",
                     f"{wall / TARGET_SECONDS:.2f}",
                     fmt(None if measure.rss_kib is None else measure.rss_kib / 1024, ".1f")]]


def parse_arguments(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="benchmark_overlap.py", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--platform", type=Path, default=REPOSITORY / "platforms" / "laptop-2core.yaml",
                        help="platform YAML (default: platforms/laptop-2core.yaml)")
    parser.add_argument("--progress", default="none", choices=progress_mechanisms(), help="mechanism (default: none)")
    parser.add_argument("--sizes", type=int, default=20, metavar="N", help="message sizes (default: 20)")
    parser.add_argument("--smallest", type=float, default=1024, metavar="BYTES", help="default: 1024 (1 KiB)")
    parser.add_argument("--largest", type=float, default=16 << 20, metavar="BYTES", help="default: 16 MiB")
    parser.add_argument("--times", type=int, default=20, metavar="N", help="computation times (default: 20)")
    parser.add_argument("--shortest", type=float, default=1e-5, metavar="SECONDS", help="default: 1e-5 (10 us)")
    parser.add_argument("--longest", type=float, default=0.1, metavar="SECONDS", help="default: 0.1 (100 ms)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="worker processes, as progsim overlap --jobs (default: one per core)")
    parser.add_argument("--repeat", type=int, default=1, metavar="K", help="keep the fastest of K runs (default: 1)")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS", help="kill a run after this long")
    parser.add_argument("--breakdown", action="store_true",
                        help="also time the parts of a grid (automatic when over the target)")
    args = parser.parse_args(argv)
    if min(args.sizes, args.times, args.jobs, args.repeat) < 1 or args.smallest < 1 or args.shortest <= 0:
        parser.error("--sizes, --times, --jobs, --repeat and --smallest must be >= 1, --shortest > 0")
    return args


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_arguments(argv)
    if not Path("/usr/bin/time").is_file():
        print("benchmark_overlap.py: /usr/bin/time is needed (apt-get install time)", file=sys.stderr)
        return 2
    # The child imports progsim from this source tree, whatever folder the script runs from.
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPOSITORY), os.environ.get("PYTHONPATH")]))
    with tempfile.TemporaryDirectory(prefix="progsim-bench-overlap-") as scratch:
        workdir = Path(scratch)
        table = workdir / "cells.csv"
        command = overlap_command(args, table)
        measure = best_of(args.repeat, lambda: run_timed(command, workdir, args.timeout, printed_a_table))
        if measure.error is not None:
            print(f"benchmark_overlap.py: the grid failed: {measure.error}", file=sys.stderr)
            return 1
        failed = failed_cells(table)
        print(f"{args.platform.name}, receiver computes; best of {args.repeat}")
        print_table(*summary(args, measure))
        if args.breakdown or measure.wall > TARGET_SECONDS:
            print("\nwhere the time goes (each part timed alone, best of 3):")
            print_table(["part", "seconds", "share of wall"], breakdown(args, workdir, measure.wall))
    if failed:
        print(f"{failed} cells failed (their error is in the table)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
