"""Runs progsim-engine (and, for cross-checks, stock SMPI replay) on a compiled platform."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from progsim.engine_info import REPOSITORY, engine_binary
from progsim.errors import InputError
from progsim.platform import Compiled


def smpi_tool(name: str) -> str:
    """Stock SMPI's `name` (smpirun, smpicc) of the SimGrid the engine in this tree was built on: the one `make
    setup` built (scripts/build_simgrid.sh, named in build/simgrid-prefix.txt), else the one on the PATH."""
    prefix_file = REPOSITORY / "build" / "simgrid-prefix.txt"
    prefix = prefix_file.read_text().strip() if prefix_file.is_file() else ""
    tool = Path(prefix) / "bin" / name
    return str(tool) if prefix and tool.is_file() else name


@dataclass(frozen=True)
class TraceFiles:
    ranks: int
    files: tuple[Path, ...]  # one per rank (the same shared file for every rank of a shared trace)


def inspect_trace(trace: Path) -> TraceFiles:
    """The ranks and files of a trace, read by the engine itself (progsim-engine --inspect-trace), so that the
    command line and a run never disagree on how a list is resolved; InputError with the engine's message."""
    done = subprocess.run([str(engine_binary()), "--inspect-trace", str(trace)], capture_output=True)
    text = done.stdout.decode("utf-8", errors="replace")
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        raise InputError(message[-1].removeprefix("progsim: error: ") if message else f"{trace}: unreadable trace")
    ranks = int(text.split()[1])
    files = tuple(Path(line[5:]) for line in text.splitlines() if line.startswith("file "))
    return TraceFiles(ranks, files)


@dataclass
class EngineRun:
    returncode: int
    stdout: str
    stderr: str
    results: dict[str, Any] | None


def replay(trace: Path, compiled: Compiled, progress: str, out: Path | None = None, timeline: Path | None = None,
           settings: list[str] | None = None, log: str | None = None) -> EngineRun:
    """Runs the engine; `settings` are extra `name:value` overrides of progsim/ parameters or SimGrid options."""
    arguments = [str(engine_binary()), str(compiled.platform_xml), str(compiled.hostfile), str(trace),
                 *compiled.engine_config, f"--cfg=progsim/progress:{progress}"]
    if out is not None:
        arguments.append(f"--cfg=progsim/out:{out}")
    if timeline is not None:
        arguments.append(f"--cfg=progsim/timeline:{timeline}")
    for setting in settings or []:
        key = setting if "/" in setting.split(":", 1)[0] else f"progsim/{setting}"
        arguments.append(f"--cfg={key}")
    if log and ":" in log:  # a SimGrid log setting: open one category, e.g. progsim_protocol.thres:debug
        arguments += ["--log=root.thres:critical", f"--log={log}"]
    else:
        arguments.append(f"--log=root.thres:{log or 'critical'}")
    done = subprocess.run(arguments, capture_output=True, text=True, errors="replace")
    results = json.loads(out.read_text()) if out is not None and done.returncode == 0 and out.is_file() else None
    return EngineRun(done.returncode, done.stdout, done.stderr, results)


def smpi_replay_time(trace: Path, compiled: Compiled, extra: list[str] | None = None) -> float:
    """The simulated time that stock `smpirun -replay` (SimGrid 3.32, smpi_tool) prints for this trace and platform, with the
    platform's SimGrid settings (its network model), as progsim-engine gets them."""
    simgrid_settings = [arg for arg in compiled.engine_config if not arg.startswith("--cfg=progsim/")]
    arguments = [smpi_tool("smpirun"), "-np", str(compiled.ranks), "-platform", str(compiled.platform_xml),
                 "-hostfile", str(compiled.hostfile), "-replay", str(trace), "--cfg=smpi/display-timing:yes",
                 "--log=smpi_config.thres:warning", "--log=xbt_cfg.thres:warning", *simgrid_settings, *(extra or [])]
    done = subprocess.run(arguments, capture_output=True, text=True)
    # display-timing prints the clock at the end with 6 significant digits (the replay's own line has 6 decimals).
    match = re.search(r"Simulated time: ([0-9.eE+-]+) seconds", done.stderr + done.stdout)
    if done.returncode != 0 or not match:
        raise RuntimeError(f"smpirun failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return float(match.group(1))
