"""Chrome trace-event export of a replay's timeline (`progsim timeline events.jsonl --chrome out.json`), which
Perfetto (ui.perfetto.dev) and chrome://tracing open.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from progsim.outputs import write_atomically
from progsim.timeline.reader import Timeline, arrows, rank_agent, state_name, step_category, tracks


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
        slices.append({"name": state_name(span), "cat": "state", "ph": "X", "ts": _us(span.start),
                       "dur": round(_us(span.end) - _us(span.start), 6), "pid": p, "tid": t, "args": args})
    for step in timeline.steps:
        p, t = where[step.agent]
        by_track.setdefault((p, t), []).append((_us(step.start), _us(step.end)))
        args = {"rank": step.rank, "runner": step.by, "cpu_us": _us(step.cpu), "copied_bytes": step.copied}
        if step.msg is not None:
            args.update({"message": step.msg, "peer": step.peer, "bytes": step.bytes})
        slices.append({"name": step.step, "cat": step_category(step), "ph": "X", "ts": _us(step.start),
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


def write_chrome(timeline: Timeline, path: Path, title: str | None = None) -> None:
    """Writes the Chrome trace-event JSON on one line (compact: a large run's file stays small)."""
    trace = chrome_trace(timeline, title)
    write_atomically(path, lambda p: p.write_text(json.dumps(trace, separators=(",", ":")) + "\n"))
