"""Paje export of a replay's timeline (`progsim timeline events.jsonl --paje out.trace`), for ViTE and PajeNG.

The Paje trace file format (Schnorr et al., "Paje trace file format", in PajeNG's documentation) is the text format
SimGrid's `--cfg=tracing:yes` writes: a header of `%EventDef <name> <id>` ... `%EndEventDef` blocks that give the
fields of each event, then one event per line (its id, then its fields in the defined order; strings with spaces in
double quotes). The content is the Chrome export's (timeline_chrome.py):

  root container (the title)
    node N                       a container per node ("ranks" when the file does not say where a rank ran)
      rank R                     state type "rank state": compute, MPI <call>, waiting in <call>, sleep, starting
        steps run by rank R      state type "step run by the rank": the protocol steps the rank ran itself
      progress thread, reserved core, NIC, network (ideal): state type "protocol step"
  links (PajeStartLink / PajeEndLink, one key per arrow) from where a message or transfer was started to the step
  that handled its arrival, recorded in the root container (the only container above both ends).

Times are in seconds. States are pushed and popped (PajePushState / PajePopState) so that each span has its own
start and end, as pj_dump shows them.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from pathlib import Path

from progsim.outputs import write_atomically
from progsim.timeline.reader import (COLOURS, STATE_LABELS, StateSpan, StepSpan, Timeline, arrows, rank_agent, state_name,
                              step_category, tracks)

#: A colour for what the picture does not draw ("starting"): grey.
OTHER_COLOUR = "#BFBFBF"

# The events this writer uses, with their fields in the order the lines give them. PajePushState has two
# definitions (two ids) so that a rank state and a step each carry their own details as extra fields, which pj_dump
# -u and ViTE's entity info show (names other than Paje's reserved ones: Line and File are reserved).
DEFINE_CONTAINER_TYPE, DEFINE_STATE_TYPE, DEFINE_LINK_TYPE, DEFINE_VALUE = 0, 1, 2, 3
CREATE_CONTAINER, DESTROY_CONTAINER, PUSH_RANK_STATE, PUSH_STEP, POP_STATE, START_LINK, END_LINK = 4, 5, 6, 7, 8, 9, 10
EVENT_DEFINITIONS: list[tuple[str, int, list[tuple[str, str]]]] = [
    ("PajeDefineContainerType", DEFINE_CONTAINER_TYPE, [("Alias", "string"), ("Type", "string"), ("Name", "string")]),
    ("PajeDefineStateType", DEFINE_STATE_TYPE, [("Alias", "string"), ("Type", "string"), ("Name", "string")]),
    ("PajeDefineLinkType", DEFINE_LINK_TYPE, [("Alias", "string"), ("Type", "string"),
                                              ("StartContainerType", "string"), ("EndContainerType", "string"),
                                              ("Name", "string")]),
    ("PajeDefineEntityValue", DEFINE_VALUE, [("Alias", "string"), ("Type", "string"), ("Name", "string"),
                                             ("Color", "color")]),
    ("PajeCreateContainer", CREATE_CONTAINER, [("Time", "date"), ("Alias", "string"), ("Type", "string"),
                                               ("Container", "string"), ("Name", "string")]),
    ("PajeDestroyContainer", DESTROY_CONTAINER, [("Time", "date"), ("Type", "string"), ("Name", "string")]),
    ("PajePushState", PUSH_RANK_STATE, [("Time", "date"), ("Type", "string"), ("Container", "string"),
                                        ("Value", "string"), ("EngineState", "string"), ("Action", "string"),
                                        ("TraceLine", "string")]),
    ("PajePushState", PUSH_STEP, [("Time", "date"), ("Type", "string"), ("Container", "string"),
                                  ("Value", "string"), ("Rank", "int"), ("Runner", "string"),
                                  ("Message", "string"), ("Peer", "string"), ("Bytes", "string"),
                                  ("CpuSeconds", "double"), ("CopiedBytes", "int")]),
    ("PajePopState", POP_STATE, [("Time", "date"), ("Type", "string"), ("Container", "string")]),
    ("PajeStartLink", START_LINK, [("Time", "date"), ("Type", "string"), ("Container", "string"),
                                   ("Value", "string"), ("StartContainer", "string"), ("Key", "string"),
                                   ("Message", "string")]),
    ("PajeEndLink", END_LINK, [("Time", "date"), ("Type", "string"), ("Container", "string"), ("Value", "string"),
                               ("EndContainer", "string"), ("Key", "string")]),
]

# Container types (aliases) and their state types. A rank's own steps sit on a sub-container of the rank rather
# than on a second level of the rank's states (PajePushState over its MPI call): ViTE draws all the states of a
# container on one row, the innermost hiding the call around it, while a sub-container is a row of its own under
# the rank, as the agents' rows are; pj_dump then lists a rank's states and its steps under two containers, each at
# imbrication 0, and the two never have to nest into each other.
ROOT, NODE, RANK, RANK_STEPS, AGENT = "ROOT", "NODE", "RANK", "RANK_STEPS", "AGENT"
CONTAINER_TYPES = [(ROOT, "0", "run"), (NODE, ROOT, "node"), (RANK, NODE, "rank"),
                   (RANK_STEPS, RANK, "steps of a rank"), (AGENT, NODE, "agent")]
RANK_STATE, OWN_STEP, AGENT_STEP = "RANK_STATE", "OWN_STEP", "AGENT_STEP"
STATE_TYPES = [(RANK_STATE, RANK, "rank state"), (OWN_STEP, RANK_STEPS, "step run by the rank"),
               (AGENT_STEP, AGENT, "protocol step")]
STATE_TYPE_OF = {container: state for state, container, _ in STATE_TYPES}
#: Where an arrow may start (a rank's call, a step of a rank, a step of an agent) and end (a step): Paje gives a
#: link type its two container types, so one link type per pair.
LINK_ENDS = [(RANK, RANK_STEPS), (RANK, AGENT), (RANK_STEPS, RANK_STEPS), (RANK_STEPS, AGENT), (AGENT, RANK_STEPS),
             (AGENT, AGENT)]
LINK_NAMES = {RANK: "call", RANK_STEPS: "rank's step", AGENT: "agent's step"}


def _time(seconds: float) -> str:
    """Seconds to the picosecond, without exponent: the same float always gives the same text."""
    text = f"{seconds:.12f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


def _string(text: str) -> str:
    """A string field: in double quotes, which Paje strings cannot escape (so a quote becomes an apostrophe)."""
    return '"' + " ".join(text.replace('"', "'").split()) + '"'


def _colour(code: str) -> str:
    """'#RRGGBB' to Paje's "r g b", each 0 to 1."""
    return _string(" ".join(f"{int(code[i:i + 2], 16) / 255:.3f}" for i in (1, 3, 5)))


