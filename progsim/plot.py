"""Overlap heatmaps as Reynier's thesis draws them: overhead ratio per message size and computation time, green at
0 (overlapped), yellow at 1 (serialized), red above (slower than serialized), one panel per mechanism (or per case
of a cells table, progsim/cells.py). `draw_panel` draws one heatmap on a given axis, for figures of other layouts
(`progsim validate`)."""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Collection

from progsim.errors import InputError

RED_AT = 2.0  # ratios at and above this are full red
Position = tuple[int, int]  # (size index, time index) of a cell in a panel


def read_cells(path: Path) -> list[dict[str, str]]:
    """A heatmap table, CSV or Parquet (progsim/cells.py reads both)."""
    from progsim.cells import read_table

    rows = read_table(path)
    needed = {"side", "size_bytes", "compute_s", "overhead_ratio"}
    if not rows or not needed <= set(rows[0]) or not {"case", "mechanism"} & set(rows[0]):
        raise InputError(f"{path}: expected the CSV of 'progsim overlap --csv' (columns mechanism, "
                         f"{', '.join(sorted(needed))}) or a cells table (case instead of mechanism)")
    return rows


def panel_column(rows: list[dict[str, str]]) -> str:
    """What names a panel: a cells table's case, else the overlap table's mechanism."""
    return "case" if "case" in rows[0] else "mechanism"


def size_label(size: int) -> str:
    """'16 MiB'; three digits for sizes that are no whole number of units (a log-spaced axis)."""
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size // scale} {unit}" if size % scale == 0 else f"{size / scale:.3g} {unit}"
    return f"{size} B"


def time_label(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


@dataclass
class Panel:
    """One heatmap: `values[i][j]` at sizes[i], times[j]; NaN where there is no value (a failed cell)."""

    title: str
    sizes: list[int]
    times: list[float]
    values: list[list[float]]
    outlined: Collection[Position] = field(default_factory=frozenset)  # drawn with a frame (balanced cells)
    hatched: Collection[Position] = field(default_factory=frozenset)  # drawn hatched (cells that miss an expectation)
    empty: str = "failed"  # the label of a cell without a value


def empty_grid(sizes: list[int], times: list[float]) -> list[list[float]]:
    return [[math.nan] * len(times) for _ in sizes]


def overhead_colors() -> Any:
    from matplotlib.colors import LinearSegmentedColormap

    return LinearSegmentedColormap.from_list("overhead", [(0.0, "#1a9850"), (0.5, "#ffd700"), (1.0, "#d73027")])


def draw_panel(axis: Any, panel: Panel, colors: Any, vmin: float = 0.0, vmax: float = RED_AT,
               size_labels: bool = True) -> Any:
    """Draws the panel on `axis`, every cell labelled with its value; returns the image, for a colour bar."""
    from matplotlib.patches import Rectangle

    image = axis.imshow(panel.values, cmap=colors, vmin=vmin, vmax=vmax, origin="lower", aspect="auto")
    for i, line in enumerate(panel.values):
        for j, value in enumerate(line):
            axis.text(j, i, panel.empty if math.isnan(value) else f"{value:.2f}", ha="center", va="center",
                      fontsize=8, color="black" if math.isnan(value) else _ink(image, value))
    for i, j in panel.outlined:  # inset, so that two framed neighbours do not frame the cells around them
        axis.add_patch(Rectangle((j - 0.44, i - 0.44), 0.88, 0.88, fill=False, edgecolor="black", linewidth=1.4))
    for i, j in panel.hatched:
        axis.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="#444444", hatch="///",
                                 linewidth=0))
    axis.set_xticks(range(len(panel.times)), [time_label(t) for t in panel.times], rotation=45, ha="right")
    axis.set_yticks(range(len(panel.sizes)), [size_label(s) for s in panel.sizes] if size_labels else [])
    axis.set_xlabel("computation time")
    if size_labels:
        axis.set_ylabel("message size")
    title = "\n".join(textwrap.fill(line, 36) for line in panel.title.splitlines())  # long case names wrap
    axis.set_title(title, fontsize=10)
    return image


def _ink(image: Any, value: float) -> str:
    """Black on light colours, white on dark ones."""
    red, green, blue, _ = image.cmap(image.norm(value))
    return "black" if 0.299 * red + 0.587 * green + 0.114 * blue > 0.35 else "white"


def save(figure: Any, outputs: list[Path]) -> None:
    """Writes the figure to each output (its suffix, .png or .svg, picks the format) and closes it."""
    import matplotlib.pyplot as plt

    for output in outputs:
        figure.savefig(output, dpi=120, bbox_inches="tight")
    plt.close(figure)


def pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _panels(rows: list[dict[str, str]]) -> list[Panel]:
    """One panel per (mechanism or case, side), in the table's order, on the sizes and times of the whole table."""
    column = panel_column(rows)
    names = [r[column] for r in rows]
    keys = sorted({(r[column], r["side"]) for r in rows}, key=lambda key: names.index(key[0]))
    sizes = sorted({int(r["size_bytes"]) for r in rows})
    times = sorted({float(r["compute_s"]) for r in rows})
    panels = []
    for name, side in keys:
        values = empty_grid(sizes, times)
        for r in rows:
            if (r[column], r["side"]) == (name, side) and r["overhead_ratio"]:
                values[sizes.index(int(r["size_bytes"]))][times.index(float(r["compute_s"]))] = \
                    float(r["overhead_ratio"])
        panels.append(Panel(f"{name}, {side} computes", sizes, times, values))
    return panels


def draw(rows: list[dict[str, str]], outputs: list[Path], title: str) -> None:
    """One heatmap panel per (mechanism, side); each output's suffix (.png, .svg) picks its format."""
    plt = pyplot()
    panels = _panels(rows)
    figure, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels) + 1.2, 0.55 * len(panels[0].sizes) + 2.2),
                                squeeze=False)
    colors = overhead_colors()
    images = [draw_panel(axis, panel, colors, size_labels=index == 0)
              for index, (axis, panel) in enumerate(zip(axes[0], panels))]
    figure.colorbar(images[-1], ax=list(axes[0]), label="overhead ratio (0 overlapped, 1 serialized)")
    figure.suptitle(title)
    save(figure, outputs)
