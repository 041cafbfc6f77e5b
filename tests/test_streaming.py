"""Streamed traces end to end: a bad line deep inside stops the run before time 0, gzip files replay as their
text, more per-rank files than open descriptors, a shared file as its per-rank files, and the deadlock report's
trace lines. Expected values come from the same trace replayed another way (plain, per-rank, without limits)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import time
from pathlib import Path

from conftest import REPOSITORY, write_platform, write_ranks
from progsim.engine import smpi_tool
from progsim.engine_info import engine_binary

PLATFORM = """\
    name: streaming
    nodes: {nodes}
    node: {{sockets: 1, numa_per_socket: 1, cores_per_numa: 16, core_speed: 1.0e+9,
           memory: {{bandwidth: 1.0e+10, latency: 1.0e-7}}}}
    nics: [{{numa: 0, bandwidth: 1.0e+10, latency: 1.0e-6}}]
    interconnect: {{topology: flat, link: {{bandwidth: 1.0e+10, latency: 1.0e-7}}}}
    mpi: {{eager_threshold: 65536, rendezvous: get}}
    placement: {{policy: block}}
    """


def ring(rank: int, ranks: int, iterations: int, size: int = 100000) -> str:
    right, left = (rank + 1) % ranks, (rank - 1) % ranks
    lines = [f"{rank} init"]
    for i in range(iterations):
        lines += [f"{rank} irecv {left} {i} {size}", f"{rank} isend {right} {i} {size}",
                  f"{rank} compute {100000 + 1000 * rank}", f"{rank} wait {left} {rank} {i}",
                  f"{rank} wait {rank} {right} {i}"]
    lines.append(f"{rank} finalize")
    return "\n".join(lines) + "\n"


def replay(trace: Path, platform: Path, out: Path, progress: str = "none", limit: int | None = None,
           ) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "progsim", "replay", str(trace), "--platform", str(platform), "--progress",
               progress, "--out", str(out)]
    if limit is not None:  # soft and hard limit of open files, for the engine the CLI starts
        command = ["bash", "-c", f'ulimit -n {limit} && exec "$@"', "bash", *command]
    return subprocess.run(command, capture_output=True, text=True, cwd=REPOSITORY)


def results(out: Path) -> dict:
    data = json.loads(out.read_text())
    return {"time": data["simulated_time"], "ranks": data["ranks"]}


def platform(tmp_path: Path, ranks: int) -> Path:
    return write_platform(tmp_path, PLATFORM.format(nodes=max(1, -(-ranks // 16))))


def test_a_bad_line_deep_inside_a_compressed_file_stops_before_time_0(tmp_path: Path) -> None:
    lines = ring(1, 2, 40000).splitlines(keepends=True)  # 200 002 lines
    bad = 150001
    lines.insert(bad - 1, "1 isend 0 7 lots\n")
    with gzip.open(tmp_path / "rank-1.txt.gz", "wt") as out:
        out.writelines(lines)
    (tmp_path / "rank-0.txt").write_text(ring(0, 2, 40000))
    listing = tmp_path / "list.txt"
    listing.write_text(f"{tmp_path}/rank-0.txt\n{tmp_path}/rank-1.txt.gz\n")
    start = time.perf_counter()
    done = replay(listing, platform(tmp_path, 2), tmp_path / "results.json")
    assert done.returncode == 2, done.stderr
    assert f"{tmp_path}/rank-1.txt.gz:{bad}: 'lots' is not a number (count)" in done.stderr
    assert not (tmp_path / "results.json").exists()
    # Found by the check before time 0: a replay of these 400 000 actions would take far longer than reading them.
    assert time.perf_counter() - start < 60


def test_gzip_compressed_files_replay_as_their_text(tmp_path: Path) -> None:
    ranks = [ring(r, 4, 30) for r in range(4)]
    plain = write_ranks(tmp_path, ranks)
    packed = tmp_path / "packed"
    packed.mkdir()
    for r, text in enumerate(ranks):
        with gzip.open(packed / f"rank-{r}.txt.gz", "wt") as out:
            out.write(text)
    (packed / "list.txt").write_text("".join(f"rank-{r}.txt.gz\n" for r in range(4)))  # beside the list
    plat = platform(tmp_path, 4)
    for progress in ("none", "thread"):
        a = replay(plain, plat, tmp_path / f"plain-{progress}.json", progress)
        b = replay(packed / "list.txt", plat, tmp_path / f"packed-{progress}.json", progress)
        assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
        assert results(tmp_path / f"plain-{progress}.json") == results(tmp_path / f"packed-{progress}.json")


def test_more_rank_files_than_open_descriptors(tmp_path: Path) -> None:
    ranks = 600
    listing = write_ranks(tmp_path, [ring(r, ranks, 3, size=1000) for r in range(ranks)])
    plat = platform(tmp_path, ranks)
    free = replay(listing, plat, tmp_path / "free.json")
    limited = replay(listing, plat, tmp_path / "limited.json", limit=200)
    assert free.returncode == 0, free.stderr
    assert limited.returncode == 0, limited.stderr
    assert results(tmp_path / "free.json") == results(tmp_path / "limited.json")


def test_a_shared_file_replays_as_its_per_rank_files(tmp_path: Path) -> None:
    ranks = [ring(r, 4, 25).splitlines() for r in range(4)]
    listing = write_ranks(tmp_path, ["\n".join(lines) for lines in ranks])
    # Interleaved as a trace written in time order would be: one line of each rank in turn.
    shared = tmp_path / "shared.txt"
    shared.write_text("".join(f"{lines[i]}\n" for i in range(len(ranks[0])) for lines in ranks))
    plat = platform(tmp_path, 4)
    for progress in ("none", "dedicated-core"):
        a = replay(listing, plat, tmp_path / f"list-{progress}.json", progress)
        b = replay(shared, plat, tmp_path / f"shared-{progress}.json", progress)
        assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
        assert results(tmp_path / f"list-{progress}.json") == results(tmp_path / f"shared-{progress}.json")


def test_the_deadlock_report_names_each_rank_trace_line(tmp_path: Path) -> None:
    # Both ranks receive first, deep inside long traces: the report names the lines where they wait.
    head = [ring(r, 2, 2000, size=1000).splitlines()[:-1] for r in range(2)]  # 10 001 lines, finalize dropped
    texts = ["\n".join(lines + [f"{r} recv {1 - r} 9 10", f"{r} send {1 - r} 9 10", f"{r} finalize"])
             for r, lines in enumerate(head)]
    listing = write_ranks(tmp_path, texts)
    done = replay(listing, platform(tmp_path, 2), tmp_path / "results.json")
    assert done.returncode == 3, done.stderr
    for r in range(2):
        assert f"in 'recv' at {tmp_path}/rank-{r}.txt:10002" in done.stderr, done.stderr
    assert not (tmp_path / "results.json").exists()


def test_a_shared_file_written_by_smpirun_replays_as_the_per_rank_capture(tmp_path: Path) -> None:
    # smpirun -trace-ti with tracing/smpi/format/ti-one-file writes every rank's lines into one file, in the order
    # the ranks ran them: the shared-file reader on a real, interleaved file. The program and its arguments are those
    # of the shipped per-rank capture validation/traces/halo2d-32k-64 (scripts/capture_traces.sh).
    platform_dir = tmp_path / "plat"
    emitted = subprocess.run(["bash", "scripts/capture_traces.sh", "--emit-platform", str(platform_dir)],
                             cwd=REPOSITORY, capture_output=True, text=True)
    assert emitted.returncode == 0, emitted.stderr
    built = subprocess.run([smpi_tool("smpicc"), "-O2", str(REPOSITORY / "validation/apps/halo2d.c"), "-o",
                            str(tmp_path / "halo2d")], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    captured = subprocess.run([smpi_tool("smpirun"), "-np", "64", "-platform", str(platform_dir / "platform.xml"), "-hostfile",
                               str(platform_dir / "hostfile"), "-trace-ti", "--cfg=tracing/filename:ti",
                               "--cfg=tracing/smpi/format/ti-one-file:yes", "--cfg=smpi/simulate-computation:no",
                               "./halo2d", "8", "8", "10", "32768", "5", "256"],
                              cwd=tmp_path, capture_output=True, text=True)
    assert captured.returncode == 0, captured.stderr[-2000:]
    listing = tmp_path / "ti"  # a list of one entry: the shared file
    shared = tmp_path / listing.read_text().split()[0]
    first_ranks = [line.split()[0] for line in shared.read_text().splitlines()[:64]]
    assert len(set(first_ranks)) > 1  # interleaved, not sorted by rank

    def simulated(trace: Path, progress: str) -> float:
        done = subprocess.run([str(engine_binary()), str(platform_dir / "platform.xml"), str(platform_dir / "hostfile"),
                               str(trace), f"--cfg=progsim/progress:{progress}", "--log=root.thres:critical",
                               f"--cfg=progsim/out:{tmp_path / 'r.json'}"], capture_output=True, text=True,
                              cwd=REPOSITORY)
        assert done.returncode == 0, done.stderr
        return float(json.loads((tmp_path / "r.json").read_text())["simulated_time"])

    per_rank = REPOSITORY / "validation/traces/halo2d-32k-64/trace_list.txt"
    for progress in ("none", "thread", "ideal"):
        assert simulated(listing, progress) == simulated(per_rank, progress), progress
