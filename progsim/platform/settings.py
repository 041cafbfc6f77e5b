"""The engine and SimGrid settings a platform carries: the YAML keys that set progsim-engine's parameters and the
`network` section's SimGrid network model, read into the (name, value) pairs the engine is given."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from progsim.engine_info import bus_policies
from progsim.platform.model import RENDEZVOUS
from progsim.platform.reader import Reader


@dataclass(frozen=True)
class _Setting:
    """A YAML key that sets one engine parameter; the engine holds every default (progsim-engine --help)."""
    path: str  # dotted YAML path
    flag: str  # progsim-engine flag, without its progsim/ prefix
    kind: str  # number[:unit], positive[:unit], integer, rendezvous, policy (the engine's contention policies),
    #            choice:a|b, bool, curve (units: B, Bps, s, f)


_SETTINGS = (
    _Setting("node.copy_bandwidth", "copy-bandwidth", "positive:Bps"),
    _Setting("node.copy_loads_bus", "copy-loads-bus", "bool"),
    _Setting("node.cached_message_bytes", "cached-message-bytes", "number:B"),
    _Setting("node.memory_contention.policy", "contention", "policy"),
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


def engine_settings(r: Reader, top: dict[str, Any]) -> tuple[tuple[str, str], ...]:
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
        elif kind == "policy":
            value = r.choice(data, key, parent, bus_policies())
        elif kind == "curve":
            value = _curve(r, data[key], setting.path)
        elif kind == "bool":
            if not isinstance(data[key], bool):
                raise r.source.error(setting.path, f"expected true or false, got {data[key]!r}")
            value = "yes" if data[key] else "no"
        else:
            value = r.choice(data, key, parent, tuple(unit.split("|")))
        settings.append((setting.flag, value))
    chosen = dict(settings)
    if chosen.get("contention") == "calibrated" and "bus-curve" not in chosen:
        raise r.source.error("node.memory_contention", "the calibrated policy needs 'stream_curve' (the bus's total "
                                                       "bandwidth with 1, 2, ... flows, e.g. {1: 1.2e10, 8: 6.0e10})")
    return tuple(settings)


def _curve(r: Reader, data: Any, path: str) -> str:
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


# The `network` section chooses SimGrid's network model and its corrections (SimGrid 3.32's configuration items).
# Without it the engine keeps SMPI's model, whose latency and bandwidth factors were fitted on another cluster;
# a platform calibrated on its own machine (progsim calibrate) sets its own.
NETWORK_MODELS = ("SMPI", "CM02", "LV08")
_NETWORK_KEYS = {"model": "network/model", "crosstraffic": "network/crosstraffic",
                 "latency_factor": "network/latency-factor", "bandwidth_factor": "network/bandwidth-factor",
                 "smpi_latency_factors": "smpi/lat-factor", "smpi_bandwidth_factors": "smpi/bw-factor"}


def network_model(r: Reader, data: Any) -> tuple[tuple[str, str], ...]:
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
