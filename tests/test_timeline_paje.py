"""`progsim timeline --paje`: the Paje export, read back by a real consumer, PajeNG's pj_dump (Debian package
pajeng), and by ViTE itself (Debian package vite: its command-line SVG export, under Xvfb), from real replays of a
2-rank 16 MiB rendezvous whose receiver computes (one rank per node).

pj_dump rebuilds the trace in memory and fails on what ViTE would misdraw: an unknown type or container, a state
popped without a push, events out of time order, a link without its end, a link between containers of other types
than its link type says. It lets a line carry more fields than its definition and closes the states left open when
their container ends, so the tests check those themselves (every line against its definition; every state at
imbrication 0 with its own end). Its dump (containers, states, links) is then held against the timeline file itself.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from conftest import REPOSITORY, run_cli, write_ranks

RENDEZVOUS_WITH_BUSY_RECEIVER = [
    "0 init\n0 isend 1 0 16777216\n0 wait 0 1 0\n0 finalize",
    "1 init\n1 irecv 0 0 16777216\n1 compute 1e7\n1 wait 0 1 0\n1 finalize",
]
# Who runs the steps besides the ranks: lima's NIC offloads nothing (its `offload` runs as `none`), irene-bxi's
# offloads matching and rendezvous.
CASES = {"lima-none": ("lima", "none", set()), "lima-thread": ("lima", "thread", {"progress-thread"}),
         "lima-offload": ("lima", "offload", set()),
         "lima-dedicated-core": ("lima", "dedicated-core", {"dedicated-core"}),
         "irene-bxi-offload": ("irene-bxi", "offload", {"nic"})}
# What travelled to call for a step: the link's value (the Chrome export's arrow names).
ARRIVAL_NAMES = {"match": "eager message", "match-rendezvous": "request-to-send", "clear-to-send": "clear-to-send",
                 "finish": "finish", "transfer-done": "data transfer"}
AGENT_LABELS = {"progress-thread": "progress thread of rank {rank}", "dedicated-core": "reserved core of node {node}",
                "nic": "NIC of node {node}"}


@pytest.fixture(scope="session")
def pj_dump() -> str:
    found = shutil.which("pj_dump")
    if found is None:
        pytest.fail("pj_dump (PajeNG) is not installed: `make setup` installs it (Debian package pajeng)")
    return found


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Path]]:
    found = {}
    for key, (platform, progress, _) in CASES.items():
        folder = tmp_path_factory.mktemp(key)
        trace = write_ranks(folder, RENDEZVOUS_WITH_BUSY_RECEIVER)
        timeline, results = folder / "events.jsonl", folder / "results.json"
        done = run_cli("replay", str(trace), "--platform", str(REPOSITORY / "platforms" / f"{platform}.yaml"),
                       "--progress", progress, "--ranks-per-node", "1", "--out", str(results),
                       "--timeline", str(timeline))
        assert done.returncode == 0, done.stderr
        found[key] = {"folder": folder, "timeline": timeline, "results": results}
    return found


def export(run: dict[str, Path], *options: str, name: str = "out") -> Path:
    out = run["folder"] / f"{name}.trace"
    done = run_cli("timeline", str(run["timeline"]), "--paje", str(out), "--results", str(run["results"]), *options)
    assert done.returncode == 0, done.stderr
    return out


# ---------------------------------------------------------------------------------------------- reading back

@dataclass
class Dump:
    """What pj_dump printed: containers (type, name) -> parent name, states and links as lists of fields."""
    containers: dict[tuple[str, str], str] = field(default_factory=dict)
    states: list[list[str]] = field(default_factory=list)
    links: list[list[str]] = field(default_factory=list)

    def states_of(self, container: str, kind: str | None = None) -> list[list[str]]:
        return sorted((s for s in self.states if s[1] == container and kind in (None, s[2])),
                      key=lambda s: (float(s[3]), float(s[6])))


def dump(pj_dump: str, trace: Path) -> Dump:
    done = subprocess.run([pj_dump, str(trace)], capture_output=True, text=True)
    assert done.returncode == 0 and not done.stderr, done.stderr + done.stdout[-2000:]
    validate = shutil.which("pj_validate")  # gone from recent PajeNG releases; run where it exists
    if validate is not None:
        checked = subprocess.run([validate, str(trace)], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr
    found = Dump()
    for line in done.stdout.splitlines():
        fields = line.split(", ")
        if fields[0] == "Container":
            assert len(fields) == 7, line
            found.containers[(fields[2], fields[6])] = fields[1]
        elif fields[0] == "State":
            assert len(fields) == 8, line
            found.states.append(fields)
        elif fields[0] == "Link":
            assert len(fields) == 10, line
            found.links.append(fields)
        else:
            raise AssertionError(f"pj_dump printed an unexpected line: {line}")
    return found


def paje_events(trace: Path) -> tuple[dict[str, tuple[str, list[str]]], list[tuple[str, dict[str, str]]]]:
    """The trace's event definitions (id -> name, field names) and its events as {field: value}: every line has
    exactly the fields its definition gives (Paje's own rule, which pj_dump only partly checks)."""
    definitions: dict[str, tuple[str, list[str]]] = {}
    events: list[tuple[str, dict[str, str]]] = []
    current: list[str] | None = None
    for line in trace.read_text().splitlines():
        if line.startswith("%EventDef"):
            _, name, number = line.split()
            current = []
            definitions[number] = (name, current)
        elif line.startswith("%EndEventDef"):
            current = None
        elif line.startswith("%"):
            assert current is not None, line
            name, kind = line[1:].split()
            assert kind in ("date", "int", "double", "hex", "string", "color"), line
            current.append(name)
        elif line and not line.startswith("#"):
            number, *values = shlex.split(line)
            name, fields = definitions[number]
            assert len(values) == len(fields), line
            events.append((name, dict(zip(fields, values))))
    return definitions, events


def jsonl(run: dict[str, Path]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in run["timeline"].read_text().splitlines()]


def printed(seconds: float) -> str:
    return f"{seconds:.6f}"  # pj_dump's precision for states and links


def state_names(events: list[dict[str, Any]], rank: int) -> list[tuple[float, float, str]]:
    """A rank's states from the timeline file: from each change to the next, the finished state and empty spans
    left out, named as the Chrome export names them."""
    changes = [e for e in events if e["rank"] == rank and "state" in e]
    end = max([e["t"] for e in events] + [e["end"] for e in events if "end" in e])
    spans, action = [], None
    for i, change in enumerate(changes):
        action = change.get("action", action)
        stop = changes[i + 1]["t"] if i + 1 < len(changes) else end
        if change["state"] == "finished" or stop <= change["t"]:
            continue
        name = {"computing": "compute", "mpi": f"MPI {action}", "blocked": f"waiting in {action}"}.get(
            change["state"], change["state"])
        spans.append((change["t"], stop, name))
    return spans


def agent_label(step: dict[str, Any]) -> str:
    if step["by"] == "rank":
        return f"steps run by rank {step['rank']}"
    return AGENT_LABELS[step["by"]].format(rank=step["rank"], node=step["node"])


# ---------------------------------------------------------------------------------------------- the export

@pytest.mark.parametrize("key", list(CASES))
def test_pj_dump_reads_the_export_and_shows_the_timeline(runs: dict, pj_dump: str, key: str) -> None:
    run = runs[key]
    trace = export(run)
    shown = dump(pj_dump, trace)
    events = jsonl(run)
    steps = [e for e in events if "step" in e]
    node = {e["rank"]: e["node"] for e in events if "node" in e and "state" in e}

    # Containers: a node per node, in it the ranks and the agents that ran steps; a rank that ran steps itself has
    # a sub-container for them.
    expected: dict[tuple[str, str], str | None] = {("node", f"node {n}"): None for n in set(node.values())}
    expected.update({("rank", f"rank {r}"): f"node {n}" for r, n in node.items()})
    for step in steps:
        if step["by"] == "rank":
            expected[("steps of a rank", agent_label(step))] = f"rank {step['rank']}"
        else:
            expected[("agent", agent_label(step))] = f"node {step['node']}"
    containers = {k: v for k, v in shown.containers.items() if k[0] not in ("0", "run")}
    assert set(containers) == set(expected)
    assert all(containers[k] == parent for k, parent in expected.items() if parent is not None)
    assert {s["by"] for s in steps} - {"rank"} == CASES[key][2]  # the agents each case is there for

    # Each rank's states: one State line per span of the file, in order, at imbrication 0, end to end.
    for rank in node:
        spans = state_names(events, rank)
        states = shown.states_of(f"rank {rank}")
        assert [(s[3], s[4], s[7]) for s in states] == [(printed(a), printed(b), name) for a, b, name in spans]
        assert {s[2] for s in states} == {"rank state"} and {s[6] for s in states} == {"0.000000"}
    computing = next(i for i, e in enumerate(events) if e["rank"] == 1 and e.get("state") == "computing")
    after = next(e for e in events[computing + 1:] if e["rank"] == 1 and "state" in e)
    compute = [s for s in shown.states_of("rank 1") if s[7] == "compute"]
    assert [(s[3], s[4]) for s in compute] == [(printed(events[computing]["t"]), printed(after["t"]))]

    # Steps: on the container of whoever ran them, one State line each, with the step's name.
    for label in {agent_label(s) for s in steps}:
        ran = [s for s in steps if agent_label(s) == label]
        states = shown.states_of(label)
        assert [(s[3], s[4], s[7]) for s in states] == [(printed(s["t"]), printed(s["end"]), s["step"]) for s in ran]

    # Links: one per step that an arriving message or transfer called for, each with its own key, from where it
    # was started (a rank's call, or the step of that rank or agent that was running then) to the step's start on
    # its runner's container.
    arrivals = [s for s in steps if "from_t" in s]
    assert len(shown.links) == len(arrivals) > 0
    assert len({link[9] for link in shown.links}) == len(shown.links)
    labels = {s["agent"]: agent_label(s) for s in steps}

    def source(arrival: dict[str, Any]) -> str:
        sender, at = arrival["from_agent"], arrival["from_t"]
        if not sender.startswith("rank-") or any(s["t"] <= at <= s["end"] for s in steps if s["agent"] == sender):
            return labels[sender]
        return "rank " + sender.split("-")[1]

    assert sorted((link[3], link[4], link[6], link[7], link[8]) for link in shown.links) == sorted(
        (printed(s["from_t"]), printed(s["t"]), ARRIVAL_NAMES[s["step"]], source(s), agent_label(s)) for s in arrivals)
    request = next(link for link in shown.links if link[6] == "request-to-send")
    match = next(s for s in arrivals if s["step"] == "match-rendezvous")
    assert request[7] == "rank 0" and request[3] == printed(match["from_t"])  # from rank 0's isend


def test_the_links_match_the_timeline_arrows(runs: dict, pj_dump: str) -> None:
    from progsim.timeline import arrows, read_timeline, tracks

    for key in ("lima-thread", "irene-bxi-offload"):
        timeline = read_timeline(runs[key]["timeline"])
        found = arrows(timeline, {t.key for t in tracks(timeline)})
        assert len(dump(pj_dump, export(runs[key])).links) == len(found)


def test_every_line_follows_its_definition_and_values_have_the_picture_colours(runs: dict) -> None:
    from progsim.timeline import COLOURS

    definitions, events = paje_events(export(runs["lima-thread"]))
    names = {name for name, _ in definitions.values()}
    assert {"PajeDefineContainerType", "PajeDefineStateType", "PajeDefineLinkType", "PajeDefineEntityValue",
            "PajeCreateContainer", "PajeDestroyContainer", "PajePushState", "PajePopState", "PajeStartLink",
            "PajeEndLink"} == names
    colours = {e["Name"]: e["Color"] for name, e in events if name == "PajeDefineEntityValue"}

    def paje(code: str) -> str:
        return " ".join(f"{int(code[i:i + 2], 16) / 255:.3f}" for i in (1, 3, 5))

    assert colours["compute"] == paje(COLOURS["compute"])
    assert colours["waiting in wait"] == paje(COLOURS["waiting"])
    assert colours["MPI wait"] == paje(COLOURS["MPI call"])
    assert colours["match-rendezvous"] == paje(COLOURS["progress work"])
    pushes = [e for name, e in events if name == "PajePushState"]
    pops = [e for name, e in events if name == "PajePopState"]
    assert len(pushes) == len(pops)
    compute = next(e for e in pushes if e.get("EngineState") == "computing")
    assert (compute["Action"], compute["TraceLine"]) == ("compute", "3")  # the trace's action and line travel along
    step = next(e for e in pushes if "Runner" in e and e["Runner"] == "progress-thread")
    assert (step["Rank"], step["Peer"], step["Bytes"]) == ("1", "0", "16777216")
    times = [float(e["Time"]) for _, e in events if "Time" in e]
    assert times == sorted(times)  # one time order for the whole file


def test_the_offload_nic_containers_sit_in_their_nodes(runs: dict, pj_dump: str) -> None:
    shown = dump(pj_dump, export(runs["irene-bxi-offload"]))
    nics = {name: parent for (kind, name), parent in shown.containers.items() if name.startswith("NIC ")}
    assert sorted(nics.values()) == ["node 0", "node 1"]
    assert {s[2] for name in nics for s in shown.states_of(name)} == {"protocol step"}


# ---------------------------------------------------------------------------------------------- filters

def test_the_rank_filter_keeps_one_rank_and_its_links(runs: dict, pj_dump: str) -> None:
    run = runs["lima-thread"]
    whole = dump(pj_dump, export(run, name="whole"))
    shown = dump(pj_dump, export(run, "--ranks", "0", name="rank0"))
    names = {name for kind, name in shown.containers if kind not in ("0", "run", "node")}
    assert names == {"rank 0", "steps run by rank 0"}  # rank 1, its steps and its progress thread are gone
    assert shown.states_of("rank 0") == whole.states_of("rank 0")
    assert shown.states_of("steps run by rank 0") == whole.states_of("steps run by rank 0")
    kept = [link for link in whole.links if {link[7], link[8]} <= names]
    assert 0 < len(kept) < len(whole.links)
    assert sorted(link[3:9] for link in shown.links) == sorted(link[3:9] for link in kept)  # keys are renumbered


def test_the_time_window_cuts_the_spans_and_drops_the_links(runs: dict, pj_dump: str) -> None:
    shown = dump(pj_dump, export(runs["lima-thread"], "--from", "0.0002", "--to", "0.0008", name="window"))
    # Between 0.2 and 0.8 ms rank 1 computes, rank 0 waits, the progress thread does nothing.
    assert sorted((s[1], s[3], s[4], s[7]) for s in shown.states) == [
        ("rank 0", "0.000200", "0.000800", "waiting in wait"), ("rank 1", "0.000200", "0.000800", "compute")]
    assert not shown.links
    assert {name for kind, name in shown.containers if kind in ("rank", "agent", "steps of a rank")} == {
        "rank 0", "rank 1"}


def test_partly_overlapping_steps_of_one_agent_still_nest(tmp_path: Path, pj_dump: str) -> None:
    """Paje pops the innermost state: a step that outlasts the one it started in is popped with it and pushed
    again, so that each keeps its own end (the engine's agents run one step at a time, this is the writer's
    guard)."""
    lines = [{"t": 0, "rank": 0, "state": "mpi", "action": "wait", "line": 1, "node": 0},
             {"t": 0, "rank": 0, "step": "match", "by": "nic", "agent": "nic-a", "end": 2e-6, "node": 0},
             {"t": 1e-6, "rank": 0, "step": "transfer-done", "by": "nic", "agent": "nic-a", "end": 3e-6, "node": 0},
             {"t": 3e-6, "rank": 0, "step": "finish", "by": "nic", "agent": "nic-a", "end": 3e-6, "node": 0,
              "from_t": 1e-6, "from_agent": "rank-0"},
             {"t": 4e-6, "rank": 0, "state": "finished"}]
    events = tmp_path / "events.jsonl"
    events.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "out.trace"
    done = run_cli("timeline", str(events), "--paje", str(out))
    assert done.returncode == 0, done.stderr
    shown = dump(pj_dump, out)
    assert [(s[3], s[4], s[6], s[7]) for s in shown.states_of("NIC nic-a")] == [
        ("0.000000", "0.000002", "0.000000", "match"), ("0.000001", "0.000002", "1.000000", "transfer-done"),
        ("0.000002", "0.000003", "0.000000", "transfer-done"), ("0.000003", "0.000003", "0.000000", "finish")]
    assert [(link[3], link[4], link[7], link[8]) for link in shown.links] == [
        ("0.000001", "0.000003", "rank 0", "NIC nic-a")]


# ---------------------------------------------------------------------------------------------- determinism, errors

def test_the_export_is_deterministic(runs: dict) -> None:
    run = runs["lima-thread"]
    assert export(run, name="a").read_bytes() == export(run, name="b").read_bytes()


def test_bad_paths_and_options_exit_2_and_write_nothing(runs: dict, tmp_path: Path) -> None:
    events = runs["lima-none"]["timeline"]
    out = tmp_path / "out.trace"
    for options, message in ((["--paje", str(tmp_path / "missing" / "out.trace")], "the folder of --paje"),
                             (["--paje", str(tmp_path)], "--paje names a folder"),
                             (["--paje", str(events)], "--paje names an input of this run"),
                             (["--paje", str(out), "--chrome", str(out)], "name the same file"),
                             (["--paje", str(out), "--ranks", "4-5"], "has ranks 0-1"),
                             (["--paje", str(out), "--from", "1", "--to", "0.5"], "must end after it starts"),
                             ([], "--paje out.trace")):
        done = run_cli("timeline", str(events), *options)
        assert done.returncode == 2 and message in done.stderr, (options, done.stderr)
        assert done.stderr.count("\n") == 1
        assert not out.exists() and not (tmp_path / "missing").exists()
        assert not list(tmp_path.glob("*.partial"))
    done = run_cli("timeline", str(tmp_path / "nothing.jsonl"), "--paje", str(out))
    assert done.returncode == 2 and "no such timeline file" in done.stderr and not out.exists()


def test_the_help_tells_how_to_open_the_paje_trace() -> None:
    done = run_cli("timeline", "--help")
    assert done.returncode == 0
    for words in ("--paje", "ViTE", "pj_dump", "rank state", "protocol step"):
        assert words in done.stdout


# ---------------------------------------------------------------------------------------------- ViTE

@pytest.mark.parametrize("key", ["lima-thread", "irene-bxi-offload"])
def test_vite_reads_the_export_without_a_warning_and_draws_every_container(runs: dict, key: str,
                                                                          tmp_path: Path) -> None:
    """ViTE, the viewer SimGrid users open Paje traces with, exports what it drew as SVG from the command line: it
    must parse the trace with no error nor warning (it warns about a first comment line and about entity values of
    link types, which PajeNG accepts) and draw each container, and the rank states in the picture's colours."""
    from progsim.timeline import COLOURS

    vite, xvfb = shutil.which("vite"), shutil.which("xvfb-run")
    if vite is None or xvfb is None:
        pytest.fail("ViTE or xvfb-run is not installed: `make setup` installs them (Debian packages vite, xvfb)")
    trace = export(runs[key])
    svg = tmp_path / "vite.svg"
    done = subprocess.run([xvfb, "-a", vite, str(trace), "-e", str(svg)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 errors and 0 warnings" in done.stdout + done.stderr, done.stdout + done.stderr
    assert not (tmp_path / "log.txt").exists()  # where ViTE writes what it found wrong
    text = svg.read_text()
    events = jsonl(runs[key])
    labels = {f"rank {e['rank']}" for e in events if "state" in e} | {agent_label(e) for e in events if "step" in e}
    for label in labels:
        assert f">{label}<" in text
    for category in ("compute", "waiting"):  # (steps of microseconds are below a pixel: ViTE skips them)
        code = COLOURS[category]
        assert f"rgb({int(code[1:3], 16)},{int(code[3:5], 16)},{int(code[5:7], 16)})" in text.replace(", ", ",")
