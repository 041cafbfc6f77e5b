"""What calibration measures on a real MPI library: its ping-pongs, its protocols and what its threads take from a
computing rank's core, every figure the fit of a platform (progsim/real/calibrate.py) needs.

1. Measure (bench/overlap.c, with the library's own mpicc and launcher): ping-pong half round trips per size, the
   time to post an isend and an irecv, and one MPI_Test that finds nothing.
2. Find the protocols the transport really uses (../shared/design.md, "Protocols"), by experiment:
   - the eager threshold: the receiver computes for PROBE_S before it posts its receive; a send that completes
     long before that went eagerly (its data waits at the receiver), one that waits for the receiver is a
     rendezvous. The threshold lies between the largest eager size and the smallest rendezvous size probed;
   - the rendezvous: the sender computes while a large message is in flight; if the receiver, blocked in its wait,
     pulls the data meanwhile (overhead ratio near 0) the rendezvous is receiver-driven (`get`), else the sender
     must push it (`put`; `pipelined` over TCP, which sends fragment by fragment).
3. See whether the library's own threads share a computing rank's core: time computations alone of 1 to 30 ms.
   Stretched by about 2x once they exceed a few ms, they share it with a thread that spins on the rank's core (MPICH's
   asynchronous progress thread): the platform's progress thread becomes a busy one, and the OS time slice that
   best reproduces the stretches (the thread takes a slice after each of the rank's) is fitted. Otherwise the
   threads poll, and the share of the core they took becomes the poll cost.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional

from progsim.real.mpi_library import Library, Run, benchmark_binary, find_library, run_benchmark

PROBE_S = 0.002  # the receiver's computation before its receive, far longer than any eager transfer here
PROBE_SIZES = sorted({int(m * 2 ** k) for k in range(3, 21) for m in (1, 1.5)} | {2 ** 21})  # 8 B .. 2 MiB
PINGPONG_SIZES = [8, 64, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 1048576, 4194304,
                  16777216]
CORE_PROBE_S = (0.001, 0.003, 0.01, 0.03)  # computations alone, to see the library's threads take their slices
SPINNING_STRETCH = 1.25  # the longest computation alone stretched beyond this: a thread spins on the rank's core
SLICES_S = [round(0.1e-3 * k, 7) for k in range(2, 201)]  # time slices tried: 0.2 .. 20 ms


@dataclass(frozen=True)
class Protocols:
    eager_threshold: int  # bytes: smaller messages go eagerly
    largest_eager: int
    smallest_rendezvous: Optional[int]
    rendezvous: str
    evidence: str  # what the probes measured, for the platform's comments
    late_receive: float  # s in MPI of a receiver whose smallest message arrived while it computed (its CPU cost)


def sliced_seconds(seconds: float, slice_s: float) -> float:
    """A computation of `seconds` on a core shared with a spinning thread: the thread takes a slice after each of
    the rank's while work remains (models/progress/thread.cpp, SharedCore)."""
    turns = max(math.ceil(seconds / slice_s - 1e-9) - 1, 0)
    return seconds + turns * slice_s


@dataclass(frozen=True)
class CoreShare:
    """What the library's own threads took from a computing rank's core: computations alone, asked and taken."""
    asked: tuple[float, ...]
    taken: tuple[float, ...]

    @property
    def spinning(self) -> bool:
        return self.taken[-1] / self.asked[-1] > SPINNING_STRETCH

    @property
    def stolen(self) -> float:
        """The share of the core a polling thread took, from the longest computation."""
        return max(0.0, 1.0 - self.asked[-1] / self.taken[-1])

    @property
    def slice_s(self) -> float:
        """The time slice whose turns best reproduce the stretches (least squares on their logarithms)."""
        def error(slice_s: float) -> float:
            return sum(math.log(sliced_seconds(a, slice_s) / t) ** 2 for a, t in zip(self.asked, self.taken))
        return min(SLICES_S, key=error)

    def describe(self) -> str:
        return ", ".join(f"{a * 1e3:g} ms took {t / a:.2f}x" for a, t in zip(self.asked, self.taken))


@dataclass(frozen=True)
class Measured:
    library: str
    version: str
    transport: str
    env: tuple[tuple[str, str], ...]
    sizes: list[int]
    half_rtt: list[float]
    isend_post: float  # s, smallest size
    irecv_post: float
    test: float
    protocols: Protocols
    core: CoreShare


# ---- measuring ---------------------------------------------------------------------------------------------------

