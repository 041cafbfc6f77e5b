"""The non-blocking collective overlap benchmark (Reynier 2022, chapter 4) as traces, on the diagonal where the
computation takes as long as the collective.

Every rank posts the collective (`ibcast`, `iallreduce`, `ialltoall`, ...), computes, optionally cut by `tests`
MPI_Test calls, then waits for it. Three replays a point, under one mechanism:

  communication alone   post, then wait: per rank t_comm_ref; the collective's time is the latest rank's
  computation alone     the computation that lasts the collective's time on one core (flops = time x core speed):
                        per rank t_comp_ref
  both                  post, compute, wait: per rank t_measured, t_comp and the time in MPI calls

and per rank the metrics of overlap.py (overhead ratio eq. 4.1: 0 overlapped, 1 serialized). Each mechanism
sits on its own diagonal, as each library did in the thesis: its collective's time sets its computation.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from progsim.platform import Compiled
from progsim.workloads.overlap import RankMetrics, ReplayFailed, replay_ranks

if TYPE_CHECKING:
    import pandas

# SMPI's internal tag of each collective minus one: what names its request in a wait (simulator/trace/Action.cpp).
REQUEST_TAGS = {"ibarrier": -779, "ibcast": -3335, "ireduce": -113, "iallreduce": -4446, "ialltoall": -1113,
                "igather": -446, "iscatter": -224, "iallgather": -557}
COLLECTIVES = tuple(REQUEST_TAGS)
ROOT = 0


@dataclass(frozen=True)
class CollectivePoint:
    """`collective` over `ranks` ranks; `message_bytes` is what a rank sends to each peer (alltoall, allgather,
    gather, scatter) or the vector (bcast, reduce, allreduce); a barrier ignores it."""

    collective: str
    ranks: int
    message_bytes: int
    tests: int = 0

    def __post_init__(self) -> None:
        if self.collective not in REQUEST_TAGS:
            raise ValueError(f"collective must be one of {', '.join(COLLECTIVES)}, not {self.collective!r}")
        if self.ranks < 2 or self.message_bytes < 0 or self.tests < 0:
            raise ValueError("ranks must be >= 2, message_bytes and tests >= 0")


def post(rank: int, point: CollectivePoint) -> str:
    """The call as SMPI's tracer writes it, with the default datatype (bytes) and no reduction flops."""
    b = point.message_bytes
    arguments = {"ibarrier": "", "ibcast": f" {b} {ROOT}", "ireduce": f" {b} 0 {ROOT}", "iallreduce": f" {b} 0",
                 "ialltoall": f" {b} {b}", "igather": f" {b} {b} {ROOT}", "iscatter": f" {b} {b} {ROOT}",
                 "iallgather": f" {b} {b}"}[point.collective]
    return f"{rank} {point.collective}{arguments}"


def _wait(rank: int, point: CollectivePoint, call: str = "wait") -> str:
    return f"{rank} {call} -1 -1 {REQUEST_TAGS[point.collective]}"


def communication_alone(point: CollectivePoint) -> list[list[str]]:
    return [[f"{r} init", post(r, point), _wait(r, point), f"{r} finalize"] for r in range(point.ranks)]


def computation_alone(point: CollectivePoint, flops: float) -> list[list[str]]:
    return [[f"{r} init", f"{r} compute {flops:.17g}", f"{r} finalize"] for r in range(point.ranks)]


def overlapped(point: CollectivePoint, flops: float) -> list[list[str]]:
    traces = []
    part = flops / (point.tests + 1)
    for r in range(point.ranks):
        lines = [f"{r} init", post(r, point), f"{r} compute {part:.17g}"]
        for _ in range(point.tests):
            lines += [_wait(r, point, "test"), f"{r} compute {part:.17g}"]
        traces.append([*lines, _wait(r, point), f"{r} finalize"])
    return traces


@dataclass(frozen=True)
class DiagonalResult:
    collective_time: float  # the collective alone: its latest rank's end (s)
    flops: float            # the computation sized to last that long on one core
    ranks: list[RankMetrics]

    def overhead(self) -> tuple[float, float, float]:
        """Median, minimum and maximum of the ranks' overhead ratios, over the ranks that had something to overlap
        (a root whose sends all complete when posted spends no time in the collective alone: its r is NaN)."""
        values = [m.overhead_ratio for m in self.ranks if not math.isnan(m.overhead_ratio)]
        if not values:
            return math.nan, math.nan, math.nan
        return statistics.median(values), min(values), max(values)

    def total_time(self) -> float:
        return max(m.t_measured for m in self.ranks)


