"""Timelines: the engine's step events (message ids, ends, who started what) and `progsim timeline`'s exports
(Chrome trace-event JSON, Gantt PNG), from real replays of a 2-rank rendezvous whose receiver computes.

No consumer of the Chrome format installs here without fetching a binary at run time (PyPI's `perfetto` downloads
its trace_processor_shell when first used), so the export is held against the format's documentation ("Trace Event
Format", JSON Object Format) and Perfetto's import rules: X events need ts and a non-negative dur, flow events pair
by (id, cat, name), a flow event binds to the innermost slice open at its ts on its thread, "f" needs bp "e" for that.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from analytic_platform import BIG, OVERHEAD, replay, steps
from conftest import run_cli

# Rank 1 computes 10 ms between posting its receive and waiting: under `none` it matches the request-to-send only
# in its wait; under `thread` its progress thread matches it at its next poll.
RENDEZVOUS_WITH_BUSY_RECEIVER = [
    "0 init\n0 isend 1 0 16777216\n0 wait 0 1 0\n0 finalize",
    "1 init\n1 irecv 0 0 16777216\n1 compute 1e7\n1 wait 0 1 0\n1 finalize",
]
COMPUTE = 1e7 / 1e9


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The replays, once per module: per mechanism its timeline, results and folder."""
    found = {}
    for progress, rendezvous in (("none", "get"), ("thread", "get"), ("none", "put")):
        folder = tmp_path_factory.mktemp(f"{progress}-{rendezvous}")
        timeline = folder / "events.jsonl"
        results = replay(folder, RENDEZVOUS_WITH_BUSY_RECEIVER, progress, timeline=timeline, rendezvous=rendezvous)
        found[f"{progress}-{rendezvous}"] = {"timeline": timeline, "results": results, "folder": folder,
                                             "results_file": folder / f"{progress}.json"}
    return found


def export(run: dict[str, Any], *options: str, name: str = "out") -> tuple[dict[str, Any], Path]:
    chrome, png = run["folder"] / f"{name}.json", run["folder"] / f"{name}.png"
    done = run_cli("timeline", str(run["timeline"]), "--chrome", str(chrome), "--png", str(png), "--results",
                   str(run["results_file"]), *options)
    assert done.returncode == 0, done.stderr
    return json.loads(chrome.read_text()), png


# ---------------------------------------------------------------------------------------------- engine side

@pytest.mark.parametrize("key", ["none-get", "thread-get", "none-put"])
def test_the_sender_and_receiver_steps_of_one_rendezvous_carry_the_same_message_id(runs: dict, key: str) -> None:
    events = steps(runs[key]["timeline"])
    by_rank = {rank: [e for e in events if e["rank"] == rank] for rank in (0, 1)}
    assert by_rank[0] and by_rank[1]
    ids = {e["msg"] for e in events}
    assert len(ids) == 1  # one message: every step of both sides names it
    for e in events:
        assert e["peer"] == 1 - e["rank"] and e["bytes"] == BIG
        assert e["end"] >= e["t"] and e["cpu"] == pytest.approx(OVERHEAD)
        assert e["node"] == e["rank"]  # one rank per node
    match = next(e for e in by_rank[1] if e["step"] == "match-rendezvous")
    # The request-to-send left rank 0 at the end of its isend's overhead.
    assert match["from_agent"] == "rank-0" and match["from_t"] == pytest.approx(OVERHEAD)
    if key == "thread-get":
        assert match["agent"] == "progress-thread-1" and match["by"] == "progress-thread"
        assert match["t"] < COMPUTE / 10  # the thread matched it while rank 1 computed
    else:
        assert match["agent"] == "rank-1" and match["t"] == pytest.approx(OVERHEAD + COMPUTE)
        assert match["end"] - match["t"] == pytest.approx(OVERHEAD)  # a core of its own: the step's CPU time
    if key == "none-put":  # the sender answers the clear-to-send: a step of rank 0 with the receiver's message id
        clear = next(e for e in by_rank[0] if e["step"] == "clear-to-send")
        assert clear["from_agent"] == "rank-1" and clear["from_t"] >= match["t"]
    finish = next(e for e in events if e["step"] == "finish")
    assert finish["from_t"] <= finish["t"] and finish["from_agent"] != finish["agent"]


def test_the_timeline_stays_in_time_order_with_the_old_fields(runs: dict) -> None:
    lines = [json.loads(line) for line in runs["thread-get"]["timeline"].read_text().splitlines()]
    assert [e["t"] for e in lines] == sorted(e["t"] for e in lines)
    assert all({"t", "rank", "step", "by"} <= set(e) for e in lines if "step" in e)
    assert all({"t", "rank", "state"} <= set(e) for e in lines if "step" not in e)
    first = {}
    for e in lines:
        first.setdefault(e["rank"], e)
    assert first[0]["node"] == 0 and first[1]["node"] == 1  # a rank's first line says where it runs


