"""`progsim measure --interference`: memory contention between a shared-memory transfer and a STREAM kernel on a
real MPI library (bench/interference.c), in the table of `progsim interference`, and the same layout simulated
(`simulate`), so that the two compare row by row.

On two cores the paper's set-up (a ping-pong between nodes beside spare computing cores) does not fit; the closest
is one sender that computes and one receiver that copies: rank 0 posts the messages and runs the TRIAD, rank 1
receives them, a single copy by its core over shared memory.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Callable, Sequence

from progsim.engine_info import REPOSITORY
from progsim.errors import InputError
from progsim.interference import COLUMNS as TABLE_COLUMNS

SOURCE = REPOSITORY / "bench" / "interference.c"
TRIAD_INTENSITY = 2 / 24  # flop/B: c[i] = a[i] + q b[i], 2 flops per 24 bytes (STREAM's count)
ARRAY_BYTES = 256 * 2 ** 20  # each of the TRIAD's three arrays: far beyond the caches
EXTRA = ["library", "library_version", "transport", "stream_1_GBps", "stream_2_GBps", "repetitions"]
COLUMNS = [*TABLE_COLUMNS, *EXTRA]


def measure(library, transport: str, env: tuple[tuple[str, str], ...], sizes: Sequence[int], repetitions: int,
            report: Callable[[str], None]) -> list[dict[str, str]]:
    from progsim.real.mpi_library import Run, benchmark_binary, library_version, run_benchmark

    binary = benchmark_binary(library, SOURCE)
    rows = []
    for size in sizes:
        report(f"interference: {library.name} {transport} {size} B ...")
        run = Run(library, transport, env, ("--size", str(size), "--array-bytes", str(ARRAY_BYTES),
                                            "--repetitions", str(repetitions)), timeout_s=600.0)
        output = run_benchmark(run, binary, f"the interference benchmark at {size} B")
        lines, stream = output.rows("interference"), {int(f[0]): float(f[1]) for f in output.rows("stream")}
        if len(lines) != 1 or set(stream) != {1, 2}:
            raise InputError(f"--library {library.name}: bench/interference.c printed no result for {size} B")
        fields = [float(v) for v in lines[0][2:]]
        transfer_alone, transfer_loaded, kernel_alone, kernel_loaded = fields
        rows.append({"intensity_flop_per_byte": f"{TRIAD_INTENSITY:.4g}", "computing_ranks": "1",
                     "size_bytes": str(size), "pingpong_us_alone": f"{transfer_alone * 1e6:.6g}",
                     "pingpong_us_loaded": f"{transfer_loaded * 1e6:.6g}",
                     "kernel_GBps_per_rank_alone": f"{kernel_alone / 1e9:.6g}",
                     "kernel_GBps_per_rank_loaded": f"{kernel_loaded / 1e9:.6g}",
                     "library": library.name, "library_version": library_version(output, library),
                     "transport": transport, "stream_1_GBps": f"{stream[1] / 1e9:.6g}",
                     "stream_2_GBps": f"{stream[2] / 1e9:.6g}", "repetitions": str(repetitions)})
    return rows


def print_rows(rows: list[dict[str, str]]) -> None:
    from progsim.row_tables import print_table

    print_table([c for c in COLUMNS if c not in ("library_version", "repetitions")], rows)


def _traces(messages: int, size: int, kernel_bytes: float) -> list[list[str]]:
    sender = ["0 init", *([f"0 isend 1 0 {size}"] * messages)]
    if kernel_bytes > 0:
        sender.append(f"0 compute {TRIAD_INTENSITY * kernel_bytes:.17g} {kernel_bytes:.0f}")
    sender += ["0 waitall", "0 finalize"]
    receiver = ["1 init", *([f"1 recv 0 0 {size}"] * messages), "1 finalize"]
    return [sender, receiver]


def with_stream_curve(platform: Path, stream_1: float, stream_2: float, directory: Path) -> Path:
    """A copy of `platform` whose node streams what the benchmark measured: one core at most `stream_1` B/s (its
    core memory bandwidth), the bus `stream_1` with one flow and `stream_2` with two (the calibrated policy)."""
    text = platform.read_text()
    if "core_memory_bandwidth" in text or "memory_contention" in text:
        raise InputError(f"{platform}: already sets its memory contention; the measured curve would replace it")
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if line.rstrip() == "node:"), None)
    if at is None:
        raise InputError(f"{platform}: expected a 'node:' section")
    lines[at + 1:at + 1] = [f"  core_memory_bandwidth: {stream_1!r}  # measured here: bench/interference.c, one core",
                            f"  memory_contention: {{policy: calibrated, stream_curve: {{1: {stream_1!r}, "
                            f"2: {stream_2!r}}}}}  # measured here: the TRIAD on one and on two cores"]
    variant = directory / f"{platform.stem}-measured-stream.yaml"
    variant.write_text("\n".join(lines) + "\n")
    return variant


def simulate(platform: Path, sizes: Sequence[int], stream_1: float, stream_2: float, progress: str = "none",
             settings: Sequence[str] = ()) -> list[dict[str, str]]:
    """The benchmark's layout replayed on `platform` (one node, two ranks) with the node's measured STREAM curve:
    the same quantities, each alone and beside the other, which is made to outlast it."""
    from progsim.platform_cache import prepare_platform
    from progsim.engine import replay
    from progsim.workloads.tracegen import write_trace

    rows = []
    with tempfile.TemporaryDirectory(prefix="progsim-measure-interference-") as workdir:
        compiled = prepare_platform(with_stream_curve(platform, stream_1, stream_2, Path(workdir)), 2, 2, None)
        def run(messages: int, size: int, kernel_bytes: float) -> list[dict]:
            folder = Path(tempfile.mkdtemp(dir=workdir))
            done = replay(write_trace(_traces(messages, size, kernel_bytes), folder / "trace"), compiled, progress,
                          folder / "results.json", settings=["dma-loads-bus:yes", *settings])
            if done.returncode != 0 or done.results is None:
                raise InputError(f"{platform}: the simulated interference benchmark failed: {done.stderr[-800:]}")
            ranks: list[dict] = done.results["ranks"]
            return ranks

        for size in sizes:
            messages = 8
            alone = run(messages, size, 0)[1]["end_time"] / messages
            kernel = float(ARRAY_BYTES * 3)
            kernel_alone = kernel / run(0, size, kernel)[0]["compute_time"]
            outlasting = max(kernel, 4 * alone * messages * kernel_alone)  # the kernel outlasts the receives
            loaded_ranks = run(messages, size, outlasting)
            loaded = loaded_ranks[1]["end_time"] / messages
            many = max(messages, math.ceil(4 * (kernel / kernel_alone) / alone))  # the receives outlast the kernel
            kernel_loaded = kernel / run(many, size, kernel)[0]["compute_time"]
            rows.append({"intensity_flop_per_byte": f"{TRIAD_INTENSITY:.4g}", "computing_ranks": "1",
                         "size_bytes": str(size), "pingpong_us_alone": f"{alone * 1e6:.6g}",
                         "pingpong_us_loaded": f"{loaded * 1e6:.6g}",
                         "kernel_GBps_per_rank_alone": f"{kernel_alone / 1e9:.6g}",
                         "kernel_GBps_per_rank_loaded": f"{kernel_loaded / 1e9:.6g}"})
    return rows
