"""What scripts/benchmark.py makes of its measurements: the table, the CSV, the summary against issue 17's speed
targets, and the scaling curves (actions/s and peak RSS against ranks, one panel per message size)."""

from __future__ import annotations

import math
import os
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence

SMPI = "smpi"
FAST_MECHANISMS = ("ideal", "none")  # the mechanisms whose targets are twice SMPI's speed from 1 024 ranks
CSV_COLUMNS = ["ranks", "bytes", "actions", "tool", "wall_s", "actions_per_s", "vs_smpi", "peak_rss_mib",
               "sim_time_s", "error"]
Cell = tuple[int, int]  # (ranks, bytes): the runs that share one trace


@dataclass
class Measure:
    wall: float  # seconds, measured around the child
    rss_kib: Optional[int]  # peak resident set size, from /usr/bin/time %M
    simulated: Optional[float]  # seconds, parsed from the tool's output
    error: Optional[str] = None


@dataclass
class Row:
    ranks: int
    size: int  # bytes per message
    actions: int
    tool: str
    measure: Measure

    @property
    def cell(self) -> Cell:
        return self.ranks, self.size

    @property
    def ok(self) -> bool:
        return self.measure.error is None

    @property
    def rate(self) -> Optional[float]:
        """Actions per wall-clock second; None for a failed run (its wall time says nothing about speed)."""
        return self.actions / self.measure.wall if self.ok and self.measure.wall > 0 else None

    @property
    def rss_mib(self) -> Optional[float]:
        return None if self.measure.rss_kib is None else self.measure.rss_kib / 1024


def size_text(size: int, space: str = "") -> str:
    """'1KiB', '1MiB', '1000B': one word by default (tables are split on spaces), and what --bytes reads back."""
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale}{space}{unit}"
    return f"{size}{space}B"


def fmt(value: Optional[float], spec: str) -> str:
    return "-" if value is None else format(value, spec)


def times(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.2f}x"


class Ratios:
    """Each run's speed and memory relative to stock SMPI on the same trace (same ranks and message size)."""

    def __init__(self, rows: Iterable[Row]) -> None:
        self.smpi = {row.cell: row for row in rows if row.tool == SMPI and row.ok}

    def speed(self, row: Row) -> Optional[float]:
        smpi = self.smpi.get(row.cell)
        rate, smpi_rate = row.rate, None if smpi is None else smpi.rate
        return None if rate is None or smpi_rate is None else rate / smpi_rate

    def memory(self, row: Row) -> Optional[float]:
        smpi = self.smpi.get(row.cell)
        mine, theirs = row.rss_mib, None if smpi is None else smpi.rss_mib
        return None if mine is None or not theirs else mine / theirs


def table(rows: Sequence[Row]) -> tuple[list[str], list[list[str]]]:
    ratios = Ratios(rows)
    header = ["ranks", "bytes", "actions", "tool", "wall s", "actions/s", "vs SMPI", "peak RSS MiB", "sim time s"]
    body = [[str(row.ranks), size_text(row.size), str(row.actions), row.tool,
             fmt(row.measure.wall, ".4g") if row.ok else "FAILED", fmt(row.rate, ".0f"),
             fmt(ratios.speed(row), ".2f"), fmt(row.rss_mib, ".1f"), fmt(row.measure.simulated, ".6g")]
            for row in rows]
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


# --- CSV ---------------------------------------------------------------------------------------------------------

