"""A replay's timeline (`progsim replay ... --timeline events.jsonl`) read into spans on tracks, and arrows: what
the Chrome export (chrome.py), the Paje export (paje.py) and the Gantt picture (gantt.py)
show, and what `progsim explain` measures.

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
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from progsim.engine_info import progress_kinds
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
#: The picture's colours, by category (the Paje trace and the gallery page's legend use them too).
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
        names = {kind.agent: kind.name for kind in progress_kinds() if kind.agent}
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


def step_category(step: StepSpan) -> str:
    """The category a step is coloured by: work of a NIC, or progress work (of a rank or another agent)."""
    return "NIC work" if step.by == "nic" else "progress work"


def state_name(span: StateSpan) -> str:
    """What a rank's state span is called for people: "compute", "MPI wait", "waiting in wait"."""
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
