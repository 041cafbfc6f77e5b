"""The progsim command line: a thin layer over the library.

    progsim replay TRACE --platform P.yaml|DIR --progress MECHANISM [--out results.json] [--timeline t.jsonl]
    progsim platform compile P.yaml -o DIR [--ranks N]
    progsim platform check P.yaml ...
    progsim progress
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import sys
import tempfile
import textwrap
from pathlib import Path

from progsim import __version__
from progsim.engine import inspect_trace, replay
from progsim.engine_info import progress_kinds, progress_mechanisms
from progsim.errors import InputError
from progsim.options import check_settings, option_quantities
from progsim.outputs import check_outputs
from progsim.platform import compile_platform, load_platform
from progsim.platform_cache import cache_root, platform_inputs, prepare_platform

EXIT_BAD_INPUT = 2

def mechanisms_help() -> str:
    """The epilog that names every mechanism of the built engine with what it models."""
    kinds = progress_kinds()
    if not kinds:
        return "progress mechanisms: build the engine (make build) to list them"
    width = max(len(kind.name) for kind in kinds) + 2
    lines = ["progress mechanisms (who moves a rendezvous or a collective forward while ranks compute):"]
    for kind in kinds:
        lines += textwrap.wrap(kind.summary, 118, initial_indent="  " + kind.name.ljust(width),
                               subsequent_indent=" " * (width + 2))
    return "\n".join(lines)


def command_replay(args: argparse.Namespace) -> int:
    trace = Path(args.trace)
    check_settings(args.set)
    files = inspect_trace(trace)
    platform = Path(args.platform)
    check_outputs({"--out": args.out, "--timeline": args.timeline},
                  [trace, *files.files, *platform_inputs(platform)])
    ranks = files.ranks
    with tempfile.TemporaryDirectory(prefix="progsim-") as scratch:
        compiled = prepare_platform(platform, ranks, args.ranks_per_node)
        out = Path(args.out) if args.out else Path(scratch) / "results.json"
        settings = list(args.set)
        if not Path(args.platform).is_dir():
            settings.append(f"platform-source:{args.platform}")
        run = replay(trace, compiled, args.progress, out, Path(args.timeline) if args.timeline else None,
                     settings, args.log)
    sys.stdout.write(run.stdout)
    sys.stderr.write(run.stderr)
    return run.returncode


def command_overlap(args: argparse.Namespace) -> int:
    from progsim.cells import COLUMNS
    from progsim.sweep.spec import overlap_sweep
    from progsim.pools import LocalPool
    from progsim.progress_bar import ProgressBar
    from progsim.sweep.run import expected_rows, run_sweep

    check_settings(args.set)
    platform = Path(args.platform)
    if not platform.is_file():
        raise InputError(f"{platform}: expected a platform YAML (its core speed turns computation times into flops)")
    if args.tests < 0:
        raise InputError(f"--tests {args.tests}: expected 0 or more")
    if args.jobs < 1:
        raise InputError(f"--jobs {args.jobs}: expected 1 or more")
    if args.ranks_per_node is not None and args.ranks_per_node < 1:
        raise InputError(f"--ranks-per-node {args.ranks_per_node}: expected a positive number")
    load_platform(platform)
    spec = overlap_sweep(platform, platform, list(args.progress), [args.side],
                         [int(v) for v in option_quantities(args.sizes, "B", "--sizes")],
                         option_quantities(args.compute, "s", "--compute"), args.tests, args.ranks_per_node,
                         list(args.set), "overlap")
    with tempfile.TemporaryDirectory(prefix="progsim-overlap-") as scratch:
        output = Path(args.csv) if args.csv else Path(scratch) / "overlap.csv"
        check_outputs({"--csv": str(output)}, [platform])
        bar = ProgressBar(expected_rows(spec, spec.points()), "overlap")
        pool = LocalPool(args.jobs)
        try:
            outcome = run_sweep(spec, output, pool, bar, lambda line: print(line, file=sys.stderr, flush=True))
        finally:
            bar.close()
            pool.close()
    shown = ["mechanism", *COLUMNS[1:5], "overhead_ratio", "computation_slowdown", "communication_ratio"]
    widths = [max(len(c), *(len(row[c]) for row in outcome.rows)) for c in shown]
    print("  ".join(h.rjust(w) for h, w in zip(shown, widths)))
    for row in outcome.rows:
        print("  ".join(row[c].rjust(w) for c, w in zip(shown, widths))
              + (f"  FAILED: {row['error']}" if row["error"] else ""))
    return 1 if outcome.failed else 0


def command_nbc_overlap(args: argparse.Namespace) -> int:
    from progsim.workloads.nbc_overlap import COLLECTIVES, CollectivePoint, Job, markdown, pivot, run_table
    from progsim.progress_bar import ProgressBar

    check_settings(args.set)
    platform = Path(args.platform)
    if not platform.is_file():
        raise InputError(f"{platform}: expected a platform YAML (its core speed sizes the computation)")
    load_platform(platform)
    collectives = [c.strip() for c in args.collectives.split(",") if c.strip()]
    for collective in collectives:
        if collective not in COLLECTIVES:
            raise InputError(f"--collectives: {collective!r} is not one of {', '.join(COLLECTIVES)}")
    try:
        ranks = [int(r) for r in args.ranks.split(",") if r.strip()]
    except ValueError:
        raise InputError(f"--ranks {args.ranks}: expected comma-separated rank counts") from None
    if not ranks or any(r < 2 for r in ranks):
        raise InputError(f"--ranks {args.ranks}: expected rank counts of 2 or more")
    if args.tests < 0 or args.jobs < 1:
        raise InputError("--tests must be 0 or more and --jobs 1 or more")
    sizes = [int(v) for v in option_quantities(args.sizes, "B", "--sizes")]
    if args.csv:
        check_outputs({"--csv": args.csv}, [platform])
    if args.ranks_per_node is not None and args.ranks_per_node < 1:
        raise InputError(f"--ranks-per-node {args.ranks_per_node}: expected a positive number")
    jobs = [Job(platform, CollectivePoint(collective, n, size, args.tests), mechanism, tuple(args.set),
                args.ranks_per_node)
            for collective in collectives for n in ranks for size in sizes for mechanism in args.progress]
    bar = ProgressBar(len(jobs), "nbc-overlap")
    try:
        table = run_table(jobs, args.jobs, bar)
    finally:
        bar.close()
    if args.csv:
        table.to_csv(args.csv, index=False, float_format="%.6g")
    print(markdown(pivot(table)))
    failed = table[table["error"] != ""]
    for _, row in failed.iterrows():
        print(f"FAILED {row['collective']} {row['ranks']} ranks {row['bytes']} B {row['mechanism']}: {row['error']}",
              file=sys.stderr)
    return 1 if len(failed) else 0


def command_plot(args: argparse.Namespace) -> int:
    from progsim.plot import draw, read_cells

    cells = Path(args.cells)
    outputs = [Path(o) for o in args.out]
    for output in outputs:
        if output.suffix not in (".png", ".svg"):
            raise InputError(f"--out {output}: expected a .png or .svg file")
    check_outputs({f"--out ({n})": str(o) for n, o in enumerate(outputs, 1)}, [cells])  # every image, not the last
    rows = read_cells(cells)
    draw(rows, outputs, args.title or f"overhead ratio: {cells.stem}")
    for output in outputs:
        print(f"wrote {output}")
    return 0


def command_compile(args: argparse.Namespace) -> int:
    output = Path(args.output)
    if output.exists() and not output.is_dir():
        raise InputError(f"{output}: -o names a file; it must be a folder (created if missing)")
    if args.ranks is not None and args.ranks < 1:
        raise InputError(f"--ranks {args.ranks}: expected a positive number of ranks")
    platform = load_platform(Path(args.platform))
    try:
        compiled = compile_platform(platform, output, args.ranks)
    except OSError as error:
        raise InputError(f"{output}: cannot write the compiled platform there ({error.strerror})") from None
    print(f"{platform.name}: {platform.nodes} nodes x {platform.node.cores} cores, {compiled.ranks} ranks placed "
          f"'{platform.placement.policy}' -> {compiled.platform_xml}, {compiled.hostfile}")
    return 0


def command_check(args: argparse.Namespace) -> int:
    for path in args.platforms:
        platform = load_platform(Path(path))
        print(f"{path}: ok ({platform.name}, {platform.nodes} nodes, {platform.node.cores} cores per node, "
              f"{platform.interconnect.topology})")
    return 0


def command_scenario(args: argparse.Namespace) -> int:
    from progsim.scenario import main_scenario

    return main_scenario(Path(args.scenario))


def command_parameters(args: argparse.Namespace) -> int:
    from progsim.engine_info import engine_parameters

    rows = engine_parameters()
    width = max(len(p.name) for p in rows)
    for p in rows:
        default = f"{p.default} {p.unit}".strip()
        print(f"{p.name:<{width}}  {default:<16}  {p.description}")
    return 0


def command_cache(args: argparse.Namespace) -> int:
    root = cache_root()
    if args.cache_command == "clear":
        if root.is_dir():
            shutil.rmtree(root)
        print(f"cleared {root}")
    else:
        print(root)
    return 0


def one_line(message: str, longest: int = 400) -> str:
    """A message on one line, its middle cut when a quoted input makes it very long."""
    text = message.splitlines()[0] if message else message
    if len(text) > longest:
        text = f"{text[:longest // 2]} [... {len(text) - longest} characters cut ...] {text[-longest // 2:]}"
    return text


# Commands that live in a module of their own: each module's add_command(commands) adds its subparser.
COMMAND_MODULES: list[str] = ["progsim.sweep.run", "progsim.real.measure", "progsim.real.calibrate", "progsim.validate",
                                "progsim.interference", "progsim.interference_cases", "progsim.timeline.command",
                                "progsim.explain", "progsim.gallery.command"]


def get_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="progsim", description="Replay SMPI time-independent traces with explicit MPI progression.",
        epilog=mechanisms_help(), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"progsim {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    rp = commands.add_parser(
        "replay", help="replay a trace on a platform under a progress mechanism",
        description="Replays TRACE (a list of per-rank SMPI trace files, or one shared file) on PLATFORM and prints "
                    "a summary. The same inputs give byte-identical result files.",
        epilog=mechanisms_help(), formatter_class=argparse.RawDescriptionHelpFormatter)
    rp.add_argument("trace", help="SMPI time-independent trace: list file or shared trace file")
    rp.add_argument("--platform", required=True, help="platform YAML, or a folder compiled by 'platform compile'")
    rp.add_argument("--progress", required=True, choices=progress_mechanisms() or None, help="progress mechanism")
    rp.add_argument("--ranks-per-node", type=int, metavar="N",
                    help="place N ranks per node instead of the platform YAML's placement.ranks_per_node")
    rp.add_argument("--out", help="write results (JSON) here")
    rp.add_argument("--timeline", help="write every rank state change here (JSON lines)")
    rp.add_argument("--set", action="append", default=[], metavar="NAME:VALUE",
                    help="override a parameter, e.g. --set eager-threshold:4096 or --set network/model:CM02 "
                         "(build/progsim-engine --help lists them)")
    rp.add_argument("--log", help="a threshold for all of the engine's logs (default: critical), or one category's "
                                  "setting: --log progsim_protocol.thres:verbose explains every protocol step, "
                                  "progsim.thres:verbose opens all of progsim's categories")
    rp.set_defaults(run=command_replay)

    ov = commands.add_parser(
        "overlap", help="overlap benchmark: overhead ratio of isend/irecv + computation over sizes and times",
        description="Runs the point-to-point overlap benchmark (Reynier 2022, section 4.1) on a 2-rank platform: for "
                    "each mechanism, message size and computation time, rank 0 sends to rank 1 while SIDE computes "
                    "(cut by --tests MPI_Test calls), then both wait. Three replays a cell (communication alone, "
                    "computation alone, both) give the overhead ratio r = (t - max(comp, comm)) / min(comp, comm): "
                    "0 is perfect overlap, 1 serialized, above 1 slower than serialized; the computation slowdown "
                    "t_comp / t_comp_ref and the communication ratio (t_call + t_wait) / t_comm_ref diagnose why. "
                    "Exit status 1 if a cell failed (the others still run).")
    ov.add_argument("--platform", required=True, help="platform YAML (two ranks: see --ranks-per-node)")
    ov.add_argument("--progress", nargs="+", default=["none"], choices=progress_mechanisms() or None, metavar="MECHANISM",
                    help="mechanisms to compare (default: none)")
    ov.add_argument("--side", default="receiver", choices=("sender", "receiver", "both"),
                    help="the rank that computes while the message is in flight (default: receiver)")
    ov.add_argument("--sizes", default="4KiB,64KiB,1MiB,16MiB", help="message sizes (default: 4KiB,64KiB,1MiB,16MiB)")
    ov.add_argument("--compute", default="10us,100us,1ms,10ms",
                    help="computation times, turned into flops at the platform's core speed (default: 10us,100us,1ms,10ms)")
    ov.add_argument("--tests", type=int, default=0, help="MPI_Test calls spread through the computation (default 0)")
    ov.add_argument("--ranks-per-node", type=int, metavar="N",
                    help="1: the two ranks on two nodes (through the NIC); 2: on one node (shared memory)")
    ov.add_argument("--set", action="append", default=[], metavar="NAME:VALUE", help="override a parameter")
    ov.add_argument("--csv", help="also write the table here (the columns of progsim/cells.py); an interrupted run "
                                  "leaves CSV.partial.csv, from which the same command resumes")
    ov.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="cells replayed at once, in worker processes (default: one per core)")
    ov.set_defaults(run=command_overlap)

    nb = commands.add_parser(
        "nbc-overlap", help="overhead ratio of non-blocking collectives where computation lasts as long as they do",
        description="The non-blocking collective overlap benchmark (Reynier 2022, chapter 4) on the diagonal: every "
                    "rank posts COLLECTIVE, computes for as long as the collective takes alone under that mechanism, "
                    "then waits. Per rank, r = (t - max(comp, comm)) / min(comp, comm): 0 is perfect overlap, 1 "
                    "serialized (nothing started the collective's rounds during the computation), above 1 slower "
                    "than serialized. Prints a table (median and, in brackets, the worst rank's r) per collective, "
                    "rank count and size, a column per mechanism. Round-by-round algorithms come from "
                    "--set nbc-algorithms:... (default: libnbc, Open MPI's; smpi: SMPI's own, one round).",
        epilog="example: progsim nbc-overlap --platform platforms/inti-sandy.yaml --ranks 16,64 "
               "--progress none thread dedicated-core offload ideal",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    nb.add_argument("--platform", required=True, help="platform YAML (one rank per node as its placement says)")
    nb.add_argument("--collectives", default="ibcast,iallreduce,ialltoall",
                    help="comma-separated, among ibarrier, ibcast, ireduce, iallreduce, ialltoall, igather, iscatter, "
                         "iallgather (default: ibcast,iallreduce,ialltoall)")
    nb.add_argument("--ranks", default="16,64", help="comma-separated rank counts (default: 16,64)")
    nb.add_argument("--sizes", default="1MiB",
                    help="vector (bcast, reduce, allreduce) or per-peer block (the others) sizes (default: 1MiB)")
    nb.add_argument("--progress", nargs="+", default=list(progress_mechanisms()),
                    choices=progress_mechanisms() or None, metavar="MECHANISM", help="mechanisms (default: all)")
    nb.add_argument("--tests", type=int, default=0, help="MPI_Test calls spread through the computation (default 0)")
    nb.add_argument("--ranks-per-node", type=int, metavar="N",
                    help="N ranks per node instead of the platform's placement (a full node: a progress thread "
                         "shares a rank's core, a reserved core leaves one fewer for the ranks)")
    nb.add_argument("--set", action="append", default=["nbc-algorithms:libnbc"], metavar="NAME:VALUE",
                    help="override a parameter (given after the default nbc-algorithms:libnbc, so it wins)")
    nb.add_argument("--csv", help="also write every row (collective and mechanism times, r's median, min and max)")
    nb.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="replays at once (default: one per core)")
    nb.set_defaults(run=command_nbc_overlap)

    pl = commands.add_parser(
        "plot", help="draw the overlap heatmaps of a 'progsim overlap --csv' table",
        description="Draws one heatmap per mechanism from the CSV of 'progsim overlap': message size against "
                    "computation time, coloured by overhead ratio (green 0: overlapped, yellow 1: serialized, red 2 "
                    "and above: slower than serialized), each cell labelled with its value.")
    pl.add_argument("cells", help="CSV written by 'progsim overlap --csv'")
    pl.add_argument("--out", nargs="+", required=True, help="image files to write (.png and/or .svg)")
    pl.add_argument("--title", help="figure title (default: the CSV's name); say the platform and the library")
    pl.set_defaults(run=command_plot)

    sc = commands.add_parser("scenario", help="replay a scenario's trace under each of its progress mechanisms",
                             description="Runs a scenario YAML (platform, trace, mechanisms) and prints a table "
                                         "comparing the mechanisms.")
    sc.add_argument("scenario", help="scenario YAML, e.g. scenarios/default.yaml")
    sc.set_defaults(run=command_scenario)

    pm = commands.add_parser("parameters", help="list every model parameter with its default and meaning",
                             description="Lists the engine's model parameters (set them in a platform YAML or with "
                                         "replay --set NAME:VALUE); docs/parameters.md gives each default's source.")
    pm.set_defaults(run=command_parameters)

    cache = commands.add_parser("cache", help="show or clear the folder where compiled platforms are kept",
                                description="Compiled platforms are kept under $PROGSIM_CACHE, else the user's "
                                            "cache folder ($XDG_CACHE_HOME or ~/.cache)/progsim.")
    cache.add_argument("cache_command", choices=("path", "clear"), help="print the folder, or remove it")
    cache.set_defaults(run=command_cache)

    platform = commands.add_parser("platform", help="check or compile platform descriptions")
    pc = platform.add_subparsers(dest="platform_command", required=True)
    compile_parser = pc.add_parser(
        "compile", help="write a SimGrid XML platform and a hostfile (stock smpirun accepts them too)")
    compile_parser.add_argument("platform", help="platform YAML")
    compile_parser.add_argument("-o", "--output", required=True, help="output folder")
    compile_parser.add_argument("--ranks", type=int, help="ranks to place (default: the platform's capacity)")
    compile_parser.set_defaults(run=command_compile)
    check = pc.add_parser("check", help="validate platform YAML files")
    check.add_argument("platforms", nargs="+")
    check.set_defaults(run=command_check)
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_command(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = get_parser().parse_args(argv)
    try:
        return args.run(args)
    except (InputError, FileNotFoundError) as error:
        print(f"progsim: error: {one_line(str(error))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # the reader went away (progsim parameters | head): stop quietly, as a filter does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing left to flush at exit either
        return 0


if __name__ == "__main__":
    sys.exit(main())
