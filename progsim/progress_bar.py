"""Progress of long runs (sweeps, benchmarks, the gallery) on stderr."""

from __future__ import annotations

import sys
from typing import Any


class ProgressBar:
    """A bar on stderr when it is a terminal; otherwise a line every tenth of the way, so that logs show progress."""

    def __init__(self, total: int, label: str, unit: str = "row"):
        self.total, self.label, self.unit, self.count, self.said = total, label, unit, 0, 0
        self.bar: Any = None
        if sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=label, unit=unit, file=sys.stderr, dynamic_ncols=True)

    def __call__(self, rows: int) -> None:
        self.count += rows
        if self.bar is not None:
            self.bar.update(rows)
            return
        tenth = self.count * 10 // max(self.total, 1)
        if tenth > self.said:
            self.said = tenth
            print(f"{self.label}: {self.count}/{self.total} {self.unit}s", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