def _line(event: int, *fields: object) -> str:
    return " ".join([str(event), *(str(f) for f in fields)])


def header() -> list[str]:
    lines = []
    for name, number, fields in EVENT_DEFINITIONS:
        lines.append(f"%EventDef {name} {number}")
        lines.extend(f"%       {field} {kind}" for field, kind in fields)
        lines.append("%EndEventDef")
    return lines


# ---------------------------------------------------------------------------------------------------- containers

@dataclass(frozen=True)
class Container:
    alias: str
    kind: str     # its container type
    parent: str   # the parent container's alias
    name: str


def containers(timeline: Timeline, title: str) -> tuple[list[Container], dict[str, Container],
                                                        dict[str, Container]]:
    """The containers in creation order (parents first), the container of each track, and the sub-container of
    each rank that ran steps itself (by its track key)."""
    root = Container("root", ROOT, "0", title)
    rows = tracks(timeline)
    found = [root]
    nodes: dict[int, Container] = {}
    for track in rows:
        node = track.node if track.node is not None else -1
        if node not in nodes:
            nodes[node] = Container(f"n{len(nodes)}", NODE, root.alias, f"node {node}" if node >= 0 else "ranks")
            found.append(nodes[node])
    runners = {step.agent for step in timeline.steps}
    by_track: dict[str, Container] = {}
    own_steps: dict[str, Container] = {}
    for index, track in enumerate(rows):
        parent = nodes[track.node if track.node is not None else -1]
        container = Container(f"t{index}", RANK if track.rank is not None else AGENT, parent.alias, track.label)
        by_track[track.key] = container
        found.append(container)
        if track.rank is not None and track.key in runners:
            own_steps[track.key] = Container(f"t{index}s", RANK_STEPS, container.alias, f"steps run by {track.label}")
            found.append(own_steps[track.key])
    return found, by_track, own_steps


