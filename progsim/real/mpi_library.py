"""The real MPI libraries of this machine (Open MPI, MPICH) and how a benchmark of bench/ runs on one of them.

A benchmark (bench/overlap.c by default) is compiled with the library's mpicc into the cache (once per source and
compiler), run on two ranks with the library's launcher, the transport's settings and the user's environment, and
its output read back by kind of line. `progsim measure` and `progsim calibrate` both measure through it.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from progsim.engine_info import REPOSITORY
from progsim.errors import InputError

BENCHMARK_SOURCE = REPOSITORY / "bench" / "overlap.c"
CFLAGS = ["-std=c99", "-O2", "-Wall", "-Wextra"]
RANKS = 2
STDERR_TAIL = 1500  # characters of a failed run's stderr shown on stderr
ERROR_TAIL = 240  # of them in the one-line error (progsim's errors are cut beyond 400 characters)


@dataclass(frozen=True)
class Launch:
    """What selects a transport: launcher options and environment variables."""

    options: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Library:
    name: str
    mpicc: str
    launcher: str
    packages: str  # the Debian packages that provide the two commands
    options: tuple[str, ...]  # launcher options of every run
    env: tuple[tuple[str, str], ...]  # environment of every run
    transports: dict[str, Launch] = field(hash=False)


# Both libraries bind each rank to a core (Open MPI's default for 2 ranks; Hydra binds nothing unless asked), so
# that they are measured alike: a progress thread shares its rank's core.
LIBRARIES = {
    "openmpi": Library(
        name="openmpi", mpicc="mpicc.openmpi", launcher="mpirun.openmpi", packages="openmpi-bin libopenmpi-dev",
        options=("--bind-to", "core"),
        env=(("OMPI_ALLOW_RUN_AS_ROOT", "1"), ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")),
        transports={"shm": Launch(("--mca", "pml", "ob1", "--mca", "btl", "self,vader")),
                    "tcp": Launch(("--mca", "pml", "ob1", "--mca", "btl", "self,tcp"))}),
    # Debian's MPICH is built ch4:ucx without a shared-memory module of its own: messages between ranks of one
    # node go through UCX, whose transports UCX_TLS selects (sm: shared memory and CMA; tcp: sockets).
    "mpich": Library(
        name="mpich", mpicc="mpicc.mpich", launcher="mpiexec.mpich", packages="mpich libmpich-dev",
        options=("-bind-to", "core"), env=(),
        transports={"shm": Launch(env=(("UCX_TLS", "sm,self"),)),
                    "tcp": Launch(env=(("UCX_TLS", "tcp,self"),))}),
}
TRANSPORTS = ("shm", "tcp")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def find_library(name: str) -> Library:
    library = LIBRARIES[name]
    for command in (library.mpicc, library.launcher):
        if shutil.which(command) is None:
            raise InputError(f"--library {name}: {command} is not installed; it comes with the Debian packages "
                             f"{library.packages} (apt-get install {library.packages})")
    return library


def parse_env(items: Sequence[str]) -> tuple[tuple[str, str], ...]:
    pairs = []
    for item in items:
        name, equals, value = item.partition("=")
        if not equals or not ENV_NAME.match(name):
            raise InputError(f"--env {item}: expected NAME=VALUE, e.g. --env MPIR_CVAR_ASYNC_PROGRESS=1")
        pairs.append((name, value))
    return tuple(pairs)


# ---- building the benchmark ----

def _compiler_identity(library: Library) -> bytes:
    """What a change of compiler changes: the wrapper itself and the version of the compiler it calls."""
    wrapper = Path(os.path.realpath(str(shutil.which(library.mpicc))))
    version = subprocess.run([library.mpicc, "--version"], capture_output=True, text=True)
    return wrapper.read_bytes() + version.stdout.encode() + " ".join(CFLAGS).encode()


def benchmark_binary(library: Library, source_path: Path = BENCHMARK_SOURCE) -> Path:
    """A benchmark of bench/ (overlap.c by default) compiled with the library's mpicc, kept in the cache under a hash
    of the source and the compiler; compiled into a temporary file and renamed, so a concurrent or interrupted build
    leaves no half file."""
    from progsim.platform_cache import cache_root

    source = source_path.read_bytes()
    digest = hashlib.sha256(source + _compiler_identity(library)).hexdigest()[:16]
    binary = cache_root() / "bench" / f"{source_path.stem}-{library.name}-{digest}"
    if binary.is_file():
        return binary
    binary.parent.mkdir(parents=True, exist_ok=True)
    partial = binary.with_name(f"{binary.name}.{os.getpid()}.tmp")
    build = subprocess.run([library.mpicc, *CFLAGS, "-o", str(partial), str(source_path)],
                           capture_output=True, text=True)
    if build.returncode != 0:
        partial.unlink(missing_ok=True)
        raise InputError(f"--library {library.name}: {library.mpicc} could not compile {source_path} "
                         f"(exit {build.returncode}): {stderr_tail(build.stderr)}")
    os.replace(partial, binary)
    return binary


# ---- running it ----

@dataclass(frozen=True)
class Run:
    """One launch of the benchmark: which library, transport and environment, and the benchmark's arguments."""

    library: Library
    transport: str
    env: tuple[tuple[str, str], ...]
    arguments: tuple[str, ...]
    timeout_s: float

    def environment(self) -> dict[str, str]:
        """The caller's environment, then the library's, the transport's, and the user's (which wins)."""
        return {**os.environ, **dict(self.library.env), **dict(self.library.transports[self.transport].env),
                **dict(self.env)}

    def command(self, binary: Path) -> list[str]:
        return [self.library.launcher, "-n", str(RANKS), *self.library.options,
                *self.library.transports[self.transport].options, str(binary), *self.arguments]


