"""What the literature observed over a region of an overlap heatmap, as a class of overhead ratio where clauses
COLUMN OP VALUE hold (a case file's `expect`), and whether a simulated heatmap bears it out over its balanced cells.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from progsim.heatmap_compare import Tolerance, classes

if TYPE_CHECKING:  # pandas is imported where it is used: every progsim command imports this module
    import pandas as pd

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
