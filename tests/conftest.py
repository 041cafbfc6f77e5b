"""Shared helpers: small platforms written inline, traces written inline, and runs of the real engine."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPOSITORY))

from progsim.engine_info import engine_binary  # noqa: E402


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="also run the long studies")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="long study: run with --run-slow (make test-slow)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def engine() -> Path:
    return engine_binary()  # raises if the engine is not built: a missing engine is a failure, never a skip


def flat_platform(name: str, nodes: int, cores: int, ranks_per_node: int) -> str:
    """A flat cluster of one-NUMA-domain nodes with one NIC each, ranks placed by block: for tests of inputs,
    outputs and scale, not of timings."""
    return f"""\
    name: {name}
    nodes: {nodes}
    node: {{sockets: 1, numa_per_socket: 1, cores_per_numa: {cores}, core_speed: 1.0e+9,
           memory: {{bandwidth: 1.0e+10, latency: 1.0e-7}}}}
    nics: [{{numa: 0, bandwidth: 1.0e+10, latency: 1.0e-6}}]
    interconnect: {{topology: flat, link: {{bandwidth: 1.0e+10, latency: 1.0e-7}}}}
    mpi: {{eager_threshold: 65536, rendezvous: get}}
    placement: {{policy: block, ranks_per_node: {ranks_per_node}}}
    """


SMALL_PLATFORM = flat_platform("small", nodes=2, cores=2, ranks_per_node=1)


def write_platform(directory: Path, text: str) -> Path:
    path = directory / "platform.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def write_ranks(directory: Path, ranks: list[str]) -> Path:
    """Writes one trace file per rank from inline text and the list file naming them."""
    names = []
    for r, text in enumerate(ranks):
        path = directory / f"rank-{r}.txt"
        path.write_text(textwrap.dedent(text).strip() + "\n")
        names.append(str(path))
    listing = directory / "trace_list.txt"
    listing.write_text("\n".join(names) + "\n")
    return listing


def run_cli(*args: str, cwd: Path = REPOSITORY) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "progsim", *args], capture_output=True, text=True, cwd=cwd)
