"""Timelines of a replay (`progsim replay ... --timeline events.jsonl`) for people: Chrome trace-event JSON, which
Perfetto (ui.perfetto.dev) and chrome://tracing open, and a Gantt picture drawn with matplotlib.

The engine writes one JSON line per change of a rank's state ({"t", "rank", "state", "action", "line"}, a rank's
first line adds "node") and one per protocol step ({"t", "rank", "step", "by", "end", "copied", "agent", "node",
"cpu"}, plus "msg", "peer", "bytes" for a step of a message and "from_t", "from_agent", "arrived" for a step that an
arriving message or transfer called for). This module reads them into spans on tracks: one track per rank (its
states, and the steps it runs itself inside its MPI calls) and one per agent that ran steps (a progress thread, a
reserved core, a NIC, SMPI's network under `ideal`), and arrows from where a message or transfer was started to the
step that handled its arrival.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from progsim.errors import InputError

#: What a rank state shows, and the category the picture colours it by.
STATE_LABELS = {"computing": "compute", "sleeping": "sleep", "mpi": "MPI call", "blocked": "waiting",
                "starting": "starting"}
#: The kinds of agents, as the engine names the runner of a step ("by"), for people.
RUNNER_LABELS = {"rank": "rank", "progress-thread": "progress thread", "dedicated-core": "reserved core",
                 "nic": "NIC", "network": "network (ideal)"}
#: What travelled to call for a step: the arrow's name.
ARRIVALS = {"match": "eager message", "match-rendezvous": "request-to-send", "clear-to-send": "clear-to-send",
            "finish": "finish", "transfer-done": "data transfer"}
#: The picture's colours, by category.
COLOURS = {"compute": "#4C72B0", "sleep": "#A6BDDB", "MPI call": "#F0A030", "waiting": "#D64541",
           "progress work": "#2CA02C", "NIC work": "#8E44AD"}


@dataclass(frozen=True)
class StateSpan:
    """A rank in one state from `start` to `end` (seconds), in the trace's `action` at `line` (if known)."""
    rank: int
    state: str
    start: float
    end: float
    action: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class StepSpan:
    """A protocol step of `rank`'s endpoint, run by `agent` (an actor: "rank-1", "progress-thread-1", "nic-...")."""
    rank: int
    step: str
    by: str
    agent: str
    start: float
    end: float
    node: int | None = None
    cpu: float = 0.0
    copied: int = 0
    msg: int | None = None
    peer: int | None = None
    bytes: int | None = None
    from_t: float | None = None
    from_agent: str | None = None
    arrived: float | None = None  # when what called for the step arrived: it could run from then on

    @property
    def delay(self) -> float:
        """Seconds from the arrival to the step's start (0 when the file gives no arrival)."""
        return self.start - self.arrived if self.arrived is not None else 0.0


@dataclass
class Timeline:
    """Everything a timeline file says, as spans; `source` names the file."""
    source: str
    states: list[StateSpan] = field(default_factory=list)
    steps: list[StepSpan] = field(default_factory=list)
    nodes: dict[int, int] = field(default_factory=dict)  # rank -> node, where the file says it
    end: float = 0.0

    @property
    def ranks(self) -> list[int]:
        """Every rank the file names, those whose calls all took no time included (an eager send under ideal)."""
        return sorted({s.rank for s in self.states} | {s.rank for s in self.steps} | set(self.nodes))

    def mechanism(self) -> str | None:
        """The progress mechanism, as far as the agents that ran steps tell it (None when only ranks did)."""
        kinds = {s.by for s in self.steps} - {"rank"}
        names = {"progress-thread": "thread", "dedicated-core": "dedicated-core", "nic": "offload",
                 "network": "ideal"}
        found = sorted(names.get(kind, kind) for kind in kinds)
        return ", ".join(found) if found else None


