"""Runs a sweep's points on a local process pool or a Dask cluster, into one table that survives interruptions.

Every replay is a task. An overlap point replays its references first (the communication alone once per size, the
computation alone once per computation time), then one overlapped replay per cell; a trace point is one replay per
mechanism. Each finished row is appended at once to a partial table next to the output, stamped with a digest of
everything that decides the results (the scenario, its platforms and traces, the engine): a run interrupted, or one
whose points failed, resumes from it and recomputes nothing that finished. A failed point keeps its error in the
table, is listed at the end, and never stops the others.

Dask workers must see the same files as this process (a shared file system, as on a cluster's nodes).
"""

from __future__ import annotations

import csv
import hashlib
import statistics
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from progsim import __version__, cells, overlap
from progsim import sweep as sweep_module
from progsim.engine import engine_binary, inspect_trace, replay
from progsim.errors import InputError
from progsim.platform import Compiled, load_platform
from progsim.platform.model import Platform
from progsim.pools import Pool, default_jobs, make_pool
from progsim.progress_bar import ProgressBar
from progsim.sweep import OverlapWorkload, Point, SweepSpec, TraceWorkload, axis_column

TRACE_METRICS = ["simulated_time", "compute_mean", "mpi_mean", "wait_mean", "progress_cpu_mean"]


# ---- tasks: module functions, so that worker processes (local or Dask) can run them -------------------------------

def reference_task(kind: str, cell: overlap.Cell, compiled: Compiled, mechanism: str,
                   settings: list[str]) -> tuple[float, float] | str:
    """Per rank, the communication alone's time or the computation alone's; an error's first line if it fails."""
    reference = overlap.communication_reference if kind == "comm" else overlap.computation_reference
    try:
        with tempfile.TemporaryDirectory(prefix="progsim-sweep-") as scratch:
            return reference(cell, compiled, mechanism, Path(scratch), settings)
    except overlap.ReplayFailed as error:
        return str(error).splitlines()[0]


def cell_task(cell: overlap.Cell, compiled: Compiled, mechanism: str, settings: list[str],
              references: overlap.References) -> dict[str, str] | str:
    """A cell's metric columns (progsim/cells.py), or an error's first line."""
    try:
        with tempfile.TemporaryDirectory(prefix="progsim-sweep-") as scratch:
            metrics = overlap.measure(cell, compiled, mechanism, Path(scratch), settings, references)
    except overlap.ReplayFailed as error:
        return str(error).splitlines()[0]
    return cells.metric_fields([m.overhead_ratio for m in metrics], [m.computation_slowdown for m in metrics],
                               [m.communication_ratio for m in metrics],
                               statistics.median([m.t_comm_ref for m in metrics]),
                               statistics.median([m.t_comp_ref for m in metrics]))


def trace_task(trace: Path, compiled: Compiled, mechanism: str, settings: list[str]) -> dict[str, str] | str:
    """The per-rank means of a trace's replay, or the reason it failed (the engine's first error line)."""
    with tempfile.TemporaryDirectory(prefix="progsim-sweep-") as scratch:
        run = replay(trace, compiled, mechanism, Path(scratch) / "results.json", settings=settings)
    if run.returncode != 0 or run.results is None:
        lines = [line.strip() for line in run.stderr.splitlines() if line.strip()]
        first = next((line for line in lines if line.startswith(("progsim: error:", "Deadlock"))),
                     lines[0] if lines else "no message")
        return f"exit {run.returncode}: {first.removeprefix('progsim: error: ')[:300]}"
    ranks = run.results["ranks"]
    n = len(ranks)
    return {"simulated_time": f"{run.results['simulated_time']:.9g}",
            "compute_mean": f"{sum(r['compute_time'] for r in ranks) / n:.9g}",
            "mpi_mean": f"{sum(r['mpi_time'] for r in ranks) / n:.9g}",
            "wait_mean": f"{sum(r['wait_time'] for r in ranks) / n:.9g}",
            "progress_cpu_mean": f"{sum(r['progress_cpu_time'] for r in ranks) / n:.9g}"}


# ---- the table ----------------------------------------------------------------------------------------------------

def point_columns(spec: SweepSpec) -> list[str]:
    """The columns that say which point a row is: the platform's name, the mechanism, then every other axis (the
    axis of whole platforms is the column platform_file)."""
    return ["platform", "mechanism", *[axis_column(a.name) for a in spec.axes if a.name != "progress"]]


def table_columns(spec: SweepSpec) -> list[str]:
    if isinstance(spec.workload, OverlapWorkload):
        return [*point_columns(spec), *cells.COLUMNS]
    return [*point_columns(spec), *TRACE_METRICS, "error"]


