"""Sweeps: a scenario YAML whose platform, workload, mechanisms and parameters vary, expanded into points.

    name: laptop-overlap
    description: ...
    platform: ../platforms/laptop-2core.yaml      # relative to this file
    placement: {ranks_per_node: 2}                # optional override of the platform's placement
    workload:                                     # one of:
      trace: ../validation/traces/ring/trace_list.txt
      overlap:                                    # the point-to-point overlap benchmark (progsim/workloads/overlap.py)
        side: receiver                            # sender, receiver or both
        sizes: {from: 1KiB, to: 16MiB, count: 20} # or a list: [4KiB, 1MiB]
        compute: [10us, 1ms]                      # computation times, at the platform's core speed
        tests: 0                                  # MPI_Test calls inside the computation
    progress: [none, thread]                      # mechanisms (an axis of the sweep)
    set: {eager-threshold: 4096}                  # engine parameters for every point
    sweep:                                        # every combination of these axes
      set.thread-poll-interval: [1e-6, 1e-5]      # an engine parameter
      platform.nics[0].bandwidth: [1e9, 1e10]     # a value of the platform YAML
      platform: [../platforms/bora.yaml]          # whole platforms
      placement.ranks_per_node: [1, 2]
      overlap.side: [sender, receiver]            # overlap.tests too
      trace: [a/trace_list.txt, b/trace_list.txt] # traces, with a trace workload
    output: results/laptop-overlap.parquet        # or .csv; `progsim sweep --out` overrides it

A plain scenario (`trace:` and `progress:` at the top, as `progsim scenario` reads it) is a sweep over its mechanisms.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import itertools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

import yaml

from progsim.case_yaml import YamlReader
from progsim.errors import InputError
from progsim.platform import load_platform
from progsim.platform.model import PLACEMENTS
from progsim.platform.quantity import parse_quantity
from progsim.platform.yamlsource import load_located, set_path
from progsim.workloads.overlap import SIDES

TOP_KEYS = {"name", "description", "platform", "placement", "workload", "trace", "progress", "set", "sweep", "output"}
OVERLAP_KEYS = {"side", "sizes", "compute", "tests"}


@dataclass(frozen=True)
class OverlapWorkload:
    side: str
    sizes: tuple[int, ...]
    compute: tuple[float, ...]  # seconds
    tests: int


@dataclass(frozen=True)
class TraceWorkload:
    trace: Path


Workload = Union[OverlapWorkload, TraceWorkload]


@dataclass(frozen=True)
class Axis:
    name: str  # progress, platform, platform.<yaml path>, placement.<key>, set.<parameter>, overlap.<key>
    values: tuple[Any, ...]


@dataclass(frozen=True)
class Point:
    """One combination of the axes: what to replay, and the columns that say which point a row is."""

    columns: tuple[tuple[str, str], ...]  # (axis, value as text), in the sweep's order
    platform: Path  # a YAML file: the scenario's, or a variant with swept values written in the cache
    ranks_per_node: Optional[int]
    placement_policy: Optional[str]
    mechanism: str
    settings: tuple[str, ...]  # NAME:VALUE
    workload: Workload


@dataclass(frozen=True)
class SweepSpec:
    path: Path
    name: str
    description: str
    platform: Path
    ranks_per_node: Optional[int]
    placement_policy: Optional[str]
    workload: Workload
    settings: tuple[str, ...]
    axes: tuple[Axis, ...]
    output: Optional[Path]

    def points(self) -> list[Point]:
        return [self._point(dict(zip([a.name for a in self.axes], combination)))
                for combination in itertools.product(*(a.values for a in self.axes))]

    def _point(self, chosen: dict[str, Any]) -> Point:
        platform = self.platform
        platform_values = {k[len("platform."):]: v for k, v in chosen.items() if k.startswith("platform.")}
        if "platform" in chosen:
            platform = self.path.parent / str(chosen["platform"])
        if platform_values:
            platform = platform_variant(platform, platform_values)
        workload = self.workload
        if "trace" in chosen:
            workload = TraceWorkload(self.path.parent / str(chosen["trace"]))
        if isinstance(workload, OverlapWorkload):
            workload = OverlapWorkload(str(chosen.get("overlap.side", workload.side)), workload.sizes,
                                       workload.compute, int(chosen.get("overlap.tests", workload.tests)))
        settings = dict(s.split(":", 1) for s in self.settings)
        settings.update({k[len("set."):]: setting_text(v) for k, v in chosen.items() if k.startswith("set.")})
        per_node = chosen.get("placement.ranks_per_node", self.ranks_per_node)
        policy = chosen.get("placement.policy", self.placement_policy)
        return Point(columns=tuple((axis_column(k), value_text(v)) for k, v in chosen.items()), platform=platform,
                     ranks_per_node=None if per_node is None else int(per_node),
                     placement_policy=None if policy is None else str(policy), mechanism=str(chosen["progress"]),
                     settings=tuple(f"{k}:{v}" for k, v in settings.items()), workload=workload)


def axis_column(axis: str) -> str:
    """The table column of an axis; the axis of whole platforms is platform_file (platform is the platform's name)."""
    return "platform_file" if axis == "platform" else axis


def value_text(value: Any) -> str:
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def setting_text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:.17g}" if isinstance(value, float) else str(value)


