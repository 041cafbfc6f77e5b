"""Reading the project's YAML files of cases (`progsim validate`, `validate-interference`, `sweep`, `gallery`):
mappings with known keys, texts and lists of quantities; every error names the file, the line and the YAML path
(yamlsource)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


class YamlReader:
    """Typed values out of a located YAML file (yamlsource.Located), each error naming file:line and the YAML path
    ("" for the top). Readers of each kind of file add their own values."""

    def __init__(self, source: Any):
        self.source = source

    def error(self, path: str, message: str) -> Any:
        return self.source.error(path, message)

    def mapping(self, value: Any, path: str, allowed: set[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.error(path, f"expected a mapping with keys among {', '.join(sorted(allowed))}, "
                                   f"got {value!r}")
        for key in value:
            if key not in allowed:
                raise self.error(f"{path}.{key}" if path else key,
                                 f"unknown key '{key}' (expected one of: {', '.join(sorted(allowed))})")
        return value

    def choice(self, value: Any, path: str, choices: Sequence[str]) -> Any:
        if value not in choices:
            raise self.error(path, f"expected one of {', '.join(choices)}, got {value!r}")
        return value

    def text(self, value: Any, path: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.error(path, f"expected a non-empty text, got {value!r}")
        return value.strip()


def mapping(source: Any, data: Any, path: str, allowed: set[str], required: set[str]) -> dict[str, Any]:
    """`data` as a mapping whose keys are all `allowed` and include every `required` one."""
    if not isinstance(data, dict):
        raise source.error(path, f"expected a mapping with keys {', '.join(sorted(allowed))}")
    for key in data:
        if key not in allowed:
            raise source.error(f"{path}.{key}" if path != "(top)" else key,
                               f"unknown key '{key}' (expected one of: {', '.join(sorted(allowed))})")
    for key in sorted(required):
        if key not in data:
            raise source.error(path, f"missing key '{key}'")
    return data


def quantities(source: Any, data: Any, path: str, unit: str, zero_allowed: bool = False,
               single_allowed: bool = False) -> list[float]:
    """A non-empty list of quantities in `unit` ("64KiB", "8.8Gf", plain numbers), each positive (or non-negative
    with `zero_allowed`); with `single_allowed` one value stands for a list of it."""
    from progsim.platform.quantity import parse_quantity

    if single_allowed and not isinstance(data, list):
        data = [data]
    if not isinstance(data, list) or not data:
        raise source.error(path, f"expected a non-empty list, got {data!r}")
    values = []
    for i, item in enumerate(data):
        try:
            value = parse_quantity(item, unit) if isinstance(item, str) else float(item)
        except (TypeError, ValueError):
            raise source.error(f"{path}[{i}]", f"expected a quantity in {unit or 'plain numbers'}, got {item!r}") \
                from None
        if isinstance(item, bool) or not math.isfinite(value) or value < 0 or (value == 0 and not zero_allowed):
            kind = "non-negative" if zero_allowed else "positive"
            raise source.error(f"{path}[{i}]", f"expected a {kind} quantity, got {item!r}")
        values.append(value)
    return values
