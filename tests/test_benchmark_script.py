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


def test_application_benchmark_runs_on_a_shipped_capture() -> None:
    capture = REPOSITORY / "validation" / "real" / "hmmsearch-16"
    done = subprocess.run([sys.executable, "scripts/benchmark_apps.py", str(capture), "--progress", "ideal", "none"],
                          cwd=REPOSITORY, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    lines = [line.split() for line in done.stdout.splitlines() if line.strip().startswith("hmmsearch-16")]
    assert [line[3] for line in lines] == ["ideal", "none", "smpi"], done.stdout
    assert all(line[1] == "16" for line in lines)
    assert "check hmmsearch-16: ideal" in done.stdout and "OK" in done.stdout