def measure(point: CollectivePoint, compiled: Compiled, core_speed: float, progress: str, workdir: Path,
            settings: Optional[list[str]] = None, timeline: Optional[Path] = None) -> DiagonalResult:
    """The three replays of one point on a platform compiled for `point.ranks` ranks; `timeline`: where the
    overlapped replay writes its timeline."""
    comm = replay_ranks(communication_alone(point), "comm", compiled, progress, workdir, settings)
    collective_time = max(r["end_time"] for r in comm)
    if collective_time <= 0:
        raise ReplayFailed(f"the {point.collective} alone took no time under {progress}: nothing to overlap")
    flops = collective_time * core_speed
    comp = replay_ranks(computation_alone(point, flops), "comp", compiled, progress, workdir, settings)
    both = replay_ranks(overlapped(point, flops), "overlap", compiled, progress, workdir, settings, timeline)
    metrics = [RankMetrics(rank=r, t_measured=both[r]["end_time"], t_comp_ref=comp[r]["compute_time"],
                           t_comm_ref=comm[r]["end_time"], t_comp=both[r]["compute_time"], t_mpi=both[r]["mpi_time"])
               for r in range(point.ranks)]
    return DiagonalResult(collective_time, flops, metrics)


# ---- the table of a study: points x mechanisms ------------------------------------------------------------------

TABLE_COLUMNS = ["collective", "ranks", "bytes", "mechanism", "collective_ms", "total_ms", "overhead_ratio",
                 "overhead_ratio_min", "overhead_ratio_max", "computation_slowdown", "error"]


@dataclass(frozen=True)
class Job:
    platform: Path
    point: CollectivePoint
    mechanism: str
    settings: tuple[str, ...]
    ranks_per_node: Optional[int] = None  # the platform's placement otherwise


def run_job(job: Job) -> dict[str, object]:
    """One row of the table: the point under the mechanism, in a scratch folder of its own (worker processes)."""
    import dataclasses
    import tempfile

    from progsim.platform import compile_platform, load_platform

    row: dict[str, object] = {"collective": job.point.collective, "ranks": job.point.ranks,
                              "bytes": job.point.message_bytes, "mechanism": job.mechanism, "error": ""}
    platform = load_platform(job.platform)
    if job.ranks_per_node is not None:
        platform = dataclasses.replace(platform, placement=dataclasses.replace(platform.placement,
                                                                               ranks_per_node=job.ranks_per_node))
    with tempfile.TemporaryDirectory(prefix="progsim-nbc-") as scratch:
        try:
            compiled = compile_platform(platform, Path(scratch) / "platform", ranks=job.point.ranks)
            result = measure(job.point, compiled, platform.node.core_speed, job.mechanism, Path(scratch),
                             list(job.settings))
        except (ReplayFailed, ValueError) as error:
            row["error"] = str(error).splitlines()[0] if str(error) else type(error).__name__
            return row
    median, low, high = result.overhead()
    row.update(collective_ms=result.collective_time * 1e3, total_ms=result.total_time() * 1e3,
               overhead_ratio=median, overhead_ratio_min=low, overhead_ratio_max=high,
               computation_slowdown=statistics.median(m.computation_slowdown for m in result.ranks))
    return row


def run_table(jobs: list[Job], workers: int, advance: Callable[[int], None]) -> "pandas.DataFrame":
    """Every job's row, in the jobs' order whatever order the workers finish in."""
    import pandas

    from progsim.pools import map_in_order

    rows = map_in_order(run_job, [(job,) for job in jobs], workers, advance)
    return pandas.DataFrame(rows, columns=TABLE_COLUMNS)


def _two(value: float) -> str:
    return f"{round(value, 2) + 0.0:.2f}"  # + 0.0: no "-0.00"


def pivot(table: "pandas.DataFrame") -> "pandas.DataFrame":
    """The overhead ratios as the closing notes show them: a row per collective and rank count, a column per
    mechanism, each cell "median (max)"."""
    shown = table.copy()
    shown["cell"] = [("failed" if error else f"{_two(median)} ({_two(high)})")
                     for median, high, error in zip(shown["overhead_ratio"], shown["overhead_ratio_max"],
                                                    shown["error"])]
    wide = shown.pivot_table(index=["collective", "ranks", "bytes"], columns="mechanism", values="cell",
                             aggfunc="first", sort=False)
    return wide[[m for m in dict.fromkeys(table["mechanism"]) if m in wide.columns]]


def markdown(table: "pandas.DataFrame") -> str:
    """A pivoted table as Markdown, its index columns first."""
    flat = table.reset_index()
    header = [str(c) for c in flat.columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in flat.itertuples(index=False)]
    return "\n".join(lines)