def rank_agent(rank: int) -> str:
    """The actor name of a rank: its track's key."""
    return f"rank-{rank}"


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def read_timeline(path: Path) -> Timeline:
    """Reads a timeline file; bad input raises InputError naming the file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such timeline file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: a folder, not a timeline file") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a text file (expected JSON lines from 'progsim replay --timeline')") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read it ({error.strerror})") from None
    timeline = Timeline(source=str(path))
    changes: dict[int, list[tuple[float, str, str | None, int | None]]] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        where = f"{path}:{number}"
        try:
            event = json.loads(raw)
        except json.JSONDecodeError as error:
            raise InputError(f"{where}: not a JSON line ({error.msg}, column {error.colno})") from None
        if not isinstance(event, dict):
            raise InputError(f"{where}: expected a JSON object, found {type(event).__name__}")
        t, rank = event.get("t"), event.get("rank")
        if not isinstance(t, (int, float)) or not _number(t) or t < 0:
            raise InputError(f"{where}: expected a time \"t\" in seconds (a number, 0 or more)")
        if not isinstance(rank, int) or isinstance(rank, bool) or rank < 0:
            raise InputError(f"{where}: expected a \"rank\" (an integer, 0 or more)")
        if isinstance(event.get("node"), int):
            timeline.nodes.setdefault(rank, event["node"])
        if "state" in event:
            state = event["state"]
            if not isinstance(state, str):
                raise InputError(f"{where}: \"state\" must be a string")
            named, numbered = event.get("action"), event.get("line")
            changes.setdefault(rank, []).append((float(t), state, named if isinstance(named, str) else None,
                                                 numbered if isinstance(numbered, int) else None))
            timeline.end = max(timeline.end, float(t))
        elif "step" in event:
            timeline.steps.append(_step(event, where))
            timeline.end = max(timeline.end, timeline.steps[-1].end)
        else:
            raise InputError(f"{where}: expected a rank's \"state\" or a protocol \"step\"")
    if not changes and not timeline.steps:
        raise InputError(f"{path}: no events (expected the JSON lines of 'progsim replay --timeline')")
    for rank, events in sorted(changes.items()):
        events.sort(key=lambda e: e[0])  # stable: lines at one time keep their order
        action: str | None = None
        line: int | None = None
        for i, (t, state, this_action, this_line) in enumerate(events):
            if this_action is not None:  # a state without an action is still inside the last one (blocked in wait)
                action, line = this_action, this_line
            end = events[i + 1][0] if i + 1 < len(events) else timeline.end
            if state == "finished" or end <= t:
                continue
            timeline.states.append(StateSpan(rank, state, t, end, action, line))
    timeline.steps.sort(key=lambda s: (s.start, s.rank))
    return timeline


def _step(event: dict[str, Any], where: str) -> StepSpan:
    step, by = event.get("step"), event.get("by", "rank")
    if not isinstance(step, str) or not isinstance(by, str):
        raise InputError(f"{where}: a step needs \"step\" and \"by\" strings")
    t = float(event["t"])
    end = event.get("end", t)  # files of older engines: steps without an end
    if not _number(end) or end < t:
        raise InputError(f"{where}: \"end\" must be a time no earlier than \"t\"")
    rank = event["rank"]
    agent = event.get("agent") or (rank_agent(rank) if by == "rank" else f"{by}-{rank}")
    from_t = event.get("from_t")
    if from_t is not None and (not _number(from_t) or from_t > t):
        raise InputError(f"{where}: \"from_t\" must be a time no later than \"t\"")
    arrived = event.get("arrived")
    if arrived is not None and (not _number(arrived) or arrived > t or (from_t is not None and arrived < from_t)):
        raise InputError(f"{where}: \"arrived\" must be a time between \"from_t\" and \"t\"")

    def integer(name: str) -> int | None:
        value = event.get(name)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise InputError(f"{where}: \"{name}\" must be an integer")
        return value

    cpu = event.get("cpu", 0.0)
    return StepSpan(rank=rank, step=step, by=by, agent=str(agent), start=t, end=float(end),
                    node=integer("node"), cpu=float(cpu) if _number(cpu) else 0.0, copied=integer("copied") or 0,
                    msg=integer("msg"), peer=integer("peer"), bytes=integer("bytes"),
                    from_t=float(from_t) if from_t is not None else None,
                    from_agent=str(event["from_agent"]) if event.get("from_agent") else None,
                    arrived=float(arrived) if arrived is not None else None)


def parse_ranks(text: str) -> tuple[int, int]:
    """`A-B` or `A`: an inclusive range of ranks."""
    match = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", text)
    if not match:
        raise InputError(f"--ranks {text}: expected a rank or a range of ranks, e.g. 0-7")
    first = int(match.group(1))
    last = int(match.group(2)) if match.group(2) is not None else first
    if last < first:
        raise InputError(f"--ranks {text}: the range ends before it starts")
    return first, last


def select(timeline: Timeline, ranks: tuple[int, int] | None = None, start: float | None = None,
           stop: float | None = None) -> Timeline:
    """The part of `timeline` for ranks in `ranks` (inclusive) and times in [start, stop] (seconds): spans are
    clipped to the window, steps belong to their rank's endpoint; raises InputError when nothing is left."""
    if start is not None and stop is not None and stop <= start:
        raise InputError(f"--from {start} --to {stop}: the window must end after it starts")
    low = start if start is not None else 0.0
    high = stop if stop is not None else timeline.end

    def keep_rank(rank: int) -> bool:
        return ranks is None or ranks[0] <= rank <= ranks[1]

    def clip(span: Any) -> Any:
        if span.end < low or span.start > high or (span.end == span.start and not low <= span.start <= high):
            return None
        if span.end > span.start and (span.end <= low or span.start >= high):
            return None
        return replace(span, start=max(span.start, low), end=min(span.end, high))

    states = [c for c in (clip(s) for s in timeline.states if keep_rank(s.rank)) if c is not None]
    steps = [c for c in (clip(s) for s in timeline.steps if keep_rank(s.rank)) if c is not None]
    if ranks is not None and not any(keep_rank(r) for r in timeline.ranks):
        shown = timeline.ranks
        raise InputError(f"--ranks {ranks[0]}-{ranks[1]}: {timeline.source} has ranks {shown[0]}-{shown[-1]}")
    if not states and not steps:
        raise InputError(f"{timeline.source}: nothing between {low:g} s and {high:g} s for the ranks asked "
                         f"(the run ends at {timeline.end:g} s)")
    nodes = {r: n for r, n in timeline.nodes.items() if keep_rank(r)}
    return Timeline(timeline.source, states, steps, nodes, min(high, timeline.end))


