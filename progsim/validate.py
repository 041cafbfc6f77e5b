"""`progsim validate`: holds simulated overlap heatmaps against reference ones (measured on a real MPI library by
`progsim measure`, or taken from the literature) and says, per pair of cases, whether they agree.

This module runs the command: it simulates the case files' grids, compares and checks them, and gathers the outcomes.
Comparing two tables is progsim/heatmap_compare.py's job, the literature's expectations are
progsim/heatmap_expectations.py's, reading case files progsim/validation_case.py's, and the report and figure
progsim/validation_report.py's.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from progsim.errors import InputError
from progsim.heatmap_compare import (KEY, NEEDED, REFERENCES, Comparison, Table, Tolerance, automatic_pairs, balanced,
                                     combine_runs, compare, explicit_pairs, normalized, read_table)
from progsim.heatmap_expectations import check_expectation
from progsim.validation_case import Case, case_files, load_case
from progsim.validation_report import Outcome, draw_figure, plain_table, summary_rows, write_report

if TYPE_CHECKING:  # pandas is imported where it is used: every progsim command imports this module
    import pandas as pd


# ---------------------------------------------------------------- simulation


def simulate(case: Case, jobs: int, report: Callable[[str], None]) -> Table:
    """Runs the case's grid through the sweep runner, as `progsim overlap` does; the table in the cells format."""
    import pandas as pd

    from progsim.options import check_settings
    from progsim.sweep.spec import overlap_sweep
    from progsim.pools import LocalPool
    from progsim.sweep.run import run_sweep

    simulation = case.simulation
    check_settings(simulation.settings)
    spec = overlap_sweep(case.path, simulation.platform, [simulation.progress], simulation.sides, simulation.sizes,
                         simulation.times, simulation.tests, simulation.ranks_per_node, simulation.settings,
                         case.name)
    pool = LocalPool(jobs)
    try:
        with tempfile.TemporaryDirectory(prefix="progsim-validate-") as scratch:
            output = Path(scratch) / "simulated.csv"
            rows = run_sweep(spec, output, pool, lambda _: None, report).rows
    finally:
        pool.close()
    frame = pd.DataFrame(rows).replace({"": math.nan, "nan": math.nan})  # no value, or an undefined ratio
    frame["case"] = simulation.label
    frame["error"] = frame["error"].fillna("")
    return Table(f"the simulation of {case.path}", normalized(frame, str(case.path), [*NEEDED, *REFERENCES]))


def simulated_cells(table: Table, tolerance: Tolerance) -> pd.DataFrame:
    """A simulated table alone as a comparison frame (no r_ref), its own references deciding balance."""
    frame = table.frame.rename(columns={"overhead_ratio": "r_sim"})
    frame["r_ref"] = math.nan
    failed = frame["r_sim"].isna() | (frame["error"] != "")
    frame["status"] = ["compared" if not f else f"failed in the simulation: {e or 'no overhead ratio'}"
                       for f, e in zip(failed, frame["error"])]
    frame["balanced"] = ~failed & balanced(frame["t_comm_ref"], frame["t_comp_ref"], tolerance.balance)
    return frame[[*KEY, "r_sim", "r_ref", *REFERENCES, "status", "balanced"]].sort_values(KEY, ignore_index=True)


# ---------------------------------------------------------------- results


def reference_comparison(case: Case, simulated: Table, reference: Table, tolerance: Tolerance) -> Comparison:
    refcase = case.reference_case or automatic_pairs(simulated, reference)[0][1]
    if refcase not in reference.cases():
        raise InputError(f"{case.path}: reference_case: {reference.source} holds no case {refcase!r} (its cases: "
                         f"{', '.join(reference.cases())})")
    return compare(simulated, reference, simulated.cases()[0], refcase, tolerance)


def run_case(case: Case, overrides: dict[str, float], jobs: int, report: Callable[[str], None]) -> Outcome:
    tolerance = replace(case.tolerance, **overrides)
    reference = combine_runs([read_table(path, [*NEEDED, *REFERENCES]) for path in case.references]) \
        if case.references else None
    simulated = simulate(case, jobs, report)
    comparison = reference_comparison(case, simulated, reference, tolerance) if reference is not None else None
    alone = simulated_cells(simulated, tolerance)
    checks = [check_expectation(case.name, alone, expectation, tolerance) for expectation in case.expectations]
    sim = case.simulation
    note = (f"{case.source}\n\nSimulated: {sim.platform.name}, progress {sim.progress}, {' and '.join(sim.sides)} computes, "
            f"ranks per node: {sim.ranks_per_node or 'as the platform places them'}, {sim.tests} tests"
            f"{', set ' + ' '.join(sim.settings) if sim.settings else ''}."
            + (f" Compared: {comparison.name}, from {' + '.join(str(p) for p in case.references)}"
               f"{f' (median of {len(case.references)} runs)' if len(case.references) > 1 else ''}."
               if comparison is not None else ""))
    return Outcome(case.name, note, comparison, checks, comparison.cells if comparison is not None else alone)


