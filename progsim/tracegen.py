"""Generators of SMPI time-independent traces for benchmarks and tests.

Every generator writes plain trace lines, exactly the format `smpirun -trace-ti` writes and SMPI's replay reads,
so stock SMPI can replay them too.
"""

from __future__ import annotations

from pathlib import Path


def ring_lines(ranks: int, iterations: int, message_bytes: int, flops: float) -> list[list[str]]:
    """Per rank: each iteration receives from the left, sends to the right, computes, then waits for both."""
    traces = []
    for r in range(ranks):
        left, right = (r - 1) % ranks, (r + 1) % ranks
        lines = [f"{r} init"]
        for _ in range(iterations):
            lines += [f"{r} irecv {left} 0 {message_bytes}", f"{r} isend {right} 0 {message_bytes}",
                      f"{r} compute {flops:g}", f"{r} wait {left} {r} 0", f"{r} wait {r} {right} 0"]
        lines.append(f"{r} finalize")
        traces.append(lines)
    return traces


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
