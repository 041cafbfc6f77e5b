"""YAML written with a note after every value (`latency: 2.6e-05  # measured here: ...`), as platform files are:
a platform says where each of its numbers comes from."""

from __future__ import annotations

from typing import Any

import yaml


def _scalar(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}" if "e" in f"{value:.6g}" or "." in f"{value:.6g}" else f"{value:.1f}"
    text: str = yaml.safe_dump(value, default_flow_style=True, width=10 ** 6).strip()
    return text.removesuffix("\n...").strip()


def annotated_lines(data: Any, notes: dict[str, str], path: str = "", indent: int = 0) -> list[str]:
    """YAML lines of nested mappings and lists, each value followed by its note (`# measured here: ...`)."""
    pad = " " * indent
    lines: list[str] = []
    items = data.items() if isinstance(data, dict) else enumerate(data)
    for key, value in items:
        child = f"{path}[{key}]" if isinstance(key, int) else (f"{path}.{key}" if path else str(key))
        head = f"{pad}- " if isinstance(key, int) else f"{pad}{key}:"
        note = f"  # {notes[child]}" if child in notes else ""
        if isinstance(value, (dict, list)) and value:
            if isinstance(key, int):  # a list item that is a mapping: its first key on the dash's line
                inner = annotated_lines(value, notes, child, indent + 2)
                lines.append(f"{pad}- {inner[0].lstrip()}")
                lines.extend(inner[1:])
            else:
                lines.append(head + note)
                lines.extend(annotated_lines(value, notes, child, indent + 2))
        else:
            lines.append(f"{head} {_scalar(value)}{note}" if not isinstance(key, int) else f"{head}{_scalar(value)}")
    return lines


def leaves(data: Any, path: str = "") -> list[str]:
    """Every scalar's path ("node.memory.latency", "nics[0].bandwidth")."""
    if isinstance(data, dict):
        return [leaf for key, value in data.items() for leaf in leaves(value, f"{path}.{key}" if path else key)]
    if isinstance(data, list) and data and all(isinstance(v, (dict, list)) for v in data):
        return [leaf for i, value in enumerate(data) for leaf in leaves(value, f"{path}[{i}]")]
    return [path]