def variants_folder() -> Path:
    from progsim.platform_cache import cache_root

    return cache_root() / "sweep-platforms"


def platform_variant(platform: Path, values: dict[str, Any]) -> Path:
    """The platform YAML with `values` set at their paths, written in the cache under a name made of its content
    (the same sweep writes the same files); ValueError when a path does not exist in the platform."""
    data = copy.deepcopy(load_located(platform).data)
    for path, value in values.items():
        set_path(data, path, value)
    text = f"# {platform.name} with {', '.join(f'{k} = {v}' for k, v in values.items())} (progsim sweep)\n" \
           + yaml.safe_dump(data, sort_keys=False)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    folder = variants_folder()
    folder.mkdir(parents=True, exist_ok=True)
    variant = folder / f"{platform.stem}-{digest}.yaml"
    if not variant.is_file():
        partial = variant.with_suffix(".tmp")
        partial.write_text(text)
        partial.replace(variant)
    return variant


class _Reader(YamlReader):
    """Typed values out of the located scenario YAML, each error naming file:line and the YAML path."""

    def file(self, value: Any, path: str, what: str) -> Path:
        file = self.source.path.parent / self.text(value, path)
        if not file.is_file():
            raise self.error(path, f"no such {what}: {file}")
        return file

    def quantities(self, value: Any, path: str, unit: str) -> list[float]:
        """A list of quantities, or {from, to, count}: `count` values spaced evenly on a log scale."""
        if isinstance(value, dict):
            self.mapping(value, path, {"from", "to", "count"})
            for key in ("from", "to", "count"):
                if key not in value:
                    raise self.error(path, f"missing '{key}' (a range is {{from, to, count}})")
            low, high = (self.quantity(value[k], f"{path}.{k}", unit) for k in ("from", "to"))
            count = value["count"]
            if not isinstance(count, int) or isinstance(count, bool) or count < 1 or count > 10_000:
                raise self.error(f"{path}.count", f"expected a whole number from 1 to 10000, got {count!r}")
            if high < low:
                raise self.error(path, f"'to' ({high:g}) is below 'from' ({low:g})")
            if count == 1:
                return [low]
            step = (math.log(high) - math.log(low)) / (count - 1)
            return [math.exp(math.log(low) + i * step) for i in range(count)]
        items = value if isinstance(value, list) else [value]
        if not items:
            raise self.error(path, "expected at least one value")
        return [self.quantity(v, f"{path}[{i}]" if isinstance(value, list) else path, unit)
                for i, v in enumerate(items)]

    def quantity(self, value: Any, path: str, unit: str) -> float:
        try:
            number = parse_quantity(value, unit)
        except ValueError as error:
            raise self.error(path, str(error)) from None
        if not number > 0 or math.isinf(number):
            raise self.error(path, f"expected a positive quantity, got {value!r}")
        return number

    def count(self, value: Any, path: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise self.error(path, f"expected a whole number >= 0, got {value!r}")
        return value


def _workload(r: _Reader, data: dict[str, Any]) -> Workload:
    if ("trace" in data) == ("workload" in data):
        raise r.error("(top)", "expected either 'workload' or 'trace' (a plain scenario's trace), not both or none")
    if "trace" in data:
        return TraceWorkload(r.file(data["trace"], "trace", "trace file"))
    spec = r.mapping(data["workload"], "workload", {"trace", "overlap"})
    if len(spec) != 1:
        raise r.error("workload", "expected one of 'trace' or 'overlap'")
    if "trace" in spec:
        return TraceWorkload(r.file(spec["trace"], "workload.trace", "trace file"))
    overlap = r.mapping(spec["overlap"], "workload.overlap", OVERLAP_KEYS)
    for key in ("sizes", "compute"):
        if key not in overlap:
            raise r.error("workload.overlap", f"missing key '{key}'")
    side = r.choice(overlap.get("side", "receiver"), "workload.overlap.side", SIDES)
    sizes = sorted({round(v) for v in r.quantities(overlap["sizes"], "workload.overlap.sizes", "B")})
    compute = sorted(set(r.quantities(overlap["compute"], "workload.overlap.compute", "s")))
    return OverlapWorkload(side, tuple(sizes), tuple(compute), r.count(overlap.get("tests", 0),
                                                                        "workload.overlap.tests"))


def _settings(r: _Reader, value: Any, known: set[str]) -> tuple[str, ...]:
    mapping = r.mapping(value, "set", set(value) if isinstance(value, dict) else set())
    for name, setting in mapping.items():
        _check_parameter(r, f"set.{name}", name, known)
        if isinstance(setting, (list, dict)) or setting is None:
            raise r.error(f"set.{name}", f"expected one value, got {setting!r} (sweep it under 'sweep:')")
    return tuple(f"{name}:{setting_text(v)}" for name, v in mapping.items())


def _check_parameter(r: _Reader, path: str, name: str, known: set[str]) -> None:
    # SimGrid's own settings (network/model, ...) pass through to the engine, which checks them.
    if "/" not in name and name not in known:
        raise r.error(path, f"unknown engine parameter '{name}' (`progsim parameters` lists them)")


def _axis(r: _Reader, spec: SweepSpec, name: str, values: Any, known: set[str], mechanisms: tuple[str, ...],
          path: str = "") -> Axis:
    path = path or f"sweep.{name}"
    if not isinstance(values, list) or not values:
        raise r.error(path, f"expected a non-empty list of values, got {values!r}")
    for i, value in enumerate(values):
        if isinstance(value, (list, dict)) or value is None:
            raise r.error(f"{path}[{i}]", f"expected a plain value, got {value!r}")
    if name == "progress":
        for i, value in enumerate(values):
            if value not in mechanisms:
                raise r.error(f"{path}[{i}]", f"unknown mechanism {value!r} (expected one of: "
                                              f"{', '.join(mechanisms)})")
    elif name == "platform":
        for i, value in enumerate(values):
            _load_platform(r, r.file(value, f"{path}[{i}]", "platform file"), f"{path}[{i}]")
    elif name.startswith("platform."):
        for i, value in enumerate(values):
            try:
                variant = platform_variant(spec.platform, {name[len("platform."):]: value})
            except ValueError as error:
                raise r.error(f"{path}[{i}]", str(error)) from None
            _load_platform(r, variant, f"{path}[{i}]")
    elif name == "trace":
        if not isinstance(spec.workload, TraceWorkload):
            raise r.error(path, "sweeps traces, but the workload is the overlap benchmark")
        for i, value in enumerate(values):
            r.file(value, f"{path}[{i}]", "trace file")
    elif name == "placement.ranks_per_node":
        for i, value in enumerate(values):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise r.error(f"{path}[{i}]", f"expected a positive whole number, got {value!r}")
    elif name == "placement.policy":
        for i, value in enumerate(values):
            r.choice(value, f"{path}[{i}]", PLACEMENTS)
    elif name.startswith("set."):
        _check_parameter(r, path, name[len("set."):], known)
    elif name in ("overlap.side", "overlap.tests"):
        if not isinstance(spec.workload, OverlapWorkload):
            raise r.error(path, "sweeps the overlap benchmark, but the workload is a trace")
        for i, value in enumerate(values):
            if name == "overlap.side":
                r.choice(value, f"{path}[{i}]", SIDES)
            if name == "overlap.tests":
                r.count(value, f"{path}[{i}]")
    else:
        raise r.error(path, "unknown axis (expected progress, platform, platform.<path in the platform YAML>, "
                            "placement.ranks_per_node, placement.policy, set.<engine parameter>, trace, "
                            "overlap.side or overlap.tests)")
    return Axis(name, tuple(values))


def _load_platform(r: _Reader, platform: Path, path: str) -> None:
    try:
        load_platform(platform)
    except InputError as error:
        raise r.error(path, f"this value makes a bad platform: {error}") from None


def load_sweep(path: Path) -> SweepSpec:
    from progsim.engine_info import engine_parameters, progress_mechanisms

    source = load_located(path)
    r = _Reader(source)
    data = r.mapping(source.data, "", TOP_KEYS) if source.data is not None else {}
    for key in ("name", "platform"):
        if key not in data:
            raise r.error("(top)", f"missing key '{key}'")
    name = r.text(data["name"], "name")
    platform = r.file(data["platform"], "platform", "platform file")
    _load_platform(r, platform, "platform")
    placement = r.mapping(data.get("placement", {}), "placement", {"policy", "ranks_per_node"})
    per_node = placement.get("ranks_per_node")
    if per_node is not None and (not isinstance(per_node, int) or isinstance(per_node, bool) or per_node < 1):
        raise r.error("placement.ranks_per_node", f"expected a positive whole number, got {per_node!r}")
    policy = placement.get("policy")
    if policy is not None:
        r.choice(policy, "placement.policy", PLACEMENTS)
    known = {p.name for p in engine_parameters()}
    mechanisms = progress_mechanisms()
    spec = SweepSpec(path=path, name=name, description=str(data.get("description", "")), platform=platform,
                     ranks_per_node=per_node, placement_policy=policy, workload=_workload(r, data),
                     settings=_settings(r, data.get("set", {}), known), axes=(),
                     output=path.parent / r.text(data["output"], "output") if "output" in data else None)
    sweep = r.mapping(data.get("sweep", {}), "sweep", set(data.get("sweep", {}) or {}))
    if "progress" in data and "progress" in sweep:
        raise r.error("sweep.progress", "the mechanisms are given twice: at the top and under 'sweep'")
    if "progress" not in data and "progress" not in sweep:
        raise r.error("(top)", "missing key 'progress' (the mechanisms to run, at the top or under 'sweep')")
    axes = []
    if "progress" in data:
        progress = data["progress"]
        axes.append(_axis(r, spec, "progress", progress if isinstance(progress, list) else [progress], known,
                          mechanisms, "progress"))
    axes += [_axis(r, spec, axis, values, known, mechanisms) for axis, values in sweep.items()]
    return dataclasses.replace(spec, axes=tuple(axes))


def overlap_sweep(origin: Path, platform: Path, mechanisms: list[str], sides: list[str], sizes: list[int],
                  times: list[float], tests: int, ranks_per_node: Optional[int], settings: list[str],
                  name: str) -> SweepSpec:
    """The sweep of an overlap grid given on a command line or in a validation case (`origin`: the file that asked
    for it, whose changes make an interrupted run start over)."""
    axes = [Axis("progress", tuple(mechanisms))]
    if len(sides) > 1:
        axes.append(Axis("overlap.side", tuple(sides)))
    return SweepSpec(path=origin, name=name, description="", platform=platform, ranks_per_node=ranks_per_node,
                     placement_policy=None, workload=OverlapWorkload(sides[0], tuple(sorted(set(sizes))),
                                                                     tuple(sorted(set(times))), tests),
                     settings=tuple(settings), axes=tuple(axes), output=None)
