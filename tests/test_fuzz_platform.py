"""Fuzzing of the platform loader: whatever a YAML file holds, `load_platform` returns a Platform or raises InputError.

Documents come from the repository's platforms (keys removed or renamed, values replaced by random scalars, numbers
with units, lists, maps, shared and recursive aliases), from their text with edits (YAML tags, anchors, merge keys,
huge numbers, random characters), from a soup of YAML tokens, and from random text and bytes.

The default suite runs a hundred examples (profile "progsim", a few seconds). scripts/fuzz.sh runs for a while:
PROGSIM_HYPOTHESIS_PROFILE=progsim-fuzz PROGSIM_FUZZ_SECONDS=600 python3 -m pytest tests/test_fuzz_platform.py
runs every property in rounds until the time is spent and writes what it found to PROGSIM_FUZZ_REPORT.

The inputs that once made the loader raise something else are kept as @example regressions (run by the default
suite; the long runs skip them and keep no example database, so that every round searches afresh).
"""

from __future__ import annotations

import copy
import os
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from conftest import REPOSITORY
from progsim.errors import InputError
from progsim.platform.loader import load_platform
from progsim.platform.model import Platform

FUZZ_SECONDS = float(os.environ.get("PROGSIM_FUZZ_SECONDS", "0"))

settings.register_profile("progsim", max_examples=100, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("progsim-fuzz", max_examples=500, deadline=None, print_blob=True, database=None,
                          phases=[Phase.generate, Phase.shrink], suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("PROGSIM_HYPOTHESIS_PROFILE", "progsim"))

EXAMPLES_SEEN: dict[str, int] = {"examples": 0, "platforms": 0, "input-errors": 0}

# ---------------------------------------------------------------- the property


@pytest.fixture(scope="module")
def folder() -> Any:
    with tempfile.TemporaryDirectory(prefix="progsim-fuzz-platform-") as name:
        yield Path(name)


def check(folder: Path, document: bytes) -> None:
    """load_platform on `document` returns a Platform or raises InputError (with a message naming the file)."""
    path = folder / "platform.yaml"
    path.write_bytes(document)
    EXAMPLES_SEEN["examples"] += 1
    try:
        result = load_platform(path)
    except InputError as error:
        EXAMPLES_SEEN["input-errors"] += 1
        assert str(path) in str(error), f"InputError that does not name the file: {error}"
        return
    EXAMPLES_SEEN["platforms"] += 1
    assert isinstance(result, Platform)


# ---------------------------------------------------------------- documents

BASE_FILES = sorted((REPOSITORY / "platforms").glob("*.yaml"))
BASE_TEXTS = [p.read_text() for p in BASE_FILES]
BASE_DOCS = [yaml.safe_load(t) for t in BASE_TEXTS]
SMALL_FILES = [t for p, t in zip(BASE_FILES, BASE_TEXTS) if p.name in ("laptop-2core.yaml", "henri.yaml", "lima.yaml")]

KEYS = sorted({"name", "description", "nodes", "node", "sockets", "numa_per_socket", "cores_per_numa", "core_speed",
               "memory", "inter_socket", "copy_bandwidth", "copy_loads_bus", "core_memory_bandwidth", "bandwidth", "latency", "nics", "numa",
               "offload", "interconnect", "topology", "link", "fat_tree", "levels", "down", "up", "parallel",
               "torus", "dimensions", "dragonfly", "groups", "chassis", "routers", "nodes_per_router", "mpi",
               "eager_threshold", "rendezvous", "fragment_size", "pipeline_depth", "buffered_send_threshold",
               "rank_progress", "poll_in_wait", "overheads", "send", "recv", "step", "call", "shared_memory",
               "progress", "thread", "poll_interval", "poll_cost", "sched_quantum", "spare_core", "dedicated_core",
               "per", "cores", "step_cost", "offload", "step_latency", "intra_node", "placement", "policy",
               "ranks_per_node", "sources"})
WORDS = ["flat", "fat-tree", "torus", "dragonfly", "get", "put", "pipelined", "matching", "rendezvous",
         "collectives", "block", "round-robin", "numa", "node", "wait", "every-call", "yes", "no", "on", "off",
         "true", "false", "null", "~", "", " ", "NaN", ".nan", ".inf", "-.inf", "0x1F", "0o17", "1_000", "1:30",
         "2001-12-14", "2001-12-14t21:59:43.10-05:00", "=", "<<"]

numbers_as_text = st.one_of(
    st.integers(-10**6, 10**20).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["1e400", "-1e400", "1e-400", ".", "..", "e", "1e", "+", "-", "1.2.3", "0", "-0", "9" * 400,
                     "1e308", "nan", "inf", "1" + "0" * 30]))
