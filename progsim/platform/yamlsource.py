"""YAML loading that remembers where every value came from, for error messages that name file:line."""

from __future__ import annotations

import re
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


MAX_NODES = 100_000  # values in one document, aliases expanded: far above any platform, far below a YAML bomb
MAX_DEPTH = 64


class _Walk:
    """Turns composed YAML nodes into Python values, recording lines, refusing cycles and runaway expansion."""

    def __init__(self, path: Path):
        self.path = path
        self.lines: dict[str, int] = {}
        self.nodes = 0
        self.open: set[int] = set()  # nodes being expanded: meeting one again is a recursive alias
        self.constructor = yaml.SafeLoader("")  # builds a scalar node's value as safe_load would, without reparsing

    def error(self, node: yaml.Node, message: str) -> InputError:
        return InputError(f"{self.path}:{node.start_mark.line + 1}: {message}")

    def value(self, node: yaml.Node, path: str, depth: int = 0) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise self.error(node, f"more than {MAX_NODES} values once aliases are expanded (a YAML bomb?)")
        if depth > MAX_DEPTH or id(node) in self.open:
            raise self.error(node, f"{path or '(top)'}: an alias refers to itself, or nesting deeper than "
                                   f"{MAX_DEPTH} levels")
        self.lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            self.open.add(id(node))
            result: dict[str, Any] = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    raise self.error(key_node, f"{path or '(top)'}: a key must be a plain word")
                key = str(self.scalar(key_node, path))
                child = f"{path}.{key}" if path else key
                if key in result:
                    raise self.error(key_node, f"duplicate key '{child}'")
                result[key] = self.value(value_node, child, depth + 1)
            self.open.discard(id(node))
            return result
        if isinstance(node, yaml.SequenceNode):
            self.open.add(id(node))
            items = [self.value(item, f"{path}[{i}]", depth + 1) for i, item in enumerate(node.value)]
            self.open.discard(id(node))
            return items
        return self.scalar(node, path)

    def scalar(self, node: yaml.Node, path: str) -> Any:
        """A plain value; a tag that cannot build it (!!float abc, !!python/..., a merge key, an integer of
        thousands of digits) is bad input, whatever the YAML library raises."""
        try:
            return self.constructor.construct_object(node, deep=True)
        except (yaml.YAMLError, ValueError, KeyError, AttributeError, TypeError, OverflowError) as error:
            problem = getattr(error, "problem", None) or str(error).splitlines()[0][:120]
            raise self.error(node, f"{path or '(top)'}: not a valid value: {problem}") from None


def read_text(path: Path, what: str = "file") -> str:
    """A text input as UTF-8; InputError naming the file (and the first bad byte) otherwise."""
    if not path.is_file():
        raise InputError(f"{path}: no such {what}")
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise InputError(f"{path}:{line}: not a UTF-8 text {what} (byte {error.start})") from None


def load_located(path: Path) -> Located:
    text = read_text(path)
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        raise InputError(f"{path}{line}: not valid YAML: {getattr(error, 'problem', error)}") from None
    except RecursionError:
        raise InputError(f"{path}: not valid YAML: nesting too deep") from None
    walk = _Walk(path)
    data = walk.value(node, "") if node is not None else None
    return Located(path, data, walk.lines)


# A path into a YAML document: words, dots and [index]es (nics[0].bandwidth, node.memory.bandwidth).
_STEP = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)")


def set_path(data: Any, path: str, value: Any) -> None:
    """Sets the value at `path` in a loaded platform YAML; its parents must exist, its last key may be new.
    ValueError saying which step is missing otherwise."""
    steps: list[str | int] = []
    for part in path.split("."):
        match = _STEP.fullmatch(part)
        if not match:
            raise ValueError(f"'{path}' is not a path into the platform YAML (e.g. nics[0].bandwidth)")
        steps.append(match.group(1))
        steps += [int(i) for i in re.findall(r"\[(\d+)\]", match.group(2))]
    node = data
    for depth, step in enumerate(steps):
        here = ".".join(str(s) for s in steps[:depth + 1])
        last = depth == len(steps) - 1
        if isinstance(step, int):
            if not isinstance(node, list) or step >= len(node):
                raise ValueError(f"the platform has no [{step}] at {here}")
        elif not isinstance(node, dict):
            raise ValueError(f"the platform has no mapping to hold '{step}' at {here}")
        elif step not in node and not last:
            raise ValueError(f"the platform has no '{step}' at {here}")
        if last:
            node[step] = value
        else:
            node = node[step]
