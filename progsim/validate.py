"""`progsim validate`: holds simulated overlap heatmaps against reference ones (measured on a real MPI library by
`progsim measure`, or taken from the literature) and says, per pair of cases, whether they agree.

Cells (progsim/cells.py) are matched on (side, size_bytes, compute_s, tests). Only *balanced* cells are held to the
tolerance: those whose communication and computation references are within a factor F of each other. Reynier 2022
(thesis, line 1336) explains why: in the unbalanced corners, the variation of the longer part overrides the shorter
one and the overhead ratio swings to very high or very low values, whatever the library does.

A case file (validation/overlap/NAME/case.yaml) says what to simulate and what the literature observed there, as a
class of overhead ratio over a region of the heatmap, and may name a reference table to compare with as well.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

from progsim import cells
from progsim.case_yaml import mapping, quantities
from progsim.errors import InputError

if TYPE_CHECKING:  # pandas is imported where it is used: every progsim command imports this module
    import pandas as pd

KEY = ["side", "size_bytes", "compute_s", "tests"]
REFERENCES = ["t_comm_ref", "t_comp_ref"]
NEEDED = ["case", *KEY, "overhead_ratio"]
DIFFERENCE_SPAN = 1.0  # the difference panel saturates at +-1: one whole class apart


@dataclass(frozen=True)
class Tolerance:
    agreement: float = 0.90  # least share of balanced cells in the same class
    median_dr: float = 0.15  # largest median |r_sim - r_ref| over balanced cells
    balance: float = 10.0  # a cell is balanced when max/min of its two references is at most this


# ---------------------------------------------------------------- tables


@dataclass(frozen=True)
class Table:
    """A heatmap table and where it came from (its file, or the case file that simulated it), for messages."""

    source: str
    frame: pd.DataFrame

    def cases(self, side: Optional[str] = None) -> list[str]:
        frame = self.frame if side is None else self.frame[self.frame["side"] == side]
        return list(dict.fromkeys(frame["case"]))


def _load_frame(path: Path) -> pd.DataFrame:
    import pandas as pd

    if not path.is_file():
        raise InputError(f"{path}: no such table")
    try:
        if path.suffix == ".parquet":
            return pd.read_parquet(path)
        # Only empty and nan cells are missing values (cells.metric_fields writes nan): a case may be named NA.
        return pd.read_csv(path, dtype={"case": str, "side": str, "error": str}, keep_default_na=False,
                           na_values=["", "nan", "NaN"])
    except (OSError, ValueError, ImportError, UnicodeDecodeError, pd.errors.ParserError) as error:
        problem = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise InputError(f"{path}: not a readable {'Parquet' if path.suffix == '.parquet' else 'CSV'} table "
                         f"({problem})") from None


def _numbers(frame: pd.DataFrame, column: str, source: str) -> pd.Series:
    import pandas as pd

    try:
        return pd.to_numeric(frame[column], errors="raise")
    except (ValueError, TypeError) as error:
        raise InputError(f"{source}: column {column}: expected numbers ({str(error).splitlines()[0]})") from None


def _cell_numbers(frame: pd.DataFrame, column: str, source: str) -> pd.Series:
    """A column that names cells: numbers, none missing."""
    values = _numbers(frame, column, source)
    if values.isna().any():
        raise InputError(f"{source}: column {column}: no value in row {int(values.isna().argmax()) + 1} (a cell is "
                         f"named by {', '.join(KEY)})")
    return values


def normalized(frame: pd.DataFrame, source: str, needed: list[str]) -> pd.DataFrame:
    """The table with typed columns, checked: the cell columns, the ratio and `needed` references."""
    import pandas as pd

    if "case" not in frame.columns and "mechanism" in frame.columns:
        frame = frame.rename(columns={"mechanism": "case"})  # progsim overlap's table names its panels so
    missing = [column for column in needed if column not in frame.columns]
    if missing:
        raise InputError(f"{source}: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                         f"(expected a heatmap table with columns {', '.join(needed)}: see progsim/cells.py)")
    if frame.empty:
        raise InputError(f"{source}: the table has no cell")
    typed = pd.DataFrame({"case": frame["case"].astype(str), "side": frame["side"].astype(str)})
    typed["size_bytes"] = _cell_numbers(frame, "size_bytes", source).astype("int64")
    # Tables write times with 6 significant digits (%g): compare them so, whoever wrote them.
    typed["compute_s"] = [float(f"{t:.6g}") for t in _cell_numbers(frame, "compute_s", source)]
    typed["tests"] = _cell_numbers(frame, "tests", source).astype("int64")
    for column in ["overhead_ratio", *REFERENCES]:
        typed[column] = _numbers(frame, column, source).astype(float) if column in frame.columns else math.nan
    typed["error"] = frame["error"].fillna("").astype(str) if "error" in frame.columns else ""
    duplicated = typed.duplicated(["case", *KEY])
    if duplicated.any():
        row = typed[duplicated].iloc[0]
        raise InputError(f"{source}: case {row['case']!r} holds the cell {describe_cell(row)} twice")
    return typed


def read_table(path: Path, needed: list[str]) -> Table:
    return Table(str(path), normalized(_load_frame(path), str(path), needed))


def combine_runs(runs: list[Table]) -> Table:
    """Independent measurements of the same cases (one table a run) as one reference: per cell, the median of each
    number over the runs, and whether every run put the cell in the same class (`stable`). A cell whose class
    changes from one run to the next is not reproducible on the machine that measured it: no model can be held to
    it, and the share of balanced cells that are stable is the best agreement any model could reach."""
    import pandas as pd

    if len(runs) == 1:  # compare() takes every cell of a single run as stable
        return runs[0]
    every = pd.concat([run.frame.assign(_run=k) for k, run in enumerate(runs)], ignore_index=True)
    every["_class"] = classes(every["overhead_ratio"])
    rows = []
    for _, cell in every.groupby(["case", *KEY], sort=False):
        row = cell.iloc[0][["case", *KEY]].to_dict()
        errors = [e for e in cell["error"] if e]
        if len(cell) < len(runs) or errors or cell["overhead_ratio"].isna().any():
            row.update(overhead_ratio=math.nan, stable=False, r_runs="",
                       error=errors[0] if errors else f"measured in {len(cell)} of the {len(runs)} runs")
        else:
            row.update(overhead_ratio=float(cell["overhead_ratio"].median()), stable=cell["_class"].nunique() == 1,
                       r_runs=" / ".join(f"{r:.3f}" for r in cell["overhead_ratio"]), error="")
        for column in REFERENCES:
            row[column] = float(cell[column].median())
        rows.append(row)
    return Table(" + ".join(run.source for run in runs), pd.DataFrame(rows))


def describe_cell(cell: Any) -> str:
    from progsim.plot import size_label, time_label

    tests = f", {int(cell['tests'])} tests" if int(cell["tests"]) else ""
    return f"{cell['side']} computes, {size_label(int(cell['size_bytes']))}, {time_label(float(cell['compute_s']))}" \
           f"{tests}"


# ---------------------------------------------------------------- pairing


def explicit_pairs(simulated: Table, reference: Table, options: list[str]) -> list[tuple[str, str]]:
    pairs = []
    for option in options:
        simcase, equals, refcase = option.partition("=")
        if not equals or not simcase or not refcase:
            raise InputError(f"--pair {option}: expected SIMCASE=REFCASE")
        for table, case in ((simulated, simcase), (reference, refcase)):
            if case not in table.cases():
                raise InputError(f"--pair {option}: {table.source} holds no case {case!r} (its cases: "
                                 f"{', '.join(table.cases())})")
        pairs.append((simcase, refcase))
    return pairs


def automatic_pairs(simulated: Table, reference: Table) -> list[tuple[str, str]]:
    """With one case per side in each table, each side's two cases form a pair."""
    sides = [s for s in dict.fromkeys(simulated.frame["side"]) if s in set(reference.frame["side"])]
    if not sides:
        raise InputError(f"{simulated.source} and {reference.source}: no side in common (cells are matched on "
                         f"{', '.join(KEY)})")
    pairs: list[tuple[str, str]] = []
    for side in sides:
        for table in (simulated, reference):
            if len(table.cases(side)) > 1:
                raise InputError(f"{table.source}: holds several cases where the {side} computes "
                                 f"({', '.join(table.cases(side))}): say which to compare with --pair "
                                 f"SIMCASE=REFCASE")
        pair = (simulated.cases(side)[0], reference.cases(side)[0])
        if pair not in pairs:
            pairs.append(pair)
    return pairs


