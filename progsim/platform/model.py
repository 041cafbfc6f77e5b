"""The platform description: nodes, NICs, interconnect, MPI protocol, progress and placement parameters.

Every number is in SI base units (bytes, seconds, flop/s, bytes/s). `load_platform` validates a YAML file
against this shape and reports the first problem with its file:line and YAML path.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import AbstractSet, Any, Callable

from progsim.errors import InputError
from progsim.platform.yamlsource import Located, load_located

TOPOLOGIES = ("flat", "fat-tree", "torus", "dragonfly")
MAX_NODES = 131072  # beyond, a compiled platform takes gigabytes; SMPI itself is not run past 65 536 ranks
RENDEZVOUS = ("get", "put", "pipelined")
OFFLOADS = ("matching", "rendezvous", "collectives")
PLACEMENTS = ("block", "round-robin", "numa")


@dataclass(frozen=True)
class LinkSpec:
    bandwidth: float  # bytes/s
    latency: float  # s


@dataclass(frozen=True)
class NodeSpec:
    sockets: int
    numa_per_socket: int
    cores_per_numa: int
    core_speed: float  # flop/s per core
    memory: LinkSpec  # per NUMA domain
    inter_socket: LinkSpec | None
    core_memory_bandwidth: float | None = None  # B/s one core streams at most (None: only the bus limits it)

    @property
    def numa_domains(self) -> int:
        return self.sockets * self.numa_per_socket

    @property
    def cores(self) -> int:
        return self.numa_domains * self.cores_per_numa


@dataclass(frozen=True)
class NicSpec:
    numa: int
    bandwidth: float
    latency: float
    offload: tuple[str, ...]


@dataclass(frozen=True)
class InterconnectSpec:
    topology: str
    link: LinkSpec
    fat_tree: dict[str, list[int]] | None = None
    torus: list[int] | None = None
    dragonfly: dict[str, Any] | None = None


@dataclass(frozen=True)
class PlacementSpec:
    policy: str
    ranks_per_node: int


@dataclass(frozen=True)
class Platform:
    name: str
    description: str
    source: Path
    nodes: int
    node: NodeSpec
    nics: tuple[NicSpec, ...]
    interconnect: InterconnectSpec
    engine_settings: tuple[tuple[str, str], ...]  # (progsim-engine flag, value): only what the YAML sets
    placement: PlacementSpec
    extra: dict[str, Any] = field(default_factory=dict)
    network_model: tuple[tuple[str, str], ...] = ()  # SimGrid settings of the `network` section: (name, value)

    @property
    def capacity(self) -> int:
        """How many ranks the placement can hold."""
        return self.nodes * self.placement.ranks_per_node


_UNITS = {"": 1.0, "k": 1e3, "m": 1e-3, "u": 1e-6, "µ": 1e-6, "n": 1e-9, "M": 1e6, "G": 1e9, "T": 1e12,
          "Ki": 1024.0, "Mi": 1024.0**2, "Gi": 1024.0**3, "Ti": 1024.0**4}
_QUANTITY = re.compile(r"^\s*([0-9.eE+-]+)\s*(Ki|Mi|Gi|Ti|k|M|G|T|m|u|µ|n|)\s*(B|Bps|B/s|s|f|flops|)\s*$")


# The unit words each kind of quantity accepts (a plain number is always accepted, in SI base units).
UNITS_OF = {"B": ("B",), "Bps": ("Bps", "B/s"), "s": ("s",), "f": ("f", "flops")}
_EXAMPLES = {"B": "64KiB", "Bps": "12.5GBps", "s": "1us", "f": "2.3Gf"}


def parse_quantity(value: Any, unit: str | None = None) -> float:
    """A plain number, or a number with an SI or binary prefix and a unit: '12.5GBps', '1us', '64KiB'. With `unit`
    (B, Bps, s or f), a unit word of another kind is refused: a bandwidth of '10us' is a mistake, not 1e-5 B/s."""
    if isinstance(value, bool):
        raise ValueError("a boolean is not a number")
    if isinstance(value, (int, float)):
        try:
            return float(value)
        except OverflowError:
            raise ValueError(f"{str(value)[:20]}... is too large a number") from None
    if isinstance(value, str):
        match = _QUANTITY.match(value)
        if match:
            word = match.group(3)
            if unit is not None and word and word not in UNITS_OF[unit]:
                raise ValueError(f"'{value}' is not in {unit} (e.g. {_EXAMPLES[unit]}, or a plain number)")
            if unit is not None and not word and match.group(2) in ("m", "u", "µ", "n") and unit != "s":
                raise ValueError(f"'{value}' has a sub-unit prefix without a unit: write it in {unit}")
            return float(match.group(1)) * _UNITS[match.group(2)]
    raise ValueError(f"'{value}' is not a number (plain, or with a unit such as 12.5GBps, 1us, 64KiB, 2.3Gf)")


class _Reader:
    """Reads typed values out of the located YAML, raising errors that name file:line and path."""

    def __init__(self, source: Located):
        self.source = source

    def section(self, data: Any, path: str, required: AbstractSet[str],
                optional: AbstractSet[str] = frozenset()) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise self.source.error(path or "(top)", f"expected a mapping with keys {sorted(required | optional)}")
        unknown = sorted(set(data) - required - optional)
        if unknown:
            child = f"{path}.{unknown[0]}" if path else unknown[0]
            raise self.source.error(child, f"unknown key '{unknown[0]}' (expected one of: "
                                           f"{', '.join(sorted(required | optional))})")
        missing = sorted(required - set(data))
        if missing:
            raise self.source.error(path or "(top)", f"missing key '{missing[0]}'")
        return data

    def number(self, data: dict[str, Any], key: str, path: str, check: Callable[[float], bool] = lambda v: v >= 0,
               expected: str = "a non-negative number", unit: str | None = None) -> float:
        where = f"{path}.{key}" if path else key
        try:
            value = parse_quantity(data[key], unit)
        except ValueError as error:
            raise self.source.error(where, str(error)) from None
        if not math.isfinite(value) or not check(value):
            raise self.source.error(where, f"expected {expected}, got {data[key]!r}")
        return value

    def positive(self, data: dict[str, Any], key: str, path: str, unit: str | None = None) -> float:
        return self.number(data, key, path, lambda v: v > 0, "a positive number", unit)

    def integer(self, data: dict[str, Any], key: str, path: str, minimum: int = 1) -> int:
        where = f"{path}.{key}" if path else key
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.source.error(where, f"expected an integer >= {minimum}, got {value!r}")
        return value

    def choice(self, data: dict[str, Any], key: str, path: str, choices: tuple[str, ...]) -> str:
        value = data[key]
        if value not in choices:
            raise self.source.error(f"{path}.{key}" if path else key,
                                    f"expected one of {', '.join(choices)}, got {value!r}")
        return value

    def link(self, data: Any, path: str) -> LinkSpec:
        section = self.section(data, path, {"bandwidth", "latency"})
        return LinkSpec(self.positive(section, "bandwidth", path, "Bps"),
                        self.number(section, "latency", path, unit="s"))

    def int_list(self, data: Any, path: str, length: int | None = None) -> list[int]:
        if not isinstance(data, list) or not data or any(isinstance(v, bool) or not isinstance(v, int) or v < 1
                                                          for v in data):
            raise self.source.error(path, f"expected a list of positive integers, got {data!r}")
        if length is not None and len(data) != length:
            raise self.source.error(path, f"expected {length} entries, got {len(data)}")
        return list(data)


@dataclass(frozen=True)
class _Setting:
    """A YAML key that sets one engine parameter; the engine holds every default (progsim-engine --help)."""
    path: str  # dotted YAML path
    flag: str  # progsim-engine flag, without its progsim/ prefix
    kind: str  # number[:unit], positive[:unit], integer, rendezvous, choice:a|b, bool, curve (units: B, Bps, s, f)


_SETTINGS = (
    _Setting("node.copy_bandwidth", "copy-bandwidth", "positive:Bps"),
    _Setting("node.copy_loads_bus", "copy-loads-bus", "bool"),
    _Setting("node.cached_message_bytes", "cached-message-bytes", "number:B"),
    _Setting("node.memory_contention.policy", "contention", "choice:fair|weighted|calibrated"),
    _Setting("node.memory_contention.nic_weight", "nic-bus-weight", "positive"),
    _Setting("node.memory_contention.stream_curve", "bus-curve", "curve"),
    _Setting("mpi.eager_threshold", "eager-threshold", "number:B"),
    _Setting("mpi.rendezvous", "rendezvous", "rendezvous"),
    _Setting("mpi.fragment_size", "fragment-size", "positive:B"),
    _Setting("mpi.pipeline_depth", "pipeline-depth", "integer"),
    _Setting("mpi.buffered_send_threshold", "buffered-send-threshold", "number:B"),
    _Setting("mpi.rank_progress", "rank-progress", "choice:wait|every-call"),
    _Setting("mpi.poll_in_wait", "poll-in-wait", "bool"),
    _Setting("mpi.overheads.send", "overhead-send", "number:s"),
    _Setting("mpi.overheads.recv", "overhead-recv", "number:s"),
    _Setting("mpi.overheads.step", "overhead-step", "number:s"),
    _Setting("mpi.overheads.call", "overhead-call", "number:s"),
    _Setting("mpi.shared_memory.eager_threshold", "shm-eager-threshold", "number:B"),
    _Setting("mpi.shared_memory.rendezvous", "shm-rendezvous", "rendezvous"),
    _Setting("mpi.shared_memory.fragment_size", "shm-fragment-size", "positive:B"),
    _Setting("progress.thread.poll_interval", "thread-poll-interval", "number:s"),
    _Setting("progress.thread.poll_cost", "thread-poll-cost", "number:s"),
    _Setting("progress.thread.sched_quantum", "sched-quantum", "number:s"),
    _Setting("progress.thread.spare_core", "thread-spare-core", "bool"),
    _Setting("progress.thread.busy", "thread-busy", "bool"),
    _Setting("progress.dedicated_core.per", "dedicated-per", "choice:node|numa"),
    _Setting("progress.dedicated_core.cores", "dedicated-cores", "integer"),
    _Setting("progress.dedicated_core.step_cost", "dedicated-step-cost", "number:s"),
    _Setting("progress.offload.step_latency", "offload-step-latency", "number:s"),
    _Setting("progress.offload.intra_node", "offload-intra-node", "bool"),
    _Setting("progress.offload.collective_latency", "offload-collective-latency", "number:s"),
    _Setting("progress.offload.collective_bandwidth", "offload-collective-bandwidth", "positive:Bps"),
)
_REQUIRED_SETTINGS = {"mpi.eager_threshold", "mpi.rendezvous"}


def _section_keys(prefix: str) -> tuple[set[str], set[str]]:
    """The keys a YAML mapping at `prefix` may hold (settings and sub-sections), and those it must hold."""
    allowed, required = set(), set()
    for setting in _SETTINGS:
        if setting.path.startswith(prefix + "."):
            key = setting.path[len(prefix) + 1:].split(".")[0]
            allowed.add(key)
            if setting.path in _REQUIRED_SETTINGS:
                required.add(key)
    return allowed, required


def _engine_settings(r: _Reader, top: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """Reads every engine setting the YAML gives, checking each section's keys on the way."""
    def section(path: str) -> dict[str, Any] | None:
        data: Any = top
        for key in path.split("."):
            if not isinstance(data, dict) or key not in data or data[key] is None:
                return None
            data = data[key]
        return data

    prefixes = {".".join(s.path.split(".")[:n]) for s in _SETTINGS for n in range(1, s.path.count(".") + 1)}
    for prefix in sorted(prefixes - {"node"}):
        data = section(prefix)
        if data is not None:
            allowed, required = _section_keys(prefix)
            r.section(data, prefix, required, allowed)
    settings = []
    for setting in _SETTINGS:
        parent, key = setting.path.rsplit(".", 1)
        data = section(parent)
        if data is None or key not in data:
            continue
        kind, _, unit = setting.kind.partition(":")
        value: str
        if kind == "number":
            number = r.number(data, key, parent, unit=unit)
            if unit == "B" and (number > 1e18 or number != int(number)):
                raise r.source.error(setting.path, f"expected a whole number of bytes up to 1e18, got {data[key]!r}")
            value = repr(number)
        elif kind == "positive":
            number = r.positive(data, key, parent, unit)
            if unit == "B" and (number > 1e18 or number != int(number)):
                raise r.source.error(setting.path, f"expected a whole number of bytes up to 1e18, got {data[key]!r}")
            value = repr(number)
        elif kind == "integer":
            value = str(r.integer(data, key, parent))
        elif kind == "rendezvous":
            value = r.choice(data, key, parent, RENDEZVOUS)
        elif kind == "curve":
            value = _curve(r, data[key], setting.path)
        elif kind == "bool":
            if not isinstance(data[key], bool):
                raise r.source.error(setting.path, f"expected true or false, got {data[key]!r}")
            value = "yes" if data[key] else "no"
        else:
            value = r.choice(data, key, parent, tuple(unit.split("|")))
        settings.append((setting.flag, value))
    return tuple(settings)


