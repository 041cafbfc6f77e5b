"""The teaching gallery (`progsim gallery`): small scenarios replayed under every progress mechanism, side by side,
on a static HTML page with a Gantt picture and the overhead ratio of each run.

Each case (progsim/gallery/cases.py) has rows; each row runs under each of its mechanisms the three replays of the
overlap benchmark (progsim/workloads/overlap.py, or nbc_overlap.py beside it for a non-blocking collective): the
communication alone, the computation alone, and both, whose timeline becomes the picture. Replays and pictures run in
worker processes; the page is built in OUTDIR.partial and renamed into place, so a failure leaves no half page.
"""

from __future__ import annotations

import math
import shutil
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from progsim.errors import InputError
from progsim.gallery.cases import Case, Collective, Row, Workload, load_cases
from progsim.gallery.page import Picture
from progsim.platform import Compiled
from progsim.pools import map_in_order
from progsim.workloads import nbc_overlap, overlap

GENERATOR = "progsim gallery"  # the page says who wrote it: an earlier gallery may be replaced, nothing else


class GalleryFailed(RuntimeError):
    """A replay failed: the page is not written."""


@dataclass(frozen=True)
class Job:
    """One row of one case under one mechanism: its three replays, in a scratch folder of its own."""
    case: str
    row: int
    mechanism: str
    workload: Workload
    compiled: Compiled
    core_speed: float
    settings: tuple[str, ...]
    folder: Path
    png: str


def run_job(job: Job) -> Picture | str:
    """The job's metrics and timeline, or the reason it failed."""
    from progsim.timeline import read_timeline

    timeline = job.folder / "timeline.jsonl"
    try:
        if isinstance(job.workload, Collective):
            result = nbc_overlap.measure(job.workload.point(), job.compiled, job.core_speed, job.mechanism,
                                         job.folder, list(job.settings), timeline)
            metrics = result.ranks
        else:
            metrics = overlap.measure(job.workload.cell(job.core_speed), job.compiled, job.mechanism, job.folder,
                                      list(job.settings), timeline=timeline)
        end = read_timeline(timeline).end
    except (overlap.ReplayFailed, ValueError, InputError) as error:
        lines = [line for line in str(error).splitlines() if line.strip()]
        return f"case '{job.case}', row {job.row + 1}, {job.mechanism}: {' '.join(lines)[:600]}"
    defined = [m.overhead_ratio for m in metrics if not math.isnan(m.overhead_ratio)]
    return Picture(job.case, job.row, job.mechanism,
                   statistics.median(defined) if defined else math.nan, max(defined) if defined else math.nan,
                   statistics.median(m.computation_slowdown for m in metrics), max(m.t_measured for m in metrics),
                   statistics.median(m.t_comp_ref for m in metrics), statistics.median(m.t_comm_ref for m in metrics),
                   len(defined), timeline, end, job.png)


def draw_job(picture: Picture, folder: Path, time_range: tuple[float, float]) -> None:
    from progsim.gallery.page import ratio_text
    from progsim.timeline import read_timeline
    from progsim.timeline.gantt import GanttStyle, draw_gantt

    style = GanttStyle(width=6.4, base_height=1.3, row_height=0.55, font_size=13, legend=False,
                       time_range=time_range, least=1 / 160)
    draw_gantt(read_timeline(picture.timeline), folder / picture.png,
               f"{picture.mechanism}: r = {ratio_text(picture.ratio)}", style)


def picture_name(case: Case, row: int, mechanism: str) -> str:
    return f"{case.name}-{row + 1}-{mechanism}.png" if len(case.rows) > 1 else f"{case.name}-{mechanism}.png"


def _jobs(cases: list[Case], scratch: Path) -> list[Job]:
    """Every job, on platforms compiled here once each (workers never compile into the same folder)."""
    compiled: dict[tuple[Path, int | None, str | None, int], tuple[Compiled, float]] = {}
    jobs = []
    for case in cases:
        for r, row in enumerate(case.rows):
            key = (row.platform.resolve(), row.ranks_per_node, row.policy, row.ranks)
            if key not in compiled:
                compiled[key] = _compile(row, scratch / "platforms" / str(len(compiled)))
            platform, speed = compiled[key]
            for mechanism in row.mechanisms:
                folder = scratch / "runs" / case.name / str(r) / mechanism
                jobs.append(Job(case.name, r, mechanism, row.workload, platform, speed, row.settings, folder,
                                picture_name(case, r, mechanism)))
    return jobs


