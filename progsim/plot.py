"""Overlap heatmaps as Reynier's thesis draws them: overhead ratio per message size and computation time, green at
0 (overlapped), yellow at 1 (serialized), red above (slower than serialized), one panel per mechanism."""

from __future__ import annotations

import csv
import math
from pathlib import Path

from progsim.errors import InputError

RED_AT = 2.0  # ratios at and above this are full red


def read_cells(path: Path) -> list[dict[str, str]]:
    try:
        with path.open(newline="") as handle:
            rows = list(csv.DictReader(handle))
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror})") from None
    needed = {"mechanism", "side", "size_bytes", "compute_s", "overhead_ratio"}
    if not rows or not needed <= set(rows[0]):
        raise InputError(f"{path}: expected the CSV of 'progsim overlap --csv' (columns {', '.join(sorted(needed))})")
    return rows


def _size_label(size: int) -> str:
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


def _time_label(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:g} {unit}"
    return f"{seconds * 1e9:g} ns"


def draw(rows: list[dict[str, str]], outputs: list[Path], title: str) -> None:
    """One heatmap panel per (mechanism, side); each output's suffix (.png, .svg) picks its format."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import LinearSegmentedColormap

    colors = LinearSegmentedColormap.from_list("overhead", [(0.0, "#1a9850"), (0.5, "#ffd700"), (1.0, "#d73027")])
    panels = sorted({(r["mechanism"], r["side"]) for r in rows}, key=lambda p: [r["mechanism"] for r in rows].index(p[0]))
    sizes = sorted({int(r["size_bytes"]) for r in rows})
    times = sorted({float(r["compute_s"]) for r in rows})
    figure, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels) + 1.2, 0.55 * len(sizes) + 2.2),
                                squeeze=False)
    image = None
    for index, (axis, (mechanism, side)) in enumerate(zip(axes[0], panels)):
        grid = [[math.nan] * len(times) for _ in sizes]
        for r in rows:
            if (r["mechanism"], r["side"]) == (mechanism, side) and r["overhead_ratio"]:
                grid[sizes.index(int(r["size_bytes"]))][times.index(float(r["compute_s"]))] = float(r["overhead_ratio"])
        image = axis.imshow(grid, cmap=colors, vmin=0.0, vmax=RED_AT, origin="lower", aspect="auto")
        for i, line in enumerate(grid):
            for j, value in enumerate(line):
                axis.text(j, i, "failed" if math.isnan(value) else f"{value:.2f}", ha="center", va="center",
                          fontsize=8)
        axis.set_xticks(range(len(times)), [_time_label(t) for t in times], rotation=45, ha="right")
        axis.set_yticks(range(len(sizes)), [_size_label(s) for s in sizes] if index == 0 else [])
        axis.set_xlabel("computation time")
        if index == 0:
            axis.set_ylabel("message size")
        axis.set_title(f"{mechanism}, {side} computes")
    assert image is not None
    figure.colorbar(image, ax=list(axes[0]), label="overhead ratio (0 overlapped, 1 serialized)")
    figure.suptitle(title)
    for output in outputs:
        figure.savefig(output, dpi=120, bbox_inches="tight")
    plt.close(figure)
