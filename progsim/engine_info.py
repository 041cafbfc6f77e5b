"""What the built engine declares of itself: where it is, its parameters with their defaults, its progress
mechanisms and its memory-bus contention policies (each asked of progsim-engine, which holds them once)."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

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


@dataclass(frozen=True)
class ProgressKind:
    """A progress mechanism as the built engine knows it (each registers itself from its file, models/progress/)."""
    name: str     # what --progress takes
    agent: str    # what its agents are called in timelines ("" when it has none)
    summary: str  # what it models, in a sentence


def progress_kinds() -> tuple[ProgressKind, ...]:
    """The mechanisms of the built engine, in its order; none before the engine is built (so that the command line's
    help still shows)."""
    try:
        lines = _listed(str(engine_binary()), "--list-progress")
    except (FileNotFoundError, subprocess.CalledProcessError):
        return ()
    return tuple(ProgressKind(*line.split("\t", 2)) for line in lines)


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
    return [EngineParameter(*line.split("\t", 3)) for line in _listed(str(engine_binary()), "--list-parameters")]


def engine_default(name: str) -> str:
    """One parameter's default, as the engine declares it (`thread-poll-interval`: "1e-06")."""
    for parameter in engine_parameters():
        if parameter.name == name:
            return parameter.default
    raise KeyError(f"progsim-engine has no parameter {name}")


def bus_policies() -> tuple[str, ...]:
    """The memory-bus contention policies of the built engine (each registers itself from models/contention/)."""
    return _listed(str(engine_binary()), "--list-contention")


@functools.lru_cache(maxsize=None)
def _listed(engine: str, option: str) -> tuple[str, ...]:
    """The lines `engine option` prints (--list-parameters, --list-progress, --list-contention), asked once."""
    done = subprocess.run([engine, option], capture_output=True, text=True, check=True)
    return tuple(line for line in done.stdout.splitlines() if line)
