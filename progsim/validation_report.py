"""What `progsim validate` shows of its outcomes: the summary table (printed, and in the Markdown report), the report's
sections listing the cells that disagree or were not compared, and the figure of simulated, reference and difference
heatmaps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from progsim import cells
from progsim.heatmap_compare import KEY, Comparison, classes, describe_cell
from progsim.heatmap_expectations import ExpectationCheck

if TYPE_CHECKING:  # pandas is imported where it is used: every progsim command imports this module
    import pandas as pd


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

DIFFERENCE_SPAN = 1.0  # the difference panel saturates at +-1: one whole class apart


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
