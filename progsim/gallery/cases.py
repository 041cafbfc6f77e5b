"""The teaching gallery's cases (`progsim gallery`): one YAML file per case, read and checked before anything runs.

    name: eager-vs-rendezvous            # a word of a-z, 0-9 and '-': names the pictures, --cases picks it
    title: Eager messages overlap, rendezvous ones wait
    explanation: |                       # plain words; a blank line starts a new paragraph
      What to look at, and why each mechanism does or does not overlap.
    platform: ../../platforms/henri.yaml  # relative to this file
    placement: {ranks_per_node: 1}       # optional: overrides the platform's placement (and policy)
    cell:                                # the point-to-point overlap benchmark (progsim/workloads/overlap.py), or:
      size: 16KiB                        #   the message, rank 0 to rank 1
      compute: 10us                      #   the computation, a time at the platform's core speed (or flops: 2Gf)
      side: receiver                     #   who computes: sender, receiver or both (default receiver)
      tests: 0                           #   MPI_Test calls cutting the computation (default 0)
    collective: {name: iallreduce, ranks: 4, size: 1MiB, tests: 0}   # instead of cell (workloads/nbc_overlap.py)
    set: {nbc-algorithms: libnbc}        # optional engine parameters (`progsim parameters`)
    mechanisms: [none, thread, dedicated-core, offload, ideal]       # optional: the default is all five
    variants:                            # optional: rows of pictures, each changing some of the values above
      - label: 16 KiB, below the eager threshold
      - label: 4 MiB, a rendezvous
        cell: {size: 4MiB, compute: 1ms}

Every error names the file, its line and the YAML path (`variants[1].cell.size`), as the other scenario files do.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

from progsim.case_yaml import YamlReader
from progsim.errors import InputError
from progsim.platform.model import PLACEMENTS
from progsim.platform.quantity import parse_quantity
from progsim.platform.yamlsource import Located, load_located
from progsim.workloads.nbc_overlap import COLLECTIVES, CollectivePoint
from progsim.workloads.overlap import SIDES, Cell

CASE_KEYS = {"name", "title", "explanation", "platform", "placement", "cell", "collective", "set", "mechanisms",
             "variants"}
VARIANT_KEYS = {"label", "platform", "placement", "cell", "collective", "set", "mechanisms"}
CELL_KEYS = {"size", "compute", "flops", "side", "tests"}
COLLECTIVE_KEYS = {"name", "ranks", "size", "tests"}
NAME = re.compile(r"[a-z0-9][a-z0-9-]*")


@dataclass(frozen=True)
class PointToPoint:
    """The overlap benchmark's cell, its computation as a time (at the core speed) or as flops."""
    size: int
    side: str
    tests: int
    compute_s: Optional[float] = None
    flops: Optional[float] = None

    def cell(self, core_speed: float) -> Cell:
        flops = self.flops if self.flops is not None else (self.compute_s or 0.0) * core_speed
        return Cell(self.size, flops, self.side, self.tests)


@dataclass(frozen=True)
class Collective:
    name: str
    ranks: int
    size: int
    tests: int

    def point(self) -> CollectivePoint:
        return CollectivePoint(self.name, self.ranks, self.size, self.tests)


Workload = Union[PointToPoint, Collective]


@dataclass(frozen=True)
class Row:
    """One row of pictures: a workload on a platform, under each of its mechanisms."""
    label: str
    platform: Path
    ranks_per_node: Optional[int]
    policy: Optional[str]
    workload: Workload
    settings: tuple[str, ...]
    mechanisms: tuple[str, ...]

    @property
    def ranks(self) -> int:
        return self.workload.ranks if isinstance(self.workload, Collective) else 2


@dataclass(frozen=True)
class Case:
    path: Path
    name: str
    title: str
    explanation: str
    rows: tuple[Row, ...]

    @property
    def paragraphs(self) -> list[str]:
        """The explanation's paragraphs, each on one line."""
        return [" ".join(p.split()) for p in re.split(r"\n\s*\n", self.explanation) if p.strip()]