# ---------------------------------------------------------------------------------------------------- tracks

@dataclass(frozen=True)
class Track:
    """A row of the picture, a thread of the Chrome trace: a rank or an agent."""
    key: str        # the actor's name: "rank-3", "progress-thread-3", "nic-node-1-nic0"
    label: str      # for people: "rank 3", "progress thread of rank 3", "NIC nic-node-1-nic0"
    node: int | None
    rank: int | None  # the rank, for a rank's track


def _agent_label(agent: str, by: str) -> str:
    kind = RUNNER_LABELS.get(by, by)
    if by == "progress-thread" and agent.startswith("progress-thread-"):
        return f"progress thread of rank {agent.rsplit('-', 1)[1]}"
    if by == "network" and agent.startswith("network-"):
        return f"network of rank {agent.rsplit('-', 1)[1]} (ideal)"
    core = re.fullmatch(r"progress-core-n(\d+)\.d(\d+)-(\d+)", agent)  # models/progress/dedicated_core.cpp
    if by == "dedicated-core" and core:
        node, domain, number = core.groups()
        return f"{kind} of node {node}" + (f" (domain {domain}, core {number})" if domain != "0" or number != "0"
                                           else "")
    nic = re.fullmatch(r"nic-n(\d+)\.nic(\d+)", agent)  # models/progress/offload.cpp, the compiler's NIC names
    if by == "nic" and nic:
        node, number = nic.groups()
        return f"{kind} of node {node}" + (f" (NIC {number})" if number != "0" else "")
    return f"{kind} {agent}"


def tracks(timeline: Timeline) -> list[Track]:
    """Ranks and the agents that ran their steps, grouped by node (ranks first, then agents), in a stable order."""
    found: dict[str, Track] = {}
    for rank in timeline.ranks:
        found[rank_agent(rank)] = Track(rank_agent(rank), f"rank {rank}", timeline.nodes.get(rank), rank)
    for step in timeline.steps:
        if step.agent not in found:
            node = step.node if step.node is not None else timeline.nodes.get(step.rank)
            found[step.agent] = Track(step.agent, _agent_label(step.agent, step.by), node, None)

    def order(track: Track) -> tuple[int, int, int, str]:
        node = track.node if track.node is not None else -1
        if track.rank is not None:
            return (node, 0, track.rank, "")
        number = re.search(r"(\d+)$", track.key)  # progress-thread-10 after progress-thread-9
        return (node, 1, int(number.group(1)) if number else 0, track.key)

    return sorted(found.values(), key=order)


