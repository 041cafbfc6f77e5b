"""`progsim sweep`: scenario YAML sweeps (progsim/sweep/spec.py) run into one table (progsim/sweep/run.py,
progsim/sweep/tasks.py, progsim/sweep/table.py).

Expected values: on the analytic platform (tests/analytic_platform.py) one 16 MiB message takes 2 L + (S + 16) / B,
so a sweep over the NIC's bandwidth must give those times; a sweep's rows must equal what `progsim replay` and
`progsim overlap` give for the same point; an interrupted or Dask-run sweep must give the same table as an
uninterrupted local one, byte for byte.
"""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analytic_platform import BIG, ENVELOPE, LATENCY, SIMPLE_NETWORK, platform
from conftest import REPOSITORY, run_cli
from progsim.workloads.overlap import communication_alone
from progsim.workloads.tracegen import write_trace


def make_platform(folder: Path) -> None:
    (folder / "plat").mkdir(parents=True, exist_ok=True)
    platform(folder / "plat")


def scenario(folder: Path, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "sweep.yaml"
    path.write_text(body)
    return path


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def trace_scenario(tmp_path: Path, bandwidths: str = "[1.0e+9, 1.0e+10]") -> Path:
    make_platform(tmp_path)
    from progsim.workloads.overlap import Cell

    write_trace(communication_alone(Cell(BIG, 1.0, "receiver")), tmp_path / "trace")
    settings = "\n".join(f"  {s.split(':')[0]}: {s.split(':')[1]}" for s in SIMPLE_NETWORK)
    return scenario(tmp_path, f"""\
name: bandwidth
platform: plat/platform.yaml
workload: {{trace: trace/trace_list.txt}}
progress: [ideal, none]
set:
{settings}
sweep:
  platform.nics[0].bandwidth: {bandwidths}
""")


def test_a_sweep_over_the_nic_bandwidth_gives_the_transfer_times(tmp_path: Path) -> None:
    path = trace_scenario(tmp_path)
    done = run_cli("sweep", str(path), "--out", str(tmp_path / "out.csv"), "--jobs", "2")
    assert done.returncode == 0, done.stderr
    table = rows(tmp_path / "out.csv")
    assert [(r["mechanism"], r["platform.nics[0].bandwidth"]) for r in table] == [
        ("ideal", "1e+09"), ("ideal", "1e+10"), ("none", "1e+09"), ("none", "1e+10")]
    for row in table:
        bandwidth = float(row["platform.nics[0].bandwidth"])
        # ideal: SMPI's one transfer; none: the rendezvous' handshake adds two small messages and the overheads
        expected = LATENCY + (BIG + ENVELOPE) / bandwidth
        assert float(row["simulated_time"]) == pytest.approx(expected, rel=0.02), row
        assert row["error"] == ""
    assert not (tmp_path / "out.csv.partial.csv").exists()


def test_a_sweep_row_is_what_replay_gives_for_the_same_point(tmp_path: Path) -> None:
    import json

    path = trace_scenario(tmp_path, "[2.0e+9]")
    assert run_cli("sweep", str(path), "--out", str(tmp_path / "out.csv")).returncode == 0
    from progsim.sweep.spec import load_sweep

    point = load_sweep(path).points()[1]  # none, 2e9
    sets = [arg for s in point.settings for arg in ("--set", s)]
    done = run_cli("replay", str(tmp_path / "trace/trace_list.txt"), "--platform", str(point.platform),
                   "--progress", "none", "--out", str(tmp_path / "r.json"), *sets)
    assert done.returncode == 0, done.stderr
    replayed = json.loads((tmp_path / "r.json").read_text())["simulated_time"]
    assert rows(tmp_path / "out.csv")[1]["simulated_time"] == f"{replayed:.9g}"


OVERLAP = """\
name: grid
platform: plat/platform.yaml
workload:
  overlap: {side: receiver, sizes: {from: 4KiB, to: 16MiB, count: 4}, compute: [10us, 1ms, 10ms]}
progress: [none, ideal]
sweep:
  overlap.side: [sender, receiver]
"""


def test_an_overlap_sweep_has_the_rows_of_progsim_overlap(tmp_path: Path) -> None:
    make_platform(tmp_path)
    path = scenario(tmp_path, OVERLAP)
    assert run_cli("sweep", str(path), "--out", str(tmp_path / "out.csv")).returncode == 0
    table = rows(tmp_path / "out.csv")
    assert len(table) == 2 * 2 * 4 * 3
    assert [r["size_bytes"] for r in table[:12:3]] == ["4096", "65536", "1048576", "16777216"]  # log-spaced
    done = run_cli("overlap", "--platform", str(tmp_path / "plat/platform.yaml"), "--progress", "none",
                   "--side", "receiver", "--sizes", "4KiB,64KiB,1MiB,16MiB", "--compute", "10us,1ms,10ms",
                   "--csv", str(tmp_path / "overlap.csv"))
    assert done.returncode == 0, done.stderr
    direct = {(r["size_bytes"], float(r["compute_s"])): r["overhead_ratio"] for r in rows(tmp_path / "overlap.csv")}
    swept = {(r["size_bytes"], float(r["compute_s"])): r["overhead_ratio"] for r in table
             if r["mechanism"] == "none" and r["side"] == "receiver"}
    assert swept == direct
    # the literature's readings hold through the sweep too: none serializes a receiver's 16 MiB, ideal overlaps it
    big = [r for r in table if r["size_bytes"] == "16777216" and r["side"] == "receiver" and r["compute_s"] == "0.01"]
    assert {r["mechanism"]: float(r["overhead_ratio"]) for r in big} == {"none": pytest.approx(1.0, abs=0.1),
                                                                          "ideal": pytest.approx(0.0, abs=0.05)}


def test_parquet_holds_the_same_table_with_numbers_as_numbers(tmp_path: Path) -> None:
    pandas = pytest.importorskip("pandas", reason="pandas is installed by make setup")
    make_platform(tmp_path)
    path = scenario(tmp_path, OVERLAP)
    assert run_cli("sweep", str(path), "--out", str(tmp_path / "out.csv")).returncode == 0
    assert run_cli("sweep", str(path), "--out", str(tmp_path / "out.parquet")).returncode == 0
    frame = pandas.read_parquet(tmp_path / "out.parquet")
    assert frame["overhead_ratio"].dtype.kind == "f" and frame["size_bytes"].dtype.kind in "iuf"
    assert list(frame.columns) == list(rows(tmp_path / "out.csv")[0])
    from progsim.cells import read_table

    def numbers(table: list[dict[str, str]]) -> list[dict[str, object]]:
        def value(text: str) -> object:
            try:
                return float(text)
            except ValueError:
                return text
        return [{k: value(v) for k, v in row.items()} for row in table]

    assert numbers(read_table(tmp_path / "out.parquet")) == numbers(read_table(tmp_path / "out.csv"))
    drawn = run_cli("plot", str(tmp_path / "out.parquet"), "--out", str(tmp_path / "heat.png"))
    assert drawn.returncode == 0 and (tmp_path / "heat.png").read_bytes()[:4] == b"\x89PNG", drawn.stderr


def test_an_interrupted_sweep_resumes_and_gives_the_same_table(tmp_path: Path) -> None:
    make_platform(tmp_path)
    path = scenario(tmp_path, OVERLAP)
    assert run_cli("sweep", str(path), "--out", str(tmp_path / "whole.csv"), "--jobs", "1").returncode == 0
    out = tmp_path / "out.csv"
    partial = tmp_path / "out.csv.partial.csv"
    process = subprocess.Popen([sys.executable, "-m", "progsim", "sweep", str(path), "--out", str(out), "--jobs",
                                "1"], cwd=REPOSITORY, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not partial.exists() or len(partial.read_text().splitlines()) < 12):
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)  # as a lost node or a closed laptop would
    process.wait()
    done_before = len(partial.read_text().splitlines()) - 2  # the stamp and the header
    assert 10 <= done_before < 48 and not out.exists()
    again = run_cli("sweep", str(path), "--out", str(out), "--jobs", "1")
    assert again.returncode == 0, again.stderr
    assert f"{done_before} rows already done" in again.stderr
    assert out.read_bytes() == (tmp_path / "whole.csv").read_bytes()


