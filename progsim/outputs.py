"""Output files: their paths checked before anything runs (an output never replaces an input, and its folder exists),
then each written through a partial file, so that a failure leaves none."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from progsim.errors import InputError


def check_outputs(outputs: dict[str, str | None], inputs: Iterable[Path]) -> None:
    """`outputs` maps an option (--out) to the path it names, or None; raises InputError naming the option."""
    resolved = {path.resolve() for path in inputs}
    seen: dict[Path, str] = {}
    for option, name in outputs.items():
        if not name:
            continue
        path = Path(name)
        if path.is_dir():
            raise InputError(f"{path}: {option} names a folder, not a file")
        if not path.parent.is_dir():
            raise InputError(f"{path}: the folder of {option} does not exist")
        if path.resolve() in resolved:
            raise InputError(f"{path}: {option} names an input of this run; it would be overwritten")
        if path.resolve() in seen:
            raise InputError(f"{path}: {option} and {seen[path.resolve()]} name the same file")
        seen[path.resolve()] = option


def write_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """Writes through a partial file moved into place: a failure leaves no output."""
    partial = path.with_name(path.name + ".partial")
    try:
        write(partial)
        os.replace(partial, path)
    finally:
        if partial.exists():
            partial.unlink()
