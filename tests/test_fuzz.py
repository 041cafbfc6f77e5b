"""The trace reader's libFuzzer harness (tests/fuzz): built with clang-14 and its sanitizers, it replays the inputs
that once crashed the reader (tests/fuzz/regressions) and the seed corpus, then fuzzes for 20 seconds.

The toolchain (clang-14, libclang-rt-14-dev) is part of the project's setup: without it these tests fail, they never
skip. scripts/fuzz.sh fuzzes for longer.
"""

from __future__ import annotations

import glob
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPOSITORY

FUZZ_SOURCES = REPOSITORY / "tests" / "fuzz"
BUILD = REPOSITORY / "build-fuzz"
SECONDS = 20


def missing_toolchain() -> list[str]:
    missing = []
    if shutil.which("clang++-14") is None:
        missing.append("clang-14 (clang++-14 not found)")
    if not glob.glob("/usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a"):
        missing.append("libclang-rt-14-dev (libFuzzer's runtime not found)")
    if shutil.which("cmake") is None or shutil.which("ninja") is None:
        missing.append("cmake and ninja-build")
    return missing


@pytest.fixture(scope="module")
def fuzzer() -> Path:
    missing = missing_toolchain()
    if missing:
        pytest.fail(f"the fuzzing toolchain is missing: {', '.join(missing)}; run `make setup`")
    for command in (["cmake", "-S", str(FUZZ_SOURCES), "-B", str(BUILD), "-G", "Ninja",
                     "-DCMAKE_CXX_COMPILER=clang++-14"],
                    ["cmake", "--build", str(BUILD)]):
        done = subprocess.run(command, capture_output=True, text=True)
        assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"
    return BUILD / "fuzz_trace"


def test_the_fuzzing_toolchain_is_installed() -> None:
    assert not missing_toolchain(), f"missing: {', '.join(missing_toolchain())}; run `make setup`"


def test_regressions_and_seeds_replay_cleanly(fuzzer: Path) -> None:
    inputs = sorted((FUZZ_SOURCES / "regressions").iterdir()) + sorted((FUZZ_SOURCES / "corpus").iterdir())
    assert len(inputs) >= 5
    # Absolute paths: the harness works in a folder of its own.
    done = subprocess.run([str(fuzzer), *[str(p.resolve()) for p in inputs]], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, f"an input of tests/fuzz crashes the trace reader:\n{done.stderr[-6000:]}"
    assert done.stderr.count("Executed ") == len(inputs), done.stderr[-3000:]


def test_twenty_seconds_of_fuzzing_find_nothing(fuzzer: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    artifacts = tmp_path / "crashes"
    corpus.mkdir()
    artifacts.mkdir()
    done = subprocess.run([str(fuzzer), f"-max_total_time={SECONDS}", "-max_len=4096", "-len_control=0",
                           f"-dict={FUZZ_SOURCES / 'trace.dict'}", "-timeout=10", "-rss_limit_mb=2048",
                           "-print_final_stats=1", f"-artifact_prefix={artifacts}/", str(corpus),
                           str(FUZZ_SOURCES / "corpus")],
                          capture_output=True, text=True, timeout=SECONDS + 240)
    kept = []
    if done.returncode != 0:  # keep what crashed where it survives this test's folder
        (BUILD / "crashes").mkdir(parents=True, exist_ok=True)
        for crash in artifacts.iterdir():
            kept.append(shutil.copy(crash, BUILD / "crashes" / crash.name))
    assert done.returncode == 0, (f"libFuzzer found a bug in the trace reader; input(s) kept in {kept} (add them to "
                                  f"tests/fuzz/regressions once fixed):\n{done.stderr[-6000:]}")
    assert "stat::number_of_executed_units" in done.stderr, done.stderr[-3000:]
