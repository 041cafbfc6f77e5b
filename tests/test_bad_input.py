"""Bad input: a clear message naming the file, line or YAML path, exit status 2, and no result file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPOSITORY, SMALL_PLATFORM, run_cli, write_platform, write_ranks


TWO_RANKS = ["0 init\n0 send 1 0 100\n0 finalize", "1 init\n1 recv 0 0 100\n1 finalize"]


def replay(tmp_path: Path, trace: Path, platform: Path, progress: str = "none") -> subprocess.CompletedProcess:
    return run_cli("replay", str(trace), "--platform", str(platform), "--progress", progress,
                   "--out", str(tmp_path / "results.json"))


def test_a_malformed_trace_line_names_file_line_and_expected_form(tmp_path: Path) -> None:
    trace = write_ranks(tmp_path, ["0 init\n0 send 1 zero 100\n0 finalize", TWO_RANKS[1]])
    done = replay(tmp_path, trace, write_platform(tmp_path, SMALL_PLATFORM))
    assert done.returncode == 2
    assert f"{tmp_path}/rank-0.txt:2" in done.stderr
    assert "'zero' is not an integer (tag)" in done.stderr
    assert "expected '<rank> send <partner> <tag> <count> [datatype]'" in done.stderr
    assert not (tmp_path / "results.json").exists()


# The whole check of the trace runs beside the replay (simulator/InputCheck.cpp): whatever the replay meets first, a
# bad line is what is reported, the first one in file order, as when the check came before time 0.
COMPUTES = "0 compute 1000\n" * 3000


@pytest.mark.parametrize("case,rank_0,rank_1", [
    ("an earlier bad line in a later file", f"0 init\n{COMPUTES}0 compute lots\n0 finalize",
     "1 init\n1 send 0 oops 8\n1 finalize"),
    ("a deadlock before the bad line", f"0 init\n0 recv 1 7 8\n{COMPUTES}0 compute lots\n0 finalize",
     "1 init\n1 finalize"),
    ("invalid MPI before the bad line", f"0 init\n0 bcast 8 0\n{COMPUTES}0 compute lots\n0 finalize",
     "1 init\n1 bcast 8 1\n1 finalize"),
])
def test_the_first_bad_line_in_file_order_is_what_is_reported(tmp_path: Path, case: str, rank_0: str,
                                                              rank_1: str) -> None:
    trace = write_ranks(tmp_path, [rank_0, rank_1])
    done = run_cli("replay", str(trace), "--platform", str(write_platform(tmp_path, SMALL_PLATFORM)),
                   "--progress", "none", "--out", str(tmp_path / "results.json"),
                   "--timeline", str(tmp_path / "timeline.csv"))
    assert done.returncode == 2, done.stderr
    bad_line = rank_0.count("\n")
    assert f"{tmp_path}/rank-0.txt:{bad_line}: " in done.stderr and "'lots'" in done.stderr
    assert "rank-1.txt" not in done.stderr and "Deadlock" not in done.stderr
    assert not list(tmp_path.glob("results.json*")) and not list(tmp_path.glob("timeline.csv*"))


def test_an_unknown_action_is_named(tmp_path: Path) -> None:
    trace = write_ranks(tmp_path, ["0 init\n0 ibroadcast 100\n0 finalize", TWO_RANKS[1]])
    done = replay(tmp_path, trace, write_platform(tmp_path, SMALL_PLATFORM))
    assert done.returncode == 2
    assert "rank-0.txt:2: unknown action 'ibroadcast'" in done.stderr
    assert "writes: ibarrier ibcast ireduce iallreduce" in done.stderr


def test_a_missing_trace_file(tmp_path: Path) -> None:
    done = replay(tmp_path, tmp_path / "nowhere.txt", write_platform(tmp_path, SMALL_PLATFORM))
    assert done.returncode == 2
    assert "nowhere.txt: no such trace file" in done.stderr


def test_a_list_naming_a_missing_rank_file(tmp_path: Path) -> None:
    listing = tmp_path / "list.txt"
    listing.write_text(f"{tmp_path}/a.txt\n{tmp_path}/b.txt\n")
    (tmp_path / "a.txt").write_text("0 init\n")
    done = replay(tmp_path, listing, write_platform(tmp_path, SMALL_PLATFORM))
    assert done.returncode == 2
    assert "list.txt:2: trace file" in done.stderr and "b.txt' not found" in done.stderr


def test_more_ranks_than_the_placement_holds(tmp_path: Path) -> None:
    ranks = [f"{r} init\n{r} finalize" for r in range(3)]
    done = replay(tmp_path, write_ranks(tmp_path, ranks), write_platform(tmp_path, SMALL_PLATFORM))
    assert done.returncode == 2
    assert "3 ranks do not fit" in done.stderr and "2 nodes x 1 ranks per node" in done.stderr


def test_a_compiled_platform_with_another_rank_count(tmp_path: Path) -> None:
    compiled = tmp_path / "compiled"
    assert run_cli("platform", "compile", str(write_platform(tmp_path, SMALL_PLATFORM)), "-o", str(compiled),
                   "--ranks", "1").returncode == 0
    done = replay(tmp_path, write_ranks(tmp_path, TWO_RANKS), compiled)
    assert done.returncode == 2
    assert "hostfile: places 1 ranks but the trace has 2" in done.stderr


def test_the_engine_checks_the_hostfile_itself(tmp_path: Path, engine: Path) -> None:
    compiled = tmp_path / "compiled"
    run_cli("platform", "compile", str(write_platform(tmp_path, SMALL_PLATFORM)), "-o", str(compiled))
    (compiled / "hostfile").write_text("n0.d0\nnosuchhost\n")
    done = subprocess.run([str(engine), str(compiled / "platform.xml"), str(compiled / "hostfile"),
                           str(write_ranks(tmp_path, TWO_RANKS))], capture_output=True, text=True)
    assert done.returncode == 2
    assert "hostfile:2: host 'nosuchhost' is not in the platform" in done.stderr


def test_an_unknown_mechanism(tmp_path: Path, engine: Path) -> None:
    done = replay(tmp_path, write_ranks(tmp_path, TWO_RANKS), write_platform(tmp_path, SMALL_PLATFORM), "magic")
    assert done.returncode == 2 and "invalid choice: 'magic'" in done.stderr
    compiled = tmp_path / "compiled"
    run_cli("platform", "compile", str(write_platform(tmp_path, SMALL_PLATFORM)), "-o", str(compiled))
    direct = subprocess.run([str(engine), str(compiled / "platform.xml"), str(compiled / "hostfile"),
                             str(write_ranks(tmp_path, TWO_RANKS)), "--cfg=progsim/progress:magic"],
                            capture_output=True, text=True)
    assert direct.returncode == 2
    assert "unknown progress mechanism 'magic' (expected one of: none, thread, dedicated-core, offload, ideal)" \
        in direct.stderr


@pytest.mark.parametrize("change,expected", [
    (("cores_per_numa: 2", "cores_per_numa: 2, turbo: true"), ":3: node.turbo: unknown key 'turbo'"),
    (("cores_per_numa: 2", "cores_per_numa: many"), ":3: node.cores_per_numa: expected an integer >= 1"),
    (("rendezvous: get", "rendezvous: teleport"), ":7: mpi.rendezvous: expected one of get, put, pipelined"),
    (("topology: flat", "topology: ring"), ":6: interconnect.topology: expected one of flat, fat-tree"),
    (("{numa: 0,", "{numa: 3,"), ":5: nics[0].numa: NUMA domain 3 does not exist"),
    (("bandwidth: 1.0e+10, latency: 1.0e-6", "bandwidth: fast, latency: 1.0e-6"),
     ":5: nics[0].bandwidth: 'fast' is not a number"),
])
def test_platform_errors_name_file_line_and_yaml_path(tmp_path: Path, change: tuple[str, str], expected: str) -> None:
    text = SMALL_PLATFORM.replace(*change)
    assert text != SMALL_PLATFORM
    platform = write_platform(tmp_path, text)
    done = run_cli("platform", "check", str(platform))
    assert done.returncode == 2
    assert f"{platform}{expected}" in done.stderr


def test_a_deadlock_reports_every_blocked_rank_and_writes_no_result(tmp_path: Path) -> None:
    trace = write_ranks(tmp_path, ["0 init\n0 recv 1 7 100\n0 finalize",
                                   "1 init\n1 irecv 0 3 5000000\n1 recv 0 4 10\n1 finalize"])
    done = replay(tmp_path, trace, write_platform(tmp_path, SMALL_PLATFORM))
    assert done.returncode == 3
    assert "Deadlock at simulated time" in done.stderr and "2 of 2 ranks cannot go on" in done.stderr
    assert "rank 0 (n0.d0) is blocked in 'recv' at" in done.stderr and "rank-0.txt:2" in done.stderr
    assert "pending receive from rank 1, tag 7, 100 B: posted" in done.stderr
    assert "pending receive from rank 0, tag 3, 5000000 B: posted" in done.stderr
    assert "pending receive from rank 0, tag 4, 10 B: posted" in done.stderr
    assert not (tmp_path / "results.json").exists()


@pytest.mark.parametrize("progress", ["ideal", "thread"])
def test_deadlock_is_detected_under_agents_too(tmp_path: Path, progress: str) -> None:
    trace = write_ranks(tmp_path, ["0 init\n0 recv 1 7 100\n0 finalize", "1 init\n1 finalize"])
    done = replay(tmp_path, trace, write_platform(tmp_path, SMALL_PLATFORM), progress)
    assert done.returncode == 3
    assert "1 of 2 ranks cannot go on" in done.stderr


def test_repository_root_is_where_the_tests_run() -> None:
    assert (REPOSITORY / "validation" / "traces").is_dir()


@pytest.mark.parametrize("setting,expected", [("bogus-param:1", "Bad config key: progsim/bogus-param"),
                                              ("thread-poll-interval:abc", "expected a number, got 'abc'")])
def test_a_bad_parameter_override(tmp_path: Path, setting: str, expected: str) -> None:
    done = run_cli("replay", str(write_ranks(tmp_path, TWO_RANKS)), "--platform",
                   str(write_platform(tmp_path, SMALL_PLATFORM)), "--progress", "none", "--set", setting,
                   "--out", str(tmp_path / "results.json"))
    assert done.returncode == 2
    assert f"progsim: error: bad option --cfg=progsim/{setting}: {expected}" in done.stderr
    assert len(done.stderr.splitlines()) <= 2 and not (tmp_path / "results.json").exists()


def test_a_hand_written_simgrid_platform_and_a_counted_hostfile(tmp_path: Path) -> None:
    """A folder with any SimGrid XML and a hostfile in smpirun's "host:count" form replays under every mechanism;
    without progsim's node properties each host is its own node."""
    folder = tmp_path / "cluster"
    folder.mkdir()
    (folder / "platform.xml").write_text("""<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="h" suffix="" radical="0-1" speed="1Gf" core="2" bw="10GBps" lat="1us"/>
</platform>
""")
    (folder / "hostfile").write_text("h0:1\nh1:1\n")
    trace = write_ranks(tmp_path, ["0 init\n0 isend 1 0 1000000\n0 compute 1e6\n0 wait 0 1 0\n0 finalize",
                                   "1 init\n1 irecv 0 0 1000000\n1 compute 1e7\n1 wait 0 1 0\n1 finalize"])
    for progress in ("ideal", "none", "thread", "dedicated-core", "offload"):
        done = run_cli("replay", str(trace), "--platform", str(folder), "--progress", progress)
        assert done.returncode == 0, done.stderr
        assert "2 ranks" in done.stdout


