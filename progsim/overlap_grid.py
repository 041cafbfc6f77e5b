"""A grid of overlap-benchmark cells (mechanisms x message sizes x computation times) run in worker processes.

The references are replayed once per (mechanism, size) and per (mechanism, computation time), then every cell's
overlapped replay; each finished cell is appended to a partial table at once, so that an interrupted grid resumes
without recomputing it.
"""

from __future__ import annotations

import csv
import tempfile
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from progsim import overlap
from progsim.errors import InputError
from progsim.platform import Compiled

COLUMNS = ["mechanism", "side", "size_bytes", "compute_s", "tests", "overhead_ratio", "overhead_ratio_min",
           "overhead_ratio_max", "computation_slowdown", "communication_ratio", "error"]
Key = tuple[str, ...]  # a row's first five columns: which cell it is


@dataclass(frozen=True)
class Grid:
    mechanisms: list[str]
    sizes: list[int]
    times: list[float]  # seconds of computation
    side: str
    tests: int
    flops_per_second: float  # the platform's core speed
    settings: list[str]

    def cells(self) -> list[tuple[str, int, float]]:
        return [(m, size, t) for m in self.mechanisms for size in self.sizes for t in self.times]

    def key(self, mechanism: str, size: int, seconds: float) -> Key:
        return (mechanism, self.side, str(size), f"{seconds:g}", str(self.tests))

    def cell(self, size: int, seconds: float) -> overlap.Cell:
        return overlap.Cell(size, seconds * self.flops_per_second, self.side, self.tests)


def finished_rows(sources: list[Path]) -> dict[Key, list[str]]:
    """The rows without error of earlier runs' tables (the final one, then the partial one), by cell."""
    finished: dict[Key, list[str]] = {}
    for source in sources:
        if not source.is_file():
            continue
        with source.open(newline="") as handle:
            reader = csv.reader(handle)
            if next(reader, None) != COLUMNS:
                raise InputError(f"{source}: not a table of 'progsim overlap' (its header differs); cannot resume")
            for row in reader:
                if len(row) == len(COLUMNS) and not row[-1]:
                    finished[tuple(row[:5])] = row
    return finished


def _job(job: str, cell: overlap.Cell, compiled: Compiled, mechanism: str, folder: Path, settings: list[str],
         references: Optional[overlap.References] = None) -> object:
    """One replay in a worker process: a reference, or a cell's metrics; an error's first line when it fails."""
    try:
        if job == "comm":
            return overlap.communication_reference(cell, compiled, mechanism, folder, settings)
        if job == "comp":
            return overlap.computation_reference(cell, compiled, mechanism, folder, settings)
        return overlap.summary(overlap.measure(cell, compiled, mechanism, folder, settings, references))
    except overlap.ReplayFailed as error:
        return str(error).splitlines()[0]


def _row(fields: list[str], result: object) -> list[str]:
    if isinstance(result, str):
        return [*fields, "", "", "", "", "", result]
    assert isinstance(result, dict)
    r = result["overhead_ratio"]
    return [*fields, f"{r.median:.4f}", f"{r.minimum:.4f}", f"{r.maximum:.4f}",
            f"{result['computation_slowdown'].median:.4f}", f"{result['communication_ratio'].median:.4f}", ""]


def run_grid(grid: Grid, compiled: Compiled, jobs: int, finished: dict[Key, list[str]], partial: Optional[Path],
             report: Callable[[str], None]) -> list[list[str]]:
    """Every cell's row, in grid order; cells in `finished` are kept, not replayed. A failed cell's row carries its
    error and the others still run."""
    cells = grid.cells()
    finished = {k: row for k, row in finished.items() if k in {grid.key(*c) for c in cells}}
    todo = [c for c in cells if grid.key(*c) not in finished]
    if finished:
        report(f"resuming: {len(finished)} of {len(cells)} cells already done")
    rows = dict(finished)
    log = partial.open("w", newline="") if partial is not None else None
    writer = csv.writer(log) if log is not None else None
    if writer is not None:  # every finished cell at once: an interrupted run loses none of them
        writer.writerow(COLUMNS)
        writer.writerows(finished.values())
    try:
        with tempfile.TemporaryDirectory(prefix="progsim-overlap-") as scratch, \
                ProcessPoolExecutor(max_workers=jobs) as pool:
            folder = iter(Path(scratch) / str(n) for n in range(10 ** 9))  # each replay in its own folder
            comm = {(m, size): pool.submit(_job, "comm", grid.cell(size, grid.times[0]), compiled, m, next(folder),
                                           grid.settings) for m, size in {(m, size) for m, size, _ in todo}}
            comp = {(m, t): pool.submit(_job, "comp", grid.cell(grid.sizes[0], t), compiled, m, next(folder),
                                        grid.settings) for m, t in {(m, t) for m, _, t in todo}}
            futures: list[Future[object] | str] = []
            for mechanism, size, seconds in todo:
                a, b = comm[(mechanism, size)].result(), comp[(mechanism, seconds)].result()
                if isinstance(a, str) or isinstance(b, str):
                    futures.append(a if isinstance(a, str) else str(b))
                    continue
                assert isinstance(a, tuple) and isinstance(b, tuple)
                futures.append(pool.submit(_job, "cell", grid.cell(size, seconds), compiled, mechanism, next(folder),
                                           grid.settings, overlap.References(a, b)))
            for number, (future, (mechanism, size, seconds)) in enumerate(zip(futures, todo), 1):
                key = grid.key(mechanism, size, seconds)
                rows[key] = _row(list(key), future if isinstance(future, str) else future.result())
                if writer is not None and log is not None and not rows[key][-1]:
                    writer.writerow(rows[key])
                    log.flush()
                report(f"[{number}/{len(todo)}] {mechanism} {grid.side} {size} B, {seconds:g} s")
    finally:
        if log is not None:
            log.close()
    return [rows[grid.key(*c)] for c in cells]