def key_columns(spec: SweepSpec) -> list[str]:
    return [*point_columns(spec), *(cells.CELL if isinstance(spec.workload, OverlapWorkload) else [])]


def inputs_digest(spec: SweepSpec, points: list[Point]) -> str:
    """What decides the results: the scenario, the platforms, the traces (list files, and the size of each trace
    file), the engine and progsim's version; a partial table from other inputs is not resumed."""
    digest = hashlib.sha256(__version__.encode())
    files = {spec.path, *(p.platform for p in points)}
    for point in points:
        if isinstance(point.workload, TraceWorkload):
            files.add(point.workload.trace)
    for file in sorted(files):
        digest.update(str(file.name).encode() + file.read_bytes())
    for listing in sorted({p.workload.trace for p in points if isinstance(p.workload, TraceWorkload)}):
        for trace in inspect_trace(listing).files:
            digest.update(str(trace.stat().st_size).encode())
    with engine_binary().open("rb") as engine:
        for block in iter(lambda: engine.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:20]


@dataclass
class PartialTable:
    """Rows appended as they finish, after a first line that stamps the inputs' digest."""

    path: Path
    digest: str
    columns: list[str]
    rows: dict[tuple[str, ...], dict[str, str]] = field(default_factory=dict)

    def stamp(self) -> str:
        return f"# progsim sweep, inputs {self.digest}"

    def load(self, keys: list[str]) -> str:
        """Rows of an earlier run from the same inputs; a sentence saying what was kept or why not."""
        if not self.path.is_file():
            return ""
        with self.path.open(newline="") as handle:
            first = handle.readline().rstrip("\n")
            if first != self.stamp():
                return f"{self.path}: from other inputs (the scenario, a platform, a trace or the engine changed): " \
                       f"starting over"
            reader = csv.DictReader(handle)
            if reader.fieldnames != self.columns:
                return f"{self.path}: other columns: starting over"
            for row in reader:
                if not row.get("error"):
                    self.rows[tuple(row[k] for k in keys)] = row
        return f"resuming from {self.path}: {len(self.rows)} rows already done"

    def open(self) -> None:
        self.handle = self.path.open("w", newline="")
        self.handle.write(self.stamp() + "\n")
        self.writer = csv.DictWriter(self.handle, self.columns)
        self.writer.writeheader()
        self.writer.writerows(self.rows.values())
        self.handle.flush()

    def add(self, row: dict[str, str]) -> None:
        if not row.get("error"):
            self.writer.writerow(row)
            self.handle.flush()

    def close(self) -> None:
        self.handle.close()


# ---- the run ------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    rows: list[dict[str, str]]
    failed: list[dict[str, str]]
    resumed: int


def _case(point: Point, base: dict[str, str]) -> str:
    """The panel a cell belongs to: the platform, the mechanism and the other axes' values."""
    others = [f"{k}={v}" for k, v in point.columns if k not in ("progress", "overlap.side")]
    return " ".join([base["platform"], point.mechanism, *others])


