"""The benchmark script keeps working (its figures are printed, never asserted: speed is not a test)."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPOSITORY


def test_benchmark_runs_on_a_tiny_ring_and_checks_ideal_against_smpi(tmp_path) -> None:
    done = subprocess.run([sys.executable, "scripts/benchmark.py", "--ranks", "8", "--iterations", "2",
                           "--workdir", str(tmp_path)], cwd=REPOSITORY, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    for tool in ("ideal", "none", "thread", "dedicated-core", "offload", "smpi"):
        assert f" {tool} " in done.stdout
    assert "check N=8: ideal" in done.stdout and "OK" in done.stdout