def run_tables(simulated_path: Path, reference_paths: list[Path], pair_options: list[str],
               tolerance: Tolerance) -> list[Outcome]:
    simulated = read_table(simulated_path, NEEDED)
    reference = combine_runs([read_table(path, [*NEEDED, *REFERENCES]) for path in reference_paths])
    pairs = explicit_pairs(simulated, reference, pair_options) if pair_options else \
        automatic_pairs(simulated, reference)
    outcomes = []
    for simcase, refcase in pairs:
        comparison = compare(simulated, reference, simcase, refcase, tolerance)
        outcomes.append(Outcome(comparison.name, f"Simulated: {simulated_path} (case {simcase}); reference: "
                                                 f"{reference.source} (case {refcase}).", comparison, [],
                                comparison.cells))
    return outcomes


# ---------------------------------------------------------------- command

DESCRIPTION = """\
Holds simulated overlap heatmaps against reference ones, cell by cell, and says whether they agree.

SIMULATED and REFERENCE are heatmap tables (CSV, or Parquet when the name ends in .parquet) with the columns of
progsim/cells.py: case, side, size_bytes, compute_s, tests, overhead_ratio (and, in REFERENCE, t_comm_ref and
t_comp_ref); `progsim overlap --csv` tables are read too. Cells are matched on (side, size_bytes, compute_s,
tests), case by case: with --pair SIMCASE=REFCASE, or automatically when each table holds one case per side.

The metric is the overhead ratio r of Reynier 2022 (eq. 4.1): 0 overlapped, 1 serialized, above 1 slower than
serialized. Classes: overlapped r < 0.3, serialized 0.3 to 1.3, slowed above 1.3. Per pair:
  class agreement  the share of balanced cells whose two ratios are in the same class
  median |dr|      the median of |r_sim - r_ref| over balanced cells
A cell is balanced when its communication and computation references (t_comm_ref, t_comp_ref of REFERENCE) are
within a factor F (--balance) of each other: in the unbalanced corners the variation of the longer part overrides
the shorter one (Reynier 2022, thesis line 1336). A pair passes when agreement >= --agreement and median |dr| <=
--max-median-dr. Cells missing from a table, or failed, are counted and listed, never held to the tolerance.

A case file (--case validation/overlap/NAME/case.yaml, or a folder of them) needs no reference table: it says what
to simulate (as `progsim overlap` does) and what the literature observed, and may name a reference table too:
  name: no-overlap-default-library
  source: "Reynier 2022, section 4.4.1 (thesis line 948)"
  simulate: {platform: ../../../platforms/bora.yaml, progress: none, side: receiver, ranks_per_node: 1,
             sizes: [4KiB, 64KiB, 1MiB], compute: [10us, 1ms, 100ms], tests: 0, set: []}
  expect: {class: serialized, where: "size_bytes >= 64KiB", share: 0.9}   # or a list of them
  reference: measured.csv                                # optional, beside the case file; or a list of
                                                         # independent runs: [run1.csv, run2.csv, run3.csv]
  reference_case: openmpi-4.1                            # when the reference table holds several cases
  tolerance: {agreement: 0.9, median_dr: 0.15, balance: 10}            # optional
An expectation holds when at least `share` of the balanced cells `where` applies (clauses COLUMN OP VALUE joined
by 'and'; columns size_bytes, compute_s, t_comm_ref, t_comp_ref, tests) are in `class`; a case's own simulated
references decide which cells are balanced. Options override the case file's tolerance.

Several reference runs (REFERENCE given more than once, or a list in a case file) are combined cell by cell: the
median of each number, and only the balanced cells that every run puts in the same class are held to the tolerance
(the column 'reproducible' counts them; the report lists the others with the ratio of each run). A real machine's
cell that changes class from one run to the next says nothing a model could agree with.

Exit status: 0 if everything passes, 1 if something fails, 2 on bad input."""

EXAMPLES = """\
examples:
  progsim validate simulated.csv measured.csv --report report.md --figure validation.png
  progsim validate sweep.parquet measured.parquet --pair bora/none=openmpi-4.1/psm2 --balance 4
  progsim validate --case validation/overlap --report literature.md --figure literature.png"""