def test_resuming_recomputes_no_finished_row_and_ignores_other_inputs(tmp_path: Path) -> None:
    make_platform(tmp_path)
    path = scenario(tmp_path, OVERLAP)
    out = tmp_path / "out.csv"
    assert run_cli("sweep", str(path), "--out", str(out)).returncode == 0
    lines = out.read_text().splitlines()
    marked = lines[1].split(",")
    column = lines[0].split(",").index("overhead_ratio")
    marked[column] = "123.0000"  # a value no replay gives: it survives only if the row is not recomputed
    from progsim.sweep.spec import load_sweep
    from progsim.sweep.table import PartialTable, inputs_digest

    spec = load_sweep(path)
    stamp = PartialTable(Path("x"), inputs_digest(spec, spec.points()), []).stamp()
    partial = tmp_path / "out.csv.partial.csv"
    partial.write_text("\n".join([stamp, lines[0], ",".join(marked)]) + "\n")
    assert run_cli("sweep", str(path), "--out", str(out)).returncode == 0
    assert rows(out)[0]["overhead_ratio"] == "123.0000"
    partial.write_text("\n".join(["# progsim sweep, inputs 0000", lines[0], ",".join(marked)]) + "\n")
    done = run_cli("sweep", str(path), "--out", str(out))
    assert "starting over" in done.stderr and rows(out)[0]["overhead_ratio"] != "123.0000"