# ---------------------------------------------------------------- comparison


def balanced(t_comm_ref: pd.Series, t_comp_ref: pd.Series, factor: float) -> pd.Series:
    """Whether each cell's two references are within `factor` of each other (a missing one: not balanced)."""
    known = t_comm_ref.notna() & t_comp_ref.notna() & (t_comm_ref > 0) & (t_comp_ref > 0)
    return known & (t_comm_ref <= factor * t_comp_ref) & (t_comp_ref <= factor * t_comm_ref)


def classes(ratios: pd.Series) -> pd.Series:
    return ratios.map(lambda r: cells.overlap_class(r) if not math.isnan(r) else "")


@dataclass
class Comparison:
    """A pair of cases, cell by cell: `cells` has the cell columns, r_sim, r_ref, the references, a status
    ('compared', or why not) and whether the cell is balanced."""

    name: str
    cells: pd.DataFrame
    tolerance: Tolerance

    @property
    def held(self) -> pd.DataFrame:
        """The cells held to the tolerance: compared, balanced, and in the same class in every reference run."""
        return self.cells[self.cells["balanced"] & self.cells["stable"]]

    @property
    def balanced(self) -> pd.DataFrame:
        return self.cells[self.cells["balanced"]]

    @property
    def unstable(self) -> pd.DataFrame:
        """Balanced cells whose reference runs put them in different classes."""
        return self.cells[self.cells["balanced"] & ~self.cells["stable"]]

    @property
    def agreement(self) -> float:
        held = self.held
        return float((classes(held["r_sim"]) == classes(held["r_ref"])).mean()) if len(held) else math.nan

    @property
    def median_dr(self) -> float:
        held = self.held
        return float((held["r_sim"] - held["r_ref"]).abs().median()) if len(held) else math.nan

    @property
    def passed(self) -> bool:
        return len(self.held) > 0 and self.agreement >= self.tolerance.agreement \
            and self.median_dr <= self.tolerance.median_dr

    def not_compared(self) -> pd.DataFrame:
        return self.cells[self.cells["status"] != "compared"]


