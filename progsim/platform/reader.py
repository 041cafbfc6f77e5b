"""Typed values read out of a located platform YAML, each error naming file:line and the YAML path."""

from __future__ import annotations

import math
from typing import AbstractSet, Any, Callable

from progsim.platform.model import LinkSpec
from progsim.platform.quantity import parse_quantity
from progsim.platform.yamlsource import Located


class Reader:
    """Reads typed values out of the located YAML, raising errors that name file:line and path."""

    def __init__(self, source: Located):
        self.source = source

    def section(self, data: Any, path: str, required: AbstractSet[str],
                optional: AbstractSet[str] = frozenset()) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise self.source.error(path or "(top)", f"expected a mapping with keys {sorted(required | optional)}")
        unknown = sorted(set(data) - required - optional)
        if unknown:
            child = f"{path}.{unknown[0]}" if path else unknown[0]
            raise self.source.error(child, f"unknown key '{unknown[0]}' (expected one of: "
                                           f"{', '.join(sorted(required | optional))})")
        missing = sorted(required - set(data))
        if missing:
            raise self.source.error(path or "(top)", f"missing key '{missing[0]}'")
        return data

    def number(self, data: dict[str, Any], key: str, path: str, check: Callable[[float], bool] = lambda v: v >= 0,
               expected: str = "a non-negative number", unit: str | None = None) -> float:
        where = f"{path}.{key}" if path else key
        try:
            value = parse_quantity(data[key], unit)
        except ValueError as error:
            raise self.source.error(where, str(error)) from None
        if not math.isfinite(value) or not check(value):
            raise self.source.error(where, f"expected {expected}, got {data[key]!r}")
        return value

    def positive(self, data: dict[str, Any], key: str, path: str, unit: str | None = None) -> float:
        return self.number(data, key, path, lambda v: v > 0, "a positive number", unit)

    def integer(self, data: dict[str, Any], key: str, path: str, minimum: int = 1) -> int:
        where = f"{path}.{key}" if path else key
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.source.error(where, f"expected an integer >= {minimum}, got {value!r}")
        return value

    def choice(self, data: dict[str, Any], key: str, path: str, choices: tuple[str, ...]) -> str:
        value = data[key]
        if value not in choices:
            raise self.source.error(f"{path}.{key}" if path else key,
                                    f"expected one of {', '.join(choices)}, got {value!r}")
        return value

    def link(self, data: Any, path: str) -> LinkSpec:
        section = self.section(data, path, {"bandwidth", "latency"})
        return LinkSpec(self.positive(section, "bandwidth", path, "Bps"),
                        self.number(section, "latency", path, unit="s"))

    def int_list(self, data: Any, path: str, length: int | None = None) -> list[int]:
        if not isinstance(data, list) or not data or any(isinstance(v, bool) or not isinstance(v, int) or v < 1
                                                          for v in data):
            raise self.source.error(path, f"expected a list of positive integers, got {data!r}")
        if length is not None and len(data) != length:
            raise self.source.error(path, f"expected {length} entries, got {len(data)}")
        return list(data)
