"""Rows of strings by column name, as the measuring commands print and keep them: an aligned plain-text table on
standard output, and a CSV file written whole or not at all.
"""

from __future__ import annotations

import csv
import os
import tempfile
from pathlib import Path


def print_table(columns: list[str], rows: list[dict[str, str]]) -> None:
    widths = [max(len(c), *(len(row[c]) for row in rows)) for c in columns]
    print("  ".join(c.rjust(w) for c, w in zip(columns, widths)))
    for row in rows:
        print("  ".join(row[c].rjust(w) for c, w in zip(columns, widths)))


def write_csv(path: Path, columns: list[str], rows: list[dict[str, str]]) -> None:
    """Written beside its final name and renamed once complete: a failed run never leaves a partial table."""
    with tempfile.NamedTemporaryFile("w", newline="", dir=path.parent, prefix=f".{path.name}.",
                                     delete=False) as out:
        table = csv.DictWriter(out, fieldnames=columns)
        table.writeheader()
        table.writerows(rows)
    os.replace(out.name, path)
