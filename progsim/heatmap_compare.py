"""Holding a simulated overlap heatmap against a reference one (measured on a real MPI library by `progsim measure`,
or taken from the literature), cell by cell: reading the tables, pairing their cases, and comparing each pair.

Cells (progsim/cells.py) are matched on (side, size_bytes, compute_s, tests). Only *balanced* cells are held to the
tolerance: those whose communication and computation references are within a factor F of each other. Reynier 2022
(thesis, line 1336) explains why: in the unbalanced corners, the variation of the longer part overrides the shorter
one and the overhead ratio swings to very high or very low values, whatever the library does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from progsim import cells
from progsim.errors import InputError

if TYPE_CHECKING:  # pandas is imported where it is used: every progsim command imports this module
    import pandas as pd

KEY = ["side", "size_bytes", "compute_s", "tests"]
REFERENCES = ["t_comm_ref", "t_comp_ref"]
NEEDED = ["case", *KEY, "overhead_ratio"]


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
