"""A progress mechanism is one file. tests/fixtures/free_calls.cpp, compiled into build/progsim-engine-fixture and
into nothing else, registers `free-calls` (the rank runs its own steps, as under none, and its MPI calls cost no CPU):
the engine lists it, the command line takes it, and a replay under it takes the times of `none` with every
overhead at 0 (docs/engine.md, "A new mechanism")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPOSITORY, SMALL_PLATFORM, write_platform, write_ranks

from progsim.engine import replay
from progsim.engine_info import engine_binary
from progsim.platform import compile_platform, load_platform

FIXTURE_ENGINE = REPOSITORY / "build" / "progsim-engine-fixture"
FREE_OVERHEADS = ["overhead-send:0", "overhead-recv:0", "overhead-step:0", "overhead-call:0"]
# A rendezvous each way (100 KiB over a 64 KiB eager threshold) between two computations: every call costs.
PING_PONG = ["0 init\n0 compute 1000000\n0 send 1 0 100000\n0 recv 1 1 100000\n0 finalize",
             "1 init\n1 recv 0 0 100000\n1 compute 2000000\n1 send 0 1 100000\n1 finalize"]


def listed(engine: Path) -> list[str]:
    done = subprocess.run([str(engine), "--list-progress"], capture_output=True, text=True, check=True)
    return [line.split("\t")[0] for line in done.stdout.splitlines()]


def test_the_fixture_engine_lists_the_mechanism_of_one_file() -> None:
    assert FIXTURE_ENGINE.is_file(), "build/progsim-engine-fixture is built with the tests (make build)"
    assert listed(FIXTURE_ENGINE) == [*listed(engine_binary()), "free-calls"]


def test_it_replays_as_none_with_every_overhead_at_zero(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = compile_platform(load_platform(write_platform(tmp_path, SMALL_PLATFORM)), tmp_path / "platform", 2)
    trace = write_ranks(tmp_path, PING_PONG)
    monkeypatch.setenv("PROGSIM_ENGINE", str(FIXTURE_ENGINE))
    times = {}
    for name, mechanism, settings in [("free", "free-calls", []), ("none at 0", "none", FREE_OVERHEADS),
                                      ("none", "none", [])]:
        run = replay(trace, compiled, mechanism, tmp_path / f"{mechanism}-{len(settings)}.json", settings=settings)
        assert run.returncode == 0, run.stderr
        times[name] = run.results["simulated_time"]
    assert times["free"] == times["none at 0"]
    assert times["free"] < times["none"]  # the fixture really ran: none's calls cost CPU time


def test_the_command_line_takes_it(tmp_path: Path) -> None:
    trace = write_ranks(tmp_path, PING_PONG)
    done = subprocess.run([sys.executable, "-m", "progsim", "replay", str(trace), "--platform",
                           str(write_platform(tmp_path, SMALL_PLATFORM)), "--progress", "free-calls"],
                          capture_output=True, text=True, cwd=REPOSITORY,
                          env={**os.environ, "PROGSIM_ENGINE": str(FIXTURE_ENGINE)})
    assert done.returncode == 0, done.stderr
    assert "free-calls" in done.stdout + done.stderr
