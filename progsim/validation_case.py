"""Case files of `progsim validate --case`: reading and checking validation/overlap/NAME/case.yaml.

A case file says what to simulate and what the literature observed there, as a class of overhead ratio over a region
of the heatmap (progsim/heatmap_expectations.py), and may name a reference table to compare with as well.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Optional

from progsim import cells
from progsim.case_yaml import mapping, quantities
from progsim.errors import InputError
from progsim.heatmap_compare import Tolerance
from progsim.heatmap_expectations import Expectation, parse_where

@dataclass(frozen=True)
class Simulation:
    platform: Path
    progress: str
    sides: list[str]
    sizes: list[int]
    times: list[float]
    tests: int
    ranks_per_node: Optional[int]
    settings: list[str]

    @property
    def label(self) -> str:
        return f"{self.platform.stem}/{self.progress}"


@dataclass(frozen=True)
class Case:
    path: Path
    name: str
    source: str
    simulation: Simulation
    expectations: list[Expectation]
    references: list[Path]  # independent runs of the same measurement (none: compare with the literature only)
    reference_case: Optional[str]  # the reference table's case to compare with (needed when it holds several)
    tolerance: Tolerance  # the case file's, over the defaults


CASE_KEYS = {"name", "source", "simulate", "expect", "reference", "reference_case", "tolerance", "description"}
SIMULATE_KEYS = {"platform", "progress", "side", "sizes", "compute", "tests", "ranks_per_node", "set"}
TOLERANCE_KEYS = {"agreement", "median_dr", "balance"}


def _fraction(source: Any, data: dict[str, Any], key: str, path: str, low: float, high: float) -> float:
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise source.error(f"{path}.{key}", f"expected a number from {low:g} to {high:g}, got {value!r}")
    return float(value)


def _simulation(source: Any, data: Any, base: Path) -> Simulation:
    from progsim.engine_info import progress_mechanisms
    from progsim.workloads.overlap import SIDES

    section = mapping(source, data, "simulate", SIMULATE_KEYS, {"platform", "progress", "sizes", "compute"})
    platform = base / str(section["platform"])
    if not platform.is_file():
        raise source.error("simulate.platform", f"no such platform file: {platform}")
    if section["progress"] not in progress_mechanisms():
        raise source.error("simulate.progress", f"expected one of {', '.join(progress_mechanisms())}, got "
                                                f"{section['progress']!r}")
    side = section.get("side", "receiver")
    sides = side if isinstance(side, list) else [side]
    for i, one in enumerate(sides):
        if one not in SIDES:
            where = f"simulate.side[{i}]" if isinstance(side, list) else "simulate.side"
            raise source.error(where, f"expected one of {', '.join(SIDES)} (or a list of them), got {one!r}")
    if not sides:
        raise source.error("simulate.side", "expected a side or a non-empty list of them")
    sizes = quantities(source, section["sizes"], "simulate.sizes", "B")
    if any(size != int(size) for size in sizes):
        raise source.error("simulate.sizes", "expected whole numbers of bytes")
    for key, least in (("tests", 0), ("ranks_per_node", 1)):
        value = section.get(key, least)
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise source.error(f"simulate.{key}", f"expected an integer >= {least}, got {value!r}")
    settings = section.get("set", []) or []
    if not isinstance(settings, list) or any(not isinstance(s, str) or ":" not in s for s in settings):
        raise source.error("simulate.set", f"expected a list of NAME:VALUE, got {settings!r}")
    return Simulation(platform, str(section["progress"]), [str(one) for one in sides], [int(s) for s in sizes],
                      quantities(source, section["compute"], "simulate.compute", "s"), section.get("tests", 0),
                      section.get("ranks_per_node"), list(settings))


def _expectations(source: Any, data: Any) -> list[Expectation]:
    items = data if isinstance(data, list) else [data]
    expectations = []
    for i, item in enumerate(items):
        path = f"expect[{i}]" if isinstance(data, list) else "expect"
        section = mapping(source, item, path, {"class", "where", "share"}, {"class"})
        if section["class"] not in cells.CLASSES:
            raise source.error(f"{path}.class", f"expected one of {', '.join(cells.CLASSES)}, got "
                                                f"{section['class']!r}")
        where = str(section.get("where", "") or "")
        try:
            conditions = parse_where(where)
        except ValueError as error:
            raise source.error(f"{path}.where", str(error)) from None
        share = _fraction(source, section, "share", path, 0.0, 1.0) if "share" in section else Tolerance.agreement
        expectations.append(Expectation(section["class"], where, tuple(conditions), share))
    return expectations


def load_case(path: Path) -> Case:
    from progsim.platform.yamlsource import load_located

    source = load_located(path)
    data = mapping(source, source.data, "(top)", CASE_KEYS, {"name", "source", "simulate"})
    if "expect" not in data and "reference" not in data:
        raise source.error("(top)", "expected 'expect' (what the literature observed), 'reference' (a table to "
                                    "compare with), or both")
    references = []
    if "reference" in data:  # a table, or a list of independent runs of the same measurement
        given = data["reference"] if isinstance(data["reference"], list) else [data["reference"]]
        for k, name in enumerate(given):
            where = f"reference[{k}]" if isinstance(data["reference"], list) else "reference"
            if not isinstance(name, str) or not name:
                raise source.error(where, f"expected the path of a table, got {name!r}")
            if not (path.parent / name).is_file():
                raise source.error(where, f"no such table: {path.parent / name}")
            references.append(path.parent / name)
        if not references:
            raise source.error("reference", "expected a table, or a list of runs of the same measurement")
    tolerance_data = mapping(source, data.get("tolerance", {}) or {}, "tolerance", TOLERANCE_KEYS, set())
    limits = {"agreement": (0.0, 1.0), "median_dr": (0.0, math.inf), "balance": (1.0, math.inf)}
    tolerance = replace(Tolerance(), **{key: _fraction(source, tolerance_data, key, "tolerance", *limits[key])
                                        for key in tolerance_data})
    return Case(path, str(data["name"]), str(data["source"]), _simulation(source, data["simulate"], path.parent),
                _expectations(source, data["expect"]) if "expect" in data else [], references,
                str(data["reference_case"]) if "reference_case" in data else None, tolerance)


def case_files(argument: str) -> list[Path]:
    """A case file, or every case.yaml under a folder."""
    path = Path(argument)
    if path.is_dir():
        found = sorted(path.rglob("case.yaml"))
        if not found:
            raise InputError(f"{path}: no case.yaml in this folder or below")
        return found
    if not path.is_file():
        raise InputError(f"{path}: no such case file or folder")
    return [path]