with_units = st.builds(lambda n, space, prefix, unit: f"{n}{space}{prefix}{unit}", numbers_as_text,
                       st.sampled_from(["", " ", "  "]),
                       st.sampled_from(["", "k", "M", "G", "T", "m", "u", "µ", "n", "Ki", "Mi", "Gi", "Ti", "P", "K"]),
                       st.sampled_from(["", "B", "Bps", "B/s", "s", "f", "flops", "b", "bps", "Hz", "/s"]))
big_integers = st.one_of(st.integers(), st.integers(-10**400, 10**400), st.sampled_from([10**309, -10**309, 2**63,
                                                                                         2**64]))
scalars = st.one_of(st.none(), st.booleans(), big_integers, st.floats(allow_nan=True, allow_infinity=True),
                    st.text(max_size=30), st.sampled_from(WORDS + KEYS), with_units)
hashable_keys = st.one_of(st.sampled_from(KEYS), st.text(max_size=12), st.integers(), st.booleans(), st.none(),
                          st.floats(allow_nan=False))
trees = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                      st.dictionaries(hashable_keys, inner, max_size=4)),
                     max_leaves=12)


def _places(doc: Any) -> list[tuple[Any, Any]]:
    """Every (container, key or index) in a document, depth first."""
    places: list[tuple[Any, Any]] = []
    seen: set[int] = set()

    def walk(node: Any) -> None:
        if id(node) in seen:
            return
        seen.add(id(node))
        if isinstance(node, dict):
            for key in list(node):
                places.append((node, key))
                walk(node[key])
        elif isinstance(node, list):
            for i in range(len(node)):
                places.append((node, i))
                walk(node[i])

    walk(doc)
    return places


def _dump(draw: Any, doc: Any) -> bytes:
    try:
        text = yaml.safe_dump(doc, default_flow_style=draw(st.sampled_from([False, True, None])),
                              allow_unicode=draw(st.booleans()), sort_keys=False, width=draw(st.sampled_from([80, 20])))
    except (yaml.YAMLError, ValueError, RecursionError):  # a tree the dumper cannot write: the plain base instead
        text = yaml.safe_dump(BASE_DOCS[0], sort_keys=False)
    return text.encode("utf-8", "surrogatepass")


@st.composite
def structured_variations(draw: Any) -> bytes:
    """A repository platform with 1 to 5 changes: removed or renamed keys, replaced values, aliases, recursion."""
    root = {"top": copy.deepcopy(draw(st.sampled_from(BASE_DOCS)))}
    for _ in range(draw(st.integers(1, 5))):
        places = _places(root)
        container, key = draw(st.sampled_from(places))
        op = draw(st.sampled_from(["remove", "rename", "scalar", "scalar", "units", "list", "map", "tree", "alias",
                                   "recursive", "wrap"]))
        if op == "remove" and container is not root:
            del container[key]
        elif op == "rename" and isinstance(container, dict) and container is not root:
            new_key = draw(hashable_keys)
            container[new_key] = container.pop(key)
        elif op == "scalar":
            container[key] = draw(scalars)
        elif op == "units":
            container[key] = draw(with_units)
        elif op == "list":
            container[key] = draw(st.lists(scalars, max_size=4))
        elif op == "map":
            container[key] = draw(st.dictionaries(st.sampled_from(KEYS), scalars, max_size=4))
        elif op == "tree":
            container[key] = draw(trees)
        elif op == "alias":  # the same object twice: the dumper writes an anchor and an alias
            other, other_key = draw(st.sampled_from(places))
            container[key] = other[other_key]
        elif op == "recursive" and isinstance(container[key], (dict, list)):  # an alias inside its own anchor
            inner = container[key]
            if isinstance(inner, dict):
                inner[draw(st.sampled_from(KEYS))] = inner
            else:
                inner.append(inner)
        elif op == "wrap":
            container[key] = [container[key]] if draw(st.booleans()) else {"value": container[key]}
    return _dump(draw, root["top"])


