"""YAML loading that remembers where every value came from, for error messages that name file:line."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from progsim.errors import InputError


@dataclass
class Located:
    """A parsed YAML document and the line of every path in it ("node.cores_per_numa" -> 12)."""

    path: Path
    data: Any
    lines: dict[str, int]

    def where(self, key_path: str) -> str:
        line = self.lines.get(key_path)
        while line is None and "." in key_path:
            key_path = key_path.rsplit(".", 1)[0]
            line = self.lines.get(key_path)
        return f"{self.path}:{line}" if line else str(self.path)

    def error(self, key_path: str, message: str) -> InputError:
        return InputError(f"{self.where(key_path)}: {key_path}: {message}")


def _to_python(node: yaml.Node, path: str, lines: dict[str, int]) -> Any:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = str(yaml.safe_load(yaml.serialize(key_node)))
            child = f"{path}.{key}" if path else key
            if key in result:
                raise InputError(f"{lines.get(path, '?')}: duplicate key '{child}'")
            result[key] = _to_python(value_node, child, lines)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_to_python(item, f"{path}[{i}]", lines) for i, item in enumerate(node.value)]
    return yaml.safe_load(yaml.serialize(node))


def load_located(path: Path) -> Located:
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    text = path.read_text()
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        raise InputError(f"{path}{line}: not valid YAML: {getattr(error, 'problem', error)}") from None
    lines: dict[str, int] = {}
    data = _to_python(node, "", lines) if node is not None else None
    return Located(path, data, lines)
