"""The agent's tools, deliberately few: bash, read_file, write_file, edit_file, evaluate.

`TOOL_SPECS` are the definitions sent to the model. The file tools here are pure file-system
operations confined to the workspace; `bash` is in shell.py; `evaluate` belongs to the runner
(it writes eval events and keeps the session's evaluation history), see evaluation.py.
Every tool returns a `ToolOutcome`; a mistake by the model (a bad path, a missing string) is an
outcome with is_error, never an exception.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

TOOL_SPECS: list[dict] = [
    {
        "name": "bash",
        "description": (
            "Run a shell command with bash in the workspace directory (the current directory). "
            "stdin is closed; stdout and stderr are returned together, and long output keeps its "
            "head and tail. The command and everything it started are killed at the time limit."),
        "input_schema": {
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "the command line"},
                "timeout_s": {"type": "number", "description": "time limit in seconds (default 300)"},
            },
            "required": ["command"],
        },
    },
    {
        "name": "read_file",
        "description": "Read a text file in the workspace. Paths are relative to the workspace.",
        "input_schema": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "offset": {"type": "integer", "description": "first line to return (1-based)"},
                "limit": {"type": "integer", "description": "how many lines to return"},
            },
            "required": ["path"],
        },
    },
    {
        "name": "write_file",
        "description": "Create or overwrite a file in the workspace with the given content.",
        "input_schema": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    },
    {
        "name": "edit_file",
        "description": (
            "Replace an exact string in a workspace file. old_string must occur exactly once "
            "(include surrounding lines to make it unique) unless replace_all is true."),
        "input_schema": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "old_string": {"type": "string"},
                "new_string": {"type": "string"},
                "replace_all": {"type": "boolean", "description": "replace every occurrence"},
            },
            "required": ["path", "old_string", "new_string"],
        },
    },
    {
        "name": "evaluate",
        "description": (
            "Evaluate the candidate kernel with the task's evaluator: build, constraint checks, "
            "correctness on every scenario, timing against the seed. Returns a table of the "
            "scenarios (worst ratio first) and the goal verdict."),
        "input_schema": {
            "type": "object",
            "properties": {
                "quick": {"type": "boolean", "description": "only the task's quick subset of scenarios"},
                "only": {"type": "string", "description": "only scenarios whose name matches this regex"},
                "file": {"type": "string",
                         "description": "a workspace file to evaluate instead of the candidate"},
            },
        },
    },
]

TOOL_NAMES = tuple(t["name"] for t in TOOL_SPECS)


@dataclass
class ToolOutcome:
    output: str
    is_error: bool = False
    truncated: bool = False
    interrupted: bool = False
    extra: dict | None = None  # fields added to the tool_result event


class ToolInputError(Exception):
    """The model called a tool wrongly; the message goes back to it."""


def workspace_path(workspace: Path, path: object) -> Path:
    """`path` resolved inside the workspace; symlinks and `..` may not lead out of it."""
    if not isinstance(path, str) or not path.strip():
        raise ToolInputError("path: expected a non-empty string")
    root = workspace.resolve()
    target = (root / path).resolve() if not os.path.isabs(path) else Path(path).resolve()
    if target != root and root not in target.parents:
        raise ToolInputError(f"{path}: outside the workspace ({root}); the file tools work inside it only")
    return target


def _rel(workspace: Path, p: Path) -> str:
    try:
        return str(p.relative_to(workspace.resolve()))
    except ValueError:
        return str(p)


def _string(inp: dict, key: str, *, required: bool = True) -> str | None:
    value = inp.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise ToolInputError(f"{key}: expected a string")
    return value


def read_file(workspace: Path, inp: dict, cap_chars: int) -> ToolOutcome:
    p = workspace_path(workspace, inp.get("path"))
    if not p.exists():
        raise ToolInputError(f"{_rel(workspace, p)}: no such file")
    if p.is_dir():
        names = sorted(e.name + ("/" if e.is_dir() else "") for e in p.iterdir())
        return ToolOutcome(f"{_rel(workspace, p)} is a directory: " + " ".join(names))
    data = p.read_bytes()
    if b"\0" in data[:8192]:
        raise ToolInputError(f"{_rel(workspace, p)}: a binary file ({len(data)} bytes); use bash to inspect it")
    text = data.decode("utf-8", "replace")
    offset, limit = inp.get("offset"), inp.get("limit")
    if offset is not None or limit is not None:
        lines = text.splitlines(keepends=True)
        try:
            first = max(1, int(offset or 1))
            count = int(limit) if limit is not None else len(lines)
        except (TypeError, ValueError):
            raise ToolInputError("offset and limit: expected integers") from None
        chunk = lines[first - 1:first - 1 + max(0, count)]
        header = f"[lines {first}-{first + len(chunk) - 1} of {len(lines)}]\n"
        text = header + "".join(chunk)
    if len(text) > cap_chars:
        total = text.count("\n") + 1
        return ToolOutcome(text[:cap_chars] + f"\n[... cut at {cap_chars} characters; the file has "
                           f"{total} lines: read the rest with offset and limit]", truncated=True)
    return ToolOutcome(text if text else "[empty file]")


def write_file(workspace: Path, inp: dict) -> ToolOutcome:
    p = workspace_path(workspace, inp.get("path"))
    content = _string(inp, "content")
    if p.is_dir():
        raise ToolInputError(f"{_rel(workspace, p)}: is a directory")
    p.parent.mkdir(parents=True, exist_ok=True)
    existed = p.exists()
    p.write_text(content)
    lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
    return ToolOutcome(f"{'overwrote' if existed else 'created'} {_rel(workspace, p)} "
                       f"({len(content.encode())} bytes, {lines} lines)")


def edit_file(workspace: Path, inp: dict) -> ToolOutcome:
    p = workspace_path(workspace, inp.get("path"))
    old = _string(inp, "old_string")
    new = _string(inp, "new_string")
    if not p.is_file():
        raise ToolInputError(f"{_rel(workspace, p)}: no such file")
    if old == "":
        raise ToolInputError("old_string: must not be empty (use write_file to create a file)")
    if old == new:
        raise ToolInputError("old_string and new_string are the same: nothing to change")
    text = p.read_text(errors="replace")
    count = text.count(old)
    name = _rel(workspace, p)
    if count == 0:
        hint = ""
        if " ".join(old.split()) and " ".join(old.split()) in " ".join(text.split()):
            hint = " (it occurs with different whitespace or line breaks: copy the text exactly)"
        raise ToolInputError(f"old_string not found in {name}{hint}")
    if count > 1 and not inp.get("replace_all"):
        lines, start = [], 0
        for _ in range(count):
            i = text.index(old, start)
            lines.append(text.count("\n", 0, i) + 1)
            start = i + 1
        shown = ", ".join(map(str, lines[:10])) + (", ..." if count > 10 else "")
        raise ToolInputError(f"old_string occurs {count} times in {name} (lines {shown}); include more "
                             "surrounding text to make it unique, or set replace_all")
    first_line = text.count("\n", 0, text.index(old)) + 1
    p.write_text(text.replace(old, new) if inp.get("replace_all") else text.replace(old, new, 1))
    what = f"{count} occurrences" if count > 1 else "1 occurrence"
    return ToolOutcome(f"edited {name}: replaced {what} (first at line {first_line})")