@dataclass
class Output:
    """The benchmark's lines, by kind (the first field), the rest of each line split on commas."""

    version: str
    lines: dict[str, list[list[str]]]
    seconds: float

    def rows(self, kind: str) -> list[list[str]]:
        return self.lines.get(kind, [])

    def calibration(self) -> str:
        """Each rank's iterations per second of the computation, as calibrated before MPI_Init."""
        return ", ".join(f"{float(fields[1]):.3g}" for fields in self.rows("calibration"))

    def threads(self) -> int:
        return max((int(fields[1]) for fields in self.rows("threads")), default=-1)


def parse_output(text: str) -> tuple[str, dict[str, list[list[str]]]]:
    version = ""
    lines: dict[str, list[list[str]]] = {}
    for line in text.splitlines():
        kind, comma, rest = line.partition(",")
        if not comma:
            continue
        if kind == "library":
            version = rest
        else:
            lines.setdefault(kind, []).append(rest.split(","))
    return version, lines


def _text(output: str | bytes | None) -> str:
    return output.decode(errors="replace") if isinstance(output, bytes) else (output or "")


# MPICH's launcher (hydra) reports a rank's failure in lines of its own, often after the rank's, which name the error.
LAUNCHER_LINE = re.compile(r"^\[(?:mpiexec|proxy)[@:]")


def stderr_tail(text: str, longest: int = ERROR_TAIL) -> str:
    """The end of a run's stderr on one line (errors are printed on one line), its last lines first to go in; the
    launcher's lines go before the program's, so that what is cut first is the launcher's."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    launcher = [line for line in lines if LAUNCHER_LINE.match(line)]
    program = [line for line in lines if not LAUNCHER_LINE.match(line)]
    return " | ".join(launcher + program)[-longest:]


def _failed(run: Run, command: list[str], what: str, stderr: str) -> InputError:
    """The whole command and the end of its stderr go to stderr; the error itself names the library and the end of
    the stderr, short enough to be printed whole."""
    print(f"measure: {' '.join(command)} failed; the end of its stderr:\n{stderr[-STDERR_TAIL:]}", file=sys.stderr)
    return InputError(f"--library {run.library.name} --transport {run.transport}: {what}: "
                      f"{stderr_tail(stderr) or '(nothing on stderr)'}")


def run_benchmark(run: Run, binary: Path, what: str) -> Output:
    command = run.command(binary)
    started = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=run.environment(), timeout=run.timeout_s)
    except subprocess.TimeoutExpired as expired:
        raise _failed(run, command, f"{what} did not finish in {run.timeout_s:.0f} s",
                      _text(expired.stderr)) from None
    if done.returncode != 0:
        raise _failed(run, command, f"{what} failed (exit {done.returncode})", done.stderr)
    version, lines = parse_output(done.stdout)
    return Output(version, lines, time.monotonic() - started)


def library_version(output: Output, library: Library) -> str:
    """'4.1.4' out of the library's own version string, or the whole string when its form is unknown."""
    match = re.search(r"(?:Open MPI v|MPICH Version:\s*)(\d+(?:\.\d+)+\S*?)(?:,|\s|$)", output.version)
    return match.group(1) if match else (output.version.strip() or f"{library.name} (version unknown)")
