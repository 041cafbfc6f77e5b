"""The teaching gallery (`progsim gallery`): built from the shipped cases (scenarios/teaching), opened in headless
Chromium (every picture must load, the page must draw), its explanations and ratios on the page, its ratios where the
protocols put them, bad case files refused before anything is written, and the same bytes from two builds.

Chromium is Debian's (`make setup` installs it, scripts/setup.sh lists it): a missing browser fails these tests.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPOSITORY, run_cli

CASES = REPOSITORY / "scenarios" / "teaching"
SMALL = ["eager-vs-rendezvous", "rendezvous-without-test", "nic-offload"]
MECHANISMS = ["none", "thread", "dedicated-core", "offload", "ideal"]


def chromium() -> str:
    found = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").is_file() else None)
    if found is None:
        pytest.fail("chromium is not installed: `make setup` installs it (scripts/setup.sh lists Debian's chromium)")
    return found


def browse(page: Path, tmp: Path, *options: str) -> subprocess.CompletedProcess:
    """Headless Chromium on the page's file:// URL, with a fresh profile and nothing fetched from the network."""
    profile = tmp / f"profile-{len(list(tmp.glob('profile-*')))}"
    arguments = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--user-data-dir={profile}", "--virtual-time-budget=5000", *options, page.resolve().as_uri()]
    done = subprocess.run(arguments, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def build(output: Path, *options: str, cases: Path = CASES) -> subprocess.CompletedProcess:
    return run_cli("gallery", str(cases), "-o", str(output), *options)


def table(stdout: str) -> dict[tuple[str, str], dict[str, str]]:
    """The printed Markdown table: (case, row) -> mechanism -> cell text."""
    lines = [line for line in stdout.splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = {}
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[(cells[0], cells[1])] = dict(zip(header[2:], cells[2:]))
    return rows


def ratio(cell: str) -> float:
    return float(cell.split()[0])


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("small")
    done = build(folder / "gallery", "--cases", ",".join(SMALL), "--jobs", "2")
    assert done.returncode == 0, done.stderr
    return {"folder": folder, "gallery": folder / "gallery", "stdout": done.stdout}


# ---- in a browser -----------------------------------------------------------------------------------------------

def check_in_chromium(gallery: Path, tmp: Path) -> str:
    """Every picture loaded (the page's own count), the screenshot not blank; the DOM Chromium built."""
    import matplotlib.image

    pictures = sorted(gallery.glob("*.png"))
    dom = browse(gallery / "index.html", tmp, "--dump-dom").stdout
    loaded = re.search(r'<body[^>]*data-images-loaded="(\d+)/(\d+)"', dom)
    assert loaded, "the page's load script did not run"
    assert int(loaded.group(1)) == int(loaded.group(2)) == len(pictures) > 0
    screenshot = tmp / "screenshot.png"
    browse(gallery / "index.html", tmp, f"--screenshot={screenshot}", "--window-size=1400,3000")
    pixels = matplotlib.image.imread(str(screenshot))
    assert pixels.shape[:2] == (3000, 1400)
    assert pixels[..., :3].std() > 0.05  # text, pictures and colours, not a blank page
    assert len({tuple(p) for p in (pixels[::7, ::7, :3] * 255).astype(int).reshape(-1, 3)}) > 50
    return dom


def test_a_small_gallery_opens_in_chromium_with_its_explanations_and_ratios(small: dict, tmp_path: Path) -> None:
    from progsim.engine_info import engine_parameters, progress_mechanisms
    from progsim.gallery.cases import load_case

    gallery = small["gallery"]
    assert sorted(p.name for p in gallery.iterdir() if p.suffix != ".png") == ["index.html"]
    dom = check_in_chromium(gallery, tmp_path)
    parameters = {p.name for p in engine_parameters()}
    cases = [load_case(path, progress_mechanisms(), parameters) for path in sorted(CASES.glob("*.yaml"))]
    shown = [c for c in cases if c.name in SMALL]
    assert len(shown) == len(SMALL)
    for case in shown:
        assert html.escape(case.title, quote=False) in dom
        for paragraph in case.paragraphs:
            assert html.escape(paragraph, quote=False) in dom, f"{case.name}: explanation missing"
    for other in set(c.name for c in cases) - set(SMALL):
        assert f'id="{other}"' not in dom
    rows = table(small["stdout"])
    figures = re.findall(r'<figure data-case="([^"]+)" data-row="(\d+)" data-mechanism="([^"]+)" '
                         r'data-ratio="([^"]+)">(.*?)</figure>', dom, re.S)
    assert len(figures) == len(list(gallery.glob("*.png")))
    labels = {(c.name, i + 1): (r.label or "-") for c in shown for i, r in enumerate(c.rows)}
    for name, row, mechanism, value, inner in figures:
        assert value == rows[(name, labels[(name, int(row))])][mechanism].split()[0]
        assert f"r = {value}" in inner and re.search(r'<img src="[^"]+\.png"', inner)


def test_the_ratios_are_where_the_protocols_put_them(small: dict) -> None:
    rows = table(small["stdout"])
    eager = rows[("eager-vs-rendezvous", "16 KiB: below the eager threshold")]
    rendezvous = rows[("eager-vs-rendezvous", "4 MiB: above it, a rendezvous")]
    busy = rows[("rendezvous-without-test", "-")]
    offload = rows[("nic-offload", "-")]
    # A large rendezvous whose receiver never calls MPI while computing runs after the computation: serialized.
    for cells in (rendezvous, busy):
        assert ratio(cells["none"]) == pytest.approx(1.0, abs=0.05)
        assert ratio(cells["offload"]) == pytest.approx(1.0, abs=0.05)  # henri's cards offload nothing
        for mechanism in ("thread", "dedicated-core", "ideal"):
            assert ratio(cells[mechanism]) == pytest.approx(0.0, abs=0.05)
    # An eager message crosses while the receiver computes even under none; only its copy out is left.
    assert ratio(eager["none"]) < 0.5 and ratio(eager["ideal"]) == pytest.approx(0.0, abs=0.01)
    # BXI cards run the rendezvous themselves.
    assert ratio(offload["offload"]) == pytest.approx(0.0, abs=0.05)
    assert ratio(offload["none"]) == pytest.approx(1.0, abs=0.05)


def test_the_whole_gallery_opens_in_chromium(tmp_path: Path) -> None:
    gallery = tmp_path / "gallery"
    done = build(gallery, "--jobs", "2")
    assert done.returncode == 0, done.stderr
    rows = table(done.stdout)
    names = {path.name for path in gallery.glob("*.png")}
    assert len(names) == sum(len([c for c in cells.values() if c != "-"]) for cells in rows.values())
    dom = check_in_chromium(gallery, tmp_path)
    assert dom.count("<figure") == len(names)
    # The cases' stories, as their explanations tell them.
    one, four = rows[("rendezvous-with-test", "one MPI_Test, halfway")], \
        rows[("rendezvous-with-test", "four MPI_Tests, every 0.4 ms")]
    # The first test answers the request-to-send: halfway, the 1.6 ms transfer outlasts the computation by 0.6 ms
    # (r = 0.6 / 1.6); at 0.4 ms it ends with it. The later tests find it done.
    assert ratio(one["none"]) == pytest.approx(0.6 / 1.6, abs=0.03) and ratio(four["none"]) < 0.03
    full = rows[("thread-full-node", "a full node, 2 ms of computation: shorter than a time slice")]
    spare = rows[("thread-full-node", "a spare core for the thread, 2 ms of computation")]
    assert ratio(full["thread"]) == pytest.approx(1.0, abs=0.05) and ratio(spare["thread"]) < 0.05
    memory = rows[("memory-bound", "memory-bound: a STREAM TRIAD-like loop of the same length alone")]
    assert "comp x" in memory["none"] and "comp x" not in memory["ideal"]
    allreduce = rows[("nonblocking-allreduce", "Blue Gene/Q: the network runs the allreduce")]
    assert ratio(allreduce["none"]) == pytest.approx(1.0, abs=0.05) and ratio(allreduce["offload"]) < 0.05


# ---- the same bytes, atomically -------------------------------------------------------------------------------

def tree(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_two_builds_write_the_same_bytes_and_a_failed_one_leaves_the_last(small: dict, tmp_path: Path) -> None:
    first = tree(small["gallery"])
    again = tmp_path / "gallery"
    shutil.copytree(small["gallery"], again)
    done = build(again, "--cases", ",".join(SMALL), "--jobs", "1")  # replaces it, in another order of work
    assert done.returncode == 0, done.stderr
    assert tree(again) == first
    assert not (tmp_path / "gallery.partial").exists() and not (tmp_path / "gallery.old").exists()
    # A replay that fails (the engine refuses a rendezvous protocol) writes nothing: the last gallery stays.
    cases = tmp_path / "cases"
    cases.mkdir()
    text = (CASES / "02-rendezvous-without-test.yaml").read_text()
    text = text.replace("../../platforms/", f"{REPOSITORY}/platforms/") + "set: {rendezvous: sideways}\n"
    (cases / "bad.yaml").write_text(text)
    done = build(again, cases=cases)
    assert done.returncode == 1 and "nothing written" in done.stderr and "rendezvous" in done.stderr
    assert tree(again) == first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cases", "gallery"]


# ---- bad input --------------------------------------------------------------------------------------------------

GOOD = """name: small
title: A small case
explanation: Words.
platform: {platform}
cell: {{size: 4MiB, compute: 1ms, side: receiver}}
"""


@pytest.mark.parametrize("edit,where,words", [
    (lambda t: t.replace("title: A small case\n", ""), "(top)", "missing key 'title'"),
    (lambda t: t.replace("size: 4MiB, ", ""), "cell", "missing key 'size'"),
    (lambda t: t.replace("compute: 1ms", "compute: fast"), "cell.compute", "not a number"),
    (lambda t: t.replace("side: receiver", "side: 3"), "cell.side", "expected one of"),
    (lambda t: t + "mechanisms: [none, telepathy]\n", "mechanisms[1]", "unknown mechanism 'telepathy'"),
    (lambda t: t + "variants:\n  - label: big\n    cell: {size: [1]}\n", "variants[0].cell.size", "not a number"),
    (lambda t: t + "set: {eager-treshold: 10}\n", "set.eager-treshold", "unknown engine parameter"),
    (lambda t: t + "colour: blue\n", "colour", "unknown key 'colour'"),
])
def test_a_bad_case_exits_2_naming_the_file_and_yaml_path_and_writes_nothing(tmp_path: Path, edit, where: str,
                                                                               words: str) -> None:
    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "ok.yaml").write_text(GOOD.format(platform=REPOSITORY / "platforms" / "henri.yaml"))
    bad = cases / "small-bad.yaml"
    bad.write_text(edit(GOOD.format(platform=REPOSITORY / "platforms" / "henri.yaml")).replace("name: small",
                                                                                               "name: other"))
    done = build(tmp_path / "out", cases=cases)
    assert done.returncode == 2, done.stderr
    message = done.stderr.strip()
    assert message.startswith(f"progsim: error: {bad}") and f": {where}: " in message and words in message, message
    assert len(message.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cases"]


def test_the_command_refuses_other_folders_and_unknown_cases(tmp_path: Path) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "notes.txt").write_text("mine")
    done = build(precious)
    assert done.returncode == 2 and "not an earlier gallery" in done.stderr
    assert (precious / "notes.txt").read_text() == "mine"
    done = build(tmp_path / "out", "--cases", "eager-vs-rendezvous,nosuch")
    assert done.returncode == 2 and "no case named 'nosuch'" in done.stderr and not (tmp_path / "out").exists()
    assert run_cli("gallery", "--help").stdout.count("index.html") >= 1
