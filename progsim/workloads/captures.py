"""Captured application traces (validation/real/): where they are, and plain copies for stock SMPI, which cannot
read gzip-compressed files (progsim-engine reads them as they are)."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

from progsim.engine_info import REPOSITORY

REAL_TRACES = REPOSITORY / "validation" / "real"


def captures(root: Path = REAL_TRACES) -> list[Path]:
    """Every capture folder (one holding trace_list.txt) under `root`, sorted by name."""
    return sorted(listing.parent for listing in root.glob("*/trace_list.txt"))


def listed_files(capture: Path) -> list[Path]:
    """The per-rank files a capture's list names (relative to the list's folder), rank 0 first."""
    lines = (capture / "trace_list.txt").read_text().splitlines()
    return [capture / line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def plain_copy(capture: Path, into: Path) -> Path:
    """Decompresses a capture's per-rank files into `into` as rank-<r>.txt and writes a list naming them by absolute
    path (smpirun opens list entries relative to its current folder); returns the list."""
    into.mkdir(parents=True, exist_ok=True)
    names = []
    for rank, source in enumerate(listed_files(capture)):
        target = into / f"rank-{rank}.txt"
        with (gzip.open(source, "rb") if source.suffix == ".gz" else open(source, "rb")) as reader, \
                open(target, "wb") as writer:
            shutil.copyfileobj(reader, writer)
        names.append(str(target.resolve()))
    listing = into / "trace_list.txt"
    listing.write_text("".join(f"{name}\n" for name in names))
    return listing


def provenance(capture: Path) -> dict[str, Any]:
    """What the capture's provenance.json says (package, version, inputs, command, counts)."""
    data: dict[str, Any] = json.loads((capture / "provenance.json").read_text())
    return data