def _compile(row: Row, folder: Path) -> tuple[Compiled, float]:
    """The row's platform compiled for its ranks with its placement, and its core speed."""
    import dataclasses

    from progsim.platform import compile_platform, load_platform

    model = load_platform(row.platform)
    placement = model.placement
    if row.ranks_per_node is not None:
        placement = dataclasses.replace(placement, ranks_per_node=row.ranks_per_node)
    if row.policy is not None:
        placement = dataclasses.replace(placement, policy=row.policy)
    try:
        platform = compile_platform(dataclasses.replace(model, placement=placement), folder, row.ranks)
    except InputError as error:
        raise InputError(f"{row.platform}: cannot place the row '{row.label}' ({row.ranks} ranks): {error}") \
            from None
    return platform, model.node.core_speed


# ---- the output folder ----------------------------------------------------------------------------------------

def check_output(output: Path, inputs: Path) -> None:
    """OUTDIR may be new, empty, or an earlier gallery (which the new one replaces); never a file, a folder of
    something else, or one that holds the cases."""
    if output.exists() and not output.is_dir():
        raise InputError(f"-o {output}: a file; the gallery is a folder (index.html and its pictures)")
    if not output.absolute().parent.is_dir():
        raise InputError(f"-o {output}: its parent folder does not exist")
    resolved = output.resolve()
    if resolved == inputs.resolve() or resolved in inputs.resolve().parents:
        raise InputError(f"-o {output}: holds the cases ({inputs}); write the gallery elsewhere")
    if output.is_dir() and any(output.iterdir()) and not is_gallery(output):
        raise InputError(f"-o {output}: a folder that is not an earlier gallery (no index.html written by "
                         f"{GENERATOR}); refusing to replace it")


def is_gallery(folder: Path) -> bool:
    index = folder / "index.html"
    try:
        return index.is_file() and f'content="{GENERATOR}"' in index.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def _replace(partial: Path, output: Path) -> None:
    """Puts the finished gallery in place of the earlier one, if any."""
    old = output.with_name(output.name + ".old")
    if old.exists():
        shutil.rmtree(old)
    if output.exists():
        output.rename(old)
    partial.rename(output)
    if old.exists():
        shutil.rmtree(old)


# ---- building ---------------------------------------------------------------------------------------------------

def build(cases: list[Case], output: Path, jobs: int) -> list[Picture]:
    """Replays every case, draws the pictures and writes OUTDIR/index.html; GalleryFailed if a replay failed
    (nothing is written then)."""
    from progsim.gallery.page import write_page
    from progsim.progress_bar import ProgressBar

    partial = output.with_name(output.name + ".partial")
    with tempfile.TemporaryDirectory(prefix="progsim-gallery-") as scratch:
        work = _jobs(cases, Path(scratch))
        bar = ProgressBar(2 * len(work), "gallery", unit="step")
        try:
            outcomes = map_in_order(run_job, [(job,) for job in work], jobs, bar)
            failed = [o for o in outcomes if isinstance(o, str)]
            if failed:  # the first few say enough; the rest is counted
                more = f"; and {len(failed) - 3} more" if len(failed) > 3 else ""
                raise GalleryFailed("; ".join(failed[:3]) + more)
            pictures = [o for o in outcomes if isinstance(o, Picture)]
            ranges = _time_ranges(pictures)
            if partial.exists():
                shutil.rmtree(partial)
            partial.mkdir()
            try:
                map_in_order(draw_job, [(p, partial, ranges[(p.case, p.row)]) for p in pictures], jobs, bar)
                write_page(cases, pictures, partial / "index.html")
            except BaseException:
                shutil.rmtree(partial, ignore_errors=True)
                raise
        finally:
            bar.close()
    _replace(partial, output)
    return pictures