class _Reader(YamlReader):
    """Typed values out of one case file; every error names file:line and the YAML path."""

    def __init__(self, source: Located, mechanisms: tuple[str, ...], parameters: set[str]):
        super().__init__(source)
        self.mechanisms, self.parameters = mechanisms, parameters

    def whole(self, value: Any, path: str, least: int) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise self.error(path, f"expected a whole number >= {least}, got {value!r}")
        return value

    def quantity(self, value: Any, path: str, unit: str, zero: bool = False) -> float:
        try:
            number = parse_quantity(value, unit)
        except ValueError as error:
            raise self.error(path, str(error)) from None
        if not math.isfinite(number) or number < 0 or (number == 0 and not zero):
            raise self.error(path, f"expected a {'non-negative' if zero else 'positive'} quantity, got {value!r}")
        return number

    def platform(self, value: Any, path: str) -> Path:
        from progsim.platform import load_platform

        file = self.source.path.parent / self.text(value, path)
        if not file.is_file():
            raise self.error(path, f"no such platform file: {file}")
        try:
            load_platform(file)
        except InputError as error:
            raise self.error(path, f"a bad platform: {error}") from None
        return file

    def placement(self, value: Any, path: str) -> dict[str, Any]:
        data = self.mapping(value, path, {"ranks_per_node", "policy"})
        if "ranks_per_node" in data:
            self.whole(data["ranks_per_node"], f"{path}.ranks_per_node", 1)
        if "policy" in data:
            self.choice(data["policy"], f"{path}.policy", PLACEMENTS)
        return dict(data)

    def cell(self, value: Any, path: str) -> dict[str, Any]:
        data = self.mapping(value, path, CELL_KEYS)
        if "compute" in data and "flops" in data:
            raise self.error(path, "give the computation as a time ('compute') or as 'flops', not both")
        found: dict[str, Any] = {}
        if "size" in data:
            found["size"] = round(self.quantity(data["size"], f"{path}.size", "B", zero=True))
        if "compute" in data:
            found["compute"] = self.quantity(data["compute"], f"{path}.compute", "s")
        if "flops" in data:
            found["flops"] = self.quantity(data["flops"], f"{path}.flops", "f")
        if "side" in data:
            found["side"] = self.choice(data["side"], f"{path}.side", SIDES)
        if "tests" in data:
            found["tests"] = self.whole(data["tests"], f"{path}.tests", 0)
        return found

    def collective(self, value: Any, path: str) -> dict[str, Any]:
        data = self.mapping(value, path, COLLECTIVE_KEYS)
        found: dict[str, Any] = {}
        if "name" in data:
            found["name"] = self.choice(data["name"], f"{path}.name", COLLECTIVES)
        if "ranks" in data:
            found["ranks"] = self.whole(data["ranks"], f"{path}.ranks", 2)
        if "size" in data:
            found["size"] = round(self.quantity(data["size"], f"{path}.size", "B", zero=True))
        if "tests" in data:
            found["tests"] = self.whole(data["tests"], f"{path}.tests", 0)
        return found

    def settings(self, value: Any, path: str) -> dict[str, str]:
        from progsim.sweep.spec import setting_text

        data = self.mapping(value, path, set(value) if isinstance(value, dict) else set())
        found = {}
        for name, setting in data.items():
            # SimGrid's own settings (network/model, ...) pass through to the engine, which checks them.
            if "/" not in name and name not in self.parameters:
                raise self.error(f"{path}.{name}", f"unknown engine parameter '{name}' (`progsim parameters` lists "
                                                   f"them)")
            if isinstance(setting, (list, dict)) or setting is None:
                raise self.error(f"{path}.{name}", f"expected one value, got {setting!r}")
            found[name] = setting_text(setting)
        return found

    def mechanism_list(self, value: Any, path: str) -> tuple[str, ...]:
        if not isinstance(value, list) or not value:
            raise self.error(path, f"expected a non-empty list of mechanisms, got {value!r}")
        for i, item in enumerate(value):
            if item not in self.mechanisms:
                raise self.error(f"{path}[{i}]", f"unknown mechanism {item!r} (expected one of: "
                                                 f"{', '.join(self.mechanisms)})")
            if item in value[:i]:
                raise self.error(f"{path}[{i}]", f"{item!r} is listed twice")
        return tuple(value)


def _overrides(r: _Reader, data: dict[str, Any], prefix: str) -> dict[str, Any]:
    """The values a case (prefix "") or a variant (prefix "variants[i].") sets, each checked at its own path."""
    found: dict[str, Any] = {}
    if "platform" in data:
        found["platform"] = r.platform(data["platform"], f"{prefix}platform")
    if "placement" in data:
        found["placement"] = r.placement(data["placement"], f"{prefix}placement")
    if "cell" in data:
        found["cell"] = r.cell(data["cell"], f"{prefix}cell")
    if "collective" in data:
        found["collective"] = r.collective(data["collective"], f"{prefix}collective")
    if "set" in data:
        found["set"] = r.settings(data["set"], f"{prefix}set")
    if "mechanisms" in data:
        found["mechanisms"] = r.mechanism_list(data["mechanisms"], f"{prefix}mechanisms")
    return found


