"""The route cache (SimGrid change `route-cache`, scripts/build_simgrid.sh): the engine's network model keeps the route
between two hosts once computed. Routes do not change once the platform is loaded, so a replay must time every rank
to the bit as with SimGrid's own lookup at each transfer (network/route-cache:no), the reference here.

A torus routes each pair of nodes through its own chain of links (dimension-order routing, several hops): a cache
that gave one pair another's route, or the way there for the way back, would change which links each message loads.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import REPOSITORY
from progsim.engine import replay
from test_carried_flows import compiled_for


@pytest.mark.parametrize("mechanism", ["ideal", "none"])
def test_a_real_capture_times_to_the_bit_with_routes_kept(tmp_path: Path, mechanism: str) -> None:
    # HPCC's HPL at 64 ranks, 16 per node of a Cray XE6 torus: panel broadcasts and row swaps between four nodes.
    compiled = compiled_for(tmp_path, "blue-waters-xe6", 64, 16)
    trace = REPOSITORY / "validation" / "real" / "hpcc-hpl-64" / "trace_list.txt"
    results = {}
    for kept in ("yes", "no"):
        run = replay(trace, compiled, mechanism, tmp_path / f"{kept}.json", settings=[f"network/route-cache:{kept}"])
        assert run.returncode == 0, f"route-cache:{kept}: {run.stderr[-3000:]}"
        results[kept] = run.results
    assert results["yes"]["simulated_time"] == results["no"]["simulated_time"]
    assert [rank["end_time"] for rank in results["yes"]["ranks"]] == \
        [rank["end_time"] for rank in results["no"]["ranks"]]