# ---------------------------------------------------------------------------------------------------- states

@dataclass(frozen=True)
class Span:
    """A state to push on a container: its value's alias and the extra fields of its push event."""
    start: float
    end: float
    value: str
    event: int
    extra: tuple[str, ...]


def nest(spans: list[Span], kind: str, container: str) -> list[tuple[float, str]]:
    """Push and pop events that draw `spans` on one container, in time order. Paje pops the innermost state: when a
    span ends while spans pushed after it still last, those are popped with it and pushed again at that time."""
    out: list[tuple[float, str]] = []
    stack: list[Span] = []

    def push(at: float, span: Span) -> None:
        out.append((at, _line(span.event, _time(at), kind, container, span.value, *span.extra)))
        stack.append(span)

    def close(until: float) -> None:
        while True:
            due = [i for i, s in enumerate(stack) if s.end <= until]
            if not due:
                return
            first = min(stack[i].end for i in due)
            i = max(i for i in due if stack[i].end == first)  # of those ending first, the innermost
            above = stack[i + 1:]
            for _ in range(len(stack) - i):
                out.append((first, _line(POP_STATE, _time(first), kind, container)))
            del stack[i:]
            for span in above:
                push(first, span)

    for span in sorted(spans, key=lambda s: (s.start, -s.end)):  # stable: equal spans keep the file's order
        close(span.start)
        push(span.start, span)
    close(float("inf"))
    return out


def _optional(value: object) -> str:
    return _string(str(value)) if value is not None else _string("-")


class Values:
    """Entity values of the state types: one per (type, colour, name), aliases in order of first use."""

    def __init__(self) -> None:
        self.defined: dict[tuple[str, str, str], str] = {}

    def alias(self, kind: str, name: str, colour: str) -> str:
        key = (kind, colour, name)
        if key not in self.defined:
            self.defined[key] = f"v{len(self.defined)}"
        return self.defined[key]

    def lines(self) -> list[str]:
        return [_line(DEFINE_VALUE, alias, kind, _string(name), _colour(colour))
                for (kind, colour, name), alias in self.defined.items()]


def _rank_span(span: StateSpan, values: Values) -> Span:
    category = STATE_LABELS.get(span.state, span.state)
    value = values.alias(RANK_STATE, state_name(span), COLOURS.get(category, OTHER_COLOUR))
    return Span(span.start, span.end, value, PUSH_RANK_STATE,
                (_string(span.state), _optional(span.action), _optional(span.line)))


def _step_span(step: StepSpan, kind: str, values: Values) -> Span:
    value = values.alias(kind, step.step, COLOURS[step_category(step)])
    return Span(step.start, step.end, value, PUSH_STEP,
                (str(step.rank), _string(step.by), _optional(step.msg), _optional(step.peer), _optional(step.bytes),
                 _time(step.cpu), str(step.copied)))


# ---------------------------------------------------------------------------------------------------- links

def _holds(steps: list[StepSpan], at: float) -> bool:
    return any(s.start <= at <= s.end for s in steps)