def _status(merged: pd.DataFrame, simulated: str, reference: str) -> list[str]:
    statuses = []
    for _, cell in merged.iterrows():
        if cell["_merge"] == "right_only":
            statuses.append(f"missing from {simulated}")
        elif cell["_merge"] == "left_only":
            statuses.append(f"missing from {reference}")
        elif math.isnan(cell["r_sim"]) or cell["error_sim"]:
            statuses.append(f"failed in {simulated}: {cell['error_sim'] or 'no overhead ratio'}")
        elif math.isnan(cell["r_ref"]) or cell["error_ref"]:
            statuses.append(f"failed in {reference}: {cell['error_ref'] or 'no overhead ratio'}")
        else:
            statuses.append("compared")
    return statuses


def compare(simulated: Table, reference: Table, simcase: str, refcase: str, tolerance: Tolerance) -> Comparison:
    sim = simulated.frame[simulated.frame["case"] == simcase]
    ref = reference.frame[reference.frame["case"] == refcase]
    if "stable" not in ref.columns:  # one run: nothing says which cells would change class
        ref = ref.assign(stable=True, r_runs="")
    merged = sim[[*KEY, "overhead_ratio", "error"]].rename(columns={"overhead_ratio": "r_sim", "error": "error_sim"}) \
        .merge(ref[[*KEY, "overhead_ratio", *REFERENCES, "error", "stable", "r_runs"]]
               .rename(columns={"overhead_ratio": "r_ref", "error": "error_ref"}), on=KEY, how="outer", indicator=True)
    if not (merged["_merge"] == "both").any():
        raise InputError(f"{simulated.source} case {simcase!r} and {reference.source} case {refcase!r}: no cell in "
                         f"common (cells are matched on {', '.join(KEY)})")
    merged["error_sim"] = merged["error_sim"].fillna("")
    merged["error_ref"] = merged["error_ref"].fillna("")
    merged["status"] = _status(merged, simulated.source, reference.source)
    merged["balanced"] = (merged["status"] == "compared") & balanced(merged["t_comm_ref"], merged["t_comp_ref"],
                                                                     tolerance.balance)
    merged["stable"] = merged["stable"].fillna(False).astype(bool)
    merged["r_runs"] = merged["r_runs"].fillna("")
    merged = merged.drop(columns=["_merge", "error_sim", "error_ref"]).sort_values(KEY, ignore_index=True)
    return Comparison(f"{simcase} vs {refcase}", merged, tolerance)