def _category(step: StepSpan) -> str:
    return "NIC work" if step.by == "nic" else "progress work"


def _state_name(span: StateSpan) -> str:
    label = STATE_LABELS.get(span.state, span.state)
    if span.state == "mpi" and span.action:
        return f"MPI {span.action}"
    if span.state == "blocked" and span.action:
        return f"waiting in {span.action}"
    return label


@dataclass(frozen=True)
class Arrow:
    """A message or transfer: started at `start` on track `source`, handled by `step` (on its agent's track)."""
    source: str
    start: float
    step: StepSpan

    @property
    def name(self) -> str:
        return ARRIVALS.get(self.step.step, self.step.step)


def arrows(timeline: Timeline, shown: set[str]) -> list[Arrow]:
    """The arrows whose both ends are on shown tracks and inside the timeline's window."""
    first = min([s.start for s in timeline.states] + [s.start for s in timeline.steps], default=0.0)
    found = []
    for step in timeline.steps:
        if step.from_t is None or step.from_agent is None:
            continue
        if step.from_agent in shown and step.agent in shown and step.from_t >= first:
            found.append(Arrow(step.from_agent, step.from_t, step))
    return found


# ---------------------------------------------------------------------------------------------------- Chrome

def _us(seconds: float) -> float:
    return round(seconds * 1e6, 6)  # microseconds, to the picosecond: stable text, no float noise


def chrome_trace(timeline: Timeline, title: str | None = None) -> dict[str, Any]:
    """The Chrome trace-event JSON object (format: 'Trace Event Format', the JSON Object Format): a process per
    node, a thread per rank and per agent, complete events ("X") for states and steps, flow events ("s", "f")
    for messages. Times in microseconds."""
    rows = tracks(timeline)
    nodes = sorted({t.node if t.node is not None else -1 for t in rows})
    pid = {node: i + 1 for i, node in enumerate(nodes)}
    where: dict[str, tuple[int, int]] = {}
    events: list[dict[str, Any]] = []
    for node in nodes:
        name = f"node {node}" if node >= 0 else "ranks"
        events.append({"name": "process_name", "ph": "M", "pid": pid[node], "tid": 0, "args": {"name": name}})
        events.append({"name": "process_sort_index", "ph": "M", "pid": pid[node], "tid": 0,
                       "args": {"sort_index": pid[node]}})
    for index, track in enumerate(rows):
        node = track.node if track.node is not None else -1
        tid = index + 1
        where[track.key] = (pid[node], tid)
        events.append({"name": "thread_name", "ph": "M", "pid": pid[node], "tid": tid, "args": {"name": track.label}})
        events.append({"name": "thread_sort_index", "ph": "M", "pid": pid[node], "tid": tid,
                       "args": {"sort_index": tid}})
    slices: list[dict[str, Any]] = []
    by_track: dict[tuple[int, int], list[tuple[float, float]]] = {}  # each track's slices, for the flows
    for span in timeline.states:
        p, t = where[rank_agent(span.rank)]
        by_track.setdefault((p, t), []).append((_us(span.start), _us(span.end)))
        args: dict[str, Any] = {"state": span.state}
        if span.action is not None:
            args["action"] = span.action
        if span.line is not None:
            args["line"] = span.line
        slices.append({"name": _state_name(span), "cat": "state", "ph": "X", "ts": _us(span.start),
                       "dur": round(_us(span.end) - _us(span.start), 6), "pid": p, "tid": t, "args": args})
    for step in timeline.steps:
        p, t = where[step.agent]
        by_track.setdefault((p, t), []).append((_us(step.start), _us(step.end)))
        args = {"rank": step.rank, "runner": step.by, "cpu_us": _us(step.cpu), "copied_bytes": step.copied}
        if step.msg is not None:
            args.update({"message": step.msg, "peer": step.peer, "bytes": step.bytes})
        slices.append({"name": step.step, "cat": _category(step), "ph": "X", "ts": _us(step.start),
                       "dur": round(_us(step.end) - _us(step.start), 6), "pid": p, "tid": t, "args": args})
    slices.sort(key=lambda e: (e["ts"], -e["dur"], e["pid"], e["tid"]))  # enclosing slices first
    flows: list[dict[str, Any]] = []
    for number, arrow in enumerate(arrows(timeline, set(where)), 1):
        source, target = where[arrow.source], where[arrow.step.agent]
        start = _inside(by_track.get(source, []), _us(arrow.start))
        end = _inside(by_track.get(target, []), _us(arrow.step.start))
        if start is None or end is None or end < start:
            continue
        args = {"message": arrow.step.msg} if arrow.step.msg is not None else {}
        flows.append({"name": arrow.name, "cat": "message", "ph": "s", "id": number, "ts": start,
                      "pid": source[0], "tid": source[1], "args": args})
        flows.append({"name": arrow.name, "cat": "message", "ph": "f", "bp": "e", "id": number, "ts": end,
                      "pid": target[0], "tid": target[1], "args": args})
    other: dict[str, Any] = {"source": Path(timeline.source).name, "generator": "progsim timeline"}
    if title:
        other["title"] = title
    return {"traceEvents": events + slices + flows, "displayTimeUnit": "ms", "otherData": other}


