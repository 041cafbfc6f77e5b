"""The point-to-point overlap benchmark as traces, and the metrics of Reynier's thesis (2022, section 4.1).

One cell of a heatmap is a message size, a computation time and the side that computes (sender, receiver or both).
It takes three replays of two ranks: the communication alone (isend/irecv, then wait; a grid needs it once per size),
the computation alone (once per computation time), and both overlapped (isend/irecv, the computation, optionally cut
by `tests` calls of MPI_Test, then wait). Per computing rank:

  overhead ratio      r = (t_measured - max(t_comp_ref, t_comm_ref)) / min(t_comp_ref, t_comm_ref)   (eq. 4.1)
                      0: perfect overlap; 1: serialized; > 1: slower than serialized
  computation slowdown  t_comp / t_comp_ref                                                          (eq. 4.3)
  communication ratio   (t_call + t_wait) / t_comm_ref                                               (eq. 4.4)

t_measured is the rank's time from its first call to the end of its wait, t_comp its computing time, t_call + t_wait
its time inside MPI calls; the references come from the same rank in the replays of each part alone.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from progsim.engine import replay
from progsim.platform import Compiled
from progsim.workloads.tracegen import write_trace

SIDES = ("sender", "receiver", "both")
SENDER, RECEIVER = 0, 1
TAG = 0


@dataclass(frozen=True)
class Cell:
    """One point of the benchmark: `message_bytes` sent from rank 0 to rank 1 while `flops` are computed."""

    message_bytes: int
    flops: float
    side: str
    tests: int = 0  # MPI_Test calls spread through the computation (0: the computation is not interrupted)

    def __post_init__(self) -> None:
        if self.side not in SIDES:
            raise ValueError(f"side must be one of {', '.join(SIDES)}, not {self.side!r}")
        if self.message_bytes < 0 or self.flops <= 0 or self.tests < 0:
            raise ValueError("message_bytes and tests must be >= 0, flops > 0")

    def computes(self, rank: int) -> bool:
        return self.side == "both" or (self.side == "sender") == (rank == SENDER)


def _post(rank: int, size: int) -> str:
    return f"{rank} isend 1 {TAG} {size}" if rank == SENDER else f"{rank} irecv 0 {TAG} {size}"


def _computation(rank: int, cell: Cell) -> list[str]:
    """The computation, cut into `tests + 1` equal parts with a test of the request between two parts."""
    if not cell.computes(rank):
        return []
    part = cell.flops / (cell.tests + 1)
    lines = [f"{rank} compute {part:.17g}"]
    for _ in range(cell.tests):
        lines += [f"{rank} test 0 1 {TAG}", f"{rank} compute {part:.17g}"]
    return lines


def communication_alone(cell: Cell) -> list[list[str]]:
    return [[f"{r} init", _post(r, cell.message_bytes), f"{r} wait 0 1 {TAG}", f"{r} finalize"] for r in (0, 1)]


def computation_alone(cell: Cell) -> list[list[str]]:
    return [[f"{r} init", *([f"{r} compute {cell.flops:.17g}"] if cell.computes(r) else []), f"{r} finalize"]
            for r in (0, 1)]


def overlapped(cell: Cell) -> list[list[str]]:
    return [[f"{r} init", _post(r, cell.message_bytes), *_computation(r, cell), f"{r} wait 0 1 {TAG}",
             f"{r} finalize"] for r in (0, 1)]


@dataclass(frozen=True)
class RankMetrics:
    rank: int
    t_measured: float
    t_comp_ref: float
    t_comm_ref: float
    t_comp: float
    t_mpi: float  # t_call + t_wait

    @property
    def overhead_ratio(self) -> float:
        """NaN when a reference takes no time on this rank (an eager send under `ideal` returns at once): there is
        nothing to overlap."""
        shorter = min(self.t_comp_ref, self.t_comm_ref)
        if shorter <= 0:
            return math.nan
        return (self.t_measured - max(self.t_comp_ref, self.t_comm_ref)) / shorter

    @property
    def computation_slowdown(self) -> float:
        return self.t_comp / self.t_comp_ref

    @property
    def communication_ratio(self) -> float:
        return self.t_mpi / self.t_comm_ref if self.t_comm_ref > 0 else math.nan


class ReplayFailed(RuntimeError):
    pass


def replay_ranks(lines: list[list[str]], name: str, compiled: Compiled, progress: str, workdir: Path,
                 settings: Optional[list[str]], timeline: Optional[Path] = None) -> list[dict]:
    """Replays one benchmark trace in workdir/name and returns its per-rank results (and writes its timeline there
    when asked); a failed replay raises."""
    folder = workdir / name
    trace = write_trace(lines, folder / "trace")
    run = replay(trace, compiled, progress, folder / "results.json", timeline=timeline, settings=settings)
    if run.returncode != 0 or run.results is None:
        raise ReplayFailed(f"{name} replay under {progress} failed (exit {run.returncode}): {run.stderr[-1500:]}")
    ranks: list[dict] = run.results["ranks"]
    return ranks


@dataclass(frozen=True)
class References:
    """Per rank, the time of the communication alone (which depends only on the size) and of the computation alone
    (only on the flops and the side): a grid shares them across its rows and columns."""

    comm: tuple[float, float]
    comp: tuple[float, float]


def communication_reference(cell: Cell, compiled: Compiled, progress: str, workdir: Path,
                            settings: Optional[list[str]] = None) -> tuple[float, float]:
    ranks = replay_ranks(communication_alone(cell), "comm", compiled, progress, workdir, settings)
    return ranks[0]["end_time"], ranks[1]["end_time"]


def computation_reference(cell: Cell, compiled: Compiled, progress: str, workdir: Path,
                          settings: Optional[list[str]] = None) -> tuple[float, float]:
    ranks = replay_ranks(computation_alone(cell), "comp", compiled, progress, workdir, settings)
    return ranks[0]["compute_time"], ranks[1]["compute_time"]


def measure(cell: Cell, compiled: Compiled, progress: str, workdir: Path,
            settings: Optional[list[str]] = None, references: Optional[References] = None,
            timeline: Optional[Path] = None) -> list[RankMetrics]:
    """Replays the cell's traces on a platform compiled for 2 ranks (the overlapped one, and the two references
    unless given); the metrics of each computing rank. `timeline`: where the overlapped replay writes its timeline
    (progsim/timeline/reader.py reads it)."""
    if references is None:
        references = References(communication_reference(cell, compiled, progress, workdir, settings),
                                computation_reference(cell, compiled, progress, workdir, settings))
    both = replay_ranks(overlapped(cell), "overlap", compiled, progress, workdir, settings, timeline)
    return [RankMetrics(rank=r, t_measured=both[r]["end_time"], t_comp_ref=references.comp[r],
                        t_comm_ref=references.comm[r], t_comp=both[r]["compute_time"], t_mpi=both[r]["mpi_time"])
            for r in (0, 1) if cell.computes(r)]


@dataclass(frozen=True)
class Spread:
    median: float
    minimum: float
    maximum: float


def spread(values: list[float]) -> Spread:
    return Spread(statistics.median(values), min(values), max(values))


def summary(metrics: list[RankMetrics]) -> dict[str, Spread]:
    """Median, minimum and maximum of each metric over the computing ranks."""
    return {"overhead_ratio": spread([m.overhead_ratio for m in metrics]),
            "computation_slowdown": spread([m.computation_slowdown for m in metrics]),
            "communication_ratio": spread([m.communication_ratio for m in metrics])}
