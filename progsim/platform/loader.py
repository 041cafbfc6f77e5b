"""Reads a platform YAML file into a Platform, reporting the first problem with its file:line and YAML path."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from progsim.platform import settings
from progsim.platform.model import (MAX_NODES, OFFLOADS, PLACEMENTS, TOPOLOGIES, InterconnectSpec, NicSpec, NodeSpec,
                                    Platform, PlacementSpec)
from progsim.platform.reader import Reader
from progsim.platform.topology import declared_nodes
from progsim.platform.yamlsource import load_located


def load_platform(path: str | Path) -> Platform:
    """Reads and validates a platform YAML file; raises InputError naming file:line and the YAML path."""
    source = load_located(Path(path))
    r = Reader(source)
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
    expected_nodes = declared_nodes(interconnect)
    if expected_nodes is not None and expected_nodes > MAX_NODES:
        raise source.error(f"interconnect.{sections[topology]}", f"{expected_nodes} nodes: progsim compiles platforms "
                                                             f"of at most {MAX_NODES} nodes")
    if expected_nodes is not None and expected_nodes != nodes:
        raise source.error("nodes", f"the {topology} topology has {expected_nodes} nodes but 'nodes' is {nodes}")

    engine_settings = settings.engine_settings(r, top)
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
                    engine_settings, placement, network_model=settings.network_model(r, top.get("network")))
