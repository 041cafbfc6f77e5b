"""`progsim explain`: where each rank's time went in one replay, and the first protocol step that waited for
progression, on one screen.

A rank's time splits into its states (computing, sleeping, inside an MPI call, blocked in one). Blocked time splits
further, from the protocol steps of the timeline:

  waiting for progression   while a step of a message this rank sends or receives had arrived (its request-to-send,
                            clear-to-send, data or finish had landed) but its runner had not run it yet, and was not
                            busy with other steps either: the rank that must progress it computes, its progress
                            thread waits for a time slice or its next poll. This is what progression mechanisms remove.
  waiting for the peer      the rest: the peer has not posted yet, the data is on the wire, a runner is busy with
                            other steps (copies, a reserved core serving many ranks).

A step's delay is the time from its arrival to its start, minus the time its runner spent running other steps
meanwhile. Only steps of messages the rank is an end of count for it; a collective waits, through its rounds, for
messages between other ranks too, which this attribution leaves to "the peer".
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from progsim.errors import InputError
from progsim.timeline import ARRIVALS, RUNNER_LABELS, StepSpan, Timeline, read_timeline

Interval = tuple[float, float]
#: Below this many seconds a delay is float noise, not a wait.
NOISE = 1e-12
#: More ranks than this: the table shows the ranks that waited longest for progression, and a line for all.
SHOWN_RANKS = 12


def merge(intervals: Iterable[Interval]) -> list[Interval]:
    """The union of intervals, as sorted disjoint intervals."""
    merged: list[Interval] = []
    for start, end in sorted(i for i in intervals if i[1] > i[0]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def subtract(interval: Interval, busy: list[Interval]) -> list[Interval]:
    """`interval` minus the sorted disjoint intervals `busy`."""
    start, end = interval
    left: list[Interval] = []
    first = max(bisect.bisect_left(busy, (start, start)) - 1, 0)
    for b_start, b_end in busy[first:]:
        if b_start >= end:
            break
        if b_end <= start:
            continue
        if b_start > start:
            left.append((start, b_start))
        start = max(start, b_end)
    if end > start:
        left.append((start, end))
    return left


def overlap(a: list[Interval], b: list[Interval]) -> float:
    """Total length of the intersection of two sorted disjoint interval lists."""
    total, i, j = 0.0, 0, 0
    while i < len(a) and j < len(b):
        low, high = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if high > low:
            total += high - low
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


@dataclass(frozen=True)
class Stall:
    """A step that waited for progression: arrived at `step.arrived`, started at `step.start`; `idle` seconds of
    that its runner did nothing else."""
    step: StepSpan
    windows: tuple[Interval, ...]

    @property
    def idle(self) -> float:
        return sum(end - start for start, end in self.windows)


def stalls(timeline: Timeline) -> list[Stall]:
    """Every step that waited for its runner while the runner ran no other step, in order of arrival."""
    busy_by_agent: dict[str, list[Interval]] = {}
    for step in timeline.steps:
        busy_by_agent.setdefault(step.agent, []).append((step.start, step.end))
    busy = {agent: merge(spans) for agent, spans in busy_by_agent.items()}
    found = []
    for step in timeline.steps:
        if step.arrived is None or step.delay <= NOISE:
            continue
        windows = tuple(w for w in subtract((step.arrived, step.start), busy[step.agent]) if w[1] - w[0] > NOISE)
        if windows:
            found.append(Stall(step, windows))
    found.sort(key=lambda s: (s.step.arrived or 0.0, s.step.start, s.step.rank))
    return found


@dataclass
class RankTime:
    """Seconds of one rank, by what it did."""
    rank: int
    node: int | None
    total: float = 0.0
    compute: float = 0.0
    sleep: float = 0.0
    mpi: float = 0.0          # inside MPI calls, not blocked (posting, copies, its own protocol steps)
    peer: float = 0.0         # blocked, waiting for the peer or the network
    progression: float = 0.0  # blocked, waiting for a step that had arrived but nobody ran


def ends(step: StepSpan) -> set[int]:
    """The ranks a step's message belongs to: its endpoint's, and its peer's."""
    return {step.rank} | ({step.peer} if step.peer is not None else set())


def blocked_intervals(timeline: Timeline) -> dict[int, list[Interval]]:
    blocked: dict[int, list[Interval]] = {}
    for span in timeline.states:
        if span.state == "blocked":
            blocked.setdefault(span.rank, []).append((span.start, span.end))
    return {rank: merge(spans) for rank, spans in blocked.items()}


def costly(found: list[Stall], blocked: dict[int, list[Interval]]) -> list[Stall]:
    """The stalls that kept a rank blocked: a step that waited while nobody waited for it (a receive completed
    late while its rank computed on) cost nothing."""
    return [s for s in found if any(overlap(list(s.windows), blocked.get(rank, [])) > NOISE for rank in ends(s.step))]