TOKENS = ["!!float abc", "!!int abc", "!!int 12", "!!str 12", "!!bool maybe", "!!bool yes", "!!timestamp abc",
          "!!timestamp 2001-12-14", "!!binary aGVsbG8=", "!!binary '%%%'", "!!null x", "!!set {a, b}",
          "!!omap [a: 1]", "!!pairs [a: 1]", "!!seq {}", "!!map []", "!!python/name:os.system x",
          "!!python/tuple [1]", "!foo bar", "!<tag:yaml.org,2002:int> 3", "&a 1", "*a", "*undefined", "&a [*a]",
          "&a {x: *a}", "{<<: {x: 1}}", "[", "]", "{", "}", "'unterminated", '"\\x"', '"\\uD800"', "|", ">", "? x",
          "- ", "---", "...", "%YAML 1.1", "@", "`", "\t", "\x00", "\x85", "\u2028", "\ufeff", "9" * 5000,
          "1" + "0" * 400, "-" + "9" * 400, "1e400", ".nan", ".inf", "~", "=", "<<: *a", "0x_", "0b102", "1:2:3"]


@st.composite
def text_edits(draw: Any) -> bytes:
    """A repository platform's text with 1 to 4 edits: tokens in place of values, inserted or removed characters."""
    lines = draw(st.sampled_from(SMALL_FILES)).split("\n")
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["value", "value", "key", "insert-line", "delete-line", "duplicate", "indent",
                                   "characters"]))
        line = lines[i]
        if op == "value" and ":" in line:
            head = line.split(":", 1)[0]
            lines[i] = f"{head}: {draw(st.one_of(st.sampled_from(TOKENS), with_units, st.text(max_size=10)))}"
        elif op == "key" and ":" in line:
            indent = line[:len(line) - len(line.lstrip())]
            lines[i] = f"{indent}{draw(st.sampled_from(TOKENS + KEYS))}:{line.split(':', 1)[1]}"
        elif op == "insert-line":
            lines.insert(i, draw(st.one_of(st.sampled_from(TOKENS), st.text(max_size=20))))
        elif op == "delete-line":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, line)
        elif op == "indent":
            lines[i] = draw(st.sampled_from(["", " ", "  ", "\t", "    "])) + line.lstrip()
        elif op == "characters" and line:
            at = draw(st.integers(0, len(line)))
            cut = draw(st.integers(0, 3))
            lines[i] = line[:at] + draw(st.text(max_size=3)) + line[at + cut:]
        if not lines:
            lines = [""]
    return "\n".join(lines).encode("utf-8", "surrogatepass")


token_soup = st.lists(st.sampled_from(TOKENS + [k + ":" for k in KEYS] + WORDS + [" ", "\n", "\n  ", ", ", ": ",
                                                                                  "- "]),
                      max_size=40).map(lambda parts: " ".join(parts).encode("utf-8", "surrogatepass"))
random_trees = st.builds(lambda tree, flow: yaml.safe_dump(tree, default_flow_style=flow).encode(),
                         st.dictionaries(st.sampled_from(KEYS), trees, max_size=8), st.booleans())
random_text = st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass"))
random_bytes = st.binary(max_size=300)

documents = st.one_of(structured_variations(), structured_variations(), text_edits(), text_edits(), token_soup,
                      random_trees, random_text, random_bytes)

# ---------------------------------------------------------------- the tests


def test_the_base_platforms_load(folder: Path) -> None:
    """The documents the fuzzing starts from are valid, so that a variation tests one change at a time."""
    for text in BASE_TEXTS:
        check(folder, text.encode())
    assert EXAMPLES_SEEN["platforms"] >= len(BASE_TEXTS)


LAPTOP = (REPOSITORY / "platforms" / "laptop-2core.yaml").read_bytes()


@given(document=documents)
@example(document=b"name: x\nnodes: 1\n")
@example(document=b"\xff\xfe\x00")
@example(document=b"a: &a [*a]\n")
@example(document=b"a: &a {b: *a}\nname: x\n")
@example(document=b"[" * 200 + b"]" * 200)
@example(document=b"a: &a [1, 2]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b]\n"
                  b"d: &d [*c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d]\n"
                  b"f: &f [*e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f]\n")
# Found by this test: each raised another exception than InputError.
@example(document=LAPTOP.replace(b"core_speed: 8.32e+10", b"core_speed: 1" + b"0" * 400))  # OverflowError
@example(document=LAPTOP.replace(b"eager_threshold: 65536", b"eager_threshold: " + b"9" * 400))  # OverflowError
@example(document=b"name: !!float abc\n")  # ValueError
@example(document=b"name: !!int abc\n")  # ValueError
@example(document=b"name: !!timestamp abc\n")  # AttributeError
@example(document=b"name: !!bool maybe\n")  # KeyError
@example(document=b"!!python/name:os.system x: 1\n")  # yaml ConstructorError, from a key
@example(document=b"!!float abc: 1\n")  # ValueError, from a key
@example(document=b"<<: {name: x}\n")  # yaml ConstructorError: merge key
@example(document=b"nodes: " + b"9" * 5000 + b"\n")  # ValueError: more than 4300 digits
def test_load_platform_returns_a_platform_or_raises_input_error(folder: Path, document: bytes) -> None:
    check(folder, document)


if FUZZ_SECONDS > 0:
    def test_fuzz_until_the_time_is_spent(folder: Path) -> None:
        """scripts/fuzz.sh: rounds of the property (each a new random seed) until PROGSIM_FUZZ_SECONDS are spent."""
        report = Path(os.environ.get("PROGSIM_FUZZ_REPORT", str(REPOSITORY / "build-fuzz" / "hypothesis-report.txt")))
        report.parent.mkdir(parents=True, exist_ok=True)
        failures: dict[str, list[str]] = {}  # by kind (the exception's last line): every report
        start = time.monotonic()
        rounds = 0
        while time.monotonic() - start < FUZZ_SECONDS:
            rounds += 1
            try:
                test_load_platform_returns_a_platform_or_raises_input_error(folder)
            except Exception as error:  # a loader bug: Hypothesis shrank it and noted the falsifying example
                kind = traceback.format_exception_only(error)[-1].strip()[:200]
                failures.setdefault(kind, []).append("".join(traceback.format_exception(error)))
        elapsed = time.monotonic() - start
        lines = [f"Hypothesis fuzzing of load_platform: {elapsed:.0f} s, {rounds} rounds, "
                 f"{EXAMPLES_SEEN['examples']} documents loaded ({EXAMPLES_SEEN['platforms']} platforms, "
                 f"{EXAMPLES_SEEN['input-errors']} InputErrors)"]
        lines.append(f"failures: {sum(len(f) for f in failures.values())} in {len(failures)} kind(s)")
        for kind, reports in failures.items():
            lines.append(f"failure ({len(reports)} rounds): {kind}")
        summary = len(lines)
        for kind, reports in failures.items():
            lines += ["", f"==== {kind}", reports[0]]
        report.write_text("\n".join(lines) + "\n")
        print("\n".join(lines[:summary]))
        assert not failures, f"loader failures of {len(failures)} kind(s), see {report}"
