"""The point-to-point overlap benchmark (progsim/workloads/overlap.py) and the metrics of Reynier 2022, section 4.1.

Expected values: the metrics' definitions (eq. 4.1, 4.3, 4.4) on hand-made times, and, on a 2-node platform whose
16 MiB transfer takes T_DATA (tests/analytic_platform.py), the behaviours the design notes measured on real
libraries (../shared/design.md, "Protocols"): computation on the receiver serializes a rendezvous when only MPI calls
progress it (r = 1); computation on the sender overlaps when the receiver pulls (rendezvous get), not when the
sender must push (put); perfect progression (`ideal`) and a reserved core overlap (r = 0); MPI_Test calls inside the
computation let the receiver start the pull early (r close to 1 / (tests + 1)).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analytic_platform import BIG, SIMPLE_NETWORK, SPEED, T_DATA, platform
from progsim.platform import compile_platform, load_platform
from progsim.workloads.overlap import Cell, RankMetrics, computation_alone, measure, overlapped, summary

BALANCED = SPEED * T_DATA  # flops that take as long as the transfer


def test_the_metrics_are_the_thesis_formulas() -> None:
    serialized = RankMetrics(rank=1, t_measured=3.0, t_comp_ref=2.0, t_comm_ref=1.0, t_comp=2.0, t_mpi=1.0)
    assert serialized.overhead_ratio == 1.0  # t_comp_ref + t_comm_ref
    assert serialized.computation_slowdown == 1.0 and serialized.communication_ratio == 1.0
    perfect = RankMetrics(rank=1, t_measured=2.0, t_comp_ref=2.0, t_comm_ref=1.0, t_comp=2.0, t_mpi=0.0)
    assert perfect.overhead_ratio == 0.0 and perfect.communication_ratio == 0.0
    slowed = RankMetrics(rank=0, t_measured=4.0, t_comp_ref=2.0, t_comm_ref=1.0, t_comp=2.5, t_mpi=1.5)
    assert slowed.overhead_ratio == 2.0 and slowed.computation_slowdown == 1.25
    spread = summary([serialized, perfect, slowed])["overhead_ratio"]
    assert (spread.median, spread.minimum, spread.maximum) == (1.0, 0.0, 2.0)


def test_the_traces_compute_on_the_chosen_side_between_the_post_and_the_wait() -> None:
    cell = Cell(message_bytes=1000, flops=300.0, side="receiver", tests=2)
    sender, receiver = overlapped(cell)
    assert sender == ["0 init", "0 isend 1 0 1000", "0 wait 0 1 0", "0 finalize"]
    assert receiver == ["1 init", "1 irecv 0 0 1000", "1 compute 100", "1 test 0 1 0", "1 compute 100",
                        "1 test 0 1 0", "1 compute 100", "1 wait 0 1 0", "1 finalize"]
    assert computation_alone(Cell(1000, 300.0, "both")) == [["0 init", "0 compute 300", "0 finalize"],
                                                            ["1 init", "1 compute 300", "1 finalize"]]
    with pytest.raises(ValueError):
        Cell(1000, 300.0, "nobody")


def overhead(tmp_path: Path, progress: str, side: str, rendezvous: str = "get", tests: int = 0) -> float:
    compiled = compile_platform(load_platform(platform(tmp_path, rendezvous=rendezvous)), tmp_path / "plat", 2)
    metrics = measure(Cell(BIG, BALANCED, side, tests), compiled, progress, tmp_path / "runs", SIMPLE_NETWORK)
    assert all(m.t_comm_ref == pytest.approx(T_DATA, rel=0.05) for m in metrics)
    assert all(m.t_comp_ref == pytest.approx(T_DATA, rel=1e-6) for m in metrics)
    return summary(metrics)["overhead_ratio"].median


@pytest.mark.parametrize("progress,side,rendezvous,expected", [
    ("ideal", "receiver", "get", 0.0),
    ("ideal", "sender", "put", 0.0),
    ("none", "receiver", "get", 1.0),        # serialized in every library
    ("none", "sender", "get", 0.0),          # the receiver, blocked in its wait, pulls
    ("none", "sender", "put", 1.0),          # the sender must push: nothing moves while it computes
    ("dedicated-core", "receiver", "get", 0.0),
])
def test_overhead_ratio_of_a_balanced_16_mib_cell(tmp_path: Path, progress: str, side: str, rendezvous: str,
                                                  expected: float) -> None:
    assert overhead(tmp_path, progress, side, rendezvous) == pytest.approx(expected, abs=0.08)


def test_tests_inside_the_computation_start_the_transfer_early(tmp_path: Path) -> None:
    # The first MPI_Test, after 1/10 of the computation, answers the request-to-send: the pull runs on its own.
    r = overhead(tmp_path, "none", "receiver", tests=9)
    assert r == pytest.approx(0.1, abs=0.06)


@pytest.mark.parametrize("progress", ["none", "thread", "dedicated-core", "offload", "ideal"])
def test_tests_after_the_request_completed_are_ignored(tmp_path: Path, progress: str) -> None:
    """A 2 MiB message completes at one of the first of 9 tests; the trace still tests it 7 more times and waits
    for it, as a trace captured where the message took longer would. SMPI's replay means to ignore those calls (its
    comment in smpi_replay.cpp, TestAction), though 3.32 aborts on the wait when nothing else is pending ("action
    wait not preceded by any irecv or isend"): progsim ignores them."""
    cell = Cell(BIG // 8, BALANCED, "receiver", tests=9)
    compiled = compile_platform(load_platform(platform(tmp_path)), tmp_path / "plat", 2)
    metrics = measure(cell, compiled, progress, tmp_path / "runs", SIMPLE_NETWORK)
    assert metrics[0].t_comp == pytest.approx(metrics[0].t_comp_ref, rel=1e-3)  # a progress thread polls a little
    if progress == "ideal":  # the first test, at 1/10 of the computation, comes before the data: it fails and pays
        assert metrics[0].t_mpi == pytest.approx(1e-4)  # SMPI's smpi/test sleep; the second finds it done
    else:
        assert metrics[0].overhead_ratio < 0.1  # the ignored calls cost only their call overhead


def test_the_overlap_command_writes_its_table(tmp_path: Path) -> None:
    import csv

    from conftest import run_cli

    yaml = platform(tmp_path)
    out = tmp_path / "cells.csv"
    done = run_cli("overlap", "--platform", str(yaml), "--progress", "none", "ideal", "--sizes", "16MiB",
                   "--compute", "1ms,10ms", "--set", "network/model:CM02", "--set", "network/crosstraffic:0",
                   "--csv", str(out))
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(out.open()))
    assert [(r["mechanism"], r["compute_s"]) for r in rows] == [("none", "0.001"), ("none", "0.01"),
                                                               ("ideal", "0.001"), ("ideal", "0.01")]
    ratios = {(r["mechanism"], r["compute_s"]): float(r["overhead_ratio"]) for r in rows}
    # The receiver computes: serialized under none, overlapped under ideal (as in the balanced cells above).
    assert ratios[("none", "0.001")] == pytest.approx(1.0, abs=0.08)
    assert ratios[("none", "0.01")] == pytest.approx(1.0, abs=0.08)
    assert ratios[("ideal", "0.001")] == pytest.approx(0.0, abs=0.08)
    assert "overhead_ratio" in done.stdout


def test_the_overlap_command_names_a_bad_size(tmp_path: Path) -> None:
    from conftest import run_cli

    done = run_cli("overlap", "--platform", str(platform(tmp_path)), "--sizes", "16MiB,lots")
    assert done.returncode == 2
    assert "--sizes 16MiB,lots" in done.stderr


def test_the_plot_command_draws_png_and_svg(tmp_path: Path) -> None:
    from conftest import run_cli

    cells = tmp_path / "cells.csv"
    cells.write_text("mechanism,side,size_bytes,compute_s,tests,overhead_ratio\n"
                     "none,receiver,4096,0.001,0,0.98\nnone,receiver,16777216,0.001,0,1.02\n"
                     "none,receiver,4096,0.01,0,0.5\nnone,receiver,16777216,0.01,0,\n"
                     "ideal,receiver,4096,0.001,0,0\nideal,receiver,16777216,0.001,0,0\n")
    png, svg = tmp_path / "heat.png", tmp_path / "heat.svg"
    done = run_cli("plot", str(cells), "--out", str(png), str(svg), "--title", "test platform, receiver")
    assert done.returncode == 0, done.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = svg.read_text()
    for label in ("test platform, receiver", "none, receiver computes", "ideal, receiver computes", "16 MiB", "10 ms",
                  "0.98", "failed"):  # the empty cell of a failed point is marked, not coloured
        assert label in text, label
    bad = run_cli("plot", str(tmp_path / "nothing.csv"), "--out", str(png))
    assert bad.returncode == 2 and "nothing.csv" in bad.stderr


def test_a_failing_mechanism_is_listed_and_the_other_cells_still_run(tmp_path: Path) -> None:
    import csv

    from conftest import run_cli

    # One core per node: dedicated-core cannot reserve one (bad input for every cell); none runs.
    yaml = platform(tmp_path, cores=1)
    out = tmp_path / "cells.csv"
    done = run_cli("overlap", "--platform", str(yaml), "--progress", "dedicated-core", "none", "--sizes", "1MiB",
                   "--compute", "1ms", "--csv", str(out))
    assert done.returncode == 1
    rows = {r["mechanism"]: r for r in csv.DictReader(out.open())}
    assert rows["dedicated-core"]["overhead_ratio"] == "" and "failed" in rows["dedicated-core"]["error"]
    assert rows["none"]["error"] == "" and float(rows["none"]["overhead_ratio"]) > 0.5
    assert "FAILED" in done.stdout


def test_an_interrupted_grid_resumes_without_recomputing_its_finished_cells(tmp_path: Path) -> None:
    import csv

    from conftest import run_cli
    from progsim.sweep.spec import overlap_sweep
    from progsim.sweep.table import PartialTable, inputs_digest

    yaml = platform(tmp_path)
    out = tmp_path / "cells.csv"
    grid = ["overlap", "--platform", str(yaml), "--progress", "none", "--sizes", "1MiB,16MiB", "--compute",
            "1ms,10ms", "--csv", str(out)]
    first = run_cli(*grid)
    assert first.returncode == 0, first.stderr
    complete = list(csv.reader(out.open()))
    partial = tmp_path / "cells.csv.partial.csv"
    assert not partial.exists()
    # What an interruption leaves: no final table, a partial one holding two finished cells (marked 9.9999 here, so
    # that a recomputed cell would show), stamped with the digest of the same inputs.
    out.unlink()
    column = complete[0].index("overhead_ratio")
    marked = [row[:column] + ["9.9999"] + row[column + 1:] for row in complete[1:3]]
    spec = overlap_sweep(yaml, yaml, ["none"], ["receiver"], [1 << 20, 16 << 20], [1e-3, 1e-2], 0, None, [],
                         "overlap")
    stamp = PartialTable(partial, inputs_digest(spec, spec.points()), complete[0]).stamp()
    with partial.open("w", newline="") as handle:
        handle.write(stamp + "\n")
        csv.writer(handle).writerows([complete[0], *marked])
    resumed = run_cli(*grid)
    assert resumed.returncode == 0, resumed.stderr
    assert "2 rows already done" in resumed.stderr
    assert list(csv.reader(out.open())) == [complete[0], *marked, *complete[3:]]
    assert not partial.exists()


def test_the_plot_command_checks_every_image_it_writes(tmp_path: Path) -> None:
    from conftest import run_cli

    cells = tmp_path / "cells.csv"
    cells.write_text("mechanism,side,size_bytes,compute_s,tests,overhead_ratio\nnone,receiver,4096,0.001,0,0.98\n")
    twice = run_cli("plot", str(cells), "--out", str(tmp_path / "a.png"), str(tmp_path / "a.png"))
    assert twice.returncode == 2 and "name the same file" in twice.stderr, twice.stderr
    nowhere = run_cli("plot", str(cells), "--out", str(tmp_path / "no" / "a.png"), str(tmp_path / "b.png"))
    assert nowhere.returncode == 2 and "does not exist" in nowhere.stderr, nowhere.stderr
    assert not (tmp_path / "b.png").exists()


def test_the_plot_command_refuses_a_file_that_is_no_table(tmp_path: Path) -> None:
    from conftest import run_cli

    bad = tmp_path / "cells.parquet"
    bad.write_bytes(b"\x80\x81 not parquet")
    done = run_cli("plot", str(bad), "--out", str(tmp_path / "heat.png"))
    assert done.returncode == 2 and f"{bad}: not a readable Parquet table" in done.stderr, done.stderr