@pytest.mark.parametrize("progress", ["ideal", "none"])
def test_messages_never_received_are_reported(tmp_path: Path, progress: str) -> None:
    trace = write_ranks(tmp_path, ["0 init\n0 send 1 5 100\n0 finalize", "1 init\n1 compute 1e6\n1 finalize"])
    done = replay(tmp_path, trace, write_platform(tmp_path, SMALL_PLATFORM), progress)
    assert done.returncode == 0, done.stderr  # SMPI too ends such a run; it is reported, not refused
    assert "the run ended with unmatched messages" in done.stderr
    assert "rank 1 never received the message of rank 0 (tag 5, 100 B)" in done.stderr


def test_a_receive_left_pending_at_the_end_is_a_deadlock(tmp_path: Path) -> None:
    trace = write_ranks(tmp_path, ["0 init\n0 finalize", "1 init\n1 irecv 0 9 100\n1 finalize"])
    done = replay(tmp_path, trace, write_platform(tmp_path, SMALL_PLATFORM))
    assert done.returncode == 3
    assert "rank 1 (n1.d0) is blocked waiting for the requests its trace left pending" in done.stderr
    assert "pending receive from rank 0, tag 9, 100 B: posted" in done.stderr


INVALID_MPI = {
    "truncation": (["0 init\n0 send 1 0 2048\n0 finalize", "1 init\n1 recv 0 0 1024\n1 finalize"],
                   "rank-1.txt:2", "does not fit the receive of 1024 B"),
    "collective sizes": (["0 init\n0 allreduce 1024 0\n0 finalize", "1 init\n1 allreduce 2048 0\n1 finalize"],
                         "rank-0.txt:2", "allreduce of 1024 B"),
    "collective roots": (["0 init\n0 bcast 64 0\n0 finalize", "1 init\n1 bcast 64 1\n1 finalize"],
                         "rank-1.txt:2", "from root 0"),
    "test without request": (["0 init\n0 test 0 1 7\n0 finalize", "1 init\n1 finalize"],
                             "rank-0.txt:2", "no isend or irecv"),
    "wait without request": (["0 init\n0 wait 0 1 7\n0 finalize", "1 init\n1 finalize"],
                             "rank-0.txt:2", "no isend or irecv"),
}


@pytest.mark.parametrize("progress", ["ideal", "none", "thread", "dedicated-core", "offload"])
@pytest.mark.parametrize("case", sorted(INVALID_MPI))
def test_invalid_mpi_is_reported_with_the_rank_and_line(tmp_path: Path, case: str, progress: str) -> None:
    from conftest import write_ranks

    ranks, where, what = INVALID_MPI[case]
    trace = write_ranks(tmp_path, ranks)
    out = tmp_path / "r.json"
    done = run_cli("replay", str(trace), "--platform", str(REPOSITORY / "platforms" / "lima.yaml"), "--progress",
                   progress, "--out", str(out))
    assert done.returncode == 2, done.stderr
    first = next(line for line in done.stderr.splitlines() if line.startswith("progsim: error:"))
    assert where in first and what in first and "rank " in first
    assert not out.exists()


def test_a_reader_that_stops_early_gets_no_traceback() -> None:
    """`progsim parameters | head -1`: the pipe closes under the command, which stops quietly."""
    done = subprocess.run(f"{sys.executable} -m progsim parameters | head -1", shell=True, capture_output=True,
                          text=True, cwd=REPOSITORY)
    assert done.stdout.startswith("progress") and len(done.stdout.splitlines()) == 1
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr
