"""docs/parameters.md lists every engine parameter with the engine's own default: defaults live in one place."""

from __future__ import annotations

import re

from conftest import REPOSITORY

from progsim.engine_info import engine_parameters


def documented() -> dict[str, tuple[str, str]]:
    """Flag -> (unit, default) from the table rows; a row may name several flags."""
    rows = {}
    for line in (REPOSITORY / "docs" / "parameters.md").read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`"):
            for flag in re.findall(r"`([a-z-]+)`", cells[0]):
                rows[flag] = (cells[1], cells[2])
    return rows


def same(a: str, b: str) -> bool:
    try:
        return float(a) == float(b)
    except ValueError:
        return a == b


def test_every_engine_parameter_is_documented_with_its_default() -> None:
    docs = documented()
    for parameter in engine_parameters():
        assert parameter.name in docs, f"docs/parameters.md does not list {parameter.name}"
        unit, default = docs[parameter.name]
        assert unit == parameter.unit, parameter.name
        assert same(default, parameter.default), f"{parameter.name}: documented {default}, engine {parameter.default}"


def test_the_documentation_lists_no_parameter_the_engine_lacks() -> None:
    assert set(documented()) <= {p.name for p in engine_parameters()}