def rank_times(timeline: Timeline, found: list[Stall]) -> list[RankTime]:
    windows: dict[int, list[Interval]] = {}
    for stall in found:
        for rank in ends(stall.step):
            windows.setdefault(rank, []).extend(stall.windows)
    blocked = blocked_intervals(timeline)
    times = {rank: RankTime(rank, timeline.nodes.get(rank)) for rank in timeline.ranks}
    for span in timeline.states:
        time = times[span.rank]
        length = span.end - span.start
        time.total += length
        if span.state == "computing":
            time.compute += length
        elif span.state == "sleeping":
            time.sleep += length
        elif span.state != "blocked":  # inside an MPI call (and the instant of starting); blocked: below
            time.mpi += length
    for rank, time in times.items():
        waits = blocked.get(rank, [])
        total_blocked = sum(end - start for start, end in waits)
        time.progression = overlap(waits, merge(windows.get(rank, [])))
        time.peer = total_blocked - time.progression
    return [times[rank] for rank in sorted(times)]


# ---------------------------------------------------------------------------------------------------- text

def seconds(value: float) -> str:
    """A duration in the unit that reads best."""
    magnitude = abs(value)
    if magnitude == 0:
        return "0 s"
    if magnitude >= 1:
        return f"{value:.4g} s"
    if magnitude >= 1e-3:
        return f"{value * 1e3:.4g} ms"
    if magnitude >= 1e-6:
        return f"{value * 1e6:.4g} us"
    return f"{value * 1e9:.4g} ns"


