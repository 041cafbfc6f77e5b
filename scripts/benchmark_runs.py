"""How the benchmarks run one tool: progsim-engine or stock `smpirun -replay` on a trace, timed under /usr/bin/time
in a process group of its own, the simulated time it prints, the best of several runs, and the check that `ideal`
gives SMPI's simulated time. Shared by benchmark.py (rings), benchmark_apps.py (captures) and benchmark_overlap.py.
"""

from __future__ import annotations

import os
import re
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Optional, Sequence

from benchmark_report import Measure
from progsim.engine import smpi_tool
from progsim.engine_info import engine_binary
from progsim.platform import Compiled

PRIVATIZATION_OFF_FROM = 6500  # smpirun fails to privatize globals for this many ranks and more
# Each rank's stack and its guard page are two memory mappings, and Linux allows 65 530 by default
# (vm.max_map_count); SMPI's max-min solver also recurses deeper than the default 8 MiB main stack there.
LARGE_SMPI_FROM = 30000
CHECK_TOLERANCE = 0.01  # ideal's simulated time must equal SMPI's within 1 %


def run_timed(arguments: Sequence[str], workdir: Path, timeout: Optional[float],
              parse: Callable[[str], Optional[float]]) -> Measure:
    """Runs one child under /usr/bin/time, in its own process group so a timeout kills the whole tree."""
    time_file = workdir / "time.out"
    time_file.unlink(missing_ok=True)
    command = ["/usr/bin/time", "-f", "%e %M", "-o", str(time_file), *arguments]
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=workdir,
                             start_new_session=True)
    try:
        stdout, stderr = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        return Measure(time.perf_counter() - start, None, None, f"timeout after {timeout:g} s")
    wall = time.perf_counter() - start
    rss: Optional[int] = None
    if time_file.is_file():
        fields = time_file.read_text().split()
        if len(fields) >= 2 and fields[-1].isdigit():
            rss = int(fields[-1])
    simulated = parse(stdout + "\n" + stderr)
    if child.returncode != 0 or simulated is None:
        tail = (stderr.strip() or stdout.strip())[-400:]
        return Measure(wall, rss, simulated, f"exit {child.returncode}: {tail}")
    return Measure(wall, rss, simulated)


def parse_engine(output: str) -> Optional[float]:
    match = re.search(r"simulated time\s+([0-9.eE+-]+) s", output)
    return float(match.group(1)) if match else None


def parse_smpi(output: str) -> Optional[float]:
    match = re.search(r"Simulated time: ([0-9.eE+-]+) seconds", output)
    return float(match.group(1)) if match else None


def engine_command(trace: Path, compiled: Compiled, mechanism: str, settings: Sequence[str] = ()) -> list[str]:
    return [str(engine_binary()), str(compiled.platform_xml), str(compiled.hostfile), str(trace),
            *compiled.engine_config, *(f"--cfg=progsim/{s}" for s in settings), f"--cfg=progsim/progress:{mechanism}",
            "--log=root.thres:critical"]


def smpi_command(trace: Path, compiled: Compiled) -> list[str]:
    arguments = [smpi_tool("smpirun"), "-np", str(compiled.ranks), "-platform", str(compiled.platform_xml),
                 "-hostfile", str(compiled.hostfile), "-replay", str(trace), "--cfg=smpi/display-timing:yes",
                 "--log=smpi_config.thres:warning", "--log=xbt_cfg.thres:warning"]
    if compiled.ranks >= PRIVATIZATION_OFF_FROM:
        arguments.append("--cfg=smpi/privatization:no")
    if compiled.ranks >= LARGE_SMPI_FROM:
        arguments.append("--cfg=contexts/guard-size:0")
        return [*larger_stack(), *arguments]
    return arguments


def larger_stack() -> list[str]:
    """A prlimit prefix raising the soft stack limit to the hard one (only the main stack: SimGrid sizes the ranks'
    stacks with contexts/stack-size)."""
    hard = resource.getrlimit(resource.RLIMIT_STACK)[1]
    return ["prlimit", f"--stack={'unlimited' if hard == resource.RLIM_INFINITY else hard}:", "--"]


def best_of(repeat: int, once: Callable[[], Measure]) -> Measure:
    """The run with the least wall time among `repeat` (stops at the first failure)."""
    best: Optional[Measure] = None
    for _ in range(repeat):
        measure = once()
        if measure.error is not None:
            return measure
        if best is None or measure.wall < best.wall:
            best = measure
    assert best is not None
    return best


class Progress:
    """tqdm when installed, else a printed counter on stderr."""

    def __init__(self, total: int) -> None:
        self.total, self.done = total, 0
        try:
            from tqdm import tqdm  # type: ignore[import-not-found,import-untyped]
            self.bar = tqdm(total=total, unit="run", file=sys.stderr)
        except ImportError:
            self.bar = None

    def start(self, label: str) -> None:
        if self.bar is not None:
            self.bar.set_description(label)
        else:
            print(f"[{self.done + 1}/{self.total}] {label} ...", file=sys.stderr, flush=True)

    def finish(self, label: str, measure: Measure) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.update(1)
        else:
            status = measure.error or f"{measure.wall:.3f} s"
            print(f"[{self.done}/{self.total}] {label}: {status}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def check_ideal(label: str, ideal: Optional[Measure], smpi: Optional[Measure], case: str = "") -> bool:
    """Prints whether ideal's simulated time matches SMPI's within CHECK_TOLERANCE; True if it does (or if either
    tool was not run). `case` follows the times ("with 1KiB messages"), so that lines still start "check LABEL:"."""
    if ideal is None or smpi is None:
        return True
    if ideal.simulated is None or smpi.simulated is None or ideal.error or smpi.error:
        print(f"check {label}: cannot compare{case} (a run failed)")
        return False
    difference = abs(ideal.simulated - smpi.simulated) / smpi.simulated
    verdict = "OK" if difference <= CHECK_TOLERANCE else "MISMATCH"
    print(f"check {label}: ideal {ideal.simulated:.6g} s vs SMPI {smpi.simulated:.6g} s{case}: "
          f"relative difference {difference:.4%} (tolerance {CHECK_TOLERANCE:.0%}) {verdict}")
    return verdict == "OK"