def csv_records(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """One record per run, full precision; empty fields (NaN) where a value was not measured."""
    ratios = Ratios(rows)

    def number(value: Optional[float]) -> float:
        return math.nan if value is None else value

    return [{"ranks": row.ranks, "bytes": row.size, "actions": row.actions, "tool": row.tool,
             "wall_s": row.measure.wall, "actions_per_s": number(row.rate), "vs_smpi": number(ratios.speed(row)),
             "peak_rss_mib": number(row.rss_mib), "sim_time_s": number(row.measure.simulated),
             "error": row.measure.error or ""} for row in rows]


def write_csv(rows: Sequence[Row], path: Path) -> None:
    """Written beside its final name and renamed once complete, so an interrupted run leaves the previous table."""
    import pandas

    frame = pandas.DataFrame(csv_records(rows), columns=CSV_COLUMNS)
    write_atomically(path, lambda partial: frame.to_csv(partial, index=False))


def write_atomically(path: Path, write: Callable[[str], None]) -> None:
    """Writes through a hidden partial file beside `path`, renamed once complete: a failure leaves no torn file."""
    handle, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    os.close(handle)
    try:
        write(partial)
        os.replace(partial, path)
    finally:
        if os.path.exists(partial):
            os.unlink(partial)


# --- Summary against the targets ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Target:
    speed: Optional[float] = None  # the least actions/s ratio to SMPI (None: no SMPI run needed)
    memory: bool = False  # peak RSS must also be at most SMPI's
    wall_s: Optional[float] = None  # the most wall seconds
    rss_mib: Optional[float] = None  # the most peak RSS

    def __str__(self) -> str:
        parts = [] if self.speed is None else [f">= {self.speed:g}x"]
        parts += ["RSS <= SMPI"] if self.memory else []
        parts += [] if self.wall_s is None else [f"<= {self.wall_s / 60:g} min"]
        parts += [] if self.rss_mib is None else [f"RSS <= {self.rss_mib / 1024:g} GiB"]
        return ", ".join(parts)


MILLION_RANKS = 1 << 20


def target(ranks: int, tool: str) -> Optional[Target]:
    """Issue 17: at 1 024 and 4 096 ranks every mechanism at least as fast as SMPI and ideal/none twice as fast; at
    16 384 ranks twice as fast in no more memory. Issue 47: 1 048 576 ranks in under 30 minutes and 16 GiB, with no
    SMPI run. Other rank counts have no target."""
    if ranks in (1024, 4096):
        return Target(2.0 if tool in FAST_MECHANISMS else 1.0)
    if ranks == 16384:
        return Target(2.0, memory=True)
    if ranks == MILLION_RANKS:
        return Target(wall_s=30 * 60, rss_mib=16 * 1024)
    return None


def verdict(row: Row, ratios: Ratios) -> str:
    goal = target(row.ranks, row.tool)
    if goal is None:
        return "no target"
    if not row.ok:
        return "FAILED"
    if goal.speed is not None and row.cell not in ratios.smpi:
        return "no SMPI run"
    speed, memory = ratios.speed(row), ratios.memory(row)
    checks = [("speed", goal.speed is None or (speed is not None and speed >= goal.speed)),
              ("memory", not goal.memory or (memory is not None and memory <= 1.0)),
              ("time", goal.wall_s is None or row.measure.wall <= goal.wall_s),
              ("memory", goal.rss_mib is None or (row.rss_mib is not None and row.rss_mib <= goal.rss_mib))]
    misses = list(dict.fromkeys(what for what, good in checks if not good))
    return "target met" if not misses else f"target missed ({', '.join(misses)})"


def summary(rows: Sequence[Row]) -> tuple[list[str], list[list[str]]]:
    """Per (ranks, bytes), each mechanism's speed and memory as multiples of SMPI's, and its verdict."""
    ratios = Ratios(rows)
    header = ["ranks", "bytes", "mechanism", "vs SMPI", "RSS vs SMPI", "target", "verdict"]
    body = []
    for row in rows:
        if row.tool == SMPI:
            continue
        speed, memory, goal = ratios.speed(row), ratios.memory(row), target(row.ranks, row.tool)
        body.append([str(row.ranks), size_text(row.size), row.tool, times(speed), times(memory),
                     "-" if goal is None else str(goal), verdict(row, ratios)])
    return header, body


# --- Curves --------------------------------------------------------------------------------------------------------

def machine_text() -> str:
    """'2 cores (AMD EPYC)': how many cores the runs shared, and what they were."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores" + (f" ({model})" if model else "")


def _tool_style(tool: str, index: int) -> dict[str, Any]:
    if tool == SMPI:
        return {"color": "black", "linestyle": "--", "marker": "s", "label": "smpirun -replay"}
    markers = "o^vD<>p*h"
    return {"color": f"C{index}", "linestyle": "-", "marker": markers[index % len(markers)], "label": tool}


def _draw(axis: Any, rows: Sequence[Row], tools: Sequence[str], value: Callable[[Row], Optional[float]]) -> None:
    """One line per tool through its successful runs (a failed run leaves a gap in no line: it is skipped)."""
    for index, tool in enumerate(tools):
        points = sorted((row.ranks, v) for row in rows if row.tool == tool and (v := value(row)) is not None)
        if points:
            axis.plot([p[0] for p in points], [p[1] for p in points], markersize=5, **_tool_style(tool, index))


def _number(value: float) -> str:
    """Tick labels in plain figures ('2000', '150k', '1.2M'): a log axis's '3.4 x 10^1' is hard to read."""
    if value >= 1e6:
        return f"{value / 1e6:g}M"
    return f"{value / 1e3:g}k" if value >= 1e4 else f"{value:g}"


def nice_ticks(low: float, high: float) -> list[float]:
    """Ticks at powers of ten times 1-2-5 (1 alone beyond three decades, more steps within one): 3 to 10 ticks."""
    span = high / low
    steps: tuple[float, ...] = ((1,) if span > 1000 else (1, 2, 5) if span > 30 else (1, 1.5, 2, 3, 4, 5, 7)
                                if span > 4 else (1, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9))
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    ticks = [m * 10.0 ** k for k in range(first, last + 1) for m in steps if low <= m * 10.0 ** k <= high]
    if len(ticks) < 2:  # a narrow range (memory that hardly grows): its ends and middle, to two digits
        ticks = sorted({float(f"{v:.2g}") for v in (low * 1.03, math.sqrt(low * high), high / 1.03)})
    return [t for t in ticks if low <= t <= high]


def _value_axis(axes: Sequence[Any], values: Sequence[float], label: str) -> None:
    """A log axis with plain-number ticks, shared by one row of panels (one scale, to compare message sizes)."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    positive = [v for v in values if v > 0]
    if not positive:
        return
    low, high = min(positive) / 1.15, max(positive) * 1.15  # markers clear of the frame
    for axis in axes:
        axis.set_yscale("log")
        axis.yaxis.set_major_locator(FixedLocator(nice_ticks(low, high)))
        axis.yaxis.set_major_formatter(FuncFormatter(lambda v, _: _number(v)))
        axis.yaxis.set_minor_locator(NullLocator())
        axis.set_ylim(low, high)
        axis.grid(True, which="major", axis="y", alpha=0.3)
    axes[0].set_ylabel(label)


def _rank_axis(axis: Any, ranks: Sequence[int]) -> None:
    from matplotlib.ticker import FixedLocator, NullLocator

    axis.set_xscale("log", base=2)
    axis.xaxis.set_major_locator(FixedLocator(list(ranks)))
    axis.xaxis.set_minor_locator(NullLocator())
    axis.set_xticks(list(ranks), [f"{n:,}".replace(",", " ") for n in ranks])
    axis.set_xlabel("ranks")
    axis.grid(True, which="major", axis="x", alpha=0.3)


def panel_size(size: int, eager_threshold: int) -> str:
    """'1 KiB messages (eager)': the protocol decides how many transfers a message costs."""
    return f"{size_text(size, ' ')} messages ({'eager' if size < eager_threshold else 'rendezvous'})"


PANEL_ROWS: tuple[tuple[str, Callable[[Row], Optional[float]], str], ...] = (
    ("replay speed", lambda row: row.rate, "trace actions per wall-clock second"),
    ("peak memory", lambda row: row.rss_mib, "peak RSS (MiB)"))


def plot(rows: Sequence[Row], sizes: Sequence[int], path: Path, trace: str, eager_threshold: int) -> list[str]:
    """Draws speed (top row) and peak RSS (bottom row) against ranks (log 2), one column per message size, one line
    per tool; returns the panels' titles. Failed runs are left out of the lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tools = list(dict.fromkeys(row.tool for row in rows))
    tools = [t for t in tools if t != SMPI] + [t for t in tools if t == SMPI]  # SMPI last in the legend
    ranks = sorted({row.ranks for row in rows})
    width = max(5.5 * len(sizes), 8.0)  # inches; one panel alone still has room for the title
    figure, axes = plt.subplots(2, len(sizes), figsize=(width, 8.5), squeeze=False, sharey="row",
                                layout="constrained")
    titles = []
    for line, (what, value, label) in enumerate(PANEL_ROWS):
        for column, size in enumerate(sizes):
            axis = axes[line][column]
            title = f"{panel_size(size, eager_threshold)}: {what}"
            axis.set_title(title)
            titles.append(title)
            _draw(axis, [row for row in rows if row.size == size], tools, value)
            _rank_axis(axis, ranks)
        _value_axis(axes[line], [v for row in rows if (v := value(row)) is not None], label)
    handles, labels = [], []
    for axis in axes.flat:  # a tool may have failed everywhere in some panel
        for handle, text in zip(*axis.get_legend_handles_labels()):
            if text not in labels:
                handles.append(handle)
                labels.append(text)
    figure.legend(handles, labels, loc="outside lower center", ncol=max(1, len(labels)), frameon=False)
    who = "progsim-engine and stock SMPI replay" if SMPI in tools else "progsim-engine (no SMPI run)"
    heading = f"{trace}\n{who} on {machine_text()}"
    figure.suptitle("\n".join(textwrap.fill(line, int(width * 11)) for line in heading.splitlines()))
    write_atomically(path, lambda partial: figure.savefig(partial, format="png", dpi=100,
                                                          metadata={"Software": None}))
    plt.close(figure)
    return titles
