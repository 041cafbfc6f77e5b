"""Runs a sweep's points on a local process pool or a Dask cluster, into one table that survives interruptions.

Every replay is a task (progsim/sweep/tasks.py). An overlap point replays its references first (the communication
alone once per size, the computation alone once per computation time), then one overlapped replay per cell; a trace
point is one replay per mechanism. Each finished row goes at once to the partial table (progsim/sweep/table.py), from
which a run interrupted, or one whose points failed, resumes. A failed point keeps its error in the table, is listed
at the end, and never stops the others.

Dask workers must see the same files as this process (a shared file system, as on a cluster's nodes).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from progsim import cells
from progsim.engine import inspect_trace
from progsim.errors import InputError
from progsim.platform import Compiled, load_platform
from progsim.platform.model import Platform
from progsim.platform_cache import prepare_platform
from progsim.pools import Pool, default_jobs, make_pool
from progsim.progress_bar import ProgressBar
from progsim.sweep import spec as sweep_format
from progsim.sweep.spec import OverlapWorkload, Point, SweepSpec, TraceWorkload
from progsim.sweep.table import PartialTable, inputs_digest, key_columns, point_columns, table_columns
from progsim.sweep.tasks import cell_task, reference_task, trace_task
from progsim.workloads import overlap


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
    from progsim.sweep.spec import load_sweep

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
               "  progsim plot heatmap.parquet --out heatmap.png\n\n" + (sweep_format.__doc__ or ""))
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
