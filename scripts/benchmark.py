#!/usr/bin/env python3
"""Benchmarks progsim-engine's replay speed against stock SMPI replay (smpirun -replay) on a ring trace.

Run from anywhere: `python3 scripts/benchmark.py --help`.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Optional, Sequence

REPOSITORY = Path(__file__).resolve().parent.parent
if str(REPOSITORY) not in sys.path:
    sys.path.insert(0, str(REPOSITORY))

from progsim.engine import engine_binary, progress_mechanisms  # noqa: E402
from progsim.platform import Compiled, compile_platform, load_platform  # noqa: E402
from progsim.tracegen import ring_lines, write_trace  # noqa: E402

SMPI = "smpi"
DEFAULT_MECHANISMS = ("ideal", "none", "thread", "dedicated-core", "offload")
CORES_PER_NODE = 16
ACTIONS_PER_ITERATION = 5  # irecv, isend, compute, wait, wait
PRIVATIZATION_OFF_FROM = 6500  # smpirun fails to privatize globals for this many ranks and more
SHARED_TRACE_ABOVE = 20000  # one shared trace file instead of one file per rank (file-descriptor limits)
CHECK_TOLERANCE = 0.01  # ideal's simulated time must equal SMPI's within 1 %

PLATFORM_YAML = """\
name: bench-flat
description: flat benchmark cluster, {nodes} nodes of 16 cores (1 NUMA domain, 1 NIC each)
nodes: {nodes}
node: {{sockets: 1, numa_per_socket: 1, cores_per_numa: {cores}, core_speed: 1.0e9, memory: {{bandwidth: 2.0e10, latency: 1.0e-7}}}}
nics: [{{numa: 0, bandwidth: 1.0e10, latency: 1.0e-6}}]
interconnect: {{topology: flat, link: {{bandwidth: 1.25e10, latency: 1.0e-7}}}}
mpi: {{eager_threshold: 65536, rendezvous: get}}
placement: {{policy: block}}
"""

DESCRIPTION = """\
Measures how fast progsim-engine replays an SMPI time-independent trace, compared with stock SMPI replay.

