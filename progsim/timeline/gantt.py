"""The Gantt picture of a replay's timeline, drawn with matplotlib (`progsim timeline events.jsonl --png out.png`,
the teaching gallery's pictures). matplotlib is imported when a picture is drawn: other commands import this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from progsim.outputs import write_atomically
from progsim.timeline.reader import COLOURS, STATE_LABELS, Timeline, Track, arrows, rank_agent, step_category, tracks

MAX_ARROWS = 300


@dataclass(frozen=True)
class GanttStyle:
    """How a Gantt picture is laid out. The defaults suit one picture alone; pictures meant to be compared side by
    side (the teaching gallery) share a `time_range` and leave the legend to their page."""
    width: float = 12.0        # inches, at 100 dpi
    base_height: float = 2.0   # inches, plus row_height per track
    row_height: float = 0.45
    font_size: float | None = None  # matplotlib's default when None
    legend: bool = True
    time_range: tuple[float, float] | None = None  # seconds; the timeline's own extent when None
    least: float = 1 / 400     # steps and MPI calls last microseconds: drawn at least this share of the axis wide


def draw_gantt(timeline: Timeline, path: Path, title: str, style: GanttStyle = GanttStyle()) -> None:
    """A Gantt picture: a row per rank and per agent; compute, MPI call, waiting, progress and NIC work; arrows
    for messages (when there are at most MAX_ARROWS)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = tracks(timeline)
    y = {track.key: i for i, track in enumerate(rows)}
    first = min([s.start for s in timeline.states] + [s.start for s in timeline.steps])
    last = max([s.end for s in timeline.states] + [s.end for s in timeline.steps] + [first])
    if style.time_range is not None:
        first, last = style.time_range
    width = last - first if last > first else 1e-6
    unit, scale = ("ms", 1e3) if width >= 1e-3 else ("us", 1e6)
    height = min(style.base_height + style.row_height * len(rows), 40.0)
    with plt.rc_context({"font.size": style.font_size or matplotlib.rcParams["font.size"]}):
        figure, axes = plt.subplots(figsize=(style.width, height), dpi=100)
        _draw_on(axes, timeline, rows, y, (first, last, width, unit, scale), title, style)
        figure.tight_layout()
        # No Software entry: the same timeline gives the same bytes whatever matplotlib wrote it.
        write_atomically(path, lambda p: figure.savefig(p, format="png", metadata={"Software": None}))
    plt.close(figure)


def _draw_on(axes: Any, timeline: Timeline, rows: list[Track], y: dict[str, int],
             extent: tuple[float, float, float, str, float], title: str, style: GanttStyle) -> None:
    from matplotlib.patches import Patch
    from matplotlib.collections import PolyCollection

    first, last, width, unit, scale = extent
    bars: dict[str, list[tuple[float, float, float, float]]] = {}  # colour -> (x, width, y, height)
    least = width * style.least  # steps and calls last microseconds: drawn at least a few pixels wide
    for span in timeline.states:
        category = STATE_LABELS.get(span.state, span.state)
        if category == "starting":
            continue
        length = max(span.end - span.start, least) if category == "MPI call" else span.end - span.start
        bars.setdefault(category, []).append((span.start, length, y[rank_agent(span.rank)], 0.7))
    for step in timeline.steps:
        on_rank = step.agent.startswith("rank-")
        size = 0.35 if on_rank else 0.7  # a rank's own step: a thinner bar over its MPI call
        bars.setdefault(step_category(step), []).append((step.start, max(step.end - step.start, least),
                                                         y[step.agent], size))
    for category, items in bars.items():  # one collection per colour: fast for many thousands of bars
        boxes = [[(x * scale, row - h / 2), ((x + w) * scale, row - h / 2), ((x + w) * scale, row + h / 2),
                  (x * scale, row + h / 2)] for x, w, row, h in items]
        axes.add_collection(PolyCollection(boxes, facecolors=COLOURS.get(category, "grey"), linewidths=0,
                                           antialiaseds=False))
    found = arrows(timeline, set(y))
    if len(found) <= MAX_ARROWS:
        for arrow in found:
            axes.annotate("", xy=(arrow.step.start * scale, y[arrow.step.agent]),
                          xytext=(arrow.start * scale, y[arrow.source]),
                          arrowprops={"arrowstyle": "->", "color": "black", "lw": 0.8, "alpha": 0.7,
                                      "shrinkA": 0, "shrinkB": 0})
    axes.set_yticks(range(len(rows)), [track.label for track in rows])
    axes.set_ylim(len(rows) - 0.5, -0.5)
    axes.set_xlim((first - width / 100) * scale, (last + width / 100) * scale)
    axes.set_xlabel(f"simulated time ({unit})")
    axes.grid(axis="x", alpha=0.3)
    axes.set_title(title)
    shown = [c for c in COLOURS if c in bars]
    handles: list[Any] = [Patch(color=COLOURS[c], label=c) for c in shown]
    if found and len(found) <= MAX_ARROWS:
        from matplotlib.lines import Line2D
        handles.append(Line2D([], [], color="black", marker=">", markersize=5, lw=0.8,
                              label="message / transfer"))
    if style.legend:
        axes.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
