"""The benchmark script keeps working (its figures are printed, never asserted: speed is not a test)."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

from conftest import REPOSITORY

sys.path.insert(0, str(REPOSITORY / "scripts"))

from benchmark_report import CSV_COLUMNS, Measure, Row, summary  # noqa: E402


def test_benchmark_runs_on_a_tiny_ring_and_checks_ideal_against_smpi(tmp_path) -> None:
    done = subprocess.run([sys.executable, "scripts/benchmark.py", "--ranks", "8", "--iterations", "2",
                           "--workdir", str(tmp_path)], cwd=REPOSITORY, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    for tool in ("ideal", "none", "thread", "dedicated-core", "offload", "smpi"):
        assert f" {tool} " in done.stdout
    assert "check N=8: ideal" in done.stdout and "OK" in done.stdout


def test_spare_cores_leave_the_ranks_where_they_were_on_nodes_with_more_cores(tmp_path) -> None:
    """--spare-cores 1: dedicated-core reserves a core no rank holds, as deployed; the ranks stay 16 to a node."""
    done = subprocess.run([sys.executable, "scripts/benchmark.py", "--ranks", "20", "--iterations", "2", "--bytes",
                           "1KiB", "--progress", "dedicated-core", "--skip-smpi", "--spare-cores", "1", "--workdir",
                           str(tmp_path)], cwd=REPOSITORY, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    compiled = tmp_path / "n20" / "compiled-spare"
    hosts = compiled.joinpath("hostfile").read_text().split()
    assert len(hosts) == 20 and len(set(hosts[:16])) == 1 and len(set(hosts[16:])) == 1 and hosts[16] != hosts[15]
    assert (tmp_path / "n20" / "compiled" / "hostfile").read_text().split() == hosts
    xml = compiled.joinpath("platform.xml").read_text()
    assert xml.count('core="17"') == 2 and 'core="16"' not in xml  # both nodes kept, one core more each
    assert " dedicated-core " in done.stdout


def test_benchmark_draws_curves_over_two_sizes_and_keeps_a_csv(tmp_path) -> None:
    table, png = tmp_path / "curves.csv", tmp_path / "curves.png"
    done = subprocess.run([sys.executable, "scripts/benchmark.py", "--ranks", "8", "16", "--bytes", "1024", "1MiB",
                           "--iterations", "2", "--progress", "ideal", "none", "--csv", str(table), "--plot", str(png)],
                          cwd=REPOSITORY, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    with table.open(newline="") as source:
        reader = csv.DictReader(source)
        assert reader.fieldnames == CSV_COLUMNS
        rows = list(reader)
    tools = ("ideal", "none", "smpi")
    assert [(int(r["ranks"]), int(r["bytes"]), r["tool"]) for r in rows] == \
        [(n, size, tool) for n in (8, 16) for size in (1024, 1 << 20) for tool in tools]
    for row in rows:
        ranks, wall = int(row["ranks"]), float(row["wall_s"])
        assert int(row["actions"]) == ranks * (5 * 2 + 2) and row["error"] == ""
        assert wall > 0 and float(row["peak_rss_mib"]) > 0 and float(row["sim_time_s"]) > 0
        assert abs(float(row["actions_per_s"]) * wall - int(row["actions"])) < 1e-6 * int(row["actions"])
        assert float(row["vs_smpi"]) > 0 and (row["tool"] != "smpi" or float(row["vs_smpi"]) == 1.0)

    from matplotlib.image import imread
    height, width, _ = imread(png).shape
    assert (width, height) == (2 * 550, 850)  # two columns of panels (one per size), two rows
    panels = [f"{size} messages ({protocol}): {what}" for what in ("replay speed", "peak memory")
              for size, protocol in (("1 KiB", "eager"), ("1 MiB", "rendezvous"))]
    assert f"(panels: {'; '.join(panels)})" in done.stdout

    assert "summary: each mechanism's speed" in done.stdout
    summary_lines = [line.split() for line in done.stdout.split("summary:")[1].splitlines()[2:]
                     if line.strip() and not line.startswith(("plot:", "csv:", "check"))]
    assert [line[:3] for line in summary_lines] == \
        [[str(n), size, tool] for n in (8, 16) for size in ("1KiB", "1MiB") for tool in ("ideal", "none")]
    assert all(line[-2:] == ["no", "target"] for line in summary_lines)  # 8 and 16 ranks have none
    for n in (8, 16):
        for size in ("1KiB", "1MiB"):
            assert any(line.startswith(f"check N={n}: ideal") and f"with {size} messages" in line
                       and line.endswith("OK") for line in done.stdout.splitlines())


def test_benchmark_summary_marks_the_issue_targets() -> None:
    def row(ranks: int, tool: str, wall: float, rss_mib: float) -> Row:
        return Row(ranks, 1024, ranks * 10, tool, Measure(wall, int(rss_mib * 1024), 1.0))

    rows = [row(1024, "ideal", 1.0, 50), row(1024, "thread", 3.0, 50), row(1024, "smpi", 2.0, 70),
            row(16384, "none", 1.0, 900), row(16384, "offload", 1.0, 500), row(16384, "smpi", 3.0, 600),
            row(64, "ideal", 1.0, 30), row(64, "smpi", 1.0, 30),
            Row(4096, 1024, 4096 * 10, "ideal", Measure(1.0, None, None, "exit 1: boom")), row(4096, "smpi", 1.0, 80)]
    header, body = summary(rows)
    verdicts = {(line[0], line[2]): (line[3], line[header.index("verdict")]) for line in body}
    assert verdicts == {("1024", "ideal"): ("2.00x", "target met"),
                        ("1024", "thread"): ("0.67x", "target missed (speed)"),
                        ("16384", "none"): ("3.00x", "target missed (memory)"),
                        ("16384", "offload"): ("3.00x", "target met"),
                        ("64", "ideal"): ("1.00x", "no target"),
                        ("4096", "ideal"): ("-", "FAILED")}


def test_benchmark_summary_holds_a_million_ranks_to_half_an_hour_and_16_gib() -> None:
    def row(tool: str, wall: float, rss_mib: float) -> Row:
        return Row(1 << 20, 1024, 152 << 20, tool, Measure(wall, int(rss_mib * 1024), 1.0))

    rows = [row("ideal", 600.0, 9000), row("none", 1900.0, 9000), row("thread", 900.0, 17000),
            row("offload", 2000.0, 20000)]
    header, body = summary(rows)
    verdicts = {line[2]: (line[header.index("target")], line[header.index("verdict")]) for line in body}
    goal = "<= 30 min, RSS <= 16 GiB"
    assert verdicts == {"ideal": (goal, "target met"), "none": (goal, "target missed (time)"),
                        "thread": (goal, "target missed (memory)"),
                        "offload": (goal, "target missed (time, memory)")}


def test_application_summary_holds_long_64_rank_captures_to_a_minute() -> None:
    import benchmark_apps  # noqa: E402 (scripts/ is on the path above)

    def row(trace: str, ranks: int, actions: int, tool: str, wall: float) -> "benchmark_apps.AppRow":
        return benchmark_apps.AppRow(trace, "flat", ranks, actions, tool, Measure(wall, 10 * 1024, 1.0))

    rows = [row("suite-64", 64, 6_000_000, "thread", 80.0), row("suite-64", 64, 6_000_000, "smpi", 100.0),
            row("examl-256", 256, 5_000_000, "thread", 80.0), row("examl-256", 256, 5_000_000, "smpi", 100.0),
            row("hpl-64", 64, 300_000, "thread", 80.0), row("hpl-64", 64, 300_000, "smpi", 100.0)]
    header, body = benchmark_apps.summary(rows)
    verdicts = {line[0]: (line[header.index("target")], line[header.index("verdict")]) for line in body}
    assert verdicts == {"suite-64": (">= 1x, RSS <= SMPI, <= 60 s", "target missed (time)"),
                        "examl-256": (">= 1x, RSS <= SMPI", "target met"),
                        "hpl-64": (">= 1x, RSS <= SMPI", "target met")}


def test_application_benchmark_runs_on_a_shipped_capture() -> None:
    capture = REPOSITORY / "validation" / "real" / "hmmsearch-16"
    done = subprocess.run([sys.executable, "scripts/benchmark_apps.py", str(capture), "--progress", "ideal", "none",
                           "--platform", "flat", "--platform", "torus"], cwd=REPOSITORY, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    table = done.stdout.split("summary:")[0]
    lines = [line.split() for line in table.splitlines() if line.strip().startswith("hmmsearch-16")]
    assert [(line[3], line[4]) for line in lines] == [(tool, platform) for platform in ("flat", "torus")
                                                      for tool in ("ideal", "none", "smpi")], done.stdout
    assert all(line[1] == "16" for line in lines)
    for platform in ("flat", "torus"):
        assert f"check hmmsearch-16 on {platform}: ideal" in done.stdout
    assert "MISMATCH" not in done.stdout
    verdicts = [line for line in done.stdout.split("summary:")[1].splitlines() if line.strip().startswith("hmmsearch")]
    assert len(verdicts) == 4 and all("target" in line for line in verdicts), done.stdout


def test_a_shared_trace_file_holds_the_ranks_lines_in_turn(tmp_path) -> None:
    """The engine reads a shared file once and queues what lies ahead of each rank's next line: written rank after
    rank, the whole trace would wait in memory while rank 0 runs; written in turn, about one line per rank."""
    from progsim.workloads.tracegen import ring_lines, write_trace

    traces = ring_lines(3, 2, 100, 1e3)
    listing = write_trace(traces, tmp_path, shared=True)
    lines = open(listing.read_text().strip()).read().splitlines()
    assert sorted(lines) == sorted(line for rank in traces for line in rank)
    owners = [int(line.split()[0]) for line in lines]
    assert owners == [0, 1, 2] * len(traces[0])
    for rank, own in enumerate(traces):  # each rank's lines keep their order
        assert [line for line in lines if line.startswith(f"{rank} ")] == own


def test_the_streamed_ring_writes_the_bytes_of_the_listed_one(tmp_path) -> None:
    """The benchmark writes its ring line by line (write_ring), without the whole trace in memory: the files must be
    those that write_trace writes from ring_lines, shared or one per rank."""
    from progsim.workloads.tracegen import ring_lines, write_ring, write_trace

    for shared in (False, True):
        for ranks in (1, 2, 5):
            listed = write_trace(ring_lines(ranks, 3, 1024, 2.5e6), tmp_path / f"listed-{ranks}-{shared}", shared)
            streamed = write_ring(ranks, 3, 1024, 2.5e6, tmp_path / f"streamed-{ranks}-{shared}", shared)
            names = listed.read_text().splitlines()
            assert [Path(n).name for n in names] == [Path(n).name for n in streamed.read_text().splitlines()]
            for name, other in zip(names, streamed.read_text().splitlines()):
                assert Path(name).read_bytes() == Path(other).read_bytes(), (shared, ranks, name)
