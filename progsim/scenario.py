"""Scenarios: a platform, a trace and the progress mechanisms to compare, in one YAML file.

    name: default
    description: ...
    platform: ../platforms/bora.yaml        # relative to this file
    placement: {policy: block, ranks_per_node: 8}   # optional override of the platform's placement
    trace: ../validation/traces/halo2d-256k-64/trace_list.txt
    progress: [ideal, none, thread, dedicated-core, offload]
"""

from __future__ import annotations

import dataclasses
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from progsim.engine import progress_mechanisms, replay
from progsim.platform import compile_platform, load_platform
from progsim.platform.model import PLACEMENTS, Platform, PlacementSpec
from progsim.platform.yamlsource import load_located


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    platform: Platform
    trace: Path
    progress: tuple[str, ...]


def load_scenario(path: Path) -> Scenario:
    source = load_located(path)
    data = source.data
    allowed = {"name", "description", "platform", "trace", "progress", "placement"}
    if not isinstance(data, dict):
        raise source.error("(top)", "expected a mapping")
    for key in data:
        if key not in allowed:
            raise source.error(key, f"unknown key '{key}' (expected one of: {', '.join(sorted(allowed))})")
    for key in ("name", "platform", "trace", "progress"):
        if key not in data:
            raise source.error("(top)", f"missing key '{key}'")
    base = path.parent
    for key in ("name", "platform", "trace"):
        if not isinstance(data[key], str) or not data[key]:
            raise source.error(key, f"expected a text (a name or a path), got {data[key]!r}")
    platform_path = base / data["platform"]
    if not platform_path.is_file():
        raise source.error("platform", f"no such platform file: {platform_path}")
    platform = load_platform(platform_path)
    if "placement" in data:
        override = data["placement"]
        if not isinstance(override, dict) or set(override) - {"policy", "ranks_per_node"}:
            raise source.error("placement", "expected {policy, ranks_per_node}")
        policy = override.get("policy", platform.placement.policy)
        if policy not in PLACEMENTS:
            raise source.error("placement.policy", f"expected one of {', '.join(PLACEMENTS)}, got {policy!r}")
        per_node = override.get("ranks_per_node", platform.placement.ranks_per_node)
        if not isinstance(per_node, int) or per_node < 1:
            raise source.error("placement.ranks_per_node", f"expected a positive integer, got {per_node!r}")
        platform = dataclasses.replace(platform, placement=PlacementSpec(policy, per_node))
    progress = data["progress"]
    if isinstance(progress, str):
        progress = [progress]
    if not isinstance(progress, list) or not progress:
        raise source.error("progress", f"expected a mechanism or a non-empty list of them, got {progress!r}")
    for i, mechanism in enumerate(progress):
        if mechanism not in progress_mechanisms():
            raise source.error(f"progress[{i}]", f"unknown mechanism {mechanism!r} (expected one of: "
                                                 f"{', '.join(progress_mechanisms())})")
    trace = base / data["trace"]
    if not trace.is_file():
        raise source.error("trace", f"no such trace file: {trace}")
    return Scenario(str(data["name"]), str(data.get("description", "")), platform, trace, tuple(progress))


def run_scenario(scenario: Scenario, workdir: Path) -> list[dict[str, Any]]:
    """Replays the trace under each mechanism; returns one row per mechanism."""
    from progsim.cli import trace_ranks

    ranks = trace_ranks(scenario.trace)
    compiled = compile_platform(scenario.platform, workdir / "platform", ranks)
    rows = []
    for mechanism in scenario.progress:
        out = workdir / f"results-{mechanism}.json"
        run = replay(scenario.trace, compiled, mechanism, out)
        if run.returncode != 0 or run.results is None:  # the row stays, marked; the others still run
            lines = [line.strip() for line in run.stderr.splitlines() if line.strip()]
            first = next((line for line in lines if line.startswith(("progsim: error:", "Deadlock"))),
                         lines[0] if lines else "no message").removeprefix("progsim: error: ")
            rows.append({"progress": mechanism, "failed": run.returncode, "message": first[:200]})
            continue
        ranks_data = run.results["ranks"]
        n = len(ranks_data)
        rows.append({
            "progress": mechanism,
            "simulated_time": run.results["simulated_time"],
            "compute": sum(r["compute_time"] for r in ranks_data) / n,
            "mpi": sum(r["mpi_time"] for r in ranks_data) / n,
            "wait": sum(r["wait_time"] for r in ranks_data) / n,
            "progress_cpu": sum(r["progress_cpu_time"] for r in ranks_data) / n,
        })
    return rows


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
    scenario = load_scenario(path)
    print(f"scenario '{scenario.name}': {scenario.description}")
    print(f"  platform {scenario.platform.name}: {scenario.platform.nodes} nodes, "
          f"{scenario.platform.placement.ranks_per_node} ranks per node; trace {os.path.relpath(scenario.trace)}")
    with tempfile.TemporaryDirectory(prefix="progsim-scenario-") as scratch:
        rows = run_scenario(scenario, Path(scratch))
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

