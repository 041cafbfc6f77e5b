"""Quantities with units, as the YAML files write them: '12.5GBps', '1us', '64KiB', '2.3Gf', or plain numbers."""

from __future__ import annotations

import re
from typing import Any

_UNITS = {"": 1.0, "k": 1e3, "m": 1e-3, "u": 1e-6, "µ": 1e-6, "n": 1e-9, "M": 1e6, "G": 1e9, "T": 1e12,
          "Ki": 1024.0, "Mi": 1024.0**2, "Gi": 1024.0**3, "Ti": 1024.0**4}
_QUANTITY = re.compile(r"^\s*([0-9.eE+-]+)\s*(Ki|Mi|Gi|Ti|k|M|G|T|m|u|µ|n|)\s*(B|Bps|B/s|s|f|flops|)\s*$")


# The unit words each kind of quantity accepts (a plain number is always accepted, in SI base units).
UNITS_OF = {"B": ("B",), "Bps": ("Bps", "B/s"), "s": ("s",), "f": ("f", "flops")}
_EXAMPLES = {"B": "64KiB", "Bps": "12.5GBps", "s": "1us", "f": "2.3Gf"}


def parse_quantity(value: Any, unit: str | None = None) -> float:
    """A plain number, or a number with an SI or binary prefix and a unit: '12.5GBps', '1us', '64KiB'. With `unit`
    (B, Bps, s or f), a unit word of another kind is refused: a bandwidth of '10us' is a mistake, not 1e-5 B/s."""
    if isinstance(value, bool):
        raise ValueError("a boolean is not a number")
    if isinstance(value, (int, float)):
        try:
            return float(value)
        except OverflowError:
            raise ValueError(f"{str(value)[:20]}... is too large a number") from None
    if isinstance(value, str):
        match = _QUANTITY.match(value)
        if match:
            word = match.group(3)
            if unit is not None and word and word not in UNITS_OF[unit]:
                raise ValueError(f"'{value}' is not in {unit} (e.g. {_EXAMPLES[unit]}, or a plain number)")
            if unit is not None and not word and match.group(2) in ("m", "u", "µ", "n") and unit != "s":
                raise ValueError(f"'{value}' has a sub-unit prefix without a unit: write it in {unit}")
            return float(match.group(1)) * _UNITS[match.group(2)]
    raise ValueError(f"'{value}' is not a number (plain, or with a unit such as 12.5GBps, 1us, 64KiB, 2.3Gf)")
