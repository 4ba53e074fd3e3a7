"""A YAML loader that remembers where each key and item was written, for one-line error messages.

Mappings load as `SpanDict` and sequences as `SpanList`; both know their own line and the line of
each key or item. Floats written without a dot (`1e-6`) load as floats, as YAML 1.2 says.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml


class SpanDict(dict):
    """A dict loaded from YAML: `.line` is where it starts, `.lines[key]` where each key is."""

    line: int = 0

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.lines: dict[Any, int] = {}

    def line_of(self, key: Any) -> int:
        return self.lines.get(key, self.line)


class SpanList(list):
    """A list loaded from YAML: `.line` is where it starts, `.lines[i]` where item i is."""

    line: int = 0

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.lines: list[int] = []

    def line_of(self, index: int) -> int:
        return self.lines[index] if 0 <= index < len(self.lines) else self.line


class DuplicateKey(yaml.YAMLError):
    def __init__(self, key: Any, line: int) -> None:
        super().__init__(f"duplicate key {key!r}")
        self.key, self.line = key, line


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def _mapping(loader: _Loader, node: yaml.MappingNode) -> SpanDict:
    loader.flatten_mapping(node)
    out = SpanDict()
    out.line = node.start_mark.line + 1
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if key in out:
            raise DuplicateKey(key, line)
        out[key] = loader.construct_object(value_node, deep=True)
        out.lines[key] = line
    return out


def _sequence(loader: _Loader, node: yaml.SequenceNode) -> SpanList:
    out = SpanList(loader.construct_object(item, deep=True) for item in node.value)
    out.line = node.start_mark.line + 1
    out.lines = [item.start_mark.line + 1 for item in node.value]
    return out


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _sequence)


class YamlSyntaxError(Exception):
    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def load_yaml(path: Path) -> Any:
    """Load one YAML document with line information; raise YamlSyntaxError with the line."""
    text = path.read_text(encoding="utf-8")
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
    except DuplicateKey as exc:
        raise YamlSyntaxError(str(exc), exc.line) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 0
        raise YamlSyntaxError(f"{exc.problem or exc.context}", line) from None
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(str(exc), 0) from None