class _Run:
    def __init__(self, spec: SweepSpec, pool: Pool, partial: PartialTable, keys: list[str],
                 advance: Callable[[int], None]):
        self.spec, self.pool, self.partial, self.keys, self.advance = spec, pool, partial, keys, advance
        self.compiled: dict[tuple[Path, Optional[int], Optional[str], int], Compiled] = {}
        self.models: dict[Path, Platform] = {}
        self.rows: dict[tuple[str, ...], dict[str, str]] = {}
        self.waiting: dict[Any, Callable[[Any], None]] = {}  # future -> what to do with its result

    def model(self, point: Point) -> Platform:
        """The point's platform, read once per file."""
        if point.platform not in self.models:
            self.models[point.platform] = load_platform(point.platform)
        return self.models[point.platform]

    def compile(self, point: Point, ranks: int) -> Compiled:
        """Each (platform, placement, ranks) compiled once, in this process, before its tasks are sent out."""
        from progsim.cli import prepare_platform

        key = (point.platform, point.ranks_per_node, point.placement_policy, ranks)
        if key not in self.compiled:
            self.compiled[key] = prepare_platform(point.platform, ranks, point.ranks_per_node, point.placement_policy)
        return self.compiled[key]

    def base_row(self, point: Point) -> dict[str, str]:
        """The columns that say which point a row is (point_columns)."""
        return {"platform": self.model(point).name, "mechanism": point.mechanism,
                **{k: v for k, v in point.columns if k != "progress"}}

    def key(self, row: dict[str, str]) -> tuple[str, ...]:
        return tuple(row[k] for k in self.keys)

    def finish(self, row: dict[str, str]) -> None:
        row = {column: row.get(column, "") for column in self.partial.columns}  # every column, as the table has
        self.rows[self.key(row)] = row
        self.partial.add(row)
        self.advance(1)

    def submit(self, then: Callable[[Any], None], fn: Callable[..., Any], *args: Any) -> None:
        self.waiting[self.pool.submit(fn, *args)] = then

    def drain(self) -> None:
        while self.waiting:
            for future in self.pool.wait_any(set(self.waiting)):
                then = self.waiting.pop(future)
                try:
                    result = future.result()
                except Exception as error:  # a task that broke is one failed row, not the end of the sweep
                    result = f"{type(error).__name__}: {error}"
                then(result)

    def trace_point(self, point: Point, base: dict[str, str]) -> None:
        assert isinstance(point.workload, TraceWorkload)
        if self.key(base) in self.partial.rows:
            self.rows[self.key(base)] = self.partial.rows[self.key(base)]
            return
        compiled = self.compile(point, inspect_trace(point.workload.trace).ranks)

        def done(result: dict[str, str] | str) -> None:
            self.finish({**base, **({"error": result} if isinstance(result, str) else result)})

        self.submit(done, trace_task, point.workload.trace, compiled, point.mechanism, list(point.settings))

    def overlap_point(self, point: Point, base: dict[str, str]) -> None:
        workload = point.workload
        assert isinstance(workload, OverlapWorkload)
        case = _case(point, base)
        speed = self.model(point).node.core_speed
        todo: list[tuple[dict[str, str], overlap.Cell, int, float]] = []
        for size in workload.sizes:
            for seconds in workload.compute:
                row = {**base, "case": case, "side": workload.side, "size_bytes": str(size),
                       "compute_s": f"{seconds:.6g}", "tests": str(workload.tests)}
                if self.key(row) in self.partial.rows:
                    self.rows[self.key(row)] = self.partial.rows[self.key(row)]
                else:
                    todo.append((row, overlap.Cell(size, seconds * speed, workload.side, workload.tests), size,
                                 seconds))
        if not todo:
            return
        compiled = self.compile(point, 2)
        settings = list(point.settings)
        comm: dict[int, Any] = {}
        comp: dict[float, Any] = {}

        def ready(row: dict[str, str], cell: overlap.Cell, size: int, seconds: float) -> None:
            a, b = comm.get(size), comp.get(seconds)
            if a is None or b is None:
                return
            if isinstance(a, str) or isinstance(b, str):
                self.finish({**row, "error": a if isinstance(a, str) else str(b)})
                return

            def done(result: dict[str, str] | str) -> None:
                self.finish({**row, **({"error": result} if isinstance(result, str) else result)})

            self.submit(done, cell_task, cell, compiled, point.mechanism, settings, overlap.References(a, b))

        def reference(kind: str, value: int | float) -> Callable[[Any], None]:
            def done(result: Any) -> None:
                (comm if kind == "comm" else comp)[value] = result  # type: ignore[index]
                for row, cell, size, seconds in todo:
                    if (size if kind == "comm" else seconds) == value:
                        ready(row, cell, size, seconds)
            return done

        for size in sorted({t[2] for t in todo}):
            self.submit(reference("comm", size), reference_task, "comm",
                        overlap.Cell(size, workload.compute[0] * speed, workload.side), compiled, point.mechanism,
                        settings)
        for seconds in sorted({t[3] for t in todo}):
            self.submit(reference("comp", seconds), reference_task, "comp",
                        overlap.Cell(workload.sizes[0], seconds * speed, workload.side), compiled,
                        point.mechanism, settings)


def expected_rows(spec: SweepSpec, points: list[Point]) -> int:
    if isinstance(spec.workload, OverlapWorkload):
        return len(points) * len(spec.workload.sizes) * len(spec.workload.compute)
    return len(points)


def run_sweep(spec: SweepSpec, output: Path, pool: Pool, advance: Callable[[int], None],
              report: Callable[[str], None]) -> Outcome:
    """Every row of the sweep, in the order of its points (and of the cells within a point), whatever order the
    tasks end in."""
    points = spec.points()
    columns, keys = table_columns(spec), key_columns(spec)
    partial = PartialTable(output.with_name(f"{output.name}.partial.csv"), inputs_digest(spec, points), columns)
    said = partial.load(keys)
    if said:
        report(said)
    resumed = len(partial.rows)
    advance(min(resumed, expected_rows(spec, points)))
    run = _Run(spec, pool, partial, keys, advance)
    partial.open()
    try:
        order: list[dict[str, str]] = []
        for point in points:
            base = run.base_row(point)
            order.append(base)
            if isinstance(point.workload, TraceWorkload):
                run.trace_point(point, base)
            else:
                run.overlap_point(point, base)
        run.drain()
    finally:
        partial.close()
    index = {tuple(base[c] for c in point_columns(spec)): i for i, base in enumerate(order)}

    def place(row: dict[str, str]) -> tuple[int, int, float]:
        where = index[tuple(row[c] for c in point_columns(spec))]
        if isinstance(spec.workload, OverlapWorkload):
            return where, int(row["size_bytes"]), float(row["compute_s"])
        return where, 0, 0.0

    rows = sorted(run.rows.values(), key=place)
    failed = [row for row in rows if row.get("error")]
    cells.write_table(rows, columns, output)
    if not failed:
        partial.path.unlink()
    return Outcome(rows, failed, resumed)


