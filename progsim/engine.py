"""Runs progsim-engine (and, for cross-checks, stock SMPI replay) on a compiled platform."""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from progsim.errors import InputError
from progsim.platform import Compiled

REPOSITORY = Path(__file__).resolve().parent.parent


def engine_binary() -> Path:
    """$PROGSIM_ENGINE, else the engine built in this source tree (build/progsim-engine), else the one `make setup`
    installed on the PATH (what a `pip install .` of the package finds)."""
    candidates = [os.environ.get("PROGSIM_ENGINE", ""), str(REPOSITORY / "build" / "progsim-engine"),
                  shutil.which("progsim-engine") or ""]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    raise FileNotFoundError("progsim-engine is not found: run 'make setup' in the progsim source tree (it builds "
                            "the engine and installs it on the PATH), or set PROGSIM_ENGINE")


def smpi_tool(name: str) -> str:
    """Stock SMPI's `name` (smpirun, smpicc) of the SimGrid the engine in this tree was built on: the one `make
    setup` built (scripts/build_simgrid.sh, named in build/simgrid-prefix.txt), else the one on the PATH."""
    prefix_file = REPOSITORY / "build" / "simgrid-prefix.txt"
    prefix = prefix_file.read_text().strip() if prefix_file.is_file() else ""
    tool = Path(prefix) / "bin" / name
    return str(tool) if prefix and tool.is_file() else name


@dataclass(frozen=True)
class ProgressKind:
    """A progress mechanism as the built engine knows it (each registers itself from its file, models/progress/)."""
    name: str     # what --progress takes
    agent: str    # what its agents are called in timelines ("" when it has none)
    summary: str  # what it models, in a sentence


def progress_kinds() -> tuple[ProgressKind, ...]:
    """The mechanisms of the built engine, in its order; none before the engine is built."""
    try:
        return _progress_kinds(str(engine_binary()))
    except FileNotFoundError:
        return ()


@functools.lru_cache(maxsize=None)
def _progress_kinds(engine: str) -> tuple[ProgressKind, ...]:
    done = subprocess.run([engine, "--list-progress"], capture_output=True, text=True)
    if done.returncode != 0:
        return ()
    return tuple(ProgressKind(*line.split("\t", 2)) for line in done.stdout.splitlines() if line)


def progress_mechanisms() -> tuple[str, ...]:
    """The names of the built engine's mechanisms, in its order."""
    return tuple(kind.name for kind in progress_kinds())


@dataclass(frozen=True)
class EngineParameter:
    name: str  # progsim-engine flag, without its progsim/ prefix
    default: str
    unit: str
    description: str


def engine_parameters() -> list[EngineParameter]:
    """Every model parameter with its default, as the engine declares it: the one place defaults live."""
    done = subprocess.run([str(engine_binary()), "--list-parameters"], capture_output=True, text=True, check=True)
    return [EngineParameter(*line.split("\t", 3)) for line in done.stdout.splitlines() if line]


def engine_default(name: str) -> str:
    """One parameter's default, as the engine declares it (`thread-poll-interval`: "1e-06")."""
    for parameter in engine_parameters():
        if parameter.name == name:
            return parameter.default
    raise KeyError(f"progsim-engine has no parameter {name}")


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
