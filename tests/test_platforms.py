"""Every shipped platform validates, compiles, loads in SimGrid, and gives stock SMPI's time under `ideal`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import REPOSITORY, write_platform
from progsim.engine import replay, smpi_replay_time
from progsim.platform import compile_platform, load_platform, placement
from progsim.platform.quantity import parse_quantity
from progsim.workloads.tracegen import ring_lines, write_trace

SHIPPED = sorted((REPOSITORY / "platforms").glob("*.yaml"))


def test_the_literature_platforms_are_shipped() -> None:
    names = {path.stem for path in SHIPPED}
    # The clusters named in ../shared/literature, this 2-core machine, and a hypothetical exascale node.
    assert {"henri", "bora", "supermuc-fat", "lima", "inti-skylake", "laptop-2core",
            "exascale-hypothetical"} <= names


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_shipped_platform_matches_smpi_under_ideal(tmp_path: Path, path: Path) -> None:
    platform = load_platform(path)
    ranks = min(platform.capacity, 32)
    compiled = compile_platform(platform, tmp_path / "compiled", ranks)
    trace = write_trace(ring_lines(ranks, 5, 300000, 2e6), tmp_path / "trace")
    run = replay(trace, compiled, "ideal", tmp_path / "r.json")
    assert run.returncode == 0, run.stderr
    assert run.results["simulated_time"] == pytest.approx(smpi_replay_time(trace, compiled), rel=0.01)


def test_compiled_xml_has_a_host_per_numa_domain_and_links_with_units(tmp_path: Path) -> None:
    platform = load_platform(REPOSITORY / "platforms" / "exascale-hypothetical.yaml")
    xml = compile_platform(platform, tmp_path, platform.capacity).platform_xml.read_text()
    hosts = re.findall(r'<host id="([^"]+)" speed="([^"]+)" core="(\d+)"', xml)
    assert len(hosts) == platform.nodes * platform.node.numa_domains
    assert all(core == str(platform.node.cores_per_numa) for _, _, core in hosts)
    assert all(speed.endswith("f") for _, speed, _ in hosts)
    assert len(re.findall(r'<link id="n0\.nic\d+"', xml)) == len(platform.nics)
    assert all(bw.endswith("Bps") for bw in re.findall(r'bandwidth="([^"]+)"', xml))


def test_only_a_domains_route_to_itself_crosses_its_loopback(tmp_path: Path) -> None:
    # The engine takes a message over links marked progsim:loopback as the date its route gives it
    # (simulator/resources/RouteDelay.hpp): exact only if no other route crosses them (SimGrid shares a FATPIPE link by
    # the flows' sharing penalties, tests/cpp/test_route_delay.cpp).
    platform = load_platform(REPOSITORY / "platforms" / "exascale-hypothetical.yaml")
    xml = compile_platform(platform, tmp_path, platform.capacity).platform_xml.read_text()
    loopbacks = re.findall(r'<link id="([^"]+)"[^>]*sharing_policy="FATPIPE">\s*<prop id="progsim:loopback" '
                           r'value="yes"/>', xml)
    domains = re.findall(r'<host id="([^"]+)" speed="[^"]+" core=', xml)
    assert loopbacks == [f"{domain}.loopback" for domain in domains]
    routes = re.findall(r'<(?:route|zoneRoute) src="([^"]+)" dst="([^"]+)"[^>]*>(.*?)</(?:route|zoneRoute)>', xml,
                        re.DOTALL)
    crossing = {link: [(src, dst) for src, dst, body in routes if f'id="{link}"' in body] for link in loopbacks}
    assert crossing == {f"{domain}.loopback": [(domain, domain)] for domain in domains}


def two_by_two(tmp_path: Path, policy: str) -> Path:
    return write_platform(tmp_path, f"""\
        name: p
        nodes: 2
        node: {{sockets: 2, numa_per_socket: 1, cores_per_numa: 2, core_speed: 1.0e+9,
               memory: {{bandwidth: 1.0e+10, latency: 0}}, inter_socket: {{bandwidth: 1.0e+10, latency: 0}}}}
        nics: [{{numa: 0, bandwidth: 1.0e+10, latency: 1.0e-6}}]
        interconnect: {{topology: flat, link: {{bandwidth: 1.0e+10, latency: 0}}}}
        mpi: {{eager_threshold: 65536, rendezvous: get}}
        placement: {{policy: {policy}}}
        """)


@pytest.mark.parametrize("policy,expected", [
    ("block", ["n0.d0", "n0.d0", "n0.d1", "n0.d1", "n1.d0", "n1.d0"]),
    ("round-robin", ["n0.d0", "n1.d0", "n0.d0", "n1.d0", "n0.d1", "n1.d1"]),
    ("numa", ["n0.d0", "n0.d1", "n0.d0", "n0.d1", "n1.d0", "n1.d1"]),
])
def test_placement_policies(tmp_path: Path, policy: str, expected: list[str]) -> None:
    assert placement(load_platform(two_by_two(tmp_path, policy)), 6) == expected


@pytest.mark.parametrize("text,value", [("12.5GBps", 12.5e9), ("1us", 1e-6), ("64KiB", 65536.0), ("2.3Gf", 2.3e9),
                                        ("6.0e10", 6.0e10), (42, 42.0)])
def test_quantities_with_units(text: object, value: float) -> None:
    assert parse_quantity(text) == pytest.approx(value)


def test_fat_tree_node_count_must_match(tmp_path: Path) -> None:
    from progsim.errors import InputError

    text = two_by_two(tmp_path, "block").read_text().replace(
        "topology: flat,", "topology: fat-tree, fat_tree: {levels: 2, down: [2, 4], up: [1, 2], parallel: [1, 1]},")
    (tmp_path / "ft.yaml").write_text(text)
    with pytest.raises(InputError, match=r"ft.yaml:2: nodes: the fat-tree topology has 8 nodes but 'nodes' is 2"):
        load_platform(tmp_path / "ft.yaml")


def test_only_the_nodes_a_placement_uses_are_compiled(tmp_path: Path) -> None:
    # 100 000 nodes of 2 NUMA domains, one rank per node: 2 ranks compile to their 2 nodes, 4 domains (each with
    # the host of its memory), in a moment.
    path = write_platform(tmp_path, """\
        name: huge
        nodes: 100000
        node: {sockets: 2, numa_per_socket: 1, cores_per_numa: 4, core_speed: 1.0e+9,
               memory: {bandwidth: 1.0e+10, latency: 0}, inter_socket: {bandwidth: 1.0e+10, latency: 0}}
        nics: [{numa: 0, bandwidth: 1.0e+10, latency: 1.0e-6}]
        interconnect: {topology: flat, link: {bandwidth: 1.0e+10, latency: 0}}
        mpi: {eager_threshold: 65536, rendezvous: get}
        placement: {policy: block, ranks_per_node: 1}
        """)
    xml = compile_platform(load_platform(path), tmp_path / "c", 2).platform_xml.read_text()
    assert sorted(re.findall(r'<host id="([^"]+)"', xml)) == \
        ["n0.d0", "n0.d0.mem", "n0.d1", "n0.d1.mem", "n1.d0", "n1.d0.mem", "n1.d1", "n1.d1.mem"]


def test_a_larger_hostfile_is_accepted_and_ranks_per_node_overrides_the_placement(tmp_path: Path) -> None:
    import json

    from conftest import run_cli, write_ranks

    trace = write_ranks(tmp_path, ["0 init\n0 send 1 0 8\n0 finalize", "1 init\n1 recv 0 0 8\n1 finalize"])
    lima = str(REPOSITORY / "platforms" / "lima.yaml")
    folder = tmp_path / "compiled"
    assert run_cli("platform", "compile", lima, "-o", str(folder), "--ranks", "4").returncode == 0
    out = tmp_path / "r.json"
    done = run_cli("replay", str(trace), "--platform", str(folder), "--progress", "none", "--out", str(out))
    assert done.returncode == 0, done.stderr  # as smpirun: the first two of the four hostfile entries
    hosts = [line for line in (folder / "hostfile").read_text().split()]
    assert [r["host"] for r in json.loads(out.read_text())["ranks"]] == hosts[:2]
    done = run_cli("replay", str(trace), "--platform", lima, "--progress", "none", "--ranks-per-node", "1",
                   "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert [r["host"] for r in json.loads(out.read_text())["ranks"]] == ["n0.d0", "n1.d0"]


def test_an_installed_package_finds_the_engine_on_the_path(tmp_path: Path) -> None:
    # A copy of the package with no build beside it, run from another folder: it finds the engine make setup
    # installed on the PATH.
    import shutil
    import subprocess
    import sys

    shutil.copytree(REPOSITORY / "progsim", tmp_path / "site" / "progsim")
    engine = shutil.which("progsim-engine")
    assert engine, "make setup installs progsim-engine on the PATH"
    done = subprocess.run([sys.executable, "-m", "progsim", "parameters"], capture_output=True, text=True,
                          cwd=tmp_path, env={"PATH": str(Path(engine).parent) + ":/usr/bin:/bin",
                                             "PYTHONPATH": str(tmp_path / "site"), "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert "eager-threshold" in done.stdout


def test_the_network_section_sets_simgrids_network_model(tmp_path: Path) -> None:
    """A platform's `network` section gives the replay what the same SimGrid settings give on the command line."""
    from analytic_platform import platform as analytic

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    plain = analytic(tmp_path / "a")
    with_network = analytic(tmp_path / "b")
    with_network.write_text(with_network.read_text() + "network: {model: CM02, crosstraffic: false}\n")
    trace = write_trace(ring_lines(2, 2, 1 << 20, 1e6), tmp_path / "trace")
    times = []
    for yaml, settings in ((plain, ["network/model:CM02", "network/crosstraffic:0"]), (with_network, []),
                           (plain, [])):
        compiled = compile_platform(load_platform(yaml), tmp_path / f"c{len(times)}", 2)
        run = replay(trace, compiled, "none", tmp_path / f"r{len(times)}.json", settings=settings)
        assert run.returncode == 0 and run.results is not None, run.stderr
        times.append(run.results["simulated_time"])
    assert times[0] == times[1] != times[2]  # SMPI's factors (the default) change it


