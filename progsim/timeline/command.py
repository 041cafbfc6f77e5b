"""The `progsim timeline` command: a replay's timeline file turned into the Chrome trace, the Paje trace and the Gantt
picture, filtered by ranks and a time window.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from progsim.errors import InputError
from progsim.outputs import check_outputs
from progsim.timeline.reader import Timeline, parse_ranks, read_timeline, select
from progsim.timeline.chrome import write_chrome
from progsim.timeline.gantt import draw_gantt
from progsim.timeline.paje import write_paje


def default_title(timeline: Timeline, results: dict[str, Any] | None = None) -> str:
    """The trace and the mechanism, from the results JSON of the same run when given, else from the file."""
    if results is not None:
        path = Path(str(results.get("trace", "?")))
        trace = f"{path.parent.name}/{path.name}" if path.parent.name else path.name
        return f"{trace} under '{results.get('progress', '?')}' ({Path(timeline.source).name})"
    mechanism = timeline.mechanism()
    suffix = f" (agents: {mechanism})" if mechanism else ""
    return f"{Path(timeline.source).name}{suffix}"


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