# ---------------------------------------------------------------- qualitative expectations

WHERE_COLUMNS = {"size_bytes": "B", "compute_s": "s", "t_comm_ref": "s", "t_comp_ref": "s", "tests": None}
OPERATORS: dict[str, Callable[[pd.Series, float], pd.Series]] = {
    "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b, ">": lambda a, b: a > b}
CLAUSE = re.compile(r"^\s*(\w+)\s*(<=|>=|==|!=|<|>)\s*(\S+)\s*$")


@dataclass(frozen=True)
class Condition:
    column: str
    operator: str
    value: float

    def holds(self, frame: pd.DataFrame) -> pd.Series:
        return OPERATORS[self.operator](frame[self.column], self.value)


def parse_where(text: str) -> list[Condition]:
    """'size_bytes >= 64KiB and compute_s < 10ms': clauses COLUMN OP VALUE joined by 'and' (ValueError if not)."""
    from progsim.platform.quantity import parse_quantity

    conditions = []
    for clause in re.split(r"\s+and\s+", text.strip()) if text.strip() else []:
        match = CLAUSE.match(clause)
        if not match or match.group(1) not in WHERE_COLUMNS:
            raise ValueError(f"{clause.strip()!r} is not COLUMN OP VALUE with COLUMN one of "
                             f"{', '.join(WHERE_COLUMNS)} and OP one of {', '.join(OPERATORS)}")
        column, operator, value = match.groups()
        conditions.append(Condition(column, operator, parse_quantity(value, WHERE_COLUMNS[column])))
    return conditions


@dataclass(frozen=True)
class Expectation:
    """What the literature observed: at least `share` of the balanced cells `where` it holds are in `klass`."""

    klass: str
    where: str
    conditions: tuple[Condition, ...]
    share: float

    def __str__(self) -> str:
        return f"{self.klass} where {self.where}" if self.where else f"{self.klass} everywhere"


@dataclass
class ExpectationCheck:
    name: str
    expectation: Expectation
    region: pd.DataFrame  # the cells where the expectation applies, with status, balanced and class
    tolerance: Tolerance

    @property
    def held(self) -> pd.DataFrame:
        return self.region[self.region["balanced"]]

    @property
    def share(self) -> float:
        held = self.held
        return float((held["class"] == self.expectation.klass).mean()) if len(held) else math.nan

    @property
    def passed(self) -> bool:
        return len(self.held) > 0 and self.share >= self.expectation.share

    def misses(self) -> pd.DataFrame:
        held = self.held
        return held[held["class"] != self.expectation.klass]


def check_expectation(name: str, table: pd.DataFrame, expectation: Expectation, tolerance: Tolerance) \
        -> ExpectationCheck:
    """`table` is a simulated comparison frame (r_sim, references, status, balanced)."""
    import pandas as pd

    inside = pd.Series(True, index=table.index)
    for condition in expectation.conditions:
        inside &= condition.holds(table)
    region = table[inside].copy()
    region["class"] = classes(region["r_sim"])
    return ExpectationCheck(name, expectation, region, tolerance)


# ---------------------------------------------------------------- case files


@dataclass(frozen=True)
class Simulation:
    platform: Path
    progress: str
    sides: list[str]
    sizes: list[int]
    times: list[float]
    tests: int
    ranks_per_node: Optional[int]
    settings: list[str]

    @property
    def label(self) -> str:
        return f"{self.platform.stem}/{self.progress}"


@dataclass(frozen=True)
class Case:
    path: Path
    name: str
    source: str
    simulation: Simulation
    expectations: list[Expectation]
    references: list[Path]  # independent runs of the same measurement (none: compare with the literature only)
    reference_case: Optional[str]  # the reference table's case to compare with (needed when it holds several)
    tolerance: Tolerance  # the case file's, over the defaults


CASE_KEYS = {"name", "source", "simulate", "expect", "reference", "reference_case", "tolerance", "description"}
SIMULATE_KEYS = {"platform", "progress", "side", "sizes", "compute", "tests", "ranks_per_node", "set"}
TOLERANCE_KEYS = {"agreement", "median_dr", "balance"}


def _fraction(source: Any, data: dict[str, Any], key: str, path: str, low: float, high: float) -> float:
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise source.error(f"{path}.{key}", f"expected a number from {low:g} to {high:g}, got {value!r}")
    return float(value)


def _simulation(source: Any, data: Any, base: Path) -> Simulation:
    from progsim.engine import progress_mechanisms
    from progsim.overlap import SIDES

    section = mapping(source, data, "simulate", SIMULATE_KEYS, {"platform", "progress", "sizes", "compute"})
    platform = base / str(section["platform"])
    if not platform.is_file():
        raise source.error("simulate.platform", f"no such platform file: {platform}")
    if section["progress"] not in progress_mechanisms():
        raise source.error("simulate.progress", f"expected one of {', '.join(progress_mechanisms())}, got "
                                                f"{section['progress']!r}")
    side = section.get("side", "receiver")
    sides = side if isinstance(side, list) else [side]
    for i, one in enumerate(sides):
        if one not in SIDES:
            where = f"simulate.side[{i}]" if isinstance(side, list) else "simulate.side"
            raise source.error(where, f"expected one of {', '.join(SIDES)} (or a list of them), got {one!r}")
    if not sides:
        raise source.error("simulate.side", "expected a side or a non-empty list of them")
    sizes = quantities(source, section["sizes"], "simulate.sizes", "B")
    if any(size != int(size) for size in sizes):
        raise source.error("simulate.sizes", "expected whole numbers of bytes")
    for key, least in (("tests", 0), ("ranks_per_node", 1)):
        value = section.get(key, least)
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise source.error(f"simulate.{key}", f"expected an integer >= {least}, got {value!r}")
    settings = section.get("set", []) or []
    if not isinstance(settings, list) or any(not isinstance(s, str) or ":" not in s for s in settings):
        raise source.error("simulate.set", f"expected a list of NAME:VALUE, got {settings!r}")
    return Simulation(platform, str(section["progress"]), [str(one) for one in sides], [int(s) for s in sizes],
                      quantities(source, section["compute"], "simulate.compute", "s"), section.get("tests", 0),
                      section.get("ranks_per_node"), list(settings))


def _expectations(source: Any, data: Any) -> list[Expectation]:
    items = data if isinstance(data, list) else [data]
    expectations = []
    for i, item in enumerate(items):
        path = f"expect[{i}]" if isinstance(data, list) else "expect"
        section = mapping(source, item, path, {"class", "where", "share"}, {"class"})
        if section["class"] not in cells.CLASSES:
            raise source.error(f"{path}.class", f"expected one of {', '.join(cells.CLASSES)}, got "
                                                f"{section['class']!r}")
        where = str(section.get("where", "") or "")
        try:
            conditions = parse_where(where)
        except ValueError as error:
            raise source.error(f"{path}.where", str(error)) from None
        share = _fraction(source, section, "share", path, 0.0, 1.0) if "share" in section else Tolerance.agreement
        expectations.append(Expectation(section["class"], where, tuple(conditions), share))
    return expectations


def load_case(path: Path) -> Case:
    from progsim.platform.yamlsource import load_located

    source = load_located(path)
    data = mapping(source, source.data, "(top)", CASE_KEYS, {"name", "source", "simulate"})
    if "expect" not in data and "reference" not in data:
        raise source.error("(top)", "expected 'expect' (what the literature observed), 'reference' (a table to "
                                    "compare with), or both")
    references = []
    if "reference" in data:  # a table, or a list of independent runs of the same measurement
        given = data["reference"] if isinstance(data["reference"], list) else [data["reference"]]
        for k, name in enumerate(given):
            where = f"reference[{k}]" if isinstance(data["reference"], list) else "reference"
            if not isinstance(name, str) or not name:
                raise source.error(where, f"expected the path of a table, got {name!r}")
            if not (path.parent / name).is_file():
                raise source.error(where, f"no such table: {path.parent / name}")
            references.append(path.parent / name)
        if not references:
            raise source.error("reference", "expected a table, or a list of runs of the same measurement")
    tolerance_data = mapping(source, data.get("tolerance", {}) or {}, "tolerance", TOLERANCE_KEYS, set())
    limits = {"agreement": (0.0, 1.0), "median_dr": (0.0, math.inf), "balance": (1.0, math.inf)}
    tolerance = replace(Tolerance(), **{key: _fraction(source, tolerance_data, key, "tolerance", *limits[key])
                                        for key in tolerance_data})
    return Case(path, str(data["name"]), str(data["source"]), _simulation(source, data["simulate"], path.parent),
                _expectations(source, data["expect"]) if "expect" in data else [], references,
                str(data["reference_case"]) if "reference_case" in data else None, tolerance)


def case_files(argument: str) -> list[Path]:
    """A case file, or every case.yaml under a folder."""
    path = Path(argument)
    if path.is_dir():
        found = sorted(path.rglob("case.yaml"))
        if not found:
            raise InputError(f"{path}: no case.yaml in this folder or below")
        return found
    if not path.is_file():
        raise InputError(f"{path}: no such case file or folder")
    return [path]


def simulate(case: Case, jobs: int, report: Callable[[str], None]) -> Table:
    """Runs the case's grid through the sweep runner, as `progsim overlap` does; the table in the cells format."""
    import pandas as pd

    from progsim.cli import check_settings
    from progsim.sweep import overlap_sweep
    from progsim.pools import LocalPool
    from progsim.sweep_run import run_sweep

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


@dataclass
class Outcome:
    """What one comparison or one case found: its checks, and the cells to draw (with the simulated panel's
    cells that miss an expectation)."""

    title: str
    note: str  # where it comes from: the tables, or the case's source
    comparison: Optional[Comparison]
    checks: list[ExpectationCheck]
    drawn: pd.DataFrame

    @property
    def passed(self) -> bool:
        return (self.comparison is None or self.comparison.passed) and all(c.passed for c in self.checks)


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


# ---------------------------------------------------------------- summary and report

SUMMARY = ["validation", "cells", "balanced", "reproducible", "agreement", "median |dr|", "required", "verdict"]


def _figure(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.2f}"


def summary_rows(outcomes: list[Outcome]) -> list[list[str]]:
    rows = []
    for outcome in outcomes:
        if outcome.comparison is not None:
            c = outcome.comparison
            rows.append([outcome.title, str(len(c.cells)), str(len(c.balanced)), str(len(c.held)), _figure(c.agreement),
                         _figure(c.median_dr), f"agreement >= {c.tolerance.agreement:.2f}, "
                                               f"|dr| <= {c.tolerance.median_dr:.2f}",
                         "PASS" if c.passed else "FAIL"])
        for check in outcome.checks:
            rows.append([f"{outcome.title}: {check.expectation}", str(len(check.region)), str(len(check.held)),
                         "-", _figure(check.share), "-", f"share >= {check.expectation.share:.2f}",
                         "PASS" if check.passed else "FAIL"])
    return rows


def plain_table(rows: list[list[str]]) -> str:
    widths = [max(len(SUMMARY[i]), *(len(row[i]) for row in rows)) for i in range(len(SUMMARY))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(SUMMARY, widths))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in rows]
    return "\n".join(lines)


def markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    def line(cells: list[str]) -> str:
        return f"| {' | '.join(cell.replace('|', chr(92) + '|') for cell in cells)} |"  # an escaped | stays in its cell

    return [line(header), f"|{'---|' * len(header)}", *(line(row) for row in rows)]


def _ratio_text(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.3f}"


def outcome_section(outcome: Outcome) -> list[str]:
    lines = [f"## {outcome.title}: {'PASS' if outcome.passed else 'FAIL'}", "", outcome.note, ""]
    lines += markdown_table(SUMMARY, summary_rows([outcome])) + [""]
    if outcome.comparison is not None:
        held = outcome.comparison.held
        apart = held[classes(held["r_sim"]) != classes(held["r_ref"])]
        if len(apart):
            lines += ["Balanced cells in different classes:", ""]
            lines += markdown_table(["cell", "r simulated", "r reference"],
                                    [[describe_cell(c), _ratio_text(c["r_sim"]), _ratio_text(c["r_ref"])]
                                     for _, c in apart.iterrows()]) + [""]
        unstable = outcome.comparison.unstable
        if len(unstable):
            lines += ["Balanced cells not held to the tolerance: the reference runs put them in different classes "
                      "(not reproducible on the machine that measured them):", ""]
            lines += markdown_table(["cell", "r simulated", "r of each run"],
                                    [[describe_cell(c), _ratio_text(c["r_sim"]), c["r_runs"]]
                                     for _, c in unstable.iterrows()]) + [""]
    for check in outcome.checks:
        misses = check.misses()
        if len(misses):
            lines += [f"Balanced cells that are not {check.expectation.klass} ({check.expectation}):", ""]
            lines += markdown_table(["cell", "r simulated", "class"],
                                    [[describe_cell(c), _ratio_text(c["r_sim"]), c["class"]]
                                     for _, c in misses.iterrows()]) + [""]
    skipped = outcome.drawn[outcome.drawn["status"] != "compared"]
    lines += [f"Cells not compared: {len(skipped)}.", ""]
    lines += [f"- {describe_cell(c)}: {c['status']}" for _, c in skipped.iterrows()]
    return lines + [""] if len(skipped) else lines