def _inside(spans: list[tuple[float, float]], ts: float) -> float | None:
    """A time inside the innermost slice of a track that holds `ts` (its end excluded where it lasts), so that a
    flow event binds to that slice; None when no slice holds it."""
    best: tuple[float, float] | None = None
    for a, b in spans:
        if a <= ts <= b and (best is None or b - a < best[1] - best[0]):
            best = (a, b)
    if best is None:
        return None
    a, b = best
    if a < ts < b or a == b:
        return ts
    return round((a + b) / 2, 6)


def write_atomically(path: Path, write: Any) -> None:
    """Writes through a partial file moved into place: a failure leaves no output."""
    partial = path.with_name(path.name + ".partial")
    try:
        write(partial)
        os.replace(partial, path)
    finally:
        if partial.exists():
            partial.unlink()


def write_chrome(timeline: Timeline, path: Path, title: str | None = None) -> None:
    trace = chrome_trace(timeline, title)
    write_atomically(path, lambda p: p.write_text(json.dumps(trace, separators=(",", ":")) + "\n"))


# ---------------------------------------------------------------------------------------------------- picture

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
        bars.setdefault(_category(step), []).append((step.start, max(step.end - step.start, least), y[step.agent],
                                                     size))
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


def default_title(timeline: Timeline, results: dict[str, Any] | None = None) -> str:
    """The trace and the mechanism, from the results JSON of the same run when given, else from the file."""
    if results is not None:
        path = Path(str(results.get("trace", "?")))
        trace = f"{path.parent.name}/{path.name}" if path.parent.name else path.name
        return f"{trace} under '{results.get('progress', '?')}' ({Path(timeline.source).name})"
    mechanism = timeline.mechanism()
    suffix = f" (agents: {mechanism})" if mechanism else ""
    return f"{Path(timeline.source).name}{suffix}"


# ---------------------------------------------------------------------------------------------------- command

