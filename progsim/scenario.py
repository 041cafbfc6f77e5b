"""Scenarios: a platform, a trace and the progress mechanisms to compare, in one YAML file.

    name: default
    description: ...
    platform: ../platforms/bora.yaml        # relative to this file
    placement: {policy: block, ranks_per_node: 8}   # optional override of the platform's placement
    trace: ../validation/traces/halo2d-256k-64/trace_list.txt
    progress: [ideal, none, thread, dedicated-core, offload]
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from progsim.errors import InputError


def run_scenario(path: Path) -> tuple[Any, list[dict[str, Any]]]:
    """Replays the scenario's trace under each mechanism (and each point of its sweep, if it has one) through the
    sweep runner; the spec and one row per point, as format_table reads them."""
    from progsim.sweep.spec import TraceWorkload, load_sweep
    from progsim.pools import LocalPool, default_jobs
    from progsim.sweep.run import run_sweep

    spec = load_sweep(path)
    if not isinstance(spec.workload, TraceWorkload):
        raise InputError(f"{path}: the overlap benchmark draws a heatmap: run it with 'progsim sweep {path}'")
    pool = LocalPool(default_jobs())
    try:
        with tempfile.TemporaryDirectory(prefix="progsim-scenario-") as scratch:
            outcome = run_sweep(spec, Path(scratch) / "scenario.csv", pool, lambda _: None, lambda _: None)
    finally:
        pool.close()
    axes = [a.name for a in spec.axes if a.name != "progress"]
    rows: list[dict[str, Any]] = []
    for row in outcome.rows:
        label = " ".join([row["mechanism"], *(f"{axis}={row[axis]}" for axis in axes)])
        if row["error"]:  # the row stays, marked; the others still ran
            code, _, message = row["error"].partition(": ")
            failed = int(code.split()[1]) if code.startswith("exit ") else 1
            rows.append({"progress": label, "failed": failed, "message": message[:200]})
            continue
        rows.append({"progress": label, "simulated_time": float(row["simulated_time"]),
                     "compute": float(row["compute_mean"]), "mpi": float(row["mpi_mean"]),
                     "wait": float(row["wait_mean"]), "progress_cpu": float(row["progress_cpu_mean"])})
    return spec, rows


def format_table(rows: list[dict[str, Any]]) -> str:
    reference = next((row["simulated_time"] for row in rows if row["progress"] == "ideal" and "failed" not in row),
                     None)
    header = f"{'progress':<15}{'time (s)':>12}{'vs ideal':>10}{'compute':>11}{'in MPI':>11}{'blocked':>11}" \
             f"{'progress CPU':>14}"
    lines = [header, "-" * len(header)]
    for row in rows:
        if "failed" in row:
            what = "deadlock" if row["failed"] == 3 else "bad input" if row["failed"] == 2 else "engine failure"
            lines.append(f"{row['progress']:<15}failed, exit {row['failed']} ({what}): {row['message']}")
            continue
        ratio = f"{row['simulated_time'] / reference:.3f}x" if reference else "-"
        lines.append(f"{row['progress']:<15}{row['simulated_time']:>12.6f}{ratio:>10}{row['compute']:>11.6f}"
                     f"{row['mpi']:>11.6f}{row['wait']:>11.6f}{row['progress_cpu']:>14.2e}")
    lines.append("(compute, in MPI, blocked and progress CPU are per-rank means, in seconds)")
    return "\n".join(lines)


def main_scenario(path: Path) -> int:
    from progsim.engine import inspect_trace
    from progsim.platform import load_platform

    spec, rows = run_scenario(path)
    platform = load_platform(spec.platform)
    per_node = spec.ranks_per_node or platform.placement.ranks_per_node
    print(f"scenario '{spec.name}': {spec.description}")
    print(f"  platform {platform.name}: {platform.nodes} nodes, {per_node} ranks per node; trace "
          f"{os.path.relpath(spec.workload.trace)} ({inspect_trace(spec.workload.trace).ranks} ranks)")
    print(format_table(rows))
    # The worst outcome decides the exit status: a deadlock (3) or bad input (2) anywhere is not a success.
    failures = [row["failed"] for row in rows if "failed" in row]
    if not failures:
        return 0
    for row in rows:
        if "failed" in row:
            what = "deadlock" if row["failed"] == 3 else f"exit {row['failed']}"
            print(f"progsim: error: {path}: {row['progress']}: {what}: {row['message']}", file=sys.stderr)
    return 3 if 3 in failures else 2 if 2 in failures else max(failures)
