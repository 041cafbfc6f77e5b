"""The code's structure: the engine's layers (each source file includes only headers of its own layer or of the
layers below it), and the Python package's imports (no cycle).

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

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "simulator"
MODELS = ROOT / "models"
PACKAGE = ROOT / "progsim"

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


# ---- the Python package: modules import one another without a cycle ----

def module_names(package: Path) -> dict[str, Path]:
    """Every module of the package by dotted name (a subpackage by its own name, for its __init__.py)."""
    modules = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that `name` imports, wherever the import stands (in a function, under TYPE_CHECKING):
    `from package import module` names the module, `from module import thing` the module."""
    found = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in modules}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                if submodule in modules:
                    found.add(submodule)
                elif base in modules:
                    found.add(base)
    found.discard(name)
    return found


def import_cycles(package: Path) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm), each sorted."""
    modules = module_names(package)
    graph = {name: sorted(imports_of(name, path, modules)) for name, path in modules.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return sorted(groups)


def test_python_imports_have_no_cycle() -> None:
    assert import_cycles(PACKAGE) == []


def test_only_the_entry_point_imports_the_command_line() -> None:
    """Library modules never import the CLI: what both need (checking options) lives below it, progsim/options.py."""
    modules = module_names(PACKAGE)
    importers = sorted(name for name, path in modules.items() if "progsim.cli" in imports_of(name, path, modules))
    assert importers == ["progsim.__main__"]


def test_the_check_sees_an_import_cycle(tmp_path: Path) -> None:
    """The check itself: a cycle through an import inside a function, and a package whose module imports a sibling
    through it (`from pkg import b`: b, not the package) is none."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from pkg.a import thing\n")
    (package / "a.py").write_text("from pkg import b\nthing = 1\n")
    (package / "b.py").write_text("def later():\n    from pkg.c import other\n")
    (package / "c.py").write_text("from pkg.b import later as other\n")
    assert import_cycles(package) == [["pkg.b", "pkg.c"]]