def write_report(outcomes: list[Outcome], path: Path, figures: list[Path]) -> None:
    lines = ["# Overlap validation", "",
             "Overhead ratio r (Reynier 2022, eq. 4.1) of simulated cells against reference ones. Classes: "
             f"overlapped r < {cells.OVERLAPPED_BELOW}, serialized up to {cells.SLOWED_ABOVE}, slowed above. Only "
             "balanced cells (communication and computation references within a factor F) are held to the "
             "tolerance: the unbalanced corners are dominated by measurement variation (Reynier 2022, thesis "
             "line 1336). Where a reference was measured in several independent runs, it is their median, and only "
             "the reproducible cells (in the same class in every run) are held: their share of the balanced cells "
             "is the best agreement any model could reach.", ""]
    lines += markdown_table(SUMMARY, summary_rows(outcomes)) + [""]
    lines += [f"Figure: {', '.join(str(f) for f in figures)}", ""] if figures else []
    for outcome in outcomes:
        lines += outcome_section(outcome)
    path.write_text("\n".join(lines))


# ---------------------------------------------------------------- figure


def _positions(frame: pd.DataFrame, mask: pd.Series, sizes: list[int], times: list[float]) -> set[tuple[int, int]]:
    return {(sizes.index(int(c["size_bytes"])), times.index(float(c["compute_s"]))) for _, c in frame[mask].iterrows()}