def _workload(r: _Reader, base: dict[str, Any]) -> None:
    """The case's own workload must be whole: a variant only changes some of its values."""
    if ("cell" in base) == ("collective" in base):
        raise r.error("(top)", "expected one workload: 'cell' (point to point) or 'collective', not both or none")
    if "cell" in base:
        cell = base["cell"]
        if "size" not in cell:
            raise r.error("cell", "missing key 'size' (the message's bytes)")
        if "compute" not in cell and "flops" not in cell:
            raise r.error("cell", "missing the computation: 'compute' (a time) or 'flops'")
    else:
        for key in ("name", "ranks", "size"):
            if key not in base["collective"]:
                raise r.error("collective", f"missing key '{key}'")


def _row(base: dict[str, Any], variant: dict[str, Any], label: str, default: tuple[str, ...]) -> Row:
    placement = {**base.get("placement", {}), **variant.get("placement", {})}
    settings = {**base.get("set", {}), **variant.get("set", {})}
    workload: Workload
    if "cell" in base:
        cell = dict(base["cell"])
        if {"compute", "flops"} & set(variant.get("cell", {})):  # a variant's computation replaces the case's
            cell.pop("compute", None)
            cell.pop("flops", None)
        cell.update(variant.get("cell", {}))
        workload = PointToPoint(cell["size"], cell.get("side", "receiver"), cell.get("tests", 0),
                                cell.get("compute"), cell.get("flops"))
    else:
        c = {**base["collective"], **variant.get("collective", {})}
        workload = Collective(c["name"], c["ranks"], c["size"], c.get("tests", 0))
    return Row(label, variant.get("platform", base["platform"]), placement.get("ranks_per_node"),
               placement.get("policy"), workload, tuple(f"{k}:{v}" for k, v in settings.items()),
               variant.get("mechanisms", base.get("mechanisms", default)))


def load_case(path: Path, mechanisms: tuple[str, ...], parameters: set[str]) -> Case:
    """One case file, checked whole against the engine's `mechanisms` and `parameters`: InputError naming file:line
    and the YAML path of the first problem."""
    source = load_located(path)
    r = _Reader(source, mechanisms, parameters)
    default = mechanisms
    data = r.mapping(source.data, "", CASE_KEYS) if source.data is not None else {}
    for key in ("name", "title", "explanation", "platform"):
        if key not in data:
            raise r.error("(top)", f"missing key '{key}'")
    name = r.text(data["name"], "name")
    if not NAME.fullmatch(name):
        raise r.error("name", f"expected lower-case letters, digits and '-' (it names files), got {name!r}")
    base = _overrides(r, data, "")
    _workload(r, base)
    variants = data.get("variants", [{}])
    if not isinstance(variants, list) or not variants:
        raise r.error("variants", f"expected a non-empty list of rows, got {variants!r}")
    rows = []
    for i, variant in enumerate(variants):
        prefix = f"variants[{i}]"
        if "variants" in data:
            r.mapping(variant, prefix, VARIANT_KEYS)
            if "label" not in variant:
                raise r.error(prefix, "missing key 'label' (what this row shows)")
            label = r.text(variant["label"], f"{prefix}.label")
        else:
            label = ""
        for kind, other in (("cell", "collective"), ("collective", "cell")):
            if kind in variant and other in base:
                raise r.error(f"{prefix}.{kind}", f"the case's workload is a '{other}': a row changes its values")
        rows.append(_row(base, _overrides(r, variant, f"{prefix}."), label, default))
    return Case(path, name, r.text(data["title"], "title"), r.text(data["explanation"], "explanation"), tuple(rows))


def load_cases(folder: Path, names: Optional[list[str]] = None) -> list[Case]:
    """Every case file of `folder` (*.yaml, in file-name order), or those named; InputError for a bad file, a name
    given twice, or an unknown name asked for."""
    from progsim.engine_info import engine_parameters, progress_mechanisms

    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder of gallery cases")
    files = sorted(folder.glob("*.yaml"))
    if not files:
        raise InputError(f"{folder}: no case file (*.yaml) in this folder")
    mechanisms = progress_mechanisms()
    parameters = {p.name for p in engine_parameters()}
    cases: list[Case] = []
    for file in files:
        case = load_case(file, mechanisms, parameters)
        twin = next((c for c in cases if c.name == case.name), None)
        if twin is not None:
            raise InputError(f"{file}: name: '{case.name}' is also the name of {twin.path}")
        cases.append(case)
    if names is None:
        return cases
    by_name = {c.name: c for c in cases}
    for name in names:
        if name not in by_name:
            raise InputError(f"--cases: no case named '{name}' in {folder} (there are: {', '.join(by_name)})")
    return [c for c in cases if c.name in names]