HELP = """Turns the timeline of a replay (progsim replay ... --timeline events.jsonl) into pictures.

--chrome out.json   Chrome trace-event JSON: open it in Perfetto (ui.perfetto.dev, "Open trace file") or in
                    chrome://tracing. One process per node; in it one track (thread) per rank and one per agent that
                    ran protocol steps (a progress thread, a reserved core, a NIC; SMPI's network under ideal).
                    A rank's track shows its states as slices: compute, "MPI <call>" (inside an MPI call) and
                    "waiting in <call>" (blocked), each with its trace action and line in the slice's arguments, and
                    the protocol steps the rank ran itself, nested in its MPI calls. An agent's track shows the steps
                    it ran (match, match-rendezvous, clear-to-send, transfer-done, finish) with the message id, peer,
                    bytes, CPU time and bytes copied. Arrows (flow events) go from where a message or transfer was
                    started (a rank's MPI call, or the step that sent it) to the step that handled its arrival.
--png out.png       The same tracks as a Gantt picture (matplotlib): compute, MPI call, waiting, progress work (steps
                    run by a rank or a progress thread, reserved core or network) and NIC work, with the arrows when
                    there are at most 300 of them. Steps last microseconds: they are drawn a few pixels wide at least.
--paje out.trace    The same content as a Paje trace (the format of SimGrid's tracing): open it in ViTE
                    (vite out.trace) or read it with PajeNG (pj_dump out.trace). Containers: the run, a node, in it
                    a rank (state type "rank state": compute, MPI <call>, waiting in <call>, sleep, with the trace
                    action and line as extra fields) with a sub-container for the steps it ran itself, and one per
                    agent (state type "protocol step", with the message id, peer, bytes, CPU time and bytes copied).
                    Links (one key per arrow) go from where a message or transfer was started to its step.
                    Times in seconds.

--ranks A-B keeps ranks A to B (and the agents that ran their steps); --from T --to T (seconds) keeps a time
window (spans are cut at its edges; arrows need both ends inside). Both apply to every output.
Exit status 2 on bad input (a missing file, a malformed line: named with its line number); nothing is written then.
"""


def command_timeline(args: Any) -> int:
    from progsim.outputs import check_outputs
    from progsim.timeline_paje import write_paje

    events = Path(args.events)
    results_path = Path(args.results) if args.results else None
    if not args.chrome and not args.png and not args.paje:
        raise InputError("timeline: say what to write: --paje out.trace, --chrome out.json and/or --png out.png")
    if args.png and Path(args.png).suffix.lower() != ".png":
        raise InputError(f"--png {args.png}: expected a .png file")
    for option, value in (("--from", args.start), ("--to", args.stop)):
        if value is not None and (not math.isfinite(value) or value < 0):
            raise InputError(f"{option} {value}: expected a time in seconds, 0 or more")
    check_outputs({"--chrome": args.chrome, "--png": args.png, "--paje": args.paje},
                  [events] + ([results_path] if results_path else []))
    ranks = parse_ranks(args.ranks) if args.ranks else None
    results = None
    if results_path is not None:
        try:
            results = json.loads(results_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise InputError(f"{results_path}: not a results JSON of 'progsim replay --out' ({error})") from None
        if not isinstance(results, dict):
            raise InputError(f"{results_path}: not a results JSON of 'progsim replay --out'")
    timeline = select(read_timeline(events), ranks, args.start, args.stop)
    title = args.title or default_title(timeline, results)
    if args.chrome:
        write_chrome(timeline, Path(args.chrome), title)
        print(f"wrote {args.chrome}")
    if args.png:
        draw_gantt(timeline, Path(args.png), title)
        print(f"wrote {args.png}")
    if args.paje:
        write_paje(timeline, Path(args.paje), title)
        print(f"wrote {args.paje}")
    return 0


def add_command(commands: Any) -> None:
    import argparse

    parser = commands.add_parser(
        "timeline", help="turn a replay's --timeline file into a Perfetto/chrome://tracing trace, a Paje trace "
                         "(ViTE) or a Gantt PNG",
        description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("events", help="JSON lines written by 'progsim replay ... --timeline events.jsonl'")
    parser.add_argument("--chrome", metavar="OUT.json", help="write Chrome trace-event JSON (Perfetto, chrome://tracing)")
    parser.add_argument("--png", metavar="OUT.png", help="draw a Gantt picture")
    parser.add_argument("--paje", metavar="OUT.trace", help="write a Paje trace (ViTE, PajeNG's pj_dump)")
    parser.add_argument("--ranks", metavar="A-B", help="keep ranks A to B (or one rank A)")
    parser.add_argument("--from", dest="start", type=float, metavar="T", help="keep from T seconds on")
    parser.add_argument("--to", dest="stop", type=float, metavar="T", help="keep up to T seconds")
    parser.add_argument("--results", metavar="RESULTS.json",
                        help="the same run's 'replay --out' file: the title names its trace and mechanism")
    parser.add_argument("--title", help="the picture's title (default: the trace and mechanism, where known)")
    parser.set_defaults(run=command_timeline)
