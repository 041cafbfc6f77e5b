"""Generators of SMPI time-independent traces for benchmarks and tests.

Every generator writes plain trace lines, exactly the format `smpirun -trace-ti` writes and SMPI's replay reads,
so stock SMPI can replay them too.
"""

from __future__ import annotations

from pathlib import Path


RING_ACTIONS_PER_ITERATION = 5


def ring_line(rank: int, index: int, ranks: int, iterations: int, message_bytes: int, flops: float) -> str:
    """Line `index` of `rank` in the ring of ring_lines (init, then 5 actions per iteration, then finalize)."""
    if index == 0:
        return f"{rank} init"
    if index > iterations * RING_ACTIONS_PER_ITERATION:
        return f"{rank} finalize"
    left, right = (rank - 1) % ranks, (rank + 1) % ranks
    step = (index - 1) % RING_ACTIONS_PER_ITERATION
    if step == 0:
        return f"{rank} irecv {left} 0 {message_bytes}"
    if step == 1:
        return f"{rank} isend {right} 0 {message_bytes}"
    if step == 2:
        return f"{rank} compute {flops:g}"
    if step == 3:
        return f"{rank} wait {left} {rank} 0"
    return f"{rank} wait {rank} {right} 0"


def ring_lines(ranks: int, iterations: int, message_bytes: int, flops: float) -> list[list[str]]:
    """Per rank: each iteration receives from the left, sends to the right, computes, then waits for both."""
    count = iterations * RING_ACTIONS_PER_ITERATION + 2
    return [[ring_line(r, k, ranks, iterations, message_bytes, flops) for k in range(count)] for r in range(ranks)]


def write_ring(ranks: int, iterations: int, message_bytes: int, flops: float, directory: Path,
               shared: bool = False) -> Path:
    """write_trace(ring_lines(...)), line by line instead of the whole trace in memory (a million ranks' ring is
    160 M lines: gigabytes as Python strings). The same bytes."""
    count = iterations * RING_ACTIONS_PER_ITERATION + 2
    directory.mkdir(parents=True, exist_ok=True)
    listing = directory / "trace_list.txt"
    if shared:
        shared_path = directory / "trace-all.txt"
        with shared_path.open("w") as out:
            for index in range(count):
                lines = [ring_line(r, index, ranks, iterations, message_bytes, flops) for r in range(ranks)]
                lines.append("")
                out.write("\n".join(lines))
        listing.write_text(f"{shared_path.resolve()}\n")
        return listing
    return write_trace(ring_lines(ranks, iterations, message_bytes, flops), directory)  # a file per rank: few ranks


def write_trace(traces: list[list[str]], directory: Path, shared: bool = False) -> Path:
    """Writes per-rank files (or one shared file) and the list file SMPI's replay takes; returns the list file.

    The list names files by absolute path, because SMPI opens them relative to the current folder. A shared file
    holds every rank's first line, then every rank's second line, and so on: roughly the order of time for ranks
    that run alike, the order in which a replay that reads the file once consumes it (a file sorted by rank would
    make it hold the whole trace while the first rank runs ahead).
    """
    directory.mkdir(parents=True, exist_ok=True)
    listing = directory / "trace_list.txt"
    if shared:
        shared_path = directory / "trace-all.txt"
        with shared_path.open("w") as out:
            longest = max((len(lines) for lines in traces), default=0)
            for index in range(longest):
                out.write("".join(lines[index] + "\n" for lines in traces if index < len(lines)))
        listing.write_text(f"{shared_path.resolve()}\n")
        return listing
    names = []
    for r, lines in enumerate(traces):
        path = directory / f"rank-{r}.txt"
        path.write_text("\n".join(lines) + "\n")
        names.append(str(path.resolve()))
    listing.write_text("\n".join(names) + "\n")
    return listing
