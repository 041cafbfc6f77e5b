"""Same inputs, same outputs byte for byte; result files hold what the issue asks for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import REPOSITORY, run_cli

TRACE = "validation/traces/halo2d-256k-64/trace_list.txt"


def run(tmp_path: Path, progress: str, name: str) -> tuple[bytes, bytes]:
    out, timeline = tmp_path / f"{name}.json", tmp_path / f"{name}.jsonl"
    done = run_cli("replay", TRACE, "--platform", "platforms/bora.yaml", "--progress", progress,
                   "--out", str(out), "--timeline", str(timeline), "--set", "dedicated-cores:1")
    if done.returncode == 2 and "do not fit" in done.stderr:
        pytest.fail(done.stderr)
    assert done.returncode == 0, done.stderr
    return out.read_bytes(), timeline.read_bytes()


@pytest.fixture
def bora_with_room(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """bora holds one rank per node; the 64-rank trace needs eight."""
    text = (REPOSITORY / "platforms" / "bora.yaml").read_text()
    platforms = tmp_path / "platforms"
    platforms.mkdir()
    lines = [line for line in text.splitlines()]
    out = []
    for line in lines:
        if line.strip().startswith("ranks_per_node:"):
            line = line.split("ranks_per_node:")[0] + "ranks_per_node: 8"
        out.append(line)
    (platforms / "bora.yaml").write_text("\n".join(out) + "\n")
    monkeypatch.chdir(REPOSITORY)
    monkeypatch.setattr("conftest.REPOSITORY", REPOSITORY)
    return platforms / "bora.yaml"


@pytest.mark.parametrize("progress", ["ideal", "none", "thread", "dedicated-core", "offload"])
def test_two_runs_give_identical_bytes(tmp_path: Path, bora_with_room: Path, progress: str) -> None:
    global TRACE
    first = run_cli("replay", TRACE, "--platform", str(bora_with_room), "--progress", progress,
                    "--out", str(tmp_path / "a.json"), "--timeline", str(tmp_path / "a.jsonl"))
    second = run_cli("replay", TRACE, "--platform", str(bora_with_room), "--progress", progress,
                     "--out", str(tmp_path / "b.json"), "--timeline", str(tmp_path / "b.jsonl"))
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert first.stdout == second.stdout


def test_results_hold_per_rank_figures_and_parameters(tmp_path: Path, bora_with_room: Path) -> None:
    out = tmp_path / "r.json"
    done = run_cli("replay", TRACE, "--platform", str(bora_with_room), "--progress", "none", "--out", str(out))
    assert done.returncode == 0, done.stderr
    results = json.loads(out.read_text())
    assert results["progress"] == "none" and results["ranks_count"] == 64
    ranks = results["ranks"]
    assert results["simulated_time"] == max(r["end_time"] for r in ranks)
    for r in ranks:
        assert set(r) >= {"end_time", "compute_time", "mpi_time", "wait_time", "progress_cpu_time", "bytes_sent"}
        # Time in the trace is either computing or inside MPI, and blocked time is part of MPI time.
        assert r["compute_time"] + r["mpi_time"] == pytest.approx(r["end_time"], rel=1e-9)
        assert r["wait_time"] <= r["mpi_time"] + 1e-12
        assert r["bytes_sent"] > 0
    names = {p["name"]: p for p in results["parameters"]}
    assert names["eager-threshold"]["value"] == 64000 and names["eager-threshold"]["unit"] == "B"
    assert names["rendezvous"]["value"] == "put"  # bora's Omni-Path with PSM2: sender-driven rendezvous
    assert results["simgrid"]["network/model"] == "SMPI"
    assert results["platform_source"] == str(bora_with_room)
    assert "simulated time" in done.stdout


def test_the_timeline_records_every_state_change_in_time_order(tmp_path: Path, bora_with_room: Path) -> None:
    timeline = tmp_path / "t.jsonl"
    done = run_cli("replay", TRACE, "--platform", str(bora_with_room), "--progress", "none",
                   "--timeline", str(timeline))
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in timeline.read_text().splitlines()]
    assert [e["t"] for e in events] == sorted(e["t"] for e in events)
    states = [e for e in events if "state" in e]
    assert {e["state"] for e in states} >= {"mpi", "computing", "blocked", "finished"}
    assert sum(1 for e in states if e["state"] == "finished") == 64
    assert all("line" in e for e in states if e["state"] == "computing")
    steps = [e for e in events if "step" in e]
    assert steps and {e["by"] for e in steps} == {"rank"}  # under `none` the ranks run every step themselves


def test_results_name_the_build_the_command_and_every_input_with_its_checksum(tmp_path: Path,
                                                                              bora_with_room: Path) -> None:
    import hashlib
    import subprocess

    out = tmp_path / "r.json"
    done = run_cli("replay", TRACE, "--platform", str(bora_with_room), "--progress", "thread", "--out", str(out))
    assert done.returncode == 0, done.stderr
    results = json.loads(out.read_text())
    commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True,
                            cwd=REPOSITORY).stdout.strip()
    assert results["progsim"]["commit"] == commit  # `make setup` configures the build at the checked-out commit
    assert results["progsim"]["version"] == "0.1.0"
    assert "--cfg=progsim/progress:thread" in results["command"]
    roles = [entry["role"] for entry in results["inputs"]]
    assert roles[:3] == ["platform", "hostfile", "trace"] and roles.count("rank trace") == 64
    for entry in results["inputs"]:
        assert entry["sha1"] == hashlib.sha1(Path(entry["path"]).read_bytes()).hexdigest()
    kinds = {p["name"]: type(p["value"]) for p in results["parameters"]}
    assert kinds["overhead-send"] is float and kinds["poll-in-wait"] is bool and kinds["progress"] is str


@pytest.mark.parametrize("target", ["list", "rank", "platform"])
def test_an_output_naming_an_input_is_refused_before_anything_is_written(tmp_path: Path, target: str) -> None:
    from conftest import write_ranks

    trace = write_ranks(tmp_path, ["0 init\n0 send 1 0 8\n0 finalize", "1 init\n1 recv 0 0 8\n1 finalize"])
    platform = tmp_path / "laptop.yaml"
    platform.write_bytes((REPOSITORY / "platforms" / "laptop-2core.yaml").read_bytes())
    victim = {"list": trace, "rank": tmp_path / "rank-1.txt", "platform": platform}[target]
    before = victim.read_bytes()
    flag = "--timeline" if target == "rank" else "--out"
    done = run_cli("replay", str(trace), "--platform", str(platform), "--progress", "none", flag, str(victim))
    assert done.returncode == 2, done.stderr
    assert victim.name in done.stderr and "input" in done.stderr
    assert victim.read_bytes() == before
