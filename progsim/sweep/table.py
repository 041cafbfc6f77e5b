"""A sweep's table: its columns, the key that names a row, and the partial table that lets an interrupted sweep
resume.

Each finished row is appended at once to a partial table next to the output, stamped with a digest of everything
that decides the results (the scenario, its platforms and traces, the engine): a run interrupted, or one whose
points failed, resumes from it and recomputes nothing that finished; a partial table from other inputs is ignored.
"""

from __future__ import annotations

import csv
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from progsim import __version__, cells
from progsim.engine import inspect_trace
from progsim.engine_info import engine_binary
from progsim.sweep.spec import OverlapWorkload, Point, SweepSpec, TraceWorkload, axis_column
from progsim.sweep.tasks import TRACE_METRICS


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
