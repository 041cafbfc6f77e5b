"""Compiles a platform YAML into a standard SimGrid XML platform, a hostfile and the engine's parameters.

Layout of the XML (one top zone routed with Dijkstra over zones, each zone with one gateway):
  - a zone per NUMA domain `n<i>.d<j>.zone`: the host `n<i>.d<j>` (its cores), the host `n<i>.d<j>.mem` (its
    memory: it runs nothing) and the memory bus `n<i>.d<j>.membus` in front of that memory. Every flow through
    memory is a transfer to the memory that holds its data, started by the engine: a computation's stream (capped at
    `node.core_memory_bandwidth`, the domain's progsim:core-memory-bandwidth), a copy, the DMA of a NIC transfer at
    each end (from the NIC's domain, progsim:nic-domain). From the domain itself it crosses the bus alone, from
    another domain of the node the inter-domain ports first. Messages cross, between two ranks of the domain,
    `n<i>.d<j>.loopback` and, leaving it, `n<i>.d<j>.memory` instead: the memory's latency and bandwidth with no
    sharing (FATPIPE), since the engine puts their load on the bus as copies and DMA flows. Two links, because
    SimGrid gives each flow on a FATPIPE link its bandwidth times the smallest sharing penalty there over the flow's
    own (the penalty is the route's latency): on one link, messages inside the domain would slow those leaving it.
    Only the domain's route to itself crosses its loopback (property progsim:loopback), so the engine may take a
    message there as the date its route gives it (progsim/loopback-transfers);
  - a zone per NIC `n<i>.nic<k>`, joined to its NUMA domain by the NIC's own link (bandwidth, latency) and to
    its switch by a cable of the interconnect;
  - NUMA domains of a node joined through a fabric router, each by a port link (half the inter-socket latency);
  - a zone per switch of the topology, joined by cables;
  - past GROUP_NODES nodes under one switch, those nodes in zones of GROUP_NODES (`<switch>.g<j>.nodes.zone`), each
    joined to its switch through a port that takes no time (`<switch>.g<j>.port`): SimGrid's Dijkstra routing keeps
    an array over its zone's vertices per source, which a flat zone of 65 536 nodes would make 100 GB. A route
    crosses the same links, but SimGrid adds their latencies in another order: `ideal` moves by rounding (1e-15
    relative), the explicit mechanisms by the ties that rounding breaks (up to 2.5e-3 with groups of one node).
Both progsim-engine and stock smpirun read these files.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import quoteattr

from progsim.errors import InputError
from progsim.platform import topology
from progsim.platform.model import Platform


@dataclass(frozen=True)
class Compiled:
    directory: Path
    platform_xml: Path
    hostfile: Path
    engine_config: list[str]  # --cfg=... arguments for progsim-engine
    ranks: int


def _num(value: float) -> str:
    return repr(float(value))


def _bw(value: float) -> str:
    return f"{float(value)!r}Bps"


def _lat(value: float) -> str:
    return f"{float(value)!r}s"


class _Xml:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 0

    def open(self, tag: str, **attributes: str) -> None:
        self.lines.append("  " * self.depth + f"<{tag}{self._attrs(attributes)}>")
        self.depth += 1

    def close(self, tag: str) -> None:
        self.depth -= 1
        self.lines.append("  " * self.depth + f"</{tag}>")

    def leaf(self, tag: str, **attributes: str) -> None:
        self.lines.append("  " * self.depth + f"<{tag}{self._attrs(attributes)}/>")

    @staticmethod
    def _attrs(attributes: dict[str, str]) -> str:
        return "".join(f" {k.rstrip('_')}={quoteattr(str(v))}" for k, v in attributes.items())


def _route(xml: _Xml, src: str, dst: str, links: list[str], zone: bool, gw_src: str = "", gw_dst: str = "") -> None:
    if zone:
        xml.open("zoneRoute", src=f"{src}.zone", dst=f"{dst}.zone", gw_src=gw_src, gw_dst=gw_dst)
    else:
        xml.open("route", src=src, dst=dst)
    for link in links:
        xml.leaf("link_ctn", id=link)
    xml.close("zoneRoute" if zone else "route")


def _nic_of_domain(platform: Platform, domain: int) -> int | None:
    """The NIC a NUMA domain's traffic leaves by: one attached to the domain, else the node's first (through the
    node's fabric); None on a node without NICs."""
    attached = [k for k, nic in enumerate(platform.nics) if nic.numa == domain]
    if attached:
        return attached[0]
    return 0 if platform.nics else None


# SimGrid's Dijkstra routing keeps, for every source it has routed from, an array over every vertex of its zone: a
# zone of N nodes holds N^2 of them. Above this many nodes under one switch, the nodes are routed in groups of this
# many, each group a zone of its own joined to the switch through a port that takes no time: the same links, in the
# same order.
GROUP_NODES = 256


def platform_xml(platform: Platform, used_nodes: list[int] | None = None, group_nodes: int = GROUP_NODES) -> str:
    """The SimGrid XML of the platform: every switch and cable of its topology, and the nodes in `used_nodes`
    (default: all), so that a small run on a huge machine compiles only what it uses. Nodes under a switch that has
    more than `group_nodes` of them are routed in groups of `group_nodes` (GROUP_NODES)."""
    graph = topology.build(platform.interconnect, platform.nodes)
    nodes = range(platform.nodes) if used_nodes is None else sorted(set(used_nodes))
    under: dict[str, list[int]] = {}
    for i in nodes:
        under.setdefault(graph.node_switch[i], []).append(i)
    groups = {switch: [members[k:k + group_nodes] for k in range(0, len(members), group_nodes)]
              for switch, members in under.items() if len(members) > group_nodes}
    xml = _Xml()
    xml.lines += ["<?xml version='1.0'?>", '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
                  f"<!-- {platform.name}: compiled by progsim from {platform.source.name}. -->"]
    xml.open("platform", version="4.1")
    xml.open("zone", id=platform.name, routing="DijkstraCache")
    direct = [i for i in nodes if graph.node_switch[i] not in groups]
    for switch, members in sorted(groups.items()):
        for j, group in enumerate(members):
            port = f"{switch}.g{j}"
            xml.open("zone", id=f"{port}.nodes.zone", routing="DijkstraCache")
            _node_zones(xml, platform, group)
            _gateway_zone(xml, port)
            _node_links(xml, platform, group)
            _node_routes(xml, platform, group, {i: port for i in group})
            xml.close("zone")
    _node_zones(xml, platform, direct)
    for switch in graph.switches:
        _gateway_zone(xml, switch)
    _node_links(xml, platform, direct)
    link = platform.interconnect.link
    for a, b, count in graph.cables:
        xml.leaf("link", id=f"{a}--{b}", bandwidth=_bw(link.bandwidth * count), latency=_lat(link.latency),
                 sharing_policy="SPLITDUPLEX")
    for switch, members in sorted(groups.items()):
        for j in range(len(members)):
            # SimGrid forbids a route without links: a link that takes no time and shares nothing.
            xml.leaf("link", id=f"{switch}.g{j}.port", bandwidth="1e30Bps", latency="0s", sharing_policy="FATPIPE")
    _node_routes(xml, platform, direct, graph.node_switch)  # a zone declares its links before its routes
    for switch, members in sorted(groups.items()):
        for j in range(len(members)):
            _route(xml, f"{switch}.g{j}.nodes", switch, [f"{switch}.g{j}.port"], zone=True, gw_src=f"{switch}.g{j}.gw",
                   gw_dst=f"{switch}.gw")
    for a, b, _ in graph.cables:
        _duplex(xml, a, b, f"{a}--{b}", f"{a}.gw", f"{b}.gw")
    xml.close("zone")
    xml.close("platform")
    return "\n".join(xml.lines) + "\n"


def _gateway_zone(xml: _Xml, name: str) -> None:
    """A zone holding one router, `<name>.gw`: a switch, or a group's port on its switch."""
    xml.open("zone", id=f"{name}.zone", routing="Full")
    xml.leaf("router", id=f"{name}.gw")
    xml.close("zone")


def _node_zones(xml: _Xml, platform: Platform, nodes: list[int] | range) -> None:
    """Each node's NUMA domains (host, memory, bus and memory links), fabric router and NICs' routers."""
    node = platform.node
    for i in nodes:
        for d in range(node.numa_domains):
            domain = f"n{i}.d{d}"
            xml.open("zone", id=f"{domain}.zone", routing="Full")
            xml.open("host", id=domain, speed=f"{float(node.core_speed)!r}f", core=str(node.cores_per_numa))
            xml.leaf("prop", id="progsim:node", value=f"n{i}")
            xml.leaf("prop", id="progsim:numa", value=str(d))
            used = _nic_of_domain(platform, d)
            if used is not None:  # the NIC this domain's ranks use, what it offloads, and the domain it hangs from
                xml.leaf("prop", id="progsim:nic", value=f"n{i}.nic{used}")
                xml.leaf("prop", id="progsim:nic-offload", value=",".join(sorted(platform.nics[used].offload)))
                xml.leaf("prop", id="progsim:nic-domain", value=f"n{i}.d{platform.nics[used].numa}")
            xml.leaf("prop", id="progsim:memory", value=f"{domain}.mem")
            if node.core_memory_bandwidth is not None:  # what one core streams at most: the engine caps each stream
                xml.leaf("prop", id="progsim:core-memory-bandwidth", value=_num(node.core_memory_bandwidth))
            xml.close("host")
            xml.leaf("host", id=f"{domain}.mem", speed="1f")
            xml.leaf("router", id=f"{domain}.gw")
            xml.leaf("link", id=f"{domain}.membus", bandwidth=_bw(node.memory.bandwidth),
                     latency=_lat(node.memory.latency))
            xml.leaf("link", id=f"{domain}.memory", bandwidth=_bw(node.memory.bandwidth),
                     latency=_lat(node.memory.latency), sharing_policy="FATPIPE")
            xml.open("link", id=f"{domain}.loopback", bandwidth=_bw(node.memory.bandwidth),
                     latency=_lat(node.memory.latency), sharing_policy="FATPIPE")
            xml.leaf("prop", id="progsim:loopback", value="yes")
            xml.close("link")
            _route(xml, domain, domain, [f"{domain}.loopback"], zone=False)
            _route(xml, domain, f"{domain}.mem", [f"{domain}.membus"], zone=False)
            _route(xml, f"{domain}.gw", f"{domain}.mem", [f"{domain}.membus"], zone=False)
            _route(xml, domain, f"{domain}.gw", [f"{domain}.memory"], zone=False)
            xml.close("zone")
        if node.numa_domains > 1:
            xml.open("zone", id=f"n{i}.fabric.zone", routing="Full")
            xml.leaf("router", id=f"n{i}.fabric.gw")
            xml.close("zone")
        for k in range(len(platform.nics)):
            xml.open("zone", id=f"n{i}.nic{k}.zone", routing="Full")
            xml.leaf("router", id=f"n{i}.nic{k}.gw")
            xml.close("zone")


def _node_links(xml: _Xml, platform: Platform, nodes: list[int] | range) -> None:
    """Each node's fabric ports, NIC links and NIC cables."""
    node, link = platform.node, platform.interconnect.link
    fabric = node.inter_socket if node.numa_domains > 1 else None  # validated: present when there are several
    for i in nodes:
        for d in range(node.numa_domains if fabric is not None else 0):
            # Each domain's port into the node's fabric: crossing between two domains takes two ports.
            assert fabric is not None
            xml.leaf("link", id=f"n{i}.d{d}.port", bandwidth=_bw(fabric.bandwidth), latency=_lat(fabric.latency / 2))
        for k, nic in enumerate(platform.nics):
            xml.leaf("link", id=f"n{i}.nic{k}", bandwidth=_bw(nic.bandwidth), latency=_lat(nic.latency))
            xml.leaf("link", id=f"n{i}.nic{k}.cable", bandwidth=_bw(link.bandwidth), latency=_lat(link.latency),
                     sharing_policy="SPLITDUPLEX")


def _node_routes(xml: _Xml, platform: Platform, nodes: list[int] | range, switch_of: dict[int, str] | list[str]) -> None:
    """Each node's routes: its domains to its fabric, its NICs to their domain and, by their cables, to the node's
    switch (or its group's port there), `switch_of[i]`."""
    node = platform.node
    for i in nodes:
        for d in range(node.numa_domains if node.numa_domains > 1 else 0):
            _route(xml, f"n{i}.d{d}", f"n{i}.fabric", [f"n{i}.d{d}.port"], zone=True,
                   gw_src=f"n{i}.d{d}.gw", gw_dst=f"n{i}.fabric.gw")
        for k, nic in enumerate(platform.nics):
            _route(xml, f"n{i}.d{nic.numa}", f"n{i}.nic{k}", [f"n{i}.nic{k}"], zone=True,
                   gw_src=f"n{i}.d{nic.numa}.gw", gw_dst=f"n{i}.nic{k}.gw")
            switch = switch_of[i]
            _duplex(xml, f"n{i}.nic{k}", switch, f"n{i}.nic{k}.cable", f"n{i}.nic{k}.gw", f"{switch}.gw")


def _duplex(xml: _Xml, src: str, dst: str, link_id: str, gw_src: str, gw_dst: str) -> None:
    """A cable carries each direction on its own (full duplex)."""
    for (s, d, gs, gd, direction) in ((src, dst, gw_src, gw_dst, "UP"), (dst, src, gw_dst, gw_src, "DOWN")):
        xml.open("zoneRoute", src=f"{s}.zone", dst=f"{d}.zone", gw_src=gs, gw_dst=gd, symmetrical="NO")
        xml.leaf("link_ctn", id=link_id, direction=direction)
        xml.close("zoneRoute")


def placement(platform: Platform, ranks: int) -> list[str]:
    """The host of each rank, by the platform's placement policy."""
    if ranks > platform.capacity:
        raise InputError(f"{platform.source}: placement: {ranks} ranks do not fit: the platform places at most "
                         f"{platform.capacity} ({platform.nodes} nodes x {platform.placement.ranks_per_node} ranks "
                         f"per node)")
    per_node = platform.placement.ranks_per_node
    domains = platform.node.numa_domains
    hosts = []
    for rank in range(ranks):
        if platform.placement.policy == "round-robin":
            node, slot = rank % platform.nodes, rank // platform.nodes
        else:
            node, slot = rank // per_node, rank % per_node
        if platform.placement.policy == "numa":
            domain = slot % domains  # alternate between the node's NUMA domains
        else:
            domain = min(slot // platform.node.cores_per_numa, domains - 1)  # fill a domain before the next
        hosts.append(f"n{node}.d{domain}")
    return hosts


def engine_config(platform: Platform) -> list[str]:
    """The engine parameters the platform sets; the engine's own defaults apply to the others."""
    settings = list(platform.engine_settings)
    set_here = {flag for flag, _ in settings}
    if any("collectives" in nic.offload for nic in platform.nics) and "offload-collective-bandwidth" not in set_here:
        # A collective that the network runs in hardware streams through the NICs and the links of its tree: the
        # slower of the two bounds it.
        slowest = min(min(nic.bandwidth for nic in platform.nics), platform.interconnect.link.bandwidth)
        settings.append(("offload-collective-bandwidth", repr(slowest)))
    return [*(f"--cfg=progsim/{flag}:{value}" for flag, value in settings),
            *(f"--cfg={name}:{value}" for name, value in platform.network_model)]


def compile_platform(platform: Platform, directory: Path, ranks: int | None = None,
                     group_nodes: int = GROUP_NODES) -> Compiled:
    """Writes platform.xml, hostfile and engine.cfg into `directory` (created if needed); `group_nodes` as in
    platform_xml."""
    ranks = platform.capacity if ranks is None else ranks
    hosts = placement(platform, ranks)
    directory.mkdir(parents=True, exist_ok=True)
    xml_path, hostfile, config_path = directory / "platform.xml", directory / "hostfile", directory / "engine.cfg"
    used = sorted({int(host.split(".")[0][1:]) for host in hosts})  # "n<i>.d<j>"
    xml_path.write_text(platform_xml(platform, used, group_nodes))
    hostfile.write_text("\n".join(hosts) + "\n")
    config = engine_config(platform)
    config_path.write_text("\n".join(config) + "\n")
    return Compiled(directory, xml_path, hostfile, config, ranks)


def load_compiled(directory: Path) -> Compiled:
    """A directory compiled earlier (or written by hand: platform.xml and hostfile, engine.cfg optional)."""
    xml_path, hostfile, config_path = directory / "platform.xml", directory / "hostfile", directory / "engine.cfg"
    for required in (xml_path, hostfile):
        if not required.is_file():
            raise InputError(f"{directory}: a compiled platform folder needs {required.name}")
    config = config_path.read_text().split() if config_path.is_file() else []
    ranks = sum(1 for line in hostfile.read_text().splitlines() if line.strip())
    return Compiled(directory, xml_path, hostfile, config, ranks)
