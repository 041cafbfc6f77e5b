"""`progsim validate-interference` (progsim/interference_cases.py): the simulated memory-contention benchmark held
against the sentences of Denis, Jeannot and Swartvagher (ICPP 2021) that give numbers
(validation/interference/cases, each check with its line in the paper and its tolerance).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from conftest import REPOSITORY, run_cli
from progsim.interference_cases import Check, measure

CASES = REPOSITORY / "validation" / "interference" / "cases"


def test_the_shipped_cases_hold_and_the_known_gaps_still_fail(tmp_path: Path) -> None:
    report = tmp_path / "report.md"
    done = run_cli("validate-interference", str(CASES), "--report", str(report), "--jobs", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    verdicts = [line.rsplit("|", 2)[-2].strip() for line in report.read_text().splitlines()
                if line.startswith("| ") and not line.startswith("| case")]
    # Every check passes, but the four the model does not capture yet (each case says why): strict expected failures.
    assert verdicts.count("PASS") == 16 and verdicts.count("XFAIL") == 4 and len(verdicts) == 20, verdicts


def rows(axis: str, points: list[tuple[float, float]]) -> list[dict[str, str]]:
    """Rows of the benchmark's table whose bandwidth ratio (alone / loaded time) is each point's second value."""
    base = {"intensity_flop_per_byte": "1", "computing_ranks": "35", "size_bytes": "67108864",
            "kernel_GBps_per_rank_alone": "1", "kernel_GBps_per_rank_loaded": "1", "pingpong_us_alone": "100"}
    return [{**base, axis: f"{x:g}", "pingpong_us_loaded": f"{100 / ratio:g}"} for x, ratio in points]


def test_onset_is_the_first_count_that_loses_more_than_the_threshold() -> None:
    table = rows("computing_ranks", [(1, 1.0), (2, 0.97), (3, 0.9), (4, 0.96), (5, 0.5)])
    assert measure(Check("onset", {"size_bytes": 67108864}, 3, 1, ""), table) == 3
    assert measure(Check("onset", {"size_bytes": 67108864}, 3, 1, "", threshold=0.5), table) == math.inf


def test_onset_over_sizes_follows_the_chosen_ratio() -> None:
    table = rows("size_bytes", [(1024, 1.0), (4096, 0.99), (65536, 0.8)])
    assert measure(Check("onset", {"computing_ranks": 35}, 0, 0, "", axis="size_bytes"), table) == 65536
    # The kernel's ratio is 1 in every row: it never falls.
    assert measure(Check("onset", {"computing_ranks": 35}, 0, 0, "", axis="size_bytes", of="kernel_ratio"),
                   table) == math.inf


def test_unaffected_from_is_the_lowest_intensity_above_which_all_hold() -> None:
    # 8 holds, but 10 does not: the network is unaffected only from 12.
    table = rows("intensity_flop_per_byte", [(1, 0.3), (8, 0.96), (10, 0.9), (12, 0.99), (20, 1.0)])
    assert measure(Check("unaffected_from", {"computing_ranks": 35}, 6, 1, ""), table) == 12


def case_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "case.yaml"
    path.write_text(f"""\
name: test
source: test
platform: {REPOSITORY / 'platforms' / 'henri.yaml'}
run: {{intensities: [0.0833], computing_ranks: [1], sizes: [64MiB]}}
{body}""")
    return path


def test_an_expected_failure_that_passes_fails_the_run(tmp_path: Path) -> None:
    # One computing core leaves the NIC its bandwidth: the ratio is 1, and this check expects it to be.
    path = case_file(tmp_path, """\
expected_failure: "claimed broken"
checks:
  - {quantity: bandwidth_ratio, at: {computing_ranks: 1}, reference: 1.0, tolerance: 0.01, why: "alone"}
""")
    done = run_cli("validate-interference", str(path), "--jobs", "1")
    assert done.returncode == 1 and "XPASS (unexpected)" in done.stdout


@pytest.mark.parametrize("body,message", [
    ("checks:\n  - {quantity: speed, at: {}, reference: 1, tolerance: 0, why: x}\n", "checks[0].quantity"),
    ("checks:\n  - {quantity: onset, at: {cores: 3}, reference: 1, tolerance: 0, why: x}\n", "checks[0].at.cores"),
    ("checks:\n  - {quantity: onset, at: {}, reference: 1, tolerance: -1, why: x}\n", "checks[0].tolerance"),
    ("checks: []\n", "checks: expected a list of checks"),
])
def test_a_bad_case_names_its_yaml_path(tmp_path: Path, body: str, message: str) -> None:
    done = run_cli("validate-interference", str(case_file(tmp_path, body)))
    assert done.returncode == 2 and message in done.stderr, done.stderr
