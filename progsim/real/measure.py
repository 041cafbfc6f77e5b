"""`progsim measure`: the overlap benchmark of Reynier 2022 (section 4.1) on a real MPI library, in the table that
`progsim overlap` fills by simulation (progsim/cells.py), so that the two compare cell by cell.

bench/overlap.c runs on two ranks of the library (progsim/real/mpi_library.py), and its per-rank medians are turned into
the thesis' metrics over the ranks that compute. `--pingpong` measures instead what a platform's calibration needs:
per size, the half round trip and the cost of posting and testing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from progsim import cells
from progsim.errors import InputError
from progsim.outputs import check_outputs
from progsim.real.mpi_library import (BENCHMARK_SOURCE, LIBRARIES, TRANSPORTS, Library, Output, Run, benchmark_binary,
                                      find_library, library_version, parse_env, run_benchmark)
from progsim.row_tables import print_table, write_csv
from progsim.workloads.overlap import SIDES, RankMetrics

OVERLAP_EXTRA = ["library", "library_version", "transport", "env", "repetitions", "threads"]
OVERLAP_COLUMNS = [*cells.COLUMNS, *OVERLAP_EXTRA]
PRINTED_COLUMNS = [*cells.CELL, "overhead_ratio", "computation_slowdown", "communication_ratio", "t_comm_ref",
                   "t_comp_ref", "threads"]  # on the terminal: the medians; the CSV has the spreads too
PINGPONG_COLUMNS = ["library", "library_version", "transport", "env", "size_bytes", "half_rtt_s", "isend_post_s",
                    "irecv_post_s", "test_s", "repetitions"]

DEFAULT_SIZES = {"overlap": "4KiB,64KiB,1MiB,16MiB", "pingpong": "8,1KiB,4KiB,16KiB,64KiB,256KiB,1MiB,4MiB,16MiB",
                 "interference": "1MiB,16MiB,64MiB"}
DEFAULT_REPETITIONS = {"overlap": 20, "pingpong": 100, "interference": 5}


def case_name(library: str, transport: str, env: tuple[tuple[str, str], ...]) -> str:
    """'mpich-4.0.2 shm MPIR_CVAR_ASYNC_PROGRESS=1': a library (with its version once known), transport and env."""
    return " ".join([library, transport, *(f"{name}={value}" for name, value in env)])


def env_text(env: tuple[tuple[str, str], ...]) -> str:
    return " ".join(f"{name}={value}" for name, value in env)


# ---- the overlap table ----

@dataclass(frozen=True)
class Grid:
    sizes: list[int]
    times: list[float]
    tests: int
    repetitions: int

    def arguments(self, side: str) -> tuple[str, ...]:
        return ("overlap", "--sizes", ",".join(str(s) for s in self.sizes),
                "--times", ",".join(f"{t:.9g}" for t in self.times), "--side", side, "--tests", str(self.tests),
                "--repetitions", str(self.repetitions))

    def timeout_s(self) -> float:
        """Generous: ten times the computation the grid asks for, plus a fixed allowance for the transfers."""
        return 300.0 + 10.0 * 3 * self.repetitions * len(self.sizes) * sum(self.times)


def rank_metrics(fields: list[str]) -> RankMetrics:
    """One `overlap` line after its kind: rank,side,size,time,tests,computes,iterations,five medians."""
    t_comm_ref, t_comp_ref, t_measured, t_comp, t_mpi = (float(v) for v in fields[7:12])
    return RankMetrics(rank=int(fields[0]), t_measured=t_measured, t_comp_ref=t_comp_ref, t_comm_ref=t_comm_ref,
                       t_comp=t_comp, t_mpi=t_mpi)


def overlap_rows(output: Output, grid: Grid, side: str, case: str, extra: dict[str, str]) -> list[dict[str, str]]:
    """One row per (size, time): the metrics over the ranks that compute."""
    by_cell: dict[tuple[int, float], list[RankMetrics]] = {}
    for fields in output.rows("overlap"):
        if fields[5] == "1":
            by_cell.setdefault((int(fields[2]), float(fields[3])), []).append(rank_metrics(fields))
    rows = []
    for size in grid.sizes:
        for seconds in grid.times:
            ranks = by_cell.get((size, float(f"{seconds:.9g}")))
            if not ranks:
                raise InputError(f"the benchmark printed no result for --sizes {size} --compute {seconds:g} "
                                 f"(side {side}, {case})")
            metrics = cells.metric_fields([m.overhead_ratio for m in ranks], [m.computation_slowdown for m in ranks],
                                          [m.communication_ratio for m in ranks],
                                          statistics.median([m.t_comm_ref for m in ranks]),
                                          statistics.median([m.t_comp_ref for m in ranks]))
            rows.append({"case": case, "side": side, "size_bytes": str(size), "compute_s": f"{seconds:g}",
                         "tests": str(grid.tests), **metrics, "error": "", **extra})
    return rows


def measure_overlap(library: Library, transport: str, env: tuple[tuple[str, str], ...], grid: Grid, side: str,
                    progress: Callable[[str], None]) -> list[dict[str, str]]:
    binary = benchmark_binary(library)
    run = Run(library, transport, env, grid.arguments(side), grid.timeout_s())
    progress(f"measure: {case_name(library.name, transport, env)} side={side}: {len(grid.sizes)} sizes x "
             f"{len(grid.times)} times x {grid.repetitions} repetitions ...")
    output = run_benchmark(run, binary, "the overlap benchmark")
    version = library_version(output, library)
    case = case_name(f"{library.name}-{version}", transport, env)
    extra = {"library": library.name, "library_version": version, "transport": transport, "env": env_text(env),
             "repetitions": str(grid.repetitions), "threads": str(output.threads())}
    rows = overlap_rows(output, grid, side, case, extra)
    progress(f"measure: {case} side={side}: done in {output.seconds:.1f} s ({output.threads()} threads a rank, "
             f"computation calibrated at {output.calibration()} iterations/s)")
    return rows


# ---- the ping-pong table ----

def measure_pingpong(library: Library, transport: str, env: tuple[tuple[str, str], ...], sizes: list[int],
                     repetitions: int, progress: Callable[[str], None]) -> list[dict[str, str]]:
    binary = benchmark_binary(library)
    arguments = ("pingpong", "--sizes", ",".join(str(s) for s in sizes), "--repetitions", str(repetitions))
    run = Run(library, transport, env, arguments, 300.0 + 1e-7 * repetitions * sum(sizes))
    progress(f"measure: {case_name(library.name, transport, env)}: ping-pong of {len(sizes)} sizes ...")
    output = run_benchmark(run, binary, "the ping-pong")
    version = library_version(output, library)
    measured = {int(fields[0]): fields[1:5] for fields in output.rows("pingpong")}
    missing = [size for size in sizes if size not in measured]
    if missing:
        raise InputError(f"the ping-pong printed no result for --sizes {missing[0]} ({library.name} {transport})")
    rows = [{"library": library.name, "library_version": version, "transport": transport, "env": env_text(env),
             "size_bytes": str(size), **dict(zip(PINGPONG_COLUMNS[5:9], measured[size])),
             "repetitions": str(repetitions)} for size in sizes]
    progress(f"measure: {case_name(f'{library.name}-{version}', transport, env)}: {pingpong_summary(rows)}")
    return rows


def pingpong_summary(rows: list[dict[str, str]]) -> str:
    """Latency (the smallest size's half round trip) and bandwidth (the largest size over its half round trip)."""
    smallest = min(rows, key=lambda row: int(row["size_bytes"]))
    largest = max(rows, key=lambda row: int(row["size_bytes"]))
    bandwidth = int(largest["size_bytes"]) / float(largest["half_rtt_s"])
    return (f"latency {float(smallest['half_rtt_s']) * 1e6:.2f} us ({smallest['size_bytes']} B), "
            f"bandwidth {bandwidth / 1e9:.2f} GB/s ({largest['size_bytes']} B)")


# ---- output ----

def progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _positive(value: int, option: str, least: int) -> int:
    if value < least:
        raise InputError(f"{option} {value}: expected {least} or more")
    return value


def command_measure(args: argparse.Namespace) -> int:
    from progsim.options import option_quantities

    mode = "pingpong" if args.pingpong else "interference" if args.interference else "overlap"
    libraries = [find_library(name) for name in dict.fromkeys(args.library)]
    env = parse_env(args.env)
    sizes = [int(s) for s in option_quantities(args.sizes or DEFAULT_SIZES[mode], "B", "--sizes")]
    repetitions = _positive(args.repetitions or DEFAULT_REPETITIONS[mode], "--repetitions", 1)
    tests = _positive(args.tests, "--tests", 0)
    if args.csv:
        check_outputs({"--csv": args.csv}, [BENCHMARK_SOURCE])
    if args.pingpong and args.interference:
        raise InputError("--pingpong and --interference: choose one benchmark")
    rows: list[dict[str, str]] = []
    if mode == "interference":
        from progsim.real import measure_interference

        for library in libraries:
            for transport in dict.fromkeys(args.transport):
                rows += measure_interference.measure(library, transport, env, sizes, repetitions, progress)
        measure_interference.print_rows(rows)
        if args.csv:
            write_csv(Path(args.csv), measure_interference.COLUMNS, rows)
        return 0
    for library in libraries:
        for transport in dict.fromkeys(args.transport):
            if mode == "pingpong":
                rows += measure_pingpong(library, transport, env, sizes, repetitions, progress)
                continue
            grid = Grid(sizes, option_quantities(args.compute, "s", "--compute"), tests, repetitions)
            for side in dict.fromkeys(args.side):
                rows += measure_overlap(library, transport, env, grid, side, progress)
    print_table(PINGPONG_COLUMNS if mode == "pingpong" else PRINTED_COLUMNS, rows)
    if args.csv:
        write_csv(Path(args.csv), PINGPONG_COLUMNS if mode == "pingpong" else OVERLAP_COLUMNS, rows)
    return 0


HELP = """Runs the point-to-point overlap benchmark (Reynier 2022, section 4.1; bench/overlap.c) on a real MPI
library, on 2 ranks of this machine. Rank 0 sends S bytes to rank 1 (MPI_Isend / MPI_Irecv) while SIDE computes a
fixed amount of work (a register-only floating-point loop, calibrated before MPI_Init to last T), cut by --tests
MPI_Test calls, then both wait. Each of R repetitions runs the communication alone, the computation alone and
both overlapped, a barrier before each, and each rank keeps its medians. Per computing rank:

  overhead ratio        r = (t_measured - max(t_comp_ref, t_comm_ref)) / min(t_comp_ref, t_comm_ref)
                        0: overlapped; 1: serialized; above 1: slower than serialized
  computation slowdown  t_comp / t_comp_ref
  communication ratio   t_mpi / t_comm_ref        (t_mpi: time inside the post, the tests and the wait)

The table is the one of 'progsim overlap' (median, min and max over the computing ranks), with the case named
"LIBRARY-VERSION TRANSPORT [ENV]" and the columns library, library_version, transport, env, repetitions and threads
(the threads of a rank's process: an asynchronous progress thread shows there). Measure on an otherwise idle
machine: other processes on its cores stretch the computations. Where the communication is far shorter than the
computation (4 KiB against 10 ms), r divides the computation's jitter by microseconds and means little.

transports (--transport):
  shm   Open MPI: --mca pml ob1 --mca btl self,vader       MPICH (ch4:ucx): UCX_TLS=sm,self
  tcp   Open MPI: --mca pml ob1 --mca btl self,tcp         MPICH (ch4:ucx): UCX_TLS=tcp,self
Ranks are bound to cores. --env passes variables to the ranks, e.g. MPIR_CVAR_ASYNC_PROGRESS=1 (MPICH's progress
thread); they override the transport's.

--interference runs bench/interference.c instead: rank 0 posts messages of each size to rank 1 and runs a STREAM
TRIAD while rank 1 receives them (a copy by its core, over shared memory): the transfer and the kernel, each alone
and beside the other, in the table of 'progsim interference' (computing_ranks 1: the sender computes; the
transfer's one-way time stands for the half round trip), and the TRIAD on one and on both cores (the node's
STREAM curve, columns stream_1_GBps and stream_2_GBps).

--pingpong measures instead, per size: the half round trip of blocking ping-pongs, the time of an MPI_Isend and
an MPI_Irecv call (the post alone) and of an MPI_Test that finds nothing, the figures a platform's calibration fits
(latency, bandwidth, eager threshold, per-call costs).

examples:
  progsim measure --library openmpi mpich --side receiver sender --csv real.csv
  progsim measure --library mpich --env MPIR_CVAR_ASYNC_PROGRESS=1 --sizes 1MiB,16MiB --compute 1ms,10ms
  progsim measure --pingpong --library openmpi --transport shm tcp --csv pingpong.csv
  progsim measure --interference --library openmpi --sizes 16MiB,64MiB --csv interference.csv

Exit status 2 when a library is not installed or a run fails (its stderr is shown); no table is written then."""


def add_command(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "measure", help="the overlap benchmark (or a ping-pong) on a real MPI library: Open MPI, MPICH",
        description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--library", nargs="+", default=["openmpi"], choices=sorted(LIBRARIES),
                        help="libraries to measure, one after the other into one table (default: openmpi)")
    parser.add_argument("--transport", nargs="+", default=["shm"], choices=TRANSPORTS,
                        help="transports between the two ranks (default: shm)")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="an environment variable of the ranks (repeatable)")
    parser.add_argument("--side", nargs="+", default=["receiver"], choices=SIDES,
                        help="the rank(s) that compute while the message is in flight (default: receiver)")
    parser.add_argument("--sizes", help=f"message sizes (default: {DEFAULT_SIZES['overlap']}; with --pingpong "
                                        f"{DEFAULT_SIZES['pingpong']})")
    parser.add_argument("--compute", default="10us,100us,1ms,10ms",
                        help="computation times (default: 10us,100us,1ms,10ms)")
    parser.add_argument("--tests", type=int, default=0, help="MPI_Test calls spread through the computation "
                                                             "(default 0)")
    parser.add_argument("--repetitions", type=int, help=f"repetitions of each measure, whose median is kept "
                                                        f"(default: {DEFAULT_REPETITIONS['overlap']}; with "
                                                        f"--pingpong {DEFAULT_REPETITIONS['pingpong']})")
    parser.add_argument("--pingpong", action="store_true",
                        help="measure latency, bandwidth and the cost of posting and testing instead")
    parser.add_argument("--interference", action="store_true",
                        help="measure memory contention between a transfer and a STREAM kernel instead")
    parser.add_argument("--csv", help="also write the table here (CSV)")
    parser.set_defaults(run=command_measure)