def _curve(r: _Reader, data: Any, path: str) -> str:
    """A measured curve {flows: B/s, ...} (flows rising from 1, positive rates) as the engine's 'n:B/s;n:B/s'."""
    expected = "a mapping from a number of flows (1, 2, ...) to the bus's total bandwidth in B/s, e.g. {1: 1.2e10, 8: 6.0e10}"
    if not isinstance(data, dict) or not data:
        raise r.source.error(path, f"expected {expected}, got {data!r}")
    points = []
    for key, rate in data.items():
        flows = int(key) if isinstance(key, str) and key.isdigit() else key  # the YAML reader keeps keys as text
        if isinstance(flows, bool) or not isinstance(flows, int) or flows < 1:
            raise r.source.error(path, f"{flows!r}: expected a whole number of flows, 1 or more ({expected})")
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not math.isfinite(rate) or rate <= 0:
            raise r.source.error(f"{path}.{flows}", f"expected a positive bandwidth in B/s, got {rate!r}")
        points.append((flows, float(rate)))
    return ";".join(f"{flows}:{rate!r}" for flows, rate in sorted(points))


def _topology_nodes(inter: InterconnectSpec) -> int | None:
    if inter.fat_tree is not None:
        return math.prod(inter.fat_tree["down"])
    if inter.torus is not None:
        return math.prod(inter.torus)
    if inter.dragonfly is not None:
        d = inter.dragonfly
        return int(d["groups"][0] * d["chassis"][0] * d["routers"][0] * d["nodes_per_router"])
    return None


def load_platform(path: str | Path) -> Platform:
    """Reads and validates a platform YAML file; raises InputError naming file:line and the YAML path."""
    source = load_located(Path(path))
    r = _Reader(source)
    top = r.section(source.data, "", {"name", "nodes", "node", "interconnect", "mpi", "placement"},
                    {"description", "nics", "progress", "sources", "network"})

    node_data = r.section(top["node"], "node", {"sockets", "numa_per_socket", "cores_per_numa", "core_speed",
                                                 "memory"}, {"inter_socket", "copy_bandwidth",
                                                             "copy_loads_bus", "core_memory_bandwidth",
                                                             "memory_contention", "cached_message_bytes"})
    node = NodeSpec(
        r.integer(node_data, "sockets", "node"), r.integer(node_data, "numa_per_socket", "node"),
        r.integer(node_data, "cores_per_numa", "node"), r.positive(node_data, "core_speed", "node", "f"),
        r.link(node_data["memory"], "node.memory"),
        r.link(node_data["inter_socket"], "node.inter_socket") if "inter_socket" in node_data else None,
        r.positive(node_data, "core_memory_bandwidth", "node", "Bps") if "core_memory_bandwidth" in node_data else None)
    if node.numa_domains > 1 and node.inter_socket is None:
        raise source.error("node", "a node with several NUMA domains needs 'inter_socket' (bandwidth, latency)")

    nics_data = top.get("nics", []) or []
    if not isinstance(nics_data, list):
        raise source.error("nics", "expected a list of NICs")
    nics = []
    for i, nic_data in enumerate(nics_data):
        where = f"nics[{i}]"
        section = r.section(nic_data, where, {"numa", "bandwidth", "latency"}, {"offload"})
        numa = r.integer(section, "numa", where, minimum=0)
        if numa >= node.numa_domains:
            raise source.error(f"{where}.numa", f"NUMA domain {numa} does not exist (the node has "
                                                f"{node.numa_domains}: 0..{node.numa_domains - 1})")
        offload = section.get("offload", []) or []
        if not isinstance(offload, list) or any(item not in OFFLOADS for item in offload):
            raise source.error(f"{where}.offload", f"expected a list drawn from {', '.join(OFFLOADS)}, got {offload!r}")
        nics.append(NicSpec(numa, r.positive(section, "bandwidth", where, "Bps"),
                            r.number(section, "latency", where, unit="s"),
                            tuple(offload)))

    nodes = r.integer(top, "nodes", "")
    if nodes > MAX_NODES:
        raise source.error("nodes", f"{nodes} nodes: progsim compiles platforms of at most {MAX_NODES} nodes")
    if nodes > 1 and not nics:
        raise source.error("nics", "a platform of several nodes needs at least one NIC per node")

    inter_data = r.section(top["interconnect"], "interconnect", {"topology", "link"},
                           {"fat_tree", "torus", "dragonfly"})
    topology = r.choice(inter_data, "topology", "interconnect", TOPOLOGIES)
    link = r.link(inter_data["link"], "interconnect.link")
    fat_tree: dict[str, list[int]] | None = None
    torus: list[int] | None = None
    dragonfly: dict[str, Any] | None = None
    if topology == "fat-tree":
        if "fat_tree" not in inter_data:
            raise source.error("interconnect", "topology fat-tree needs 'fat_tree: {levels, down, up, parallel}'")
        ft = r.section(inter_data["fat_tree"], "interconnect.fat_tree", {"levels", "down", "up", "parallel"})
        levels = r.integer(ft, "levels", "interconnect.fat_tree")
        fat_tree = {k: r.int_list(ft[k], f"interconnect.fat_tree.{k}", levels) for k in ("down", "up", "parallel")}
    elif topology == "torus":
        if "torus" not in inter_data:
            raise source.error("interconnect", "topology torus needs 'torus: {dimensions: [x, y, z]}'")
        torus = r.int_list(r.section(inter_data["torus"], "interconnect.torus", {"dimensions"})["dimensions"],
                           "interconnect.torus.dimensions")
    elif topology == "dragonfly":
        if "dragonfly" not in inter_data:
            raise source.error("interconnect", "topology dragonfly needs 'dragonfly: {groups, chassis, routers, "
                                               "nodes_per_router}'")
        df = r.section(inter_data["dragonfly"], "interconnect.dragonfly",
                       {"groups", "chassis", "routers", "nodes_per_router"})
        dragonfly = {k: r.int_list(df[k], f"interconnect.dragonfly.{k}", 2) for k in ("groups", "chassis", "routers")}
        dragonfly["nodes_per_router"] = r.integer(df, "nodes_per_router", "interconnect.dragonfly")
    sections = {"fat-tree": "fat_tree", "torus": "torus", "dragonfly": "dragonfly"}
    for name, key in sections.items():
        if key in inter_data and name != topology:
            raise source.error(f"interconnect.{key}", f"a '{key}' section with topology {topology}: "
                                                      f"set topology: {name}, or remove the section")
    interconnect = InterconnectSpec(topology, link, fat_tree, torus, dragonfly)
    expected_nodes = _topology_nodes(interconnect)
    if expected_nodes is not None and expected_nodes > MAX_NODES:
        raise source.error(f"interconnect.{sections[topology]}", f"{expected_nodes} nodes: progsim compiles platforms "
                                                             f"of at most {MAX_NODES} nodes")
    if expected_nodes is not None and expected_nodes != nodes:
        raise source.error("nodes", f"the {topology} topology has {expected_nodes} nodes but 'nodes' is {nodes}")

    engine_settings = _engine_settings(r, top)
    contention = dict(engine_settings)
    if contention.get("contention") == "calibrated" and "bus-curve" not in contention:
        raise source.error("node.memory_contention", "the calibrated policy needs 'stream_curve' (the bus's total "
                                                     "bandwidth with 1, 2, ... flows, e.g. {1: 1.2e10, 8: 6.0e10})")
    reserved = int(dict(engine_settings).get("dedicated-cores", "0"))  # when set; the engine checks its default
    if reserved >= node.cores_per_numa:  # the reserved cores sit in one NUMA domain, beside some of the ranks
        raise source.error("progress.dedicated_core.cores",
                           f"{reserved} reserved core(s) would leave none of a NUMA domain's {node.cores_per_numa} "
                           f"core(s) to its ranks (expected at most {node.cores_per_numa - 1})")

    placement_data = r.section(top["placement"], "placement", {"policy"}, {"ranks_per_node"})
    ranks_per_node = (r.integer(placement_data, "ranks_per_node", "placement") if "ranks_per_node" in placement_data
                      else node.cores)
    placement = PlacementSpec(r.choice(placement_data, "policy", "placement", PLACEMENTS), ranks_per_node)

    name = top["name"]
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", name):
        raise source.error("name", f"expected an identifier (letters, digits, - and _), got {name!r}")
    return Platform(name, str(top.get("description", "")), Path(path), nodes, node, tuple(nics), interconnect,
                    engine_settings, placement, network_model=_network_model(r, top.get("network")))


# The `network` section chooses SimGrid's network model and its corrections (SimGrid 3.32's configuration items).
# Without it the engine keeps SMPI's model, whose latency and bandwidth factors were fitted on another cluster;
# a platform calibrated on its own machine (progsim calibrate) sets its own.
NETWORK_MODELS = ("SMPI", "CM02", "LV08")
_NETWORK_KEYS = {"model": "network/model", "crosstraffic": "network/crosstraffic",
                 "latency_factor": "network/latency-factor", "bandwidth_factor": "network/bandwidth-factor",
                 "smpi_latency_factors": "smpi/lat-factor", "smpi_bandwidth_factors": "smpi/bw-factor"}


def _network_model(r: _Reader, data: Any) -> tuple[tuple[str, str], ...]:
    if data is None:
        return ()
    section = r.section(data, "network", {"model"}, set(_NETWORK_KEYS) - {"model"})
    settings = [("network/model", r.choice(section, "model", "network", NETWORK_MODELS))]
    if "crosstraffic" in section:
        if not isinstance(section["crosstraffic"], bool):
            raise r.source.error("network.crosstraffic", f"expected true or false, got {section['crosstraffic']!r}")
        settings.append(("network/crosstraffic", "1" if section["crosstraffic"] else "0"))
    for key in ("latency_factor", "bandwidth_factor"):
        if key in section:
            settings.append((_NETWORK_KEYS[key], repr(r.positive(section, key, "network"))))
    for key in ("smpi_latency_factors", "smpi_bandwidth_factors"):  # SMPI's piecewise "size:factor;size:factor"
        if key in section:
            value = section[key]
            if not isinstance(value, str) or not re.fullmatch(r"\d+:[0-9.eE+-]+(;\d+:[0-9.eE+-]+)*", value):
                raise r.source.error(f"network.{key}", f"expected SMPI's 'bytes:factor;bytes:factor' (e.g. "
                                                       f"'65472:0.94;0:1.1'), got {value!r}")
            settings.append((_NETWORK_KEYS[key], value))
    return tuple(settings)