For each rank count N (--ranks), the script generates a ring trace once: every rank runs --iterations iterations
of `irecv left; isend right; compute FLOPS; wait; wait` (5 actions), plus init and finalize, so the trace holds
N x (5 x iterations + 2) actions. It compiles a flat platform for it (ceil(N/16) nodes of 16 cores at 1 Gflop/s,
one NUMA domain and one NIC each, all NICs on one flat interconnect; eager threshold 64 KiB), then replays the
same trace with progsim-engine under each progress mechanism (--progress) and with
`smpirun -replay` (SimGrid's own replay, unless --skip-smpi).

Measured, per run (each child runs under /usr/bin/time; best of --repeat runs, by wall time):
  wall s        elapsed wall-clock time of the child process, including trace parsing and platform loading
  actions/s     trace actions replayed per wall-clock second
  vs SMPI       actions/s divided by smpirun's actions/s on the same trace (> 1: faster than SMPI)
  peak RSS MiB  maximum resident set size of the child (and its descendants), from /usr/bin/time %M
  sim time s    simulated time printed by the tool (6 significant digits)
When SMPI ran, the script also checks that the `ideal` mechanism (SMPI's own progression assumption) predicts
SMPI's simulated time within 1 %; the exit status is 1 if a check fails or a run fails.
"""


@dataclass
class Measure:
    wall: float  # seconds, measured around the child
    rss_kib: Optional[int]  # peak resident set size, from /usr/bin/time %M
    simulated: Optional[float]  # seconds, parsed from the tool's output
    error: Optional[str] = None


@dataclass
class Row:
    ranks: int
    actions: int
    tool: str
    measure: Measure


def platform_yaml(ranks: int) -> str:
    return PLATFORM_YAML.format(nodes=max(1, math.ceil(ranks / CORES_PER_NODE)), cores=CORES_PER_NODE)


def run_timed(arguments: Sequence[str], workdir: Path, timeout: Optional[float],
              parse: Callable[[str], Optional[float]]) -> Measure:
    """Runs one child under /usr/bin/time, in its own process group so a timeout kills the whole tree."""
    time_file = workdir / "time.out"
    time_file.unlink(missing_ok=True)
    command = ["/usr/bin/time", "-f", "%e %M", "-o", str(time_file), *arguments]
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=workdir,
                             start_new_session=True)
    try:
        stdout, stderr = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        return Measure(time.perf_counter() - start, None, None, f"timeout after {timeout:g} s")
    wall = time.perf_counter() - start
    rss: Optional[int] = None
    if time_file.is_file():
        fields = time_file.read_text().split()
        if len(fields) >= 2 and fields[-1].isdigit():
            rss = int(fields[-1])
    simulated = parse(stdout + "\n" + stderr)
    if child.returncode != 0 or simulated is None:
        tail = (stderr.strip() or stdout.strip())[-400:]
        return Measure(wall, rss, simulated, f"exit {child.returncode}: {tail}")
    return Measure(wall, rss, simulated)


def parse_engine(output: str) -> Optional[float]:
    match = re.search(r"simulated time\s+([0-9.eE+-]+) s", output)
    return float(match.group(1)) if match else None


def parse_smpi(output: str) -> Optional[float]:
    match = re.search(r"Simulated time: ([0-9.eE+-]+) seconds", output)
    return float(match.group(1)) if match else None


def engine_command(trace: Path, compiled: Compiled, mechanism: str, settings: Sequence[str] = ()) -> list[str]:
    return [str(engine_binary()), str(compiled.platform_xml), str(compiled.hostfile), str(trace),
            *compiled.engine_config, *(f"--cfg=progsim/{s}" for s in settings), f"--cfg=progsim/progress:{mechanism}",
            "--log=root.thres:critical"]


def smpi_command(trace: Path, compiled: Compiled) -> list[str]:
    arguments = ["smpirun", "-np", str(compiled.ranks), "-platform", str(compiled.platform_xml), "-hostfile",
                 str(compiled.hostfile), "-replay", str(trace), "--cfg=smpi/display-timing:yes",
                 "--log=smpi_config.thres:warning", "--log=xbt_cfg.thres:warning"]
    if compiled.ranks >= PRIVATIZATION_OFF_FROM:
        arguments.append("--cfg=smpi/privatization:no")
    return arguments


def best_of(repeat: int, once: Callable[[], Measure]) -> Measure:
    """The run with the least wall time among `repeat` (stops at the first failure)."""
    best: Optional[Measure] = None
    for _ in range(repeat):
        measure = once()
        if measure.error is not None:
            return measure
        if best is None or measure.wall < best.wall:
            best = measure
    assert best is not None
    return best


class Progress:
    """tqdm when installed, else a printed counter on stderr."""

    def __init__(self, total: int) -> None:
        self.total, self.done = total, 0
        try:
            from tqdm import tqdm  # type: ignore[import-not-found,import-untyped]
            self.bar = tqdm(total=total, unit="run", file=sys.stderr)
        except ImportError:
            self.bar = None

    def start(self, label: str) -> None:
        if self.bar is not None:
            self.bar.set_description(label)
        else:
            print(f"[{self.done + 1}/{self.total}] {label} ...", file=sys.stderr, flush=True)

    def finish(self, label: str, measure: Measure) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.update(1)
        else:
            status = measure.error or f"{measure.wall:.3f} s"
            print(f"[{self.done}/{self.total}] {label}: {status}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def benchmark(ranks: int, args: argparse.Namespace, progress: Progress, root: Path) -> list[Row]:
    workdir = root / f"n{ranks}"
    workdir.mkdir(parents=True, exist_ok=True)
    label = f"N={ranks}"
    start = time.perf_counter()
    shared = ranks > SHARED_TRACE_ABOVE or args.shared_trace
    trace = write_trace(ring_lines(ranks, args.iterations, args.bytes, args.flops), workdir / "trace", shared=shared)
    source = workdir / "platform.yaml"
    source.write_text(platform_yaml(ranks))
    compiled = compile_platform(load_platform(source), workdir / "compiled", ranks)
    print(f"{label}: trace ({'shared file' if shared else 'one file per rank'}) and platform written in "
          f"{time.perf_counter() - start:.2f} s", file=sys.stderr, flush=True)
    actions = ranks * (ACTIONS_PER_ITERATION * args.iterations + 2)
    rows = []
    tools = [*args.progress, *([] if args.skip_smpi else [SMPI])]
    for tool in tools:
        command = smpi_command(trace, compiled) if tool == SMPI else engine_command(trace, compiled, tool, args.set)
        parse = parse_smpi if tool == SMPI else parse_engine
        progress.start(f"{label} {tool}")
        measure = best_of(args.repeat, lambda: run_timed(command, workdir, args.timeout, parse))
        progress.finish(f"{label} {tool}", measure)
        rows.append(Row(ranks, actions, tool, measure))
    if not args.keep:
        for path in (workdir / "trace").iterdir():
            path.unlink()
    return rows


def fmt(value: Optional[float], spec: str) -> str:
    return "-" if value is None else format(value, spec)


def table(rows: Iterable[Row]) -> tuple[list[str], list[list[str]]]:
    rows = list(rows)
    smpi_rate = {row.ranks: row.actions / row.measure.wall for row in rows
                 if row.tool == SMPI and row.measure.error is None}
    header = ["ranks", "actions", "tool", "wall s", "actions/s", "vs SMPI", "peak RSS MiB", "sim time s"]
    body = []
    for row in rows:
        m = row.measure
        ok = m.error is None
        rate = row.actions / m.wall if ok else None
        ratio = rate / smpi_rate[row.ranks] if ok and rate is not None and row.ranks in smpi_rate else None
        body.append([str(row.ranks), str(row.actions), row.tool, fmt(m.wall, ".4g") if ok else "FAILED",
                     fmt(rate, ".4g"), fmt(ratio, ".2f"), fmt(None if m.rss_kib is None else m.rss_kib / 1024, ".1f"),
                     fmt(m.simulated, ".6g")])
    return header, body


def print_table(header: list[str], body: list[list[str]]) -> None:
    try:
        import pandas  # type: ignore[import-untyped]
    except ImportError:
        widths = [max(len(header[i]), *(len(line[i]) for line in body)) for i in range(len(header))]
        print("  ".join(h.rjust(w) for h, w in zip(header, widths)))
        print("  ".join("-" * w for w in widths))
        for line in body:
            print("  ".join(cell.rjust(w) for cell, w in zip(line, widths)))
        return
    with pandas.option_context("display.width", 200, "display.max_columns", None):
        print(pandas.DataFrame(body, columns=header).to_string(index=False))


def check_ideal(label: str, ideal: Optional[Measure], smpi: Optional[Measure]) -> bool:
    """Prints whether ideal's simulated time matches SMPI's within CHECK_TOLERANCE; True if it does (or if either
    tool was not run)."""
    if ideal is None or smpi is None:
        return True
    if ideal.simulated is None or smpi.simulated is None or ideal.error or smpi.error:
        print(f"check {label}: cannot compare (a run failed)")
        return False
    difference = abs(ideal.simulated - smpi.simulated) / smpi.simulated
    verdict = "OK" if difference <= CHECK_TOLERANCE else "MISMATCH"
    print(f"check {label}: ideal {ideal.simulated:.6g} s vs SMPI {smpi.simulated:.6g} s: "
          f"relative difference {difference:.4%} (tolerance {CHECK_TOLERANCE:.0%}) {verdict}")
    return verdict == "OK"


def checks(rows: list[Row]) -> bool:
    """Per rank count, whether ideal's simulated time matches SMPI's; True if all match."""
    good = True
    for ranks in sorted({row.ranks for row in rows}):
        found = {row.tool: row.measure for row in rows if row.ranks == ranks}
        good = check_ideal(f"N={ranks}", found.get("ideal"), found.get(SMPI)) and good
    return good


def parse_arguments(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="benchmark.py", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ranks", type=int, nargs="+", default=[64, 1024], metavar="N",
                        help="rank counts to benchmark (default: 64 1024)")
    parser.add_argument("--iterations", type=int, default=30, metavar="M",
                        help="ring iterations per rank, 5 actions each (default: 30)")
    parser.add_argument("--bytes", type=int, default=1024,
                        help="message size in bytes (default: 1024; e.g. 1048576 for 1 MiB, rendezvous)")
    parser.add_argument("--flops", type=float, default=1e6,
                        help="flops of each compute action (default: 1e6, i.e. 1 ms at 1 Gflop/s)")
    parser.add_argument("--progress", nargs="+", default=list(DEFAULT_MECHANISMS), choices=progress_mechanisms(),
                        metavar="MECHANISM",
                        help=f"progress mechanisms to run the engine with (default: {' '.join(DEFAULT_MECHANISMS)})")
    parser.add_argument("--set", action="append", default=[], metavar="NAME:VALUE",
                        help="set an engine parameter for every engine run, e.g. --set copy-loads-bus:no")
    parser.add_argument("--skip-smpi", action="store_true", help="do not run stock smpirun (e.g. for huge N)")
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
    if any(n < 2 for n in args.ranks):
        parser.error("--ranks: a ring needs at least 2 ranks")
    if args.iterations < 1 or args.repeat < 1 or args.bytes < 0 or args.flops < 0:
        parser.error("--iterations and --repeat must be >= 1, --bytes and --flops >= 0")
    return args


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
    runs_per_n = len(args.progress) + (0 if args.skip_smpi else 1)
    progress = Progress(len(args.ranks) * runs_per_n)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="progsim-bench-") as temporary:
        root = args.workdir if args.workdir is not None else Path(temporary)
        for ranks in args.ranks:
            rows += benchmark(ranks, args, progress, root)
    progress.close()
    print(f"\nring trace: {args.iterations} iterations x 5 actions + init/finalize per rank, {args.bytes} B messages, "
          f"{args.flops:g} flops per compute; best of {args.repeat}")
    print_table(*table(rows))
    good = checks(rows)
    failed = any(row.measure.error for row in rows)
    for row in rows:
        if row.measure.error:
            print(f"N={row.ranks} {row.tool} failed: {row.measure.error}")
    return 0 if good and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
