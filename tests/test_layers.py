"""The engine's layers: each source file includes only headers of its own layer or of the layers below it.

docs/engine.md ("Layers") draws them; this test is where their order is written down. Each layer is a folder:
    trace/      parsing the traces (a library of its own: no simulation)
    config/     the run's parameters and the transports' protocol settings
    sched/      kernel-time machinery: timers, pauses, wake-ups, deferred transfer starts, transfer ends
    resources/  the machine in closed form: cores, memory buses, routes' delays
    mpi/        ranks, endpoints, matching, requests, collectives, and the interfaces models implement
    models/     the models (the top-level models/ folder, a library built on the engine's)
    output/     the writers of results and timelines
    the engine's composition root (simulator/*.cpp: main.cpp and what only it uses)
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "simulator"
MODELS = ROOT / "models"

# Bottom to top; the composition root (files directly in simulator/) comes last.
LAYERS = ["trace", "config", "sched", "resources", "mpi", "models", "output", "root"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def layer_of(path: Path) -> str:
    """The layer of a source file of simulator/ or models/."""
    if path.is_relative_to(MODELS):
        return "models"
    relative = path.relative_to(ENGINE)
    return relative.parts[0] if len(relative.parts) > 1 else "root"


def resolve(include: str, source: Path) -> Path | None:
    """The file an include names, looked up as the build does (simulator/, models/, the source's folder)."""
    for folder in (ENGINE, MODELS, source.parent):
        candidate = folder / include
        if candidate.is_file():
            return candidate
    return None  # a generated header (progsim_commit.hpp) or a system one in quotes


def sources() -> list[Path]:
    return sorted(p for folder in (ENGINE, MODELS) for p in folder.rglob("*") if p.suffix in (".hpp", ".cpp"))


def upward_includes() -> list[str]:
    found = []
    for source in sources():
        here = LAYERS.index(layer_of(source))
        for include in INCLUDE.findall(source.read_text()):
            target = resolve(include, source)
            if target is None:
                continue
            there = LAYERS.index(layer_of(target))
            if there > here:
                found.append(f"{source.relative_to(ROOT)} ({LAYERS[here]}) includes {include} ({LAYERS[there]})")
    return found


def test_every_engine_folder_is_a_layer() -> None:
    folders = {p.name for p in ENGINE.iterdir() if p.is_dir()}
    assert folders <= set(LAYERS), f"folders of simulator/ in no layer: {sorted(folders - set(LAYERS))}"


def test_no_include_runs_up_a_layer() -> None:
    assert upward_includes() == []


def test_the_check_sees_an_upward_include(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check itself: a scheduling header that includes an MPI one is reported."""
    engine = tmp_path / "simulator"
    (engine / "sched").mkdir(parents=True)
    (engine / "mpi").mkdir()
    (engine / "mpi" / "Endpoint.hpp").write_text("#pragma once\n")
    (engine / "sched" / "Timers.hpp").write_text('#pragma once\n#include "mpi/Endpoint.hpp"\n')
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    monkeypatch.setitem(globals(), "ENGINE", engine)
    monkeypatch.setitem(globals(), "MODELS", tmp_path / "models")
    assert upward_includes() == ["simulator/sched/Timers.hpp (sched) includes mpi/Endpoint.hpp (mpi)"]