def tolerance_overrides(args: argparse.Namespace) -> dict[str, float]:
    given = {"agreement": args.agreement, "median_dr": args.max_median_dr, "balance": args.balance}
    limits = {"agreement": (0.0, 1.0), "median_dr": (0.0, math.inf), "balance": (1.0, math.inf)}
    options = {"agreement": "--agreement", "median_dr": "--max-median-dr", "balance": "--balance"}
    for key, value in given.items():
        low, high = limits[key]
        if value is not None and not low <= value <= high:
            raise InputError(f"{options[key]} {value:g}: expected a number from {low:g} to {high:g}")
    return {key: value for key, value in given.items() if value is not None}


def _check_arguments(args: argparse.Namespace) -> list[Path]:
    """The case files, after checking that the arguments make sense together."""
    from progsim.outputs import check_outputs

    tables = [Path(p) for p in ([args.simulated] if args.simulated else []) + args.reference]
    if len(tables) == 1:
        raise InputError(f"{tables[0]}: expected two tables, SIMULATED and REFERENCE")
    if not tables and not args.case:
        raise InputError("expected SIMULATED and REFERENCE tables, or --case CASE.yaml (or a folder of them)")
    if args.pair and not tables:
        raise InputError("--pair names cases of SIMULATED and REFERENCE: give the two tables")
    if args.jobs < 1:
        raise InputError(f"--jobs {args.jobs}: expected 1 or more")
    figures = [Path(f) for f in args.figure or []]
    for output in figures:
        if output.suffix not in (".png", ".svg"):
            raise InputError(f"--figure {output}: expected a .png or .svg file")
    cases = [case for argument in args.case for case in case_files(argument)]
    check_outputs({"--report": args.report, **{f"--figure {f}": str(f) for f in figures}}, [*tables, *cases])
    return cases


def command_validate(args: argparse.Namespace) -> int:
    case_paths = _check_arguments(args)
    overrides = tolerance_overrides(args)
    outcomes: list[Outcome] = []
    if args.simulated is not None:
        outcomes += run_tables(Path(args.simulated), [Path(p) for p in args.reference], args.pair,
                               replace(Tolerance(), **overrides))
    cases = [load_case(path) for path in case_paths]  # every case file checked before any simulation
    for case in cases:
        print(f"simulating {case.name} ({case.path})", file=sys.stderr, flush=True)
        outcomes.append(run_case(case, overrides, args.jobs, lambda line: None))
    print(plain_table(summary_rows(outcomes)))
    figures = [Path(f) for f in args.figure or []]
    if figures:
        draw_figure(outcomes, figures)
    if args.report:
        write_report(outcomes, Path(args.report), figures)
    for output in [*([args.report] if args.report else []), *figures]:
        print(f"wrote {output}")
    return 0 if all(outcome.passed for outcome in outcomes) else 1


def add_command(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("validate", help="hold simulated overlap heatmaps against measured or published ones",
                                 description=DESCRIPTION, epilog=EXAMPLES,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("simulated", nargs="?", help="simulated heatmap table (CSV or .parquet)")
    parser.add_argument("reference", nargs="*", metavar="REFERENCE",
                        help="reference heatmap table: measured, or from the literature; several tables are "
                             "independent runs of the same measurement (medians; cells whose class changes between "
                             "runs are not held to the tolerance)")
    parser.add_argument("--pair", action="append", default=[], metavar="SIMCASE=REFCASE",
                        help="compare this case of SIMULATED with this case of REFERENCE (repeat for more pairs)")
    parser.add_argument("--case", action="append", default=[], metavar="CASE.yaml",
                        help="a case file, or a folder holding case.yaml files (repeatable): simulate and check")
    parser.add_argument("--agreement", type=float, metavar="SHARE",
                        help=f"least class agreement over balanced cells (default {Tolerance.agreement})")
    parser.add_argument("--max-median-dr", type=float, metavar="DR",
                        help=f"largest median |r_sim - r_ref| over balanced cells (default {Tolerance.median_dr})")
    parser.add_argument("--balance", type=float, metavar="F",
                        help=f"a cell is balanced when max/min of its references <= F (default {Tolerance.balance:g})")
    parser.add_argument("--report", metavar="REPORT.md", help="write the Markdown report here")
    parser.add_argument("--figure", nargs="+", metavar="FIGURE.png",
                        help="draw simulated, reference and difference heatmaps (.png and/or .svg)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="cells of a case simulated at once (default: one per core)")
    parser.set_defaults(run=command_validate)
