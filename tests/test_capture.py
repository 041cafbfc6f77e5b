"""The shipped traces are real: captured from the MPI programs in validation/apps, compiled with smpicc and run
with smpirun -trace-ti. Capturing them again here must give the same bytes."""

from __future__ import annotations

import subprocess

from conftest import REPOSITORY


def test_a_fresh_capture_gives_the_shipped_traces() -> None:
    done = subprocess.run(["bash", "scripts/capture_traces.sh", "--check"], cwd=REPOSITORY, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    for name in ("halo2d-32k-64", "halo2d-256k-64", "p2p_mix-base-64", "collectives-base-16", "collectives-base-64"):
        assert f"check: {name} byte-identical to a fresh capture" in done.stdout + done.stderr
    ranks = len((REPOSITORY / "validation/traces/halo2d-256k-64/trace_list.txt").read_text().split())
    assert ranks == 64
