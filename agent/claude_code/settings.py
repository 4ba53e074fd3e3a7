"""KernelSeek's hooks in a Claude Code project's `.claude/settings.local.json`: in and out, exactly.

Attach mode adds hook entries (each runs `python -m agent.claude_code.hook --socket PATH hook`) to
the lists the user may already have, and takes them out again on exit: the file comes back byte
for byte as it was, or, when the user edited it meanwhile, as they left it minus KernelSeek's
entries. Entries left by an attach that was killed (their socket is gone) are taken out by the
next one; until then they do nothing (the hook exits 0 when nobody answers).
"""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

HOOK_MARK = "agent.claude_code.hook --socket"  # what every KernelSeek hook command holds


class SettingsError(Exception):
    exit_code = 2


class SettingsHooks:
    """KernelSeek's hooks in a project's `.claude/settings.local.json`, put in and taken out."""

    def __init__(self, project: Path, command: str, *, timeouts: dict[str, int]) -> None:
        self.dir = Path(project) / ".claude"
        self.path = self.dir / "settings.local.json"
        self.command = command
        self.timeouts = timeouts
        self.original: bytes | None = None
        self.written: bytes | None = None
        self.made_dir = False

    def install(self) -> None:
        self.made_dir = not self.dir.exists()
        self.original = self.path.read_bytes() if self.path.exists() else None
        data = self._load(self.original)
        data = remove_stale_hooks(data)  # left by an attach that was killed
        hooks = data.setdefault("hooks", {})
        if not isinstance(hooks, dict):
            raise SettingsError(f"{self.path}: `hooks` is not a mapping; fix it or move it aside")
        for event, timeout in self.timeouts.items():
            entry: dict = {"hooks": [{"type": "command", "command": self.command, "timeout": timeout}]}
            if event == "PostToolUse":
                entry = {"matcher": "*", **entry}
            hooks.setdefault(event, []).append(entry)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.written = (json.dumps(data, indent=2) + "\n").encode()
        _write_atomic(self.path, self.written)

    def remove(self) -> None:
        """The file as it was; if the user changed it meanwhile, theirs with only ours taken out."""
        if self.written is None:
            return
        current = self.path.read_bytes() if self.path.exists() else None
        if current == self.written:
            if self.original is None:
                self.path.unlink(missing_ok=True)
                if self.made_dir:
                    try:
                        self.dir.rmdir()
                    except OSError:
                        pass  # something else lives there now
            else:
                _write_atomic(self.path, self.original)
        elif current is not None:
            try:
                data = json.loads(current)
            except ValueError:
                return  # the user is mid-edit: leave their file alone
            _write_atomic(self.path, (json.dumps(without_hook(data, self.command), indent=2) + "\n").encode())
        self.written = None

    def _load(self, raw: bytes | None) -> dict:
        if not raw or not raw.strip():
            return {}
        try:
            data = json.loads(raw)
        except ValueError as exc:
            raise SettingsError(f"{self.path}: not valid JSON ({exc}); fix it before attaching") from None
        if not isinstance(data, dict):
            raise SettingsError(f"{self.path}: expected a JSON object")
        return data


def without_hook(data: dict, command: str | None) -> dict:
    """`data` without the hook entries running `command` (any KernelSeek hook when None), and
    without the lists and the `hooks` mapping that leaves empty."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return data
    for event in list(hooks):
        entries = hooks[event]
        if not isinstance(entries, list):
            continue
        kept = []
        for entry in entries:
            cmds = [h.get("command", "") for h in (entry.get("hooks") or []) if isinstance(h, dict)] \
                if isinstance(entry, dict) else []
            ours = cmds and all((c == command) if command else (HOOK_MARK in c) for c in cmds)
            if not ours:
                kept.append(entry)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del data["hooks"]
    return data


def remove_stale_hooks(data: dict) -> dict:
    """Take out KernelSeek hooks whose socket is gone (an attach killed before it could clean up)."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return data
    stale = set()
    for entries in hooks.values():
        for entry in entries if isinstance(entries, list) else []:
            for h in (entry.get("hooks") or []) if isinstance(entry, dict) else []:
                cmd = h.get("command", "") if isinstance(h, dict) else ""
                m = re.search(r"--socket\s+'?([^'\s]+)", cmd) if HOOK_MARK in cmd else None
                if m and not os.path.exists(m.group(1)):
                    stale.add(cmd)
    for cmd in stale:
        data = without_hook(data, cmd)
    return data


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.ks-{os.getpid()}")
    tmp.write_bytes(data)
    if path.exists():
        shutil.copymode(path, tmp)
    os.replace(tmp, path)
