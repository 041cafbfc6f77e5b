"""The malformed-input corpus (tests/corpus/): every case is one CLI run that must fail cleanly.

Each case is a folder tests/corpus/<kind>/<case>/ holding its data files and a manifest, case.yaml:

    about: what is wrong with the input
    command: "progsim replay trace_list.txt --platform platform.yaml --progress none --out {out}/results.json"
    status: 2                     # 2: bad input, 3: deadlock
    stderr_has: ["rank-0.txt", [":2", "line 2"], "negative"]   # a list inside the list: any one of its words
    stdout_matches: ["(?m)^ideal\\s"]                          # optional regular expressions stdout must match

The files of tests/corpus/_base/ (a small valid platform.yaml, and a valid 2-rank trace: trace_list.txt,
rank-0.txt, rank-1.txt) are copied first, then the case's own files over them. The command runs in that copy
(the repository is never touched); `{case}` stands for the copy's path and `{out}` for a fresh empty folder that
must still be empty after the failed run. Words are matched case-insensitively: for status 2, in the first stderr
line that starts with "progsim: error:"; for status 3 (a deadlock report may take several lines), in all of stderr.

    python3 tests/test_corpus.py --summary     # how many cases of each kind
"""

from __future__ import annotations

import collections
import hashlib
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

import pytest
import yaml

REPOSITORY = Path(__file__).resolve().parent.parent
CORPUS = REPOSITORY / "tests" / "corpus"
BASE = CORPUS / "_base"
KINDS = {
    "destroy-inputs": "outputs that would destroy inputs",
    "wrong-numbers": "silently wrong numbers",
    "invalid-mpi": "invalid MPI that SMPI rejects",
    "tracebacks": "inputs that crashed with a traceback",
    "bad-input": "ordinary bad input",
}
MANIFEST_KEYS = {"about", "command", "status", "stderr_has", "stdout_matches"}
CRASH_TEXTS = ("Traceback", "Backtrace", "terminate called", "Segmentation")
TIMEOUT = 60  # seconds per run: a case that hangs fails instead of stalling the suite
MEMORY_LIMIT = 4 << 30  # address space of a run: a YAML bomb or a billion nodes fails instead of exhausting the machine

Word = Union[str, list]


@dataclass(frozen=True)
class Case:
    id: str  # <kind>/<name>
    kind: str
    folder: Path
    about: str
    command: str
    status: int
    stderr_has: tuple[Word, ...]
    stdout_matches: tuple[str, ...]


def load_case(manifest: Path) -> Case:
    data: Any = yaml.safe_load(manifest.read_text())
    folder = manifest.parent
    where = manifest.relative_to(REPOSITORY)
    required = MANIFEST_KEYS - {"stdout_matches"}
    if not isinstance(data, dict) or set(data) - MANIFEST_KEYS or not required <= set(data):
        raise ValueError(f"{where}: expected the keys {sorted(MANIFEST_KEYS)} (stdout_matches optional)")
    if data["status"] not in (2, 3):
        raise ValueError(f"{where}: status must be 2 (bad input) or 3 (deadlock)")
    words = data["stderr_has"]
    if not isinstance(words, list) or not words or not all(
            isinstance(w, str) or (isinstance(w, list) and w and all(isinstance(a, str) for a in w)) for w in words):
        raise ValueError(f"{where}: stderr_has must be a list of words or of lists of alternative words")
    if not str(data["command"]).startswith("progsim "):
        raise ValueError(f"{where}: command must start with 'progsim '")
    kind = folder.parent.name
    if kind not in KINDS:
        raise ValueError(f"{where}: unknown kind '{kind}' (expected one of {', '.join(KINDS)})")
    return Case(f"{kind}/{folder.name}", kind, folder, str(data["about"]), str(data["command"]), data["status"],
                tuple(words), tuple(data.get("stdout_matches") or ()))


def load_corpus() -> list[Case]:
    return [load_case(manifest) for manifest in sorted(CORPUS.glob("*/*/case.yaml"))]


