"""The SimGrid progsim runs on: the one `make setup` built (scripts/build_simgrid.sh: 3.32 with the changes listed
there, among them 3.34's activity set and paced host-to-host transfers) when the installed SimGrid is older than 3.34,
for the engine and for stock SMPI alike."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import REPOSITORY, SMALL_PLATFORM, write_platform, write_ranks
from progsim.engine import smpi_tool

PREFIX_FILE = REPOSITORY / "build" / "simgrid-prefix.txt"


def built_prefix() -> str:
    return PREFIX_FILE.read_text().strip()


def installed_simgrid_is_older_than_3_34() -> bool:
    return subprocess.run(["pkg-config", "--atleast-version=3.34", "simgrid"]).returncode != 0


def test_setup_built_simgrid_when_the_installed_one_is_older_than_3_34() -> None:
    # Debian 12 has 3.32: the build must exist, and the script, asked again, names the same cached prefix at once.
    assert PREFIX_FILE.is_file(), "make setup writes build/simgrid-prefix.txt"
    if not installed_simgrid_is_older_than_3_34():
        assert built_prefix() == ""
        return
    prefix = Path(built_prefix())
    assert (prefix / ".progsim-complete").is_file()
    again = subprocess.run(["bash", "scripts/build_simgrid.sh"], cwd=REPOSITORY, capture_output=True, text=True,
                           timeout=60)
    assert again.returncode == 0 and again.stdout.strip() == str(prefix), again.stderr


def test_the_engine_loads_the_library_it_was_built_on(engine: Path) -> None:
    linked = subprocess.run(["ldd", str(engine)], capture_output=True, text=True, check=True).stdout
    line = next(line for line in linked.splitlines() if "libsimgrid.so" in line)
    if built_prefix():
        assert f"{built_prefix()}/lib/libsimgrid.so" in line, line
    else:
        assert "not found" not in line, line


@pytest.mark.parametrize("tool", ["smpirun", "smpicc"])
def test_stock_smpi_comes_from_the_same_simgrid(tool: str) -> None:
    if built_prefix():
        assert smpi_tool(tool) == f"{built_prefix()}/bin/{tool}"
        assert Path(smpi_tool(tool)).is_file()
    else:
        assert smpi_tool(tool) == tool


def test_results_name_the_simgrid_build(engine: Path, tmp_path: Path) -> None:
    platform = write_platform(tmp_path, SMALL_PLATFORM)
    trace = write_ranks(tmp_path, ["0 init\n0 send 1 0 1000\n0 finalize", "1 init\n1 recv 0 0 1000\n1 finalize"])
    out = tmp_path / "r.json"
    done = subprocess.run(["python3", "-m", "progsim", "replay", str(trace), "--platform", str(platform),
                           "--progress", "ideal", "--out", str(out)], cwd=REPOSITORY, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    simgrid = json.loads(out.read_text())["simgrid"]
    assert simgrid["version"] == "3.32"
    # The build names the changes scripts/build_simgrid.sh applied, as its stamp lists them.
    expected = (f"3.32 with {(Path(built_prefix()) / '.progsim-complete').read_text().strip()} (scripts/build_simgrid.sh)"
                if built_prefix() else "as installed")
    assert simgrid["build"] == expected