def size(value: int) -> str:
    """Bytes in the largest binary unit they reach: 16 MiB, 1.5 KiB, 64 B."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= scale:
            return f"{value / scale:.4g} {unit}"
    return f"{value} B"


def _cell(part: float, total: float) -> str:
    share = 100 * part / total if total > 0 else 0.0
    return f"{seconds(part)} {share:3.0f}%"


def table(times: list[RankTime]) -> list[str]:
    columns = ("computing", "in MPI calls", "waiting for peer", "waiting for progression")
    header = f"{'rank':>5} {'node':>4} {'time':>10}  " + "  ".join(f"{c:>23}" for c in columns)
    lines = [header, "-" * len(header)]
    shown = times
    if len(times) > SHOWN_RANKS:
        shown = sorted(times, key=lambda t: (-t.progression, t.rank))[:SHOWN_RANKS]
        shown.sort(key=lambda t: t.rank)
    for time in shown:
        node = "" if time.node is None else str(time.node)
        parts = (time.compute + time.sleep, time.mpi, time.peer, time.progression)
        lines.append(f"{time.rank:>5} {node:>4} {seconds(time.total):>10}  " +
                     "  ".join(f"{_cell(p, time.total):>23}" for p in parts))
    if len(times) > SHOWN_RANKS:
        total = sum(t.total for t in times)
        parts = (sum(t.compute + t.sleep for t in times), sum(t.mpi for t in times), sum(t.peer for t in times),
                 sum(t.progression for t in times))
        lines.append(f"{'all':>5} {'':>4} {seconds(total / len(times)):>10}  " +
                     "  ".join(f"{_cell(p / len(times), total / len(times)):>23}" for p in parts) + "  (mean)")
        lines.append(f"({len(shown)} of {len(times)} ranks shown: those that waited longest for progression; "
                     "--ranks A-B lists others)")
    return lines


def _doing(timeline: Timeline, rank: int, at: float) -> str:
    """What a rank was doing at `at`, in words, with its trace line."""
    spans = [s for s in timeline.states if s.rank == rank]
    for span in spans:
        if span.start <= at < span.end:
            line = f" (trace line {span.line})" if span.line is not None else ""
            if span.state == "computing":
                return f"was computing{line}"
            if span.state == "blocked":
                return f"was blocked in {span.action or 'an MPI call'}{line}"
            if span.state == "mpi":
                return f"was in MPI {span.action or 'a call'}{line}"
            return f"was {span.state}{line}"
    return "had ended its trace" if spans and at >= spans[-1].end else "had not started"


def describe_stall(timeline: Timeline, stall: Stall) -> list[str]:
    step = stall.step
    what = ARRIVALS.get(step.step, step.step)
    message = ""
    if step.msg is not None:
        direction = "to" if step.step in ("clear-to-send", "transfer-done") else "from"
        message = f" of message {step.msg} ({size(step.bytes or 0)} {direction} rank {step.peer})"
    runner = "itself" if step.by == "rank" else f"its {RUNNER_LABELS.get(step.by, step.by)} ({step.agent})"
    lines = [f"rank {step.rank}'s {step.step} step{message}:",
             f"  the {what} arrived at {seconds(step.arrived or 0.0)}; rank {step.rank} ran the step by {runner} "
             f"at {seconds(step.start)}: {seconds(stall.idle)} waiting for progression."]
    if step.by == "rank":
        lines.append(f"  When it arrived, rank {step.rank} {_doing(timeline, step.rank, step.arrived or 0.0)}; "
                     f"when it ran the step, it {_doing(timeline, step.rank, step.start)}.")
    return lines


def explain(timeline: Timeline, title: str, ranks: tuple[int, int] | None = None) -> str:
    """The screen: the table, then the first and the longest step that waited for progression. With `ranks`, the
    run is still read whole (a kept rank's peer may be outside the range), and only those ranks are shown."""
    if any(s.from_t is not None for s in timeline.steps) and not any(s.arrived is not None for s in timeline.steps):
        raise InputError(f"{timeline.source}: its steps give no arrival times (an older engine wrote it): "
                         "replay again with --timeline")
    found = costly(stalls(timeline), blocked_intervals(timeline))
    times = rank_times(timeline, found)
    if ranks is not None:
        def kept(rank: int | None) -> bool:
            return rank is not None and ranks[0] <= rank <= ranks[1]
        times = [t for t in times if kept(t.rank)]
        found = [s for s in found if kept(s.step.rank) or kept(s.step.peer)]
        if not times:
            raise InputError(f"--ranks {ranks[0]}-{ranks[1]}: {timeline.source} has ranks "
                             f"{timeline.ranks[0]}-{timeline.ranks[-1]}")
    lines = [f"Where the time went: {title}", ""] + table(times) + [""]
    if not found:
        lines.append("No blocked rank waited for progression: every protocol step that a rank waited for ran as "
                     "soon as what called for it arrived, or as soon as its runner was done with other steps.")
        return "\n".join(lines) + "\n"
    total = sum(s.idle for s in found)
    lines.append(f"{len(found)} protocol steps kept a rank blocked while they waited for progression "
                 f"({seconds(total)} in all). The first:")
    lines += describe_stall(timeline, found[0])
    longest = max(found, key=lambda s: (s.idle, -(s.step.arrived or 0.0)))
    if longest is not found[0]:
        lines.append("The longest:")
        lines += describe_stall(timeline, longest)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------------- command

def check_not_results(path: Path) -> None:
    """A results JSON given for the timeline: say what to give instead. (The results do not name their timeline:
    the engine leaves output paths out of them, so that the same inputs give the same bytes.)"""
    try:
        with path.open("rb") as file:
            start = file.read(64).lstrip()
    except OSError:
        return  # read_timeline names the problem
    if start.startswith(b"{") and b'"format"' in start:
        raise InputError(f"{path}: a results JSON; explain reads the run's timeline: replay with --timeline "
                         f"events.jsonl, then 'progsim explain events.jsonl --results {path}'")


def load_results(path: Path) -> dict[str, Any]:
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"--results {path}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"--results {path}: not a results JSON of 'progsim replay --out' ({error})") from None
    if not isinstance(results, dict) or not str(results.get("format", "")).startswith("progsim-results"):
        raise InputError(f"--results {path}: not a results JSON of 'progsim replay --out'")
    return results


def title_of(source: Path, results: dict[str, Any] | None, timeline: Timeline) -> str:
    if results is None:
        mechanism = timeline.mechanism()
        return f"{source}" + (f" (agents: {mechanism})" if mechanism else "")
    trace = Path(str(results.get("trace", "?")))
    simulated = seconds(float(results.get("simulated_time", 0.0)))
    return (f"{trace.parent.name}/{trace.name} under '{results.get('progress', '?')}', "
            f"{results.get('ranks_count', len(timeline.ranks))} ranks, {simulated}")


HELP = """Prints, per rank, where the time of a replay went, and names the first protocol step that waited for
progression (and the longest), on one screen.

EVENTS.jsonl is the timeline of 'progsim replay ... --timeline events.jsonl' (--results r.json, the same run's
'--out' file, names its trace and mechanism in the title). Columns, per rank (seconds and share of the rank's time):
  computing                 compute and sleep actions of the trace
  in MPI calls              inside MPI calls without being blocked: posting, copies, protocol steps it runs itself
  waiting for peer          blocked: the peer has not posted, the data is on the wire, a runner is busy
  waiting for progression   blocked while a step of one of its messages had arrived but nobody ran it: the rank
                            that should run it computes, a progress thread waits for the CPU or its next poll
The sum is the rank's time. Only messages the rank sends or receives count for its progression wait; inside a
collective, waits on other ranks' messages count as waiting for the peer. With more than 12 ranks, the table lists
the 12 that waited longest for progression and the mean of all; --ranks A-B picks others.
"""


def command_explain(args: Any) -> int:
    from progsim.timeline import parse_ranks

    source = Path(args.events)
    check_not_results(source)
    results = load_results(Path(args.results)) if args.results else None
    ranks = parse_ranks(args.ranks) if args.ranks else None
    timeline = read_timeline(source)
    print(explain(timeline, title_of(source, results, timeline), ranks), end="")
    return 0


def add_command(commands: Any) -> None:
    import argparse

    parser = commands.add_parser(
        "explain", help="where each rank's time went, and the first step that waited for progression",
        description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("events", metavar="EVENTS.jsonl",
                        help="the timeline written by 'progsim replay ... --timeline events.jsonl'")
    parser.add_argument("--results", metavar="RESULTS.json",
                        help="the same run's 'replay --out' file: the title names its trace, mechanism and time")
    parser.add_argument("--ranks", metavar="A-B", help="list ranks A to B (or one rank A)")
    parser.set_defaults(run=command_explain)