# ---------------------------------------------------------------------------------------------- Chrome JSON

def check_chrome_format(trace: dict[str, Any]) -> None:
    """The trace-event format's JSON Object Format, as Perfetto and chrome://tracing import it."""
    assert isinstance(trace["traceEvents"], list) and trace["traceEvents"]
    assert trace.get("displayTimeUnit") in ("ms", "ns")
    flows: dict[Any, dict[str, dict]] = {}
    for event in trace["traceEvents"]:
        assert isinstance(event["name"], str) and event["ph"] in ("X", "M", "s", "f")
        assert isinstance(event["pid"], int) and isinstance(event["tid"], int)
        if event["ph"] == "M":
            assert event["name"] in ("process_name", "thread_name", "process_sort_index", "thread_sort_index")
            assert ("name" in event["args"]) if event["name"].endswith("_name") else ("sort_index" in event["args"])
            continue
        assert isinstance(event["ts"], (int, float)) and event["ts"] >= 0 and isinstance(event["cat"], str)
        if event["ph"] == "X":
            assert isinstance(event["dur"], (int, float)) and event["dur"] >= 0
            assert isinstance(event["args"], dict)
        else:
            assert event["ph"] not in flows.setdefault(event["id"], {}), "one start and one end per flow id"
            flows[event["id"]][event["ph"]] = event
    slices = slices_by_track(trace)
    for track, spans in slices.items():  # slices on one thread nest: none overlaps another partly
        ordered = sorted(spans, key=lambda s: (s[0], -s[1]))
        open_ends: list[float] = []
        for start, end, _ in ordered:
            while open_ends and open_ends[-1] <= start + 1e-6:
                open_ends.pop()
            assert not open_ends or end <= open_ends[-1] + 1e-6, f"slices overlap partly on {track}"
            open_ends.append(end)
    for flow_id, pair in flows.items():
        assert set(pair) == {"s", "f"}, f"flow {flow_id} is not paired"
        start, end = pair["s"], pair["f"]
        assert (start["name"], start["cat"]) == (end["name"], end["cat"])  # Perfetto pairs by id, cat and name
        assert end["ts"] >= start["ts"] and end.get("bp") == "e"
        for event in (start, end):
            assert innermost(slices, event) is not None, f"flow {flow_id}'s {event['ph']} binds to no slice"


def slices_by_track(trace: dict[str, Any]) -> dict[tuple[int, int], list[tuple[float, float, dict]]]:
    found: dict[tuple[int, int], list[tuple[float, float, dict]]] = {}
    for e in trace["traceEvents"]:
        if e["ph"] == "X":
            found.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"], e))
    return found


def innermost(slices: dict, event: dict) -> dict | None:
    """The slice a flow event binds to: the innermost one open at its ts on its thread."""
    holding = [(b - a, s) for a, b, s in slices.get((event["pid"], event["tid"]), []) if a <= event["ts"] <= b]
    return min(holding, key=lambda h: h[0])[1] if holding else None


def thread_names(trace: dict[str, Any]) -> dict[tuple[int, int], str]:
    return {(e["pid"], e["tid"]): e["args"]["name"] for e in trace["traceEvents"]
            if e["ph"] == "M" and e["name"] == "thread_name"}


@pytest.mark.parametrize("key", ["none-get", "thread-get", "none-put"])
def test_the_chrome_trace_follows_the_format_and_covers_every_rank(runs: dict, key: str) -> None:
    trace, _ = export(runs[key])
    check_chrome_format(trace)
    names = thread_names(trace)
    slices = slices_by_track(trace)
    for rank, record in enumerate(runs[key]["results"]["ranks"]):
        track = next(t for t, name in names.items() if name == f"rank {rank}")
        states = sorted((a, b) for a, b, s in slices[track] if s["cat"] == "state")
        # From time 0 to the rank's end, without a gap: every state change is a slice boundary.
        assert states[0][0] == 0 and states[-1][1] == pytest.approx(record["end_time"] * 1e6, rel=1e-9)
        for (_, end), (start, _) in zip(states, states[1:]):
            assert start == pytest.approx(end, abs=1e-6)
    computing = [s for spans in slices.values() for _, _, s in spans if s["args"].get("state") == "computing"]
    assert computing and all(s["args"]["action"] == "compute" and s["args"]["line"] == 3 for s in computing)
    flows = [e for e in trace["traceEvents"] if e["ph"] == "s"]
    assert {f["name"] for f in flows} >= {"request-to-send", "finish"}
    # The request-to-send arrow leaves rank 0's isend and ends in the step that matched it.
    rts_start = next(f for f in flows if f["name"] == "request-to-send")
    assert innermost(slices, rts_start)["name"] == "MPI isend"
    rts_end = next(e for e in trace["traceEvents"] if e["ph"] == "f" and e["id"] == rts_start["id"])
    assert innermost(slices, rts_end)["name"] == "match-rendezvous"


