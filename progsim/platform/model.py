"""The platform description: nodes, NICs, interconnect, MPI protocol, progress and placement parameters.

Every number is in SI base units (bytes, seconds, flop/s, bytes/s). `load_platform` (loader.py) builds a Platform
from a YAML file, checking it against this shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