def probe_protocols(library: Library, transport: str, env: tuple[tuple[str, str], ...],
                    progress: Callable[[str], None]) -> Protocols:
    from progsim.real.measure import rank_metrics  # (and the simulator with it) only when a probe runs

    binary = benchmark_binary(library)
    args = ("overlap", "--sizes", ",".join(map(str, PROBE_SIZES)), "--times", f"{PROBE_S:.9g}", "--side",
            "receiver", "--tests", "0", "--repetitions", "5")
    progress(f"calibrate: eager threshold: {len(PROBE_SIZES)} sizes, the receiver late by {PROBE_S * 1e3:g} ms ...")
    output = run_benchmark(Run(library, transport, env, args, 600.0), binary, "the eager probe")
    # The sender (rank 0, computing nothing): its time from the post to the end of its wait.
    sender = {int(f[2]): float(f[9]) for f in output.rows("overlap") if f[0] == "0"}
    # The receiver's time in MPI (post and wait) at the smallest size, its message there before it waits: what a
    # message costs the receiver's CPU, which a ping-pong cannot tell from the latency.
    late_receive = next(float(f[11]) for f in output.rows("overlap") if f[0] == "1" and int(f[2]) == PROBE_SIZES[0])
    eager = [size for size in PROBE_SIZES if sender[size] < PROBE_S / 2]
    waited = [size for size in PROBE_SIZES if sender[size] >= PROBE_S / 2]
    largest_eager = max((s for s in eager if not any(w < s for w in waited)), default=0)
    smallest_rendezvous = min(waited, default=None)
    threshold = largest_eager + 1 if smallest_rendezvous is not None else 2 ** 62
    evidence = f"sender done before the receiver's receive up to {largest_eager} B" + (
        f", waited for it from {smallest_rendezvous} B" if smallest_rendezvous else ", at every probed size")
    if smallest_rendezvous is None:
        return Protocols(threshold, largest_eager, None, "get", evidence + " (no rendezvous seen)", late_receive)
    big = max(4 * smallest_rendezvous, 1 << 20)
    args = ("overlap", "--sizes", str(big), "--times", "0.004", "--side", "sender", "--tests", "0",
            "--repetitions", "5")
    progress(f"calibrate: rendezvous: {big} B while the sender computes 4 ms ...")
    output = run_benchmark(Run(library, transport, env, args, 600.0), binary, "the rendezvous probe")
    fields = next(f for f in output.rows("overlap") if f[0] == "0")
    metrics = rank_metrics(fields)
    pulled = metrics.overhead_ratio < 0.5
    rendezvous = "get" if pulled else ("pipelined" if transport == "tcp" else "put")
    evidence += (f"; {big} B with 4 ms of computation on the sender: overhead ratio {metrics.overhead_ratio:.2f} "
                 f"({'the receiver pulls' if pulled else 'nothing moves while the sender computes'})")
    return Protocols(threshold, largest_eager, smallest_rendezvous, rendezvous, evidence, late_receive)


def probe_core_share(library: Library, transport: str, env: tuple[tuple[str, str], ...],
                     progress: Callable[[str], None]) -> CoreShare:
    """Computations alone on the receiver (after a barrier, beside an 8 B message): how long they really take."""
    binary = benchmark_binary(library)
    args = ("overlap", "--sizes", "8", "--times", ",".join(f"{t:.9g}" for t in CORE_PROBE_S), "--side",
            "receiver", "--tests", "0", "--repetitions", "9")
    progress(f"calibrate: the library's threads: computations alone of "
             f"{', '.join(f'{t * 1e3:g}' for t in CORE_PROBE_S)} ms ...")
    output = run_benchmark(Run(library, transport, env, args, 600.0), binary, "the core probe")
    taken = {float(f[3]): float(f[8]) for f in output.rows("overlap") if f[0] == "1"}
    return CoreShare(CORE_PROBE_S, tuple(taken[min(taken, key=lambda t: abs(t - a))] for a in CORE_PROBE_S))


def measure_library(library_name: str, transport: str, env: tuple[tuple[str, str], ...], repetitions: int,
                    progress: Callable[[str], None]) -> Measured:
    from progsim.real.measure import measure_pingpong

    library = find_library(library_name)
    rows = measure_pingpong(library, transport, env, PINGPONG_SIZES, repetitions, progress)
    protocols = probe_protocols(library, transport, env, progress)
    core = probe_core_share(library, transport, env, progress)
    smallest = rows[0]
    return Measured(library_name, rows[0]["library_version"], transport, env, [int(r["size_bytes"]) for r in rows],
                    [float(r["half_rtt_s"]) for r in rows], float(smallest["isend_post_s"]),
                    float(smallest["irecv_post_s"]), float(smallest["test_s"]), protocols, core)