def summarize(failed: Iterable[dict[str, str]], keys: list[str]) -> list[str]:
    return [f"{' '.join(row[k] for k in keys)}: {row['error']}" for row in failed]


# ---- the command --------------------------------------------------------------------------------------------------

def command_sweep(args: Any) -> int:
    from progsim.outputs import check_outputs
    from progsim.sweep import load_sweep

    spec = load_sweep(Path(args.scenario))
    output = Path(args.out) if args.out else spec.output
    if output is None:
        raise InputError(f"{args.scenario}: no 'output' in the scenario; give --out results.csv or results.parquet")
    if output.suffix not in (".csv", ".parquet"):
        raise InputError(f"{output}: expected a .csv or .parquet table")
    if args.jobs < 1:
        raise InputError(f"--jobs {args.jobs}: expected 1 or more")
    points = spec.points()
    check_outputs({"--out": str(output)}, [spec.path, *(p.platform for p in points)])
    total = expected_rows(spec, points)
    print(f"sweep '{spec.name}': {len(points)} points, {total} rows -> {output}", file=sys.stderr)
    bar = ProgressBar(total, spec.name)
    if not (args.scheduler_timeout > 0):
        raise InputError(f"--scheduler-timeout {args.scheduler_timeout}: expected seconds, more than 0")
    pool = make_pool(args.jobs, args.scheduler, args.scheduler_timeout)
    try:
        outcome = run_sweep(spec, output, pool, bar, lambda line: print(line, file=sys.stderr, flush=True))
    finally:
        bar.close()
        pool.close()
    print(f"wrote {output}: {len(outcome.rows)} rows ({outcome.resumed} from an earlier run), "
          f"{len(outcome.failed)} failed")
    if outcome.failed:
        for line in summarize(outcome.failed, key_columns(spec)):
            print(f"progsim: failed: {line}", file=sys.stderr)
        print(f"progsim: the finished rows are kept in {output.name}.partial.csv: the same command again runs only "
              f"the failed ones", file=sys.stderr)
        return 1
    return 0


def add_command(commands: Any) -> None:
    import argparse

    sweep = commands.add_parser(
        "sweep", help="run every point of a scenario's sweep into one table (CSV or Parquet)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Expands a scenario YAML into points, every combination of its axes (mechanisms, platforms, "
                    "values inside a platform YAML, placements, engine parameters, the overlap benchmark's side "
                    "and tests), and runs them on worker processes of this machine or on a Dask cluster. The "
                    "table has one row per point (a trace workload: its time and per-rank means) or per heatmap "
                    "cell (the overlap workload: the metrics of `progsim overlap`), every parameter and metric a "
                    "column; `progsim plot` and `progsim validate` read it.\n\n"
                    "Finished rows are appended at once to OUT.partial.csv: an interrupted sweep, or one whose "
                    "points failed, run again with the same command, recomputes none of them (unless the "
                    "scenario, a platform, a trace or the engine changed). A failed point keeps its error in the "
                    "table and is listed at the end (exit status 1); the other points still run.",
        epilog="example (scenarios/laptop-overlap.yaml):\n"
               "  progsim sweep scenarios/laptop-overlap.yaml --out heatmap.parquet\n"
               "  progsim plot heatmap.parquet --out heatmap.png\n\n" + (sweep_module.__doc__ or ""))
    sweep.add_argument("scenario", help="scenario YAML with a 'sweep' (a plain scenario sweeps its mechanisms)")
    sweep.add_argument("--out", help="the table: .csv or .parquet (default: the scenario's 'output')")
    sweep.add_argument("--jobs", type=int, default=default_jobs(),
                       help="worker processes on this machine (default: one per core)")
    sweep.add_argument("--scheduler", metavar="ADDRESS",
                       help="run on a Dask cluster instead, e.g. tcp://10.0.0.1:8786 (its workers must see this "
                            "machine's files: the scenario, platforms, traces, the compiled platform cache)")
    sweep.add_argument("--scheduler-timeout", type=float, default=20.0, metavar="SECONDS",
                       help="give up reaching the scheduler after this long (default: 20)")
    sweep.set_defaults(run=command_sweep)
