"""`progsim measure --interference` (bench/interference.c, progsim/real/measure_interference.py): memory contention
between a shared-memory transfer and a STREAM TRIAD on Debian's Open MPI, and the same layout simulated on this
machine's calibrated platform with the STREAM curve the benchmark measured. The reference is the real run stored in
validation/interference/measured/openmpi-shm.csv (`make measure-interference` writes it again).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from conftest import REPOSITORY, run_cli
from progsim.real.measure_interference import COLUMNS, simulate

MEASURED = REPOSITORY / "validation" / "interference" / "measured" / "openmpi-shm.csv"
PLATFORM = REPOSITORY / "platforms" / "local" / "openmpi-shm.yaml"


def ratios(row: dict[str, str]) -> tuple[float, float]:
    """The transfer's and the kernel's loaded / alone (time for the transfer, bandwidth for the kernel)."""
    return (float(row["pingpong_us_loaded"]) / float(row["pingpong_us_alone"]),
            float(row["kernel_GBps_per_rank_loaded"]) / float(row["kernel_GBps_per_rank_alone"]))


def test_the_simulation_holds_the_real_interference_of_this_machine() -> None:
    measured = list(csv.DictReader(MEASURED.open()))
    assert measured and list(measured[0]) == COLUMNS
    stream_1, stream_2 = (float(measured[0][f"stream_{n}_GBps"]) * 1e9 for n in (1, 2))
    simulated = simulate(PLATFORM, [int(row["size_bytes"]) for row in measured], stream_1, stream_2)
    for real, sim in zip(measured, simulated):
        # +-0.10: two runs of the benchmark on this shared 2-core VM, half an hour apart, gave 0.88-1.04 for the
        # transfer and 0.91-0.99 for the kernel; and the simulated copy runs at the ping-pong calibration's copy
        # bandwidth, whose residual at 16 MiB is -21 %.
        assert ratios(sim) == pytest.approx(ratios(real), abs=0.10), (real, sim)


def test_the_real_benchmark_runs_and_fills_the_table(tmp_path: Path) -> None:
    out = tmp_path / "real.csv"
    done = run_cli("measure", "--interference", "--library", "openmpi", "--sizes", "1MiB", "--repetitions", "1",
                   "--csv", str(out))
    assert done.returncode == 0, done.stderr
    row = next(csv.DictReader(out.open()))
    assert row["library"] == "openmpi" and row["size_bytes"] == "1048576" and row["computing_ranks"] == "1"
    # The kernel alone is the one-core point of the STREAM curve; two cores together stream at most about twice as
    # much (whether they stream more than one depends on what else runs on this shared machine).
    assert row["kernel_GBps_per_rank_alone"] == row["stream_1_GBps"]
    assert 0 < float(row["stream_2_GBps"]) <= 2.2 * float(row["stream_1_GBps"])
    assert all(float(row[c]) > 0 for c in ("pingpong_us_alone", "pingpong_us_loaded", "kernel_GBps_per_rank_loaded"))


def test_interference_and_pingpong_together_are_refused() -> None:
    done = run_cli("measure", "--interference", "--pingpong")
    assert done.returncode == 2 and "choose one benchmark" in done.stderr