def test_a_failed_point_is_listed_and_the_others_still_run(tmp_path: Path) -> None:
    make_platform(tmp_path)
    path = scenario(tmp_path, OVERLAP.replace("progress: [none, ideal]", "progress: [thread]")
                    .replace("overlap.side: [sender, receiver]", "set.thread-poll-interval: [1.0e-6, -1]"))
    done = run_cli("sweep", str(path), "--out", str(tmp_path / "out.csv"))
    assert done.returncode == 1, done.stderr
    table = rows(tmp_path / "out.csv")
    assert len(table) == 24
    assert all(r["error"] == "" and r["overhead_ratio"] for r in table[:12])
    assert all("thread-poll-interval" in r["error"] and r["overhead_ratio"] == "" for r in table[12:]), table[12]
    assert done.stderr.count("progsim: failed:") == 12
    assert len(rows_of_partial(tmp_path / "out.csv.partial.csv")) == 12  # a rerun retries only the failed ones


def rows_of_partial(path: Path) -> list[str]:
    return path.read_text().splitlines()[2:]


@pytest.mark.parametrize("body,where,expected", [
    ("sweep: {nonsense.axis: [1]}", "sweep.nonsense.axis", "unknown axis"),
    ("sweep:\n  platform.nics[4].bandwidth: [1e9]", "sweep.platform.nics[4].bandwidth[0]", "no [4]"),
    ("sweep: {platform.node.cores_per_numa: [0]}", "sweep.platform.node.cores_per_numa[0]", "bad platform"),
    ("sweep: {set.no-such-thing: [1]}", "sweep.set.no-such-thing", "unknown engine parameter"),
    ("sweep: {placement.ranks_per_node: [0]}", "sweep.placement.ranks_per_node[0]", "positive whole number"),
    ("sweep: {overlap.side: [up]}", "sweep.overlap.side[0]", "expected one of sender"),
    ("sweep: {progress: [none]}", "sweep.progress", "given twice"),
    ("set: {eager-threshold: [1, 2]}", "set.eager-threshold", "sweep it under 'sweep:'"),
])
def test_a_bad_sweep_is_refused_naming_its_yaml_path(tmp_path: Path, body: str, where: str, expected: str) -> None:
    make_platform(tmp_path)
    path = scenario(tmp_path, OVERLAP.replace("sweep:\n  overlap.side: [sender, receiver]\n", body + "\n"))
    done = run_cli("sweep", str(path), "--out", str(tmp_path / "out.csv"))
    assert done.returncode == 2, done.stderr
    assert f"{path}:" in done.stderr and where in done.stderr and expected in done.stderr, done.stderr
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize("old,new,where", [
    ("count: 4", "count: 0", "4: workload.overlap.sizes.count: expected a whole number"),
    ("[10us, 1ms, 10ms]", "[10us, 1MiB]", "4: workload.overlap.compute[1]: '1MiB' is not in s"),
    ("progress: [none, ideal]", "progress: [none, warp]", "5: progress[1]: unknown mechanism 'warp'"),
    ("plat/platform.yaml", "plat/missing.yaml", "2: platform: no such platform file"),
])
def test_a_bad_workload_names_its_path(tmp_path: Path, old: str, new: str, where: str) -> None:
    make_platform(tmp_path)
    path = scenario(tmp_path, OVERLAP.replace(old, new))
    done = run_cli("sweep", str(path), "--out", str(tmp_path / "out.csv"))
    assert done.returncode == 2 and f"{path}:{where}" in done.stderr, done.stderr


