"""Messages between two ranks of a NUMA domain as dates: `progsim/loopback-transfers: no`.

Inside a domain a message crosses the domain's loopback link only (progsim/platform/compiler.py), a FATPIPE link
no other route crosses: SimGrid gives each of its flows the link's bandwidth, whatever else runs, so by default the
engine takes such a message as the date its route gives it (simulator/resources/RouteDelay.hpp) instead of a transfer.
The reference is SimGrid itself: the same runs with `loopback-transfers: yes` (real transfers) must give the same
times, under every network model the shortcut follows, for eager messages and both rendezvous, whoever runs the
steps, with messages in flight together.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analytic_platform import replay
from test_control_messages import NETWORKS, same_times

# The receiver waits before the sender sends: each message's arrival is on the path to the end.
EAGER = [
    "0 init\n0 compute 1e6\n0 isend 1 0 1024\n0 isend 1 1 4000\n0 wait 0 1 0\n0 wait 0 1 1\n0 finalize",
    "1 init\n1 irecv 0 0 1024\n1 irecv 0 1 4000\n1 wait 0 1 0\n1 wait 0 1 1\n1 finalize",
]
RENDEZVOUS = [
    "0 init\n0 isend 1 0 16777216\n0 irecv 1 1 1048576\n0 compute 1e6\n0 wait 0 1 0\n0 wait 1 0 1\n0 finalize",
    "1 init\n1 irecv 0 0 16777216\n1 isend 0 1 1048576\n1 compute 1e7\n1 wait 0 1 0\n1 wait 1 0 1\n1 finalize",
]

# A transfer ends when SimGrid's network model ends it, which is with any event less than surf/precision (1 ns, as
# the engine sets it) before its end; a date ends at the date exactly. Each run here has at most 4 data messages.
PRECISION = 4 * 1e-9



@pytest.mark.parametrize("network", list(NETWORKS))
@pytest.mark.parametrize("progress", ["none", "dedicated-core", "ideal"])  # the rank, an agent, SMPI's protocol
def test_a_message_inside_a_domain_takes_what_its_transfer_takes(tmp_path: Path, network: str, progress: str) -> None:
    for name, ranks, rendezvous in (("eager", EAGER, "get"), ("get", RENDEZVOUS, "get"), ("put", RENDEZVOUS, "put")):
        runs = {}
        for transfers in ("yes", "no"):
            folder = tmp_path / f"{name}-{transfers}"
            folder.mkdir()
            runs[transfers] = replay(folder, ranks, progress, ranks_per_node=2, rendezvous=rendezvous,
                                     memory_bandwidth=2e10, memory_latency=1e-7,
                                     settings=(*NETWORKS[network], f"progsim/loopback-transfers:{transfers}"))
        same_times(runs["no"], runs["yes"], PRECISION)
        assert runs["no"]["simulated_time"] > 0
