"""Every session under a sessions root, digested and kept up to date (the fleet view's source).

`refresh()` reads what each session's log and inbox gained since the last call (a stat per
session when nothing changed; an open at least every `reopen_s`, which an NFS client needs to see
another node's appends) and returns the sessions that changed. `refresh_views()` asks the
launchers where the runners are (one scheduler query for all Slurm jobs) — slower, so callers do
it every few seconds. `rescan()` picks up sessions created since. Not thread-safe: one thread
owns it (the fleet screen's worker, or `kernelseek sessions` once).
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from console.sessions_view import SessionRow, session_row
from sessions.digest import DigestReader, RunnerView
from sessions.layout import SessionPaths, read_launch, session_dirs


def _views(entries: list[tuple[SessionPaths, object, dict | None]]) -> list[RunnerView | None]:
    from agent.launchers import LaunchError, describe_all, handle_for

    handles = []
    for paths, digest, launch in entries:
        try:
            handles.append(handle_for(paths, digest, launch))
        except LaunchError:
            handles.append(None)
    return describe_all(handles)


class FleetWatch:
    def __init__(self, root: str | os.PathLike, *, reopen_s: float = 0.5,
                 views: Callable[[list], list[RunnerView | None]] = _views) -> None:
        self.root = Path(root)
        self.reopen_s = reopen_s
        self.readers: dict[str, DigestReader] = {}
        self.launch: dict[str, dict | None] = {}
        self.views: dict[str, RunnerView | None] = {}
        self._views = views
        self._opened: dict[str, float] = {}

    def rescan(self) -> list[str]:
        """Start following sessions that appeared under the root; their names."""
        new = []
        for sp in session_dirs(self.root):
            if sp.name not in self.readers:
                self.readers[sp.name] = DigestReader(sp.root)
                self.launch[sp.name] = read_launch(sp)
                new.append(sp.name)
        return new

    def refresh(self, max_bytes: int | None = 8 << 20) -> list[str]:
        """Fold what is new in every session; the names of those that changed."""
        changed = []
        now = time.monotonic()
        for name, reader in self.readers.items():
            try:
                size = reader.path.stat().st_size
            except OSError:
                size = 0
            stale = now - self._opened.get(name, 0.0) >= self.reopen_s
            if size == reader.size and reader.offset >= size and not stale:
                continue
            self._opened[name] = now
            try:
                if reader.refresh(max_bytes):
                    changed.append(name)
            except OSError:
                continue
        return changed

    def refresh_views(self) -> list[str]:
        """Ask the launchers about every session's runner; the names whose view changed."""
        names = list(self.readers)
        entries = []
        for name in names:
            sp = SessionPaths(self.readers[name].dir)
            self.launch[name] = read_launch(sp)
            entries.append((sp, self.readers[name].digest, self.launch[name]))
        changed = []
        for name, view in zip(names, self._views(entries)):
            if view != self.views.get(name):
                self.views[name] = view
                changed.append(name)
        return changed

    def row(self, name: str) -> SessionRow:
        reader = self.readers[name]
        view = self.views.get(name)
        lock = view is None and SessionPaths(reader.dir).is_running()
        return session_row(name, str(reader.dir), reader.digest, undelivered=reader.undelivered(),
                           launch=self.launch.get(name), view=view, lock_held=lock)

    def rows(self) -> list[SessionRow]:
        return [self.row(n) for n in self.readers]