def _grid(frame: pd.DataFrame, values: pd.Series, sizes: list[int], times: list[float]) -> list[list[float]]:
    from progsim.plot import empty_grid

    grid = empty_grid(sizes, times)
    for (_, cell), value in zip(frame.iterrows(), values):
        grid[sizes.index(int(cell["size_bytes"]))][times.index(float(cell["compute_s"]))] = float(value)
    return grid


def figure_rows(outcome: Outcome) -> list[list[Any]]:
    """The panels of an outcome: per (side, tests), simulated, and reference and difference when there is one."""
    import pandas as pd

    from progsim.plot import Panel

    frame = outcome.drawn
    misses = {key for check in outcome.checks for key in check.misses()[KEY].itertuples(index=False)}
    missed = pd.Series([key in misses for key in frame[KEY].itertuples(index=False)], index=frame.index)
    rows = []
    for (side, tests), part in frame.groupby(["side", "tests"], sort=False):
        sizes = sorted(set(int(s) for s in part["size_bytes"]))
        times = sorted(set(float(t) for t in part["compute_s"]))
        where = f"{side} computes" + (f", {tests} tests" if tests else "")
        held = part["balanced"] & part["stable"] if "stable" in part.columns else part["balanced"]
        outlined = _positions(part, held, sizes, times)
        panels = [Panel(f"{outcome.title}\nsimulated, {where}", sizes, times, _grid(part, part["r_sim"], sizes, times),
                        outlined, _positions(part, missed[part.index], sizes, times), "-")]
        if outcome.comparison is not None:
            panels.append(Panel(f"reference, {where}", sizes, times, _grid(part, part["r_ref"], sizes, times),
                                outlined, empty="-"))
            panels.append(Panel("simulated - reference", sizes, times,
                                _grid(part, part["r_sim"] - part["r_ref"], sizes, times), outlined, empty="-"))
        rows.append(panels)
    return rows


