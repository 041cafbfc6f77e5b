#!/usr/bin/env python3
"""Benchmarks progsim-engine against stock SMPI replay on captured application traces (validation/real/).

Run from anywhere: `python3 scripts/benchmark_apps.py --help`.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional, Sequence

SCRIPTS = Path(__file__).resolve().parent
REPOSITORY = SCRIPTS.parent
for folder in (REPOSITORY, SCRIPTS):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from benchmark import (SMPI, Measure, Progress, best_of, check_ideal, engine_command, fmt,  # noqa: E402
                       parse_engine, parse_smpi, platform_yaml, print_table, run_timed, smpi_command)
from progsim.captures import REAL_TRACES, captures, listed_files, plain_copy  # noqa: E402
from progsim.engine import engine_binary, progress_mechanisms  # noqa: E402
from progsim.platform import compile_platform, load_platform  # noqa: E402

DEFAULT_MECHANISMS = ("ideal", "none", "thread", "dedicated-core", "offload")

DESCRIPTION = """\
Measures wall time and peak memory of progsim-engine under each progress mechanism and of stock SMPI replay
(smpirun -replay), side by side, on real application traces.

Each TRACE is a folder holding trace_list.txt and its per-rank files, plain or gzip-compressed, as shipped under
validation/real/ (default: every capture there). The per-rank files are first decompressed into a scratch folder
and both tools replay the same plain files, so that neither pays for decompression. The platform is a flat cluster
of ceil(N/16) nodes of 16 cores at 1 Gflop/s (the one scripts/benchmark.py uses), or --platform.

Printed per trace and tool: wall s (elapsed, trace parsing and platform loading included), actions/s, vs SMPI
(actions/s over smpirun's), peak RSS MiB (/usr/bin/time %M), sim time s. The script then checks that `ideal`
predicts SMPI's simulated time within 1 %; the exit status is 1 if a check or a run fails.
"""


def capture_folders(arguments: Sequence[Path]) -> list[Path]:
    return [Path(a) for a in arguments] if arguments else captures()


def action_count(listing: Path) -> int:
    output = subprocess.run([str(engine_binary()), "--inspect-trace", str(listing)], capture_output=True, text=True,
                            check=True).stdout
    for line in output.splitlines():
        if line.startswith("actions "):
            return int(line.split()[1])
    raise RuntimeError(f"progsim-engine --inspect-trace {listing} printed no action count")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmark_apps.py", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("traces", nargs="*", type=Path, metavar="TRACE",
                        help="capture folders (default: every folder of validation/real with a trace_list.txt)")
    parser.add_argument("--platform", type=Path, default=None,
                        help="platform YAML to replay on (default: a flat cluster of 16-core nodes sized per trace)")
    parser.add_argument("--progress", nargs="+", default=list(DEFAULT_MECHANISMS), choices=progress_mechanisms(),
                        metavar="MECHANISM", help=f"mechanisms (default: {' '.join(DEFAULT_MECHANISMS)})")
    parser.add_argument("--set", action="append", default=[], metavar="NAME:VALUE",
                        help="set an engine parameter for every engine run, e.g. --set eager-threshold:8192")
    parser.add_argument("--skip-smpi", action="store_true", help="do not run stock smpirun")
    parser.add_argument("--repeat", type=int, default=1, metavar="K", help="keep the fastest of K runs (default 1)")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS", help="kill a run after this long")
    args = parser.parse_args(argv)
    if not Path("/usr/bin/time").is_file():
        print("benchmark_apps.py: /usr/bin/time is needed (apt-get install time)", file=sys.stderr)
        return 2
    folders = capture_folders(args.traces)
    if not folders:
        print(f"benchmark_apps.py: no capture found under {REAL_TRACES}", file=sys.stderr)
        return 2
    tools = [*args.progress, *([] if args.skip_smpi else [SMPI])]
    progress = Progress(len(folders) * len(tools))
    header = ["trace", "ranks", "actions", "tool", "wall s", "actions/s", "vs SMPI", "peak RSS MiB", "sim time s"]
    body: list[list[str]] = []
    results: dict[tuple[str, str], Measure] = {}
    with tempfile.TemporaryDirectory(prefix="progsim-bench-apps-") as temporary:
        for capture in folders:
            name = capture.name
            workdir = Path(temporary) / name
            start = time.perf_counter()
            listing = plain_copy(capture, workdir / "trace")
            ranks = len(listed_files(capture))
            actions = action_count(listing)
            source = args.platform
            if source is None:
                source = workdir / "platform.yaml"
                source.write_text(platform_yaml(ranks))
            compiled = compile_platform(load_platform(source), workdir / "compiled", ranks)
            print(f"{name}: {ranks} ranks, {actions} actions, prepared in {time.perf_counter() - start:.1f} s",
                  file=sys.stderr, flush=True)
            rates: dict[str, float] = {}
            for tool in tools:
                command = (smpi_command(listing, compiled) if tool == SMPI
                           else engine_command(listing, compiled, tool, args.set))
                parse = parse_smpi if tool == SMPI else parse_engine
                progress.start(f"{name} {tool}")
                measure = best_of(args.repeat, lambda: run_timed(command, workdir, args.timeout, parse))
                progress.finish(f"{name} {tool}", measure)
                results[(name, tool)] = measure
                if measure.error is None:
                    rates[tool] = actions / measure.wall
            for tool in tools:
                m = results[(name, tool)]
                ok = m.error is None
                ratio = rates[tool] / rates[SMPI] if ok and SMPI in rates else None
                body.append([name, str(ranks), str(actions), tool, fmt(m.wall, ".3g") if ok else "FAILED",
                             fmt(rates.get(tool), ".3g"), fmt(ratio, ".2f"),
                             fmt(None if m.rss_kib is None else m.rss_kib / 1024, ".1f"), fmt(m.simulated, ".6g")])
    progress.close()
    print()
    print_table(header, body)
    good = True
    for capture in folders:
        good = check_ideal(capture.name, results.get((capture.name, "ideal")), results.get((capture.name, SMPI))) \
            and good
    for (name, tool), m in results.items():
        if m.error:
            print(f"{name} {tool} failed: {m.error}")
            good = False
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
