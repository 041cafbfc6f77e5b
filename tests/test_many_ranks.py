"""Tens of thousands of actors: SimGrid guards each actor's stack with a page that splits its memory mapping in two,
and Linux caps a process's mappings (vm.max_map_count, 65 530 by default). 16 384 ranks under `thread`, a progress
thread each, would need 65 536 guarded stacks' worth of mappings and abort; the engine drops the guards past half
the cap (simulator/main.cpp), as SimGrid's documentation advises for large simulations."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import flat_platform, run_cli, write_platform

RANKS = 16384

PLATFORM = flat_platform("many", nodes=RANKS // 16, cores=16, ranks_per_node=16)


def test_sixteen_thousand_ranks_with_a_progress_thread_each_run(tmp_path: Path) -> None:
    trace = tmp_path / "trace.txt"  # one shared file: every rank's init, then every rank's finalize
    trace.write_text("".join(f"{r} init\n" for r in range(RANKS)) + "".join(f"{r} finalize\n" for r in range(RANKS)))
    platform = write_platform(tmp_path, PLATFORM)
    out = tmp_path / "results.json"
    done = run_cli("replay", str(trace), "--platform", str(platform), "--progress", "thread", "--out", str(out))
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(out.read_text())
    assert results["ranks_count"] == RANKS and len(results["ranks"]) == RANKS
    assert results["simulated_time"] == 0