def draw_figure(outcomes: list[Outcome], outputs: list[Path]) -> None:
    """Per outcome and side: simulated, reference and their difference side by side; balanced cells framed,
    cells that miss an expectation hatched."""
    from progsim.plot import draw_panel, overhead_colors, pyplot, save

    plt = pyplot()
    rows = [panels for outcome in outcomes for panels in figure_rows(outcome)]
    columns = max(len(panels) for panels in rows)
    height = sum(0.5 * len(panels[0].sizes) + 2.4 for panels in rows)
    figure, axes = plt.subplots(len(rows), columns, figsize=(5.4 * columns, height), squeeze=False,
                                layout="constrained")
    overhead = overhead_colors()
    for axis_row, panels in zip(axes, rows):
        for index, (axis, panel) in enumerate(zip(axis_row, panels)):
            difference = index == 2
            image = draw_panel(axis, panel, "RdBu_r" if difference else overhead,
                               -DIFFERENCE_SPAN if difference else 0.0,
                               DIFFERENCE_SPAN if difference else 2.0, size_labels=index == 0)
            figure.colorbar(image, ax=axis, label="r simulated - r reference" if difference else "overhead ratio")
        for axis in axis_row[len(panels):]:
            axis.set_visible(False)
    hatching = any(outcome.checks for outcome in outcomes)
    figure.suptitle("Overlap validation\nframed: the cells held to the tolerance (balanced; reproducible where the "
                    "reference has several runs)"
                    + ("\nhatched: cells that miss the expected class" if hatching else ""))
    save(figure, outputs)


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