def test_a_dask_cluster_gives_the_same_table(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed", reason="dask[distributed] is installed by make setup")
    make_platform(tmp_path)
    path = scenario(tmp_path, OVERLAP)
    assert run_cli("sweep", str(path), "--out", str(tmp_path / "local.csv")).returncode == 0
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) \
            as cluster:
        done = run_cli("sweep", str(path), "--out", str(tmp_path / "dask.csv"), "--scheduler",
                       cluster.scheduler_address)
        assert done.returncode == 0, done.stderr
        assert {"reference_task", "cell_task"} <= set(cluster.scheduler.task_prefixes)  # the cluster did the work
    assert (tmp_path / "dask.csv").read_bytes() == (tmp_path / "local.csv").read_bytes()


def test_an_unreachable_scheduler_is_bad_input(tmp_path: Path) -> None:
    make_platform(tmp_path)
    path = scenario(tmp_path, OVERLAP)
    done = run_cli("sweep", str(path), "--out", str(tmp_path / "out.csv"), "--scheduler", "tcp://127.0.0.1:9",
                   "--scheduler-timeout", "1")
    assert done.returncode == 2 and "cannot reach a Dask scheduler" in done.stderr, done.stderr


@pytest.mark.parametrize("path", sorted((REPOSITORY / "scenarios").glob("*.yaml")), ids=lambda p: p.name)
def test_every_shipped_scenario_is_a_valid_sweep(path: Path) -> None:
    from progsim.sweep.spec import load_sweep

    spec = load_sweep(path)
    assert spec.points() and all(p.mechanism for p in spec.points())


def test_a_sweep_over_traces_replays_each(tmp_path: Path) -> None:
    """Two traces of one message each, 1 MiB and 16 MiB: under ideal each takes 2 L + (S + 16) / B."""
    from progsim.workloads.overlap import Cell

    make_platform(tmp_path)
    for name, size in (("small", 1 << 20), ("big", BIG)):
        write_trace(communication_alone(Cell(size, 1.0, "receiver")), tmp_path / name)
    path = scenario(tmp_path, """\
name: traces
platform: plat/platform.yaml
workload: {trace: small/trace_list.txt}
progress: [ideal]
set: {network/model: CM02, network/crosstraffic: 0}
sweep:
  trace: [small/trace_list.txt, big/trace_list.txt]
""")
    done = run_cli("sweep", str(path), "--out", str(tmp_path / "out.csv"))
    assert done.returncode == 0, done.stderr
    table = rows(tmp_path / "out.csv")
    assert [r["trace"] for r in table] == ["small/trace_list.txt", "big/trace_list.txt"]
    from analytic_platform import NIC_BANDWIDTH

    for row, size in zip(table, (1 << 20, BIG)):
        assert float(row["simulated_time"]) == pytest.approx(LATENCY + (size + ENVELOPE) / NIC_BANDWIDTH, rel=0.02)