@pytest.mark.parametrize("key,track", [("none-get", "rank 1"), ("thread-get", "progress thread of rank 1")])
def test_steps_sit_on_the_track_of_whoever_ran_them(runs: dict, key: str, track: str) -> None:
    trace, _ = export(runs[key])
    names = thread_names(trace)
    steps_of_rank_1 = [e for e in trace["traceEvents"] if e["ph"] == "X" and e["cat"] == "progress work"
                       and e["args"]["rank"] == 1]
    assert {e["name"] for e in steps_of_rank_1} == {"match-rendezvous", "transfer-done"}
    assert {names[(e["pid"], e["tid"])] for e in steps_of_rank_1} == {track}
    processes = {e["pid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "process_name"}
    assert {processes[e["pid"]] for e in steps_of_rank_1} == {"node 1"}  # the thread runs beside its rank
    assert (track == "rank 1") == (len(names) == 2)  # under `none` no agent track at all


def test_the_rank_and_time_filters_drop_what_they_should(runs: dict) -> None:
    run = runs["thread-get"]
    trace, _ = export(run, "--ranks", "0", name="rank0")
    check_chrome_format(trace)
    assert set(thread_names(trace).values()) == {"rank 0"}  # rank 1 and its thread are gone
    assert {e["args"].get("rank", 0) for e in trace["traceEvents"] if e["ph"] == "X"} == {0}
    assert not [e for e in trace["traceEvents"] if e["ph"] in "sf"]  # every arrow had an end on rank 1's side

    trace, _ = export(run, "--from", "0.002", "--to", "0.004", name="window")
    check_chrome_format(trace)
    spans = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert spans and all(2000 - 1e-6 <= e["ts"] and e["ts"] + e["dur"] <= 4000 + 1e-6 for e in spans)
    # Between 2 and 4 ms rank 1 computes (cut at the window's edges), rank 0 is done, the thread does nothing.
    assert [(e["name"], e["ts"], e["dur"]) for e in spans] == [("compute", 2000, 2000)]
    assert not [e for e in trace["traceEvents"] if e["ph"] in "sf"]


def test_the_export_is_deterministic(runs: dict) -> None:
    run = runs["thread-get"]
    first, _ = export(run, name="a")
    second, _ = export(run, name="b")
    assert (run["folder"] / "a.json").read_bytes() == (run["folder"] / "b.json").read_bytes()
    assert first == second


# ---------------------------------------------------------------------------------------------- PNG

def colour_pixels(png: Path) -> dict[str, int]:
    import numpy
    from PIL import Image

    from progsim.timeline import COLOURS
    with Image.open(png) as image:
        pixels = numpy.asarray(image.convert("RGB")).reshape(-1, 3)
    wanted = {name: [int(code[i:i + 2], 16) for i in (1, 3, 5)] for name, code in COLOURS.items()}
    return {name: int((pixels == rgb).all(axis=1).sum()) for name, rgb in wanted.items()}


@pytest.mark.parametrize("key,agent_rows", [("none-get", 0), ("thread-get", 1)])
def test_the_gantt_picture_has_its_size_and_shows_the_work(runs: dict, key: str, agent_rows: int) -> None:
    import numpy
    from PIL import Image

    _, png = export(runs[key])
    with Image.open(png) as image:
        rows = 2 + agent_rows
        assert image.size == (1200, round(100 * (2.0 + 0.45 * rows)))
        colours = {tuple(p) for p in numpy.asarray(image.convert("RGB")).reshape(-1, 3)}
        assert len(colours) > 20  # not blank: text, bars, arrows
    pixels = colour_pixels(png)
    assert pixels["compute"] > 10000  # rank 1's 10 ms of computation: most of a row
    assert pixels["waiting"] > 1000
    assert pixels["progress work"] > 20  # steps are drawn a few pixels wide at least


# ---------------------------------------------------------------------------------------------- bad input

def test_bad_input_exits_2_with_one_line_and_writes_nothing(tmp_path: Path, runs: dict) -> None:
    chrome, png = tmp_path / "t.json", tmp_path / "t.png"
    good = runs["none-get"]["timeline"].read_text().splitlines()
    cases = {
        "missing.jsonl": None,
        "bad.jsonl": good[0] + "\n{\"t\": 1, \"rank\": \n",
        "norank.jsonl": good[0] + "\n" + good[1] + "\n{\"t\": 1, \"state\": \"mpi\"}\n",
        "empty.jsonl": "\n",
    }
    expected = {"missing.jsonl": "no such timeline file", "bad.jsonl": "bad.jsonl:2: not a JSON line",
                "norank.jsonl": "norank.jsonl:3: expected a \"rank\"", "empty.jsonl": "no events"}
    for name, text in cases.items():
        path = tmp_path / name
        if text is not None:
            path.write_text(text)
        done = run_cli("timeline", str(path), "--chrome", str(chrome), "--png", str(png))
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("progsim: error: ")
        assert expected[name] in done.stderr
        assert not chrome.exists() and not png.exists()
        assert not list(tmp_path.glob("*.partial"))
    events = runs["none-get"]["timeline"]
    for options, message in ((["--chrome", str(chrome), "--ranks", "3-5"], "has ranks 0-1"),
                             (["--chrome", str(chrome), "--ranks", "b-a"], "expected a rank or a range"),
                             (["--chrome", str(chrome), "--from", "1", "--to", "0.5"], "must end after it starts"),
                             (["--chrome", str(chrome), "--from", "5"], "nothing between"),
                             (["--png", str(tmp_path / "t.jpg")], "expected a .png file"),
                             ([], "--chrome out.json and/or --png out.png"),
                             (["--chrome", str(events)], "input of this run")):
        done = run_cli("timeline", str(events), *options)
        assert done.returncode == 2 and message in done.stderr, (options, done.stderr)
        assert done.stderr.count("\n") == 1
        assert not chrome.exists()


def test_the_help_says_what_each_output_shows() -> None:
    done = run_cli("timeline", "--help")
    assert done.returncode == 0
    for words in ("Perfetto", "chrome://tracing", "progress thread", "reserved core", "NIC", "waiting in",
                  "Arrows", "--ranks", "--from"):
        assert words in done.stdout


# ---------------------------------------------------------------------------------------------- agents

@pytest.mark.parametrize("progress,track,steps_run", [
    # A reserved core of rank 1's node matches the request-to-send and sees the pull end (the `get` rendezvous).
    ("dedicated-core", "reserved core of node 1", {"match-rendezvous", "transfer-done"}),
    # The NIC (offloading matching and rendezvous) does the same, with no CPU.
    ("offload", "NIC of node 1", {"match-rendezvous", "transfer-done"}),
])
def test_reserved_cores_and_nics_get_tracks_of_their_own(tmp_path: Path, progress: str, track: str,
                                                           steps_run: set[str]) -> None:
    timeline = tmp_path / "events.jsonl"
    replay(tmp_path, RENDEZVOUS_WITH_BUSY_RECEIVER, progress, timeline=timeline)
    run = {"timeline": timeline, "folder": tmp_path, "results_file": tmp_path / f"{progress}.json"}
    trace, _ = export(run)
    check_chrome_format(trace)
    names = thread_names(trace)
    agent_steps = [e for e in trace["traceEvents"] if e["ph"] == "X" and e["cat"] != "state"
                   and names[(e["pid"], e["tid"])].startswith(track) and e["args"]["rank"] == 1]
    assert {e["name"] for e in agent_steps} == steps_run
    match = next(e for e in agent_steps if e["name"] == "match-rendezvous")
    # It matched while rank 1 computed: a control message after rank 0's isend, not after the computation.
    assert match["ts"] < COMPUTE * 1e6 / 10
    assert all(e["cat"] == ("NIC work" if progress == "offload" else "progress work") for e in agent_steps)
    # Each step lasts its runner's cost: the platform's step_cost on a reserved core, step_latency on the NIC.
    assert all(e["dur"] == pytest.approx(OVERHEAD * 1e6) for e in agent_steps)


def test_ideal_steps_last_no_time_and_still_export(tmp_path: Path) -> None:
    """Under `ideal` SMPI's network completes the transfers: the steps take no time; both outputs still show them
    (a slice of zero duration, a bar a few pixels wide)."""
    timeline = tmp_path / "events.jsonl"
    replay(tmp_path, RENDEZVOUS_WITH_BUSY_RECEIVER, "ideal", timeline=timeline)
    run = {"timeline": timeline, "folder": tmp_path, "results_file": tmp_path / "ideal.json"}
    trace, png = export(run)
    check_chrome_format(trace)
    steps_shown = [e for e in trace["traceEvents"] if e["ph"] == "X" and e["cat"] != "state"]
    assert steps_shown and all(e["dur"] == 0 and e["args"]["cpu_us"] == 0 for e in steps_shown)
    assert colour_pixels(png)["progress work"] > 0
