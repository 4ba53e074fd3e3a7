"""Reading a YAML file a person wrote (the agent's config, a question bank, a labels file, a planted
set, detector knobs): the document, or one `YamlFileError` whose text is the line to show —

    path:line: not valid YAML (problem)
    path: cannot read: why

(the line 1-based, left out where nothing says it). Each caller turns the error into its own
(`ConfigError`, `LabelsError`, `BankProblem`...), so a bad file reads the same everywhere.

The bottom layer: stdlib and pyyaml, which is imported when a file is first read. The evaluator
has a richer loader of its own (`evaluator.yamlspan`: the line of every key) and imports nothing
of ours.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any


class YamlFileError(Exception):
    """A YAML file that cannot be read or parsed; `str()` is the one line naming it."""

    def __init__(self, path: str | os.PathLike, reason: str, line: int = 0, *, missing: bool = False) -> None:
        self.path = str(path)
        self.reason = reason  # what is wrong, without the file: "not valid YAML (...)", "cannot read: ..."
        self.line = line  # 1-based; 0 when unknown or the file as a whole is the problem
        self.missing = missing  # there is no such file (callers that have their own words for it)
        super().__init__(f"{self.path}:{line}: {reason}" if line else f"{self.path}: {reason}")


def yaml_text(path: str | os.PathLike) -> str:
    """The file's text (UTF-8), or a YamlFileError saying why it cannot be read."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise YamlFileError(path, f"cannot read: {exc.strerror or exc}",
                            missing=isinstance(exc, FileNotFoundError)) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise YamlFileError(path, f"cannot read: not UTF-8 text (a bad byte at offset {exc.start})",
                            raw.count(b"\n", 0, exc.start) + 1) from None


def parse_yaml(text: str, name: str | os.PathLike, *, nodes: bool = False) -> Any:
    """One YAML document from `text` (read from the file `name`): plain data (safe_load), or with
    `nodes` the composed node tree (whose marks give each item's line). A syntax error, or a tag
    safe_load refuses, is a YamlFileError with the line."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml where built: the same documents, ~10x faster
    try:
        if nodes:
            return yaml.compose(text, Loader=loader)
        return yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        # libyaml counts a bad character's position in UTF-8 bytes, pyyaml in characters
        line, problem = _where_and_what(exc, text if loader is yaml.SafeLoader else text.encode("utf-8"))
        raise YamlFileError(name, f"not valid YAML ({problem})", line) from None


def read_yaml(path: str | os.PathLike, *, nodes: bool = False) -> Any:
    """`parse_yaml` of the file at `path`."""
    return parse_yaml(yaml_text(path), path, nodes=nodes)


def _where_and_what(exc: Exception, source: str | bytes) -> tuple[int, str]:
    """(1-based line or 0, the problem in a few words) of a pyyaml error on `source`."""
    import yaml

    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        what = exc.problem or exc.context or "unreadable"
        opened = exc.context_mark
        if exc.problem and exc.context and opened is not None and mark is not None and opened.line != mark.line:
            # an unclosed quote or bracket is found at the end of the file: say where it opened
            what += f"; {exc.context} at line {opened.line + 1}"
        return (mark.line + 1 if mark is not None else 0), what
    first = str(exc).strip().split("\n", 1)[0] or "unreadable"
    if isinstance(exc, yaml.reader.ReaderError) and isinstance(exc.position, int):
        newline = "\n" if isinstance(source, str) else b"\n"
        return source.count(newline, 0, exc.position) + 1, first  # a character YAML does not allow
    return 0, first
