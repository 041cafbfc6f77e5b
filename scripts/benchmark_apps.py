#!/usr/bin/env python3
"""Benchmarks progsim-engine against stock SMPI replay on captured application traces (validation/real/).

Run from anywhere: `python3 scripts/benchmark_apps.py --help`.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

SCRIPTS = Path(__file__).resolve().parent
REPOSITORY = SCRIPTS.parent
for folder in (REPOSITORY, SCRIPTS):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from benchmark import platform_yaml  # noqa: E402
from benchmark_report import SMPI, Measure, fmt, print_table, times, write_atomically  # noqa: E402
from benchmark_runs import (Progress, best_of, check_ideal, engine_command, parse_engine, parse_smpi,  # noqa: E402
                            run_timed, smpi_command)
from progsim.engine_info import engine_binary, progress_mechanisms  # noqa: E402
from progsim.platform import compile_platform, load_platform  # noqa: E402
from progsim.platform.model import PlacementSpec  # noqa: E402
from progsim.workloads.captures import REAL_TRACES, captures, listed_files, plain_copy  # noqa: E402

DEFAULT_MECHANISMS = ("ideal", "none", "thread", "dedicated-core", "offload")
LARGE_TRACES = REAL_TRACES / "large"  # captures too long for the test suite's replays
# The networks the benchmark replays on by default, by name: a flat cluster of 16-core nodes sized per trace (the
# ring benchmark's), an InfiniBand fat tree (28-core nodes) and a Gemini 3D torus (32-core nodes, 4 NUMA domains).
NAMED_PLATFORMS = {"flat": None, "fat-tree": REPOSITORY / "platforms" / "coolmuc-2.yaml",
                   "torus": REPOSITORY / "platforms" / "blue-waters-xe6.yaml"}
DEFAULT_RANKS_PER_NODE = 16
FAST_MECHANISMS = ("ideal", "none")  # the targets: twice SMPI's speed for these, SMPI's for the others
# A capture of at most LONG_CAPTURE_RANKS ranks and LONG_CAPTURE_ACTIONS actions or more (the whole HPCC suite at 64
# ranks) must replay under every mechanism within LONG_CAPTURE_WALL; larger runs are held to SMPI's speed only.
LONG_CAPTURE_ACTIONS = 1_000_000
LONG_CAPTURE_RANKS = 64
LONG_CAPTURE_WALL = 60.0
CSV_COLUMNS = ["trace", "platform", "ranks", "actions", "tool", "wall_s", "actions_per_s", "vs_smpi", "peak_rss_mib",
               "rss_vs_smpi", "sim_time_s", "error"]

DESCRIPTION = f"""\
Measures wall time, peak memory and simulated time of progsim-engine under each progress mechanism and of stock
SMPI replay (smpirun -replay), side by side in one run, on real application traces and several networks.

Each TRACE is a folder holding trace_list.txt and its per-rank files, plain or gzip-compressed, as shipped under
validation/real/ (default: every capture there and under validation/real/large/, whose long captures the test
suite does not replay). The per-rank files are first decompressed into a scratch folder and both tools replay the
same plain files, so that neither pays for decompression.

Platforms (--platform, repeatable; default: flat fat-tree torus), each with --ranks-per-node ranks per node
(default {DEFAULT_RANKS_PER_NODE}, block placement):
  flat      ceil(N/16) nodes of 16 cores at 1 Gflop/s on one switch (the one scripts/benchmark.py uses)
  fat-tree  platforms/coolmuc-2.yaml (InfiniBand fat tree, 28-core nodes)
  torus     platforms/blue-waters-xe6.yaml (Gemini 3D torus, 32-core nodes in 4 NUMA domains, 8 KiB eager)
  PATH.yaml any platform YAML

