"""Control messages (request-to-send, clear-to-send, finish) without transfers: `progsim/control-transfers: no`.

By default a control message arrives after the time SimGrid's network model would give its transfer on an idle
route (simulator/resources/RouteDelay.hpp), instead of being a transfer that the bandwidth solver shares. The
reference is SimGrid itself: on an idle route the same run with `control-transfers: yes` (real transfers) must
give the same times, under every network model the shortcut follows, with and without cross-traffic, and with
the rate capped by TCP-gamma. Where links are busy, the shortcut leaves out the control bytes' share of them: the
last test states that difference analytically.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analytic_platform import CONTROL_BYTES, LATENCY, NETWORKS, NIC_BANDWIDTH, OVERHEAD, SPEED, platform, replay, steps

RENDEZVOUS = [
    "0 init\n0 isend 1 0 16777216\n0 compute 1e6\n0 wait 0 1 0\n0 finalize",
    "1 init\n1 irecv 0 0 16777216\n1 compute 1e7\n1 wait 0 1 0\n1 finalize",
]
PUT_RENDEZVOUS = [
    "0 init\n0 send 1 0 1048576\n0 finalize",
    "1 init\n1 recv 0 0 1048576\n1 finalize",
]



# As a transfer, a control message ends when SimGrid's network model ends it, which is with any event less than
# surf/precision (1 ns, as the engine sets it) before its end; as a date, a kernel timer ends it at the date exactly.
# A 64 B message between two ranks of one host takes 64 ps, so times may differ by up to that precision per control
# message there (three in a put rendezvous), either way; between nodes the control bytes alone take 6.4 ns per
# message, so a wrong rate or factor cannot hide.
PRECISION = 3 * 1e-9


def same_times(a: dict, b: dict, precision: float = PRECISION) -> None:
    assert a["simulated_time"] == pytest.approx(b["simulated_time"], rel=0, abs=precision)
    for x, y in zip(a["ranks"], b["ranks"]):
        for key, value in x.items():
            if isinstance(value, float):
                assert value == pytest.approx(y[key], rel=0, abs=precision), (x["rank"], key)


# 100 kB control messages make the bytes' time dominate (10 us): the cross-traffic's 5 % on a link crossed both ways,
# a bandwidth factor or TCP-gamma's cap would each be far above the rings' few nanoseconds. 64 B: the default size,
# under SimGrid's default for SMPI and the analytic platforms' model.
SIZES = [(network, 100_000) for network in NETWORKS] + [("SMPI", CONTROL_BYTES), ("CM02", CONTROL_BYTES)]


@pytest.mark.parametrize("network, control_bytes", SIZES)
@pytest.mark.parametrize("progress", ["none", "dedicated-core"])  # the rank waits; an agent waits
@pytest.mark.parametrize("ranks_per_node", [1, 2], ids=["between nodes", "inside a node"])
def test_on_an_idle_route_a_control_message_takes_what_its_transfer_takes(
        tmp_path: Path, network: str, progress: str, ranks_per_node: int, control_bytes: int) -> None:
    settings = (*NETWORKS[network], f"progsim/control-bytes:{control_bytes}")  # after analytic_platform's own
    for ranks, rendezvous in ((RENDEZVOUS, "get"), (PUT_RENDEZVOUS, "put")):
        runs = {}
        for transfers in ("yes", "no"):
            folder = tmp_path / f"{rendezvous}-{transfers}"
            folder.mkdir()
            runs[transfers] = replay(folder, ranks, progress, ranks_per_node=ranks_per_node, rendezvous=rendezvous,
                                     settings=(*settings, f"progsim/control-transfers:{transfers}"))
        same_times(runs["no"], runs["yes"])


def test_the_latency_factor_is_smpis_for_the_control_size(tmp_path: Path) -> None:
    # SMPI's rule (network_smpi.cpp): the factor of the largest threshold strictly below the size. 64 B lies in
    # (32, 1000]: the latency counts 2.5 times, the bytes go at 0.5 x the bandwidth (64 is not above 100).
    timeline = tmp_path / "events.jsonl"
    replay(tmp_path, RENDEZVOUS, "none", timeline=timeline,
           settings=("network/model:SMPI", "smpi/lat-factor:0:3.5;32:2.5;1000:1.5", "smpi/bw-factor:0:0.5;100:0.8"))
    match = next(e for e in steps(timeline) if e["step"] == "match-rendezvous")
    assert match["from_t"] == pytest.approx(OVERHEAD, rel=1e-12)
    assert match["arrived"] == pytest.approx(OVERHEAD + 2.5 * LATENCY + CONTROL_BYTES / (0.5 * NIC_BANDWIDTH),
                                             rel=1e-12)


# Ranks 0 and 1 on the first node, 2 and 3 on the second. Rank 0 sends 16 MiB to rank 2, pulled over the NIC from
# about 3 us on, for 1.7 ms; at 1 ms rank 1 sends a rendezvous to rank 3, whose request-to-send crosses the same
# link, which is busy.
BUSY_LINK = [
    "0 init\n0 send 2 0 16777216\n0 finalize",
    "1 init\n1 compute 1e6\n1 send 3 0 16777216\n1 finalize",
    "2 init\n2 recv 0 0 16777216\n2 finalize",
    "3 init\n3 recv 1 0 16777216\n3 finalize",
]


@pytest.mark.parametrize("transfers, share", [("yes", 2), ("no", 1)])
def test_on_a_busy_link_a_control_message_keeps_the_whole_bandwidth(tmp_path: Path, transfers: str,
                                                                    share: int) -> None:
    # As a transfer, the request-to-send shares the NIC's link with the pull in flight (max-min: half each); as an
    # arrival date it has the whole link. The difference is the model choice's: 64 B / 10 GB/s = 6.4 ns here.
    timeline = tmp_path / "events.jsonl"
    replay(tmp_path, BUSY_LINK, "none", timeline=timeline, ranks_per_node=2,
           settings=(f"progsim/control-transfers:{transfers}",))
    match = next(e for e in steps(timeline) if e["step"] == "match-rendezvous" and e["rank"] == 3)
    sent = 1e6 / SPEED + OVERHEAD
    assert match["from_t"] == pytest.approx(sent, rel=1e-12)
    assert match["arrived"] == pytest.approx(sent + LATENCY + share * CONTROL_BYTES / NIC_BANDWIDTH, rel=1e-12)


def test_a_factor_that_simgrid_could_not_read_is_bad_input(tmp_path: Path) -> None:
    done = replay(tmp_path, RENDEZVOUS, "none", expect=2, settings=("network/model:SMPI", "smpi/lat-factor:0:2;x:3"))
    assert "smpi/lat-factor: 'x:3' in '0:2;x:3' is not size:factor" in done["stderr"]
