"""The switches and cables of each interconnect topology, as a plain graph the compiler writes out.

A topology gives the switches (by name), the cables between switches (with how many parallel cables), and the
switch each node's NICs plug into. The node count of each topology follows SimGrid's own definitions.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from progsim.platform.model import InterconnectSpec


@dataclass
class SwitchGraph:
    switches: list[str] = field(default_factory=list)
    cables: list[tuple[str, str, int]] = field(default_factory=list)  # (switch a, switch b, parallel cables)
    node_switch: list[str] = field(default_factory=list)  # by node index


def flat(nodes: int) -> SwitchGraph:
    """Every node on one switch, as SimGrid's flat cluster (private links into a backbone)."""
    return SwitchGraph(["sw"], [], ["sw"] * nodes)


def fat_tree(down: list[int], up: list[int], parallel: list[int]) -> SwitchGraph:
    """SimGrid's FAT_TREE (an extended generalized fat tree): level-i switches have down[i] children and nodes of
    level i have up[i] parents, each reached by parallel[i] cables."""
    levels = len(down)
    graph = SwitchGraph()

    def label(level: int, digits: tuple[int, ...]) -> str:
        return f"ft{level}-" + "_".join(map(str, digits))

    # A level-i vertex: (x_levels..x_{i+1}, y_i..y_1), x_j < down[j-1], y_j < up[j-1].
    def vertices(level: int) -> list[tuple[int, ...]]:
        ranges = [range(down[j]) for j in range(levels - 1, level - 1, -1)] + \
                 [range(up[j]) for j in range(level - 1, -1, -1)]
        return list(itertools.product(*ranges))

    for level in range(1, levels + 1):
        graph.switches += [label(level, v) for v in vertices(level)]
    leaves = vertices(0)
    for level in range(1, levels + 1):
        for child in vertices(level - 1):
            # The parent keeps the digits above this level, drops x_level, and picks any y_level.
            above = child[: levels - level]
            below = child[levels - level + 1:]
            for y in range(up[level - 1]):
                parent = above + (y,) + below
                if level == 1:
                    continue  # nodes attach below
                graph.cables.append((label(level - 1, child), label(level, parent), parallel[level - 1]))
    for leaf in leaves:
        graph.node_switch.append(label(1, leaf[: levels - 1] + (0,)))
    return graph


def torus(dimensions: list[int]) -> SwitchGraph:
    """A router per node, cabled to its neighbours in every dimension, with wrap-around (SimGrid's TORUS)."""
    graph = SwitchGraph()
    coordinates = list(itertools.product(*[range(d) for d in dimensions]))
    index = {c: i for i, c in enumerate(coordinates)}
    graph.switches = [f"t{i}" for i in range(len(coordinates))]
    seen = set()
    for c in coordinates:
        for axis, size in enumerate(dimensions):
            if size == 1:
                continue
            neighbour = list(c)
            neighbour[axis] = (c[axis] + 1) % size
            a, b = index[c], index[tuple(neighbour)]
            key = (min(a, b), max(a, b))
            if a != b and key not in seen:
                seen.add(key)
                graph.cables.append((f"t{a}", f"t{b}", 1))
    graph.node_switch = list(graph.switches)
    return graph


def dragonfly(groups: list[int], chassis: list[int], routers: list[int], nodes_per_router: int) -> SwitchGraph:
    """Routers in chassis in groups: all-to-all inside a chassis, same-position routers across chassis of a group,
    and one global connection between every pair of groups. Each entry is [count, parallel cables]."""
    graph = SwitchGraph()
    g_count, g_links = groups
    c_count, c_links = chassis
    r_count, r_links = routers

    def name(g: int, c: int, r: int) -> str:
        return f"df{g}-{c}-{r}"

    for g, c, r in itertools.product(range(g_count), range(c_count), range(r_count)):
        graph.switches.append(name(g, c, r))
        graph.node_switch += [name(g, c, r)] * nodes_per_router
    for g, c in itertools.product(range(g_count), range(c_count)):
        for r1, r2 in itertools.combinations(range(r_count), 2):
            graph.cables.append((name(g, c, r1), name(g, c, r2), r_links))
    for g, r in itertools.product(range(g_count), range(r_count)):
        for c1, c2 in itertools.combinations(range(c_count), 2):
            graph.cables.append((name(g, c1, r), name(g, c2, r), c_links))
    routers_per_group = c_count * r_count
    for g1, g2 in itertools.combinations(range(g_count), 2):
        a = (g2 % routers_per_group)
        b = (g1 % routers_per_group)
        graph.cables.append((name(g1, a // r_count, a % r_count), name(g2, b // r_count, b % r_count), g_links))
    return graph


def build(spec: InterconnectSpec, nodes: int) -> SwitchGraph:
    if spec.topology == "flat":
        return flat(nodes)
    if spec.fat_tree is not None:
        return fat_tree(spec.fat_tree["down"], spec.fat_tree["up"], spec.fat_tree["parallel"])
    if spec.torus is not None:
        return torus(spec.torus)
    if spec.dragonfly is not None:
        d = spec.dragonfly
        return dragonfly(d["groups"], d["chassis"], d["routers"], d["nodes_per_router"])
    raise ValueError(spec.topology)


def node_count(graph: SwitchGraph) -> int:
    return len(graph.node_switch)


def declared_nodes(spec: InterconnectSpec) -> int | None:
    """How many nodes the topology's parameters give, without building it (None: flat holds any number)."""
    if spec.fat_tree is not None:
        return math.prod(spec.fat_tree["down"])
    if spec.torus is not None:
        return math.prod(spec.torus)
    if spec.dragonfly is not None:
        d = spec.dragonfly
        return int(d["groups"][0] * d["chassis"][0] * d["routers"][0] * d["nodes_per_router"])
    return None