@pytest.mark.parametrize("section,message", [
    ("network: {model: Fast}", "network.model"),
    ("network: {model: SMPI, smpi_latency_factors: 'x:1'}", "network.smpi_latency_factors: expected SMPI's"),
    ("network: {model: CM02, crosstraffic: 2}", "network.crosstraffic: expected true or false"),
])
def test_a_bad_network_section_is_refused(tmp_path: Path, section: str, message: str) -> None:
    from analytic_platform import platform as analytic
    from conftest import run_cli

    yaml = analytic(tmp_path)
    yaml.write_text(yaml.read_text() + section + "\n")
    done = run_cli("platform", "check", str(yaml))
    assert done.returncode == 2 and message in done.stderr, done.stderr


@pytest.mark.parametrize("path", [REPOSITORY / "platforms" / "coolmuc-2.yaml", REPOSITORY / "platforms" / "bora.yaml"],
                         ids=["fat-tree", "flat"])
def test_nodes_routed_in_groups_keep_their_times(tmp_path: Path, path: Path) -> None:
    """Past GROUP_NODES nodes under one switch the compiler routes them in groups, through ports that take no time:
    the same links in the same order, so SMPI's and `ideal`'s times stay (to rounding: SimGrid adds the latencies
    of a route in another order), and SMPI and `ideal` still agree. Here with groups of one node, every message
    between nodes crosses two ports."""
    platform = load_platform(path)
    ranks = min(platform.capacity, 64)
    trace = write_trace(ring_lines(ranks, 5, 300000, 2e6), tmp_path / "trace")
    times = {}
    for layout, group_nodes in (("switch", 1 << 30), ("groups", 1)):
        compiled = compile_platform(platform, tmp_path / layout, ranks, group_nodes=group_nodes)
        xml = compiled.platform_xml.read_text()
        assert ('.g0.port"' in xml) == (layout == "groups")
        run = replay(trace, compiled, "ideal", tmp_path / f"{layout}.json")
        assert run.returncode == 0, run.stderr
        times[layout] = (run.results["simulated_time"], smpi_replay_time(trace, compiled))
    assert times["groups"][0] == pytest.approx(times["switch"][0], rel=1e-12)
    assert times["groups"][1] == pytest.approx(times["switch"][1], rel=1e-6)  # SMPI prints 6 digits
    assert times["groups"][0] == pytest.approx(times["groups"][1], rel=0.01)