def links(timeline: Timeline, by_track: dict[str, Container], own_steps: dict[str, Container]
          ) -> list[tuple[float, str]]:
    """Start and end events of the arrows, keyed "m1", "m2"... in the order of timeline.arrows. An arrow from a
    rank starts on its steps' row when one of its own steps holds that time (the step sent it), else on the rank's
    row (its MPI call)."""
    by_agent: dict[str, list[StepSpan]] = {}
    for step in timeline.steps:
        by_agent.setdefault(step.agent, []).append(step)
    out: list[tuple[float, str]] = []
    for number, arrow in enumerate(arrows(timeline, set(by_track)), 1):
        start = by_track[arrow.source]
        if arrow.source in own_steps and _holds(by_agent.get(arrow.source, []), arrow.start):
            start = own_steps[arrow.source]
        end = own_steps.get(arrow.step.agent, by_track[arrow.step.agent])
        kind = f"L_{start.kind}_{end.kind}"
        value = _string(arrow.name)  # a name, not a defined entity value: ViTE takes those for states only
        key = f"m{number}"
        out.append((arrow.start, _line(START_LINK, _time(arrow.start), kind, "root", value, start.alias, key,
                                       _optional(arrow.step.msg))))
        out.append((arrow.step.start, _line(END_LINK, _time(arrow.step.start), kind, "root", value, end.alias, key)))
    out.sort(key=lambda e: e[0])  # stable: a link's start stays before its end at one time
    return out


# ---------------------------------------------------------------------------------------------------- trace

def paje_trace(timeline: Timeline, title: str) -> str:
    """The whole Paje trace of `timeline`, as text."""
    found, by_track, own_steps = containers(timeline, title)
    values = Values()
    per_container: list[list[tuple[float, str]]] = []
    states: dict[int, list[Span]] = {}
    for span in timeline.states:
        states.setdefault(span.rank, []).append(_rank_span(span, values))
    for rank, spans in sorted(states.items()):
        per_container.append(nest(spans, RANK_STATE, by_track[rank_agent(rank)].alias))
    steps: dict[str, list[StepSpan]] = {}
    for step in timeline.steps:
        steps.setdefault(step.agent, []).append(step)
    for agent in by_track:  # in the tracks' order
        if agent in steps:
            on = own_steps.get(agent, by_track[agent])  # a rank's own steps go to its sub-container
            kind = STATE_TYPE_OF[on.kind]
            per_container.append(nest([_step_span(step, kind, values) for step in steps[agent]], kind, on.alias))
    per_container.append(links(timeline, by_track, own_steps))
    first = min([s.start for s in timeline.states] + [s.start for s in timeline.steps], default=0.0)
    last = max([timeline.end] + [s.end for s in timeline.states] + [s.end for s in timeline.steps])
    lines = header()  # no comment line first: ViTE warns about it (PajeNG skips it); the root container is named
    lines += [_line(DEFINE_CONTAINER_TYPE, alias, parent, _string(name)) for alias, parent, name in CONTAINER_TYPES]
    lines += [_line(DEFINE_STATE_TYPE, alias, parent, _string(name)) for alias, parent, name in STATE_TYPES]
    lines += [_line(DEFINE_LINK_TYPE, f"L_{a}_{b}", ROOT, a, b, _string(f"message: {LINK_NAMES[a]} to {LINK_NAMES[b]}"))
              for a, b in LINK_ENDS]
    events = [line for _, line in heapq.merge(*per_container, key=lambda e: e[0])]  # stable across containers
    lines += values.lines()
    lines += [_line(CREATE_CONTAINER, _time(first), c.alias, c.kind, c.parent, _string(c.name)) for c in found]
    lines += events
    lines += [_line(DESTROY_CONTAINER, _time(last), c.kind, c.alias) for c in reversed(found)]
    return "\n".join(lines) + "\n"


def write_paje(timeline: Timeline, path: Path, title: str) -> None:
    text = paje_trace(timeline, title)
    write_atomically(path, lambda p: p.write_text(text, encoding="utf-8"))
