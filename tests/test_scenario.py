"""The scenario command on the shipped teaching example: does an MPI_Isend overlap?"""

from __future__ import annotations

import re

import pytest

from conftest import run_cli


def test_overlap_scenario_shows_who_overlaps() -> None:
    done = run_cli("scenario", "scenarios/overlap.yaml")
    assert done.returncode == 0, done.stderr
    times = {m.group(1): float(m.group(2)) for m in re.finditer(r"^(\S+)\s+([0-9.]+)\s+[0-9.]+x", done.stdout, re.M)}
    assert set(times) == {"ideal", "none", "thread", "dedicated-core", "offload"}
    # Rank 1 computes 10 ms (7.36e8 flops at henri's 7.36e10 flop/s per core) before it waits.
    assert times["ideal"] == pytest.approx(10e-3, rel=1e-3)
    # Agents answer the handshake during the computation: no time lost.
    assert times["thread"] == pytest.approx(times["ideal"], rel=1e-3)
    assert times["dedicated-core"] == pytest.approx(times["ideal"], rel=1e-3)
    # Without them the 16 MiB transfer starts only at the wait: at least 16 MiB / (henri's NIC) is added.
    assert times["none"] > times["ideal"] + 16 * 2**20 / 12.5e9
    # henri's NICs offload nothing: offload falls back to none.
    assert times["offload"] == times["none"]


def test_a_scenario_with_an_unknown_mechanism(tmp_path) -> None:
    from conftest import REPOSITORY

    text = (REPOSITORY / "scenarios" / "overlap.yaml").read_text().replace("offload]", "teleport]")
    text = text.replace("../platforms", str(REPOSITORY / "platforms"))
    text = text.replace("traces/overlap", str(REPOSITORY / "scenarios" / "traces" / "overlap"))
    scenario = tmp_path / "s.yaml"
    scenario.write_text(text)
    done = run_cli("scenario", str(scenario))
    assert done.returncode == 2
    assert f"{scenario}:8: progress[4]: unknown mechanism 'teleport'" in done.stderr