def _time_ranges(pictures: list[Picture]) -> dict[tuple[str, int], tuple[float, float]]:
    """One time axis per row, from 0 to its slowest mechanism's end: the pictures of a row compare at a glance."""
    ends: dict[tuple[str, int], float] = {}
    for p in pictures:
        ends[(p.case, p.row)] = max(ends.get((p.case, p.row), 0.0), p.end)
    return {key: (0.0, end if end > 0 else 1e-6) for key, end in ends.items()}


# ---- the command ------------------------------------------------------------------------------------------------

HELP = """Builds the teaching gallery: small scenarios (one YAML file per case in CASES_DIR) replayed under every
progress mechanism (none, thread, dedicated-core, offload, ideal), side by side, on one static HTML page.

The page (OUTDIR/index.html, with its pictures OUTDIR/*.png beside it) holds, per case: a title, an explanation in
plain words (what to look at, why it does or does not overlap under each mechanism), and per row of the case one
Gantt picture per mechanism (a row per rank and per agent: compute, MPI call, waiting, progress work, NIC work;
arrows are messages), all on the same time axis, with under each picture its overhead ratio r (Reynier 2022,
eq. 4.1: r = (t - max(comp, comm)) / min(comp, comm); 0 overlapped, 1 serialized), the computation's slowdown and
the run's time. A legend explains the colours; a table at the end (also printed here) gathers the ratios.

Open it in any browser, without a server or a network: xdg-open OUTDIR/index.html, or file:///.../OUTDIR/index.html.
Click a picture to see it full size. The folder can be copied anywhere (nothing points outside it).

The case format: progsim/gallery/cases.py (its first comment shows every key). The same inputs give the same bytes;
the page is built in OUTDIR.partial and renamed, so a failure leaves no half page (and an earlier gallery stays).
Exit status: 0 when written, 1 when a replay failed (named on stderr), 2 on bad input (file:line and YAML path)."""


def default_cases() -> Path:
    """scenarios/teaching of the current folder, else of progsim's source tree."""
    from progsim.engine_info import REPOSITORY

    here = Path("scenarios/teaching")
    return here if here.is_dir() else REPOSITORY / "scenarios" / "teaching"


def command_gallery(args: Any) -> int:
    from progsim.gallery.page import ratio_table

    folder = Path(args.cases_dir) if args.cases_dir else default_cases()
    output = Path(args.output)
    if args.jobs < 1:
        raise InputError(f"--jobs {args.jobs}: expected 1 or more")
    names = [n.strip() for n in args.cases.split(",") if n.strip()] if args.cases is not None else None
    if names is not None and not names:
        raise InputError("--cases: expected case names separated by commas")
    check_output(output, folder)
    cases = load_cases(folder, names)
    try:
        pictures = build(cases, output, args.jobs)
    except GalleryFailed as error:
        print(f"progsim: gallery: a replay failed, nothing written: {error}", file=sys.stderr)
        return 1
    print(ratio_table(cases, pictures))
    print(f"wrote {output / 'index.html'} and {len(pictures)} pictures: open it in a browser "
          f"(file://{(output / 'index.html').resolve()})")
    return 0


def add_command(commands: Any) -> None:
    import argparse
    import os

    parser = commands.add_parser(
        "gallery", help="a static HTML page of teaching cases: every mechanism side by side, Gantt pictures, ratios",
        description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example: progsim gallery scenarios/teaching -o gallery && xdg-open gallery/index.html")
    parser.add_argument("cases_dir", nargs="?", metavar="CASES_DIR",
                        help="folder of case YAML files (default: scenarios/teaching)")
    parser.add_argument("-o", "--output", required=True, metavar="OUTDIR",
                        help="folder to write index.html and its pictures into (replaced if an earlier gallery)")
    parser.add_argument("--cases", metavar="NAME,...", help="only these cases (their 'name'), in file order")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="replays and pictures at once, in worker processes (default: one per core)")
    parser.set_defaults(run=command_gallery)