Printed per trace, platform and tool: wall s (elapsed, trace parsing and platform loading included), actions/s,
vs SMPI (actions/s over smpirun's), peak RSS MiB (/usr/bin/time %M), RSS vs SMPI, sim time s. Then a summary against
the targets: every mechanism at least as fast as SMPI, ideal and none at least twice as fast, in no more memory
than SMPI; on a capture of {LONG_CAPTURE_ACTIONS:,} actions or more and at most {LONG_CAPTURE_RANKS} ranks, every
mechanism within {LONG_CAPTURE_WALL:g} s.
Speed is measured, not tested: a missed target does not change the exit status. The script checks that `ideal`
predicts SMPI's simulated time within 1 % on every trace and platform; the exit status is 1 if a check or a run
fails (a --timeout counts as a failure).

Examples:
  python3 scripts/benchmark_apps.py --platform torus --timeout 600
  python3 scripts/benchmark_apps.py validation/real/examl-64 --progress ideal none --csv apps.csv --plot apps.png
"""


@dataclass(frozen=True)
class AppRow:
    trace: str
    platform: str
    ranks: int
    actions: int
    tool: str
    measure: Measure

    @property
    def ok(self) -> bool:
        return self.measure.error is None

    @property
    def rate(self) -> Optional[float]:
        return self.actions / self.measure.wall if self.ok and self.measure.wall > 0 else None

    @property
    def rss_mib(self) -> Optional[float]:
        return None if self.measure.rss_kib is None else self.measure.rss_kib / 1024

    @property
    def cell(self) -> tuple[str, str]:
        return (self.trace, self.platform)


class AppRatios:
    """Each run's speed and memory relative to stock SMPI on the same trace and platform."""

    def __init__(self, rows: Sequence[AppRow]) -> None:
        self.smpi = {row.cell: row for row in rows if row.tool == SMPI and row.ok}

    def speed(self, row: AppRow) -> Optional[float]:
        smpi = self.smpi.get(row.cell)
        return None if row.rate is None or smpi is None or smpi.rate is None else row.rate / smpi.rate

    def memory(self, row: AppRow) -> Optional[float]:
        smpi = self.smpi.get(row.cell)
        theirs = None if smpi is None else smpi.rss_mib
        return None if row.rss_mib is None or not theirs else row.rss_mib / theirs


def capture_folders(arguments: Sequence[Path]) -> list[Path]:
    return [Path(a) for a in arguments] if arguments else [*captures(), *captures(LARGE_TRACES)]


def action_count(listing: Path) -> int:
    output = subprocess.run([str(engine_binary()), "--inspect-trace", str(listing)], capture_output=True, text=True,
                            check=True).stdout
    for line in output.splitlines():
        if line.startswith("actions "):
            return int(line.split()[1])
    raise RuntimeError(f"progsim-engine --inspect-trace {listing} printed no action count")


def platform_label(name: str) -> str:
    return name if name in NAMED_PLATFORMS else Path(name).stem


def compile_for(name: str, ranks: int, per_node: int, workdir: Path):
    """The platform `name` (a named network or a YAML path) with `per_node` ranks per node, compiled for `ranks`."""
    source = NAMED_PLATFORMS.get(name, Path(name))
    if source is None:  # the flat benchmark cluster: 16-core nodes (more if more ranks share a node), sized per trace
        source = workdir / "flat.yaml"
        source.write_text(platform_yaml(ranks, spare_cores=max(0, per_node - 16)))
    platform = load_platform(source)
    platform = dataclasses.replace(platform, placement=PlacementSpec(platform.placement.policy, per_node))
    return compile_platform(platform, workdir / f"compiled-{platform_label(name)}", ranks)


def timed(row: AppRow) -> bool:
    """Whether the row's capture is held to LONG_CAPTURE_WALL."""
    return row.actions >= LONG_CAPTURE_ACTIONS and row.ranks <= LONG_CAPTURE_RANKS


def verdict(row: AppRow, ratios: AppRatios) -> str:
    if not row.ok:
        return "FAILED"
    if row.cell not in ratios.smpi:
        return "no SMPI run"
    goal = 2.0 if row.tool in FAST_MECHANISMS else 1.0
    speed, memory = ratios.speed(row), ratios.memory(row)
    misses = [what for what, good in (("speed", speed is not None and speed >= goal),
                                      ("memory", memory is not None and memory <= 1.0),
                                      ("time", not timed(row) or row.measure.wall <= LONG_CAPTURE_WALL)) if not good]
    return "target met" if not misses else f"target missed ({', '.join(misses)})"


def table(rows: Sequence[AppRow]) -> tuple[list[str], list[list[str]]]:
    ratios = AppRatios(rows)
    header = ["trace", "ranks", "actions", "tool", "platform", "wall s", "actions/s", "vs SMPI", "peak RSS MiB",
              "RSS vs SMPI", "sim time s"]
    body = [[row.trace, str(row.ranks), str(row.actions), row.tool, row.platform,
             fmt(row.measure.wall, ".3g") if row.ok else "FAILED", fmt(row.rate, ".3g"), fmt(ratios.speed(row), ".2f"),
             fmt(row.rss_mib, ".1f"), fmt(ratios.memory(row), ".2f"), fmt(row.measure.simulated, ".6g")]
            for row in rows]
    return header, body


def summary(rows: Sequence[AppRow]) -> tuple[list[str], list[list[str]]]:
    ratios = AppRatios(rows)
    header = ["trace", "platform", "mechanism", "vs SMPI", "RSS vs SMPI", "target", "verdict"]
    body = []
    for row in rows:
        if row.tool == SMPI:
            continue
        goal = f">= {2 if row.tool in FAST_MECHANISMS else 1}x, RSS <= SMPI" + (
            f", <= {LONG_CAPTURE_WALL:g} s" if timed(row) else "")
        body.append([row.trace, row.platform, row.tool, times(ratios.speed(row)), times(ratios.memory(row)), goal,
                     verdict(row, ratios)])
    return header, body


def csv_records(rows: Sequence[AppRow]) -> list[dict[str, Any]]:
    ratios = AppRatios(rows)

    def number(value: Optional[float]) -> float:
        return math.nan if value is None else value

    return [{"trace": row.trace, "platform": row.platform, "ranks": row.ranks, "actions": row.actions,
             "tool": row.tool, "wall_s": row.measure.wall, "actions_per_s": number(row.rate),
             "vs_smpi": number(ratios.speed(row)), "peak_rss_mib": number(row.rss_mib),
             "rss_vs_smpi": number(ratios.memory(row)), "sim_time_s": number(row.measure.simulated),
             "error": row.measure.error or ""} for row in rows]


def write_csv(rows: Sequence[AppRow], path: Path) -> None:
    import pandas

    frame = pandas.DataFrame(csv_records(rows), columns=CSV_COLUMNS)
    write_atomically(path, lambda partial: frame.to_csv(partial, index=False))


def plot(rows: Sequence[AppRow], path: Path) -> None:
    """Speed relative to SMPI per trace (groups) and mechanism (bars), one panel per platform, log scale; the
    targets (1x, 2x) as lines. A run that failed or has no SMPI run to compare with has no bar."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ratios = AppRatios(rows)
    platforms = list(dict.fromkeys(row.platform for row in rows))
    traces = list(dict.fromkeys(row.trace for row in rows))
    tools = list(dict.fromkeys(row.tool for row in rows if row.tool != SMPI))
    figure, axes = plt.subplots(len(platforms), 1, figsize=(max(6.0, 1.2 * len(traces) * max(1, len(tools)) / 3),
                                                            3.2 * len(platforms)), squeeze=False)
    width = 0.8 / max(1, len(tools))
    for axis, platform in zip(axes[:, 0], platforms):
        for k, tool in enumerate(tools):
            found = {row.trace: ratios.speed(row) for row in rows if row.platform == platform and row.tool == tool}
            xs = [i + (k - (len(tools) - 1) / 2) * width for i, trace in enumerate(traces)
                  if found.get(trace) is not None]
            ys = [found[trace] for trace in traces if found.get(trace) is not None]
            axis.bar(xs, ys, width, label=tool)
        for level, style in ((1.0, "--"), (2.0, ":")):
            axis.axhline(level, color="black", linestyle=style, linewidth=0.8)
        axis.set_yscale("log")
        axis.set_xticks(range(len(traces)), traces, rotation=20, fontsize=8)
        axis.set_ylabel("speed vs SMPI (actions/s ratio)")
        axis.set_title(f"{platform}: lines at 1x (every mechanism's target) and 2x (ideal's and none's)", fontsize=9)
    axes[0, 0].legend(fontsize=8, ncol=len(tools))
    figure.tight_layout()
    write_atomically(path, lambda partial: figure.savefig(partial, dpi=110, format="png"))
    plt.close(figure)


def parse_arguments(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="benchmark_apps.py", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("traces", nargs="*", type=Path, metavar="TRACE",
                        help="capture folders (default: every folder of validation/real and validation/real/large "
                             "with a trace_list.txt)")
    parser.add_argument("--platform", action="append", default=None, metavar="NAME|YAML",
                        help=f"a network to replay on: {', '.join(NAMED_PLATFORMS)} or a platform YAML; repeatable "
                             f"(default: {' '.join(NAMED_PLATFORMS)})")
    parser.add_argument("--ranks-per-node", type=int, default=DEFAULT_RANKS_PER_NODE, metavar="K",
                        help=f"ranks per node on every platform (default {DEFAULT_RANKS_PER_NODE})")
    parser.add_argument("--progress", nargs="+", default=list(DEFAULT_MECHANISMS), choices=progress_mechanisms(),
                        metavar="MECHANISM", help=f"mechanisms (default: {' '.join(DEFAULT_MECHANISMS)})")
    parser.add_argument("--set", action="append", default=[], metavar="NAME:VALUE",
                        help="set an engine parameter for every engine run, e.g. --set eager-threshold:8192")
    parser.add_argument("--skip-smpi", action="store_true", help="do not run stock smpirun")
    parser.add_argument("--repeat", type=int, default=1, metavar="K", help="keep the fastest of K runs (default 1)")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="kill a run after this long (it then counts as failed)")
    parser.add_argument("--csv", type=Path, default=None, metavar="PATH",
                        help="write every run's figures to this CSV (rewritten after each run)")
    parser.add_argument("--plot", type=Path, default=None, metavar="PNG",
                        help="draw each mechanism's speed relative to SMPI per trace, one panel per platform")
    args = parser.parse_args(argv)
    args.platform = list(dict.fromkeys(args.platform or NAMED_PLATFORMS))
    for name in args.platform:
        if name not in NAMED_PLATFORMS and not Path(name).is_file():
            parser.error(f"--platform {name}: neither {', '.join(NAMED_PLATFORMS)} nor a platform YAML file")
    if args.ranks_per_node < 1 or args.repeat < 1:
        parser.error("--ranks-per-node and --repeat must be >= 1")
    for option, path in (("--csv", args.csv), ("--plot", args.plot)):
        if path is not None and not path.resolve().parent.is_dir():
            parser.error(f"{option} {path}: folder {path.resolve().parent} does not exist")
    return args


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_arguments(argv)
    if not Path("/usr/bin/time").is_file():
        print("benchmark_apps.py: /usr/bin/time is needed (apt-get install time)", file=sys.stderr)
        return 2
    folders = capture_folders(args.traces)
    if not folders:
        print(f"benchmark_apps.py: no capture found under {REAL_TRACES}", file=sys.stderr)
        return 2
    tools = [*args.progress, *([] if args.skip_smpi else [SMPI])]
    progress = Progress(len(folders) * len(args.platform) * len(tools))
    rows: list[AppRow] = []
    good = True
    with tempfile.TemporaryDirectory(prefix="progsim-bench-apps-") as temporary:
        for capture in folders:
            name = capture.name
            workdir = Path(temporary) / name
            start = time.perf_counter()
            listing = plain_copy(capture, workdir / "trace")
            ranks = len(listed_files(capture))
            actions = action_count(listing)
            print(f"{name}: {ranks} ranks, {actions} actions, prepared in {time.perf_counter() - start:.1f} s",
                  file=sys.stderr, flush=True)
            for platform_name in args.platform:
                label = platform_label(platform_name)
                compiled = compile_for(platform_name, ranks, args.ranks_per_node, workdir)
                found: dict[str, Measure] = {}
                for tool in tools:
                    command = (smpi_command(listing, compiled) if tool == SMPI
                               else engine_command(listing, compiled, tool, args.set))
                    parse = parse_smpi if tool == SMPI else parse_engine
                    progress.start(f"{name} {label} {tool}")
                    measure = best_of(args.repeat, lambda: run_timed(command, workdir, args.timeout, parse))
                    progress.finish(f"{name} {label} {tool}", measure)
                    found[tool] = measure
                    rows.append(AppRow(name, label, ranks, actions, tool, measure))
                    if args.csv is not None:
                        write_csv(rows, args.csv)
                good = check_ideal(f"{name} on {label}", found.get("ideal"), found.get(SMPI)) and good
            for path in (workdir / "trace").iterdir():  # the plain copy of a long capture takes room
                path.unlink()
    progress.close()
    print()
    print_table(*table(rows))
    print("\nsummary: each mechanism's speed and peak RSS as multiples of SMPI's on the same trace and platform")
    print_table(*summary(rows))
    if args.plot is not None and rows:
        plot(rows, args.plot)
        print(f"\nplot: {args.plot}")
    if args.csv is not None:
        print(f"csv: {args.csv} ({len(rows)} rows)")
    for row in rows:
        if row.measure.error:
            print(f"{row.trace} on {row.platform}, {row.tool} failed: {row.measure.error}")
            good = False
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
