"""The replays a sweep is made of, as tasks: module functions, so that worker processes (local or Dask) can run them.

An overlap point needs two references (the communication alone, the computation alone) and one overlapped replay
per cell; a trace point is one replay per mechanism. Each task returns its row's metric columns, or the first line
of the error that stopped it: a failed task is one failed row, never an exception that ends the sweep.
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path

from progsim import cells
from progsim.engine import replay
from progsim.platform import Compiled
from progsim.workloads import overlap

TRACE_METRICS = ["simulated_time", "compute_mean", "mpi_mean", "wait_mean", "progress_cpu_mean"]


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
    """The per-rank means of a trace's replay (TRACE_METRICS), or the reason it failed (the engine's first error
    line)."""
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