def summary(cases: list[Case] | None = None) -> str:
    cases = load_corpus() if cases is None else cases
    by_kind = collections.Counter(case.kind for case in cases)
    lines = []
    for kind, meaning in KINDS.items():
        lines.append(f"{kind:<16}{by_kind[kind]:>5}  {meaning}")
        topics = collections.Counter(case.folder.name.split("-")[0] for case in cases if case.kind == kind)
        lines.append(" " * 23 + ", ".join(f"{topic} {count}" for topic, count in sorted(topics.items())))
    by_status = collections.Counter(case.status for case in cases)
    lines.append(f"{'total':<16}{len(cases):>5}  ({by_status[2]} bad input, exit 2; {by_status[3]} deadlocks, exit 3)")
    return "\n".join(lines)


def tree_digest(folder: Path) -> dict[str, str]:
    """sha256 of every file under `folder` (and '<dir>' for every folder), by relative path."""
    digests = {}
    for path in sorted(folder.rglob("*")):
        relative = str(path.relative_to(folder))
        if path.is_symlink():
            digests[relative] = "link:" + os.readlink(path)
        elif path.is_dir():
            digests[relative] = "<dir>"
        else:
            digests[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests


def prepare(case: Case, workdir: Path) -> Path:
    """The case folder as the command sees it: the base files, then the case's own files over them."""
    folder = workdir / "case"
    shutil.copytree(BASE, folder, symlinks=True)
    shutil.copytree(case.folder, folder, symlinks=True, dirs_exist_ok=True)
    (folder / "case.yaml").unlink()
    return folder


def limit_child() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run(case: Case, folder: Path, out: Path, cache: Path) -> tuple[int, str, str]:
    words = [w.replace("{case}", str(folder)).replace("{out}", str(out)) for w in shlex.split(case.command)]
    env = dict(os.environ, PROGSIM_CACHE=str(cache),
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPOSITORY), os.environ.get("PYTHONPATH")])))
    process = subprocess.Popen([sys.executable, "-m", "progsim", *words[1:]], cwd=folder, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                               preexec_fn=limit_child)
    try:
        stdout, stderr = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"{case.id}: no answer after {TIMEOUT} s: {case.command}")
    return process.returncode, stdout.decode("utf-8", "replace"), stderr.decode("utf-8", "replace")


def has_word(text: str, word: Word) -> bool:
    alternatives = [word] if isinstance(word, str) else word
    return any(alternative.lower() in text.lower() for alternative in alternatives)


CASES = load_corpus()


def test_corpus_covers_every_kind() -> None:
    by_kind = collections.Counter(case.kind for case in CASES)
    assert len(CASES) >= 110, summary(CASES)
    assert all(by_kind[kind] >= 5 for kind in KINDS), summary(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_malformed_input_fails_cleanly(case: Case, tmp_path: Path) -> None:
    folder = prepare(case, tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    before = tree_digest(folder)
    status, stdout, stderr = run(case, folder, out, tmp_path / "cache")
    shown = f"{case.id}: {case.about}\n$ {case.command}\nexit status {status}\n--- stderr:\n{stderr[-3000:]}"

    crashes = [text for text in CRASH_TEXTS if text in stderr or text in stdout]
    if case.status != 3 and "Oops!" in stderr:
        crashes.append("Oops!")
    assert not crashes, f"crash text {crashes} in the output\n{shown}"
    assert status == case.status, f"expected exit status {case.status}\n{shown}"
    if case.status == 2:
        errors = [line for line in stderr.splitlines() if line.startswith("progsim: error:")]
        assert errors, f"no line starting with 'progsim: error:'\n{shown}"
        reported = errors[0]
    else:
        reported = stderr
    missing = [word for word in case.stderr_has if not has_word(reported, word)]
    assert not missing, f"the error does not name {missing}\n{shown}"
    for pattern in case.stdout_matches:
        assert re.search(pattern, stdout), f"stdout does not match {pattern!r}\n{shown}\n--- stdout:\n{stdout[-3000:]}"
    left = sorted(str(path.relative_to(out)) for path in out.rglob("*"))
    assert not left, f"the failed run left {left} in the output folder\n{shown}"
    after = tree_digest(folder)
    changed = sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))
    assert not changed, f"the run changed, created or removed {changed} in the case folder\n{shown}"


if __name__ == "__main__":
    if sys.argv[1:] == ["--summary"]:
        print(summary())
    else:
        print(f"usage: python3 {Path(__file__).relative_to(REPOSITORY)} --summary   (or run it with pytest)")
        sys.exit(2)
