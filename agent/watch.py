"""Watching the inbox while the runner is busy (a tool runs, the model streams).

Messages are delivered at turn boundaries by the runner's own thread; this watcher only has to
notice an `interrupt` line at once and pull the trigger (cancel the running tool, stream or
evaluation). It polls the inbox file's size every `poll_s` (a stat: cheap, and it works on
every file system) and reads the new lines with a tolerant reader.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Callable

from sessions.log import LogReader


class InboxWatcher:
    def __init__(self, inbox_path: str | os.PathLike, on_interrupt: Callable[[str], None], *,
                 poll_s: float = 0.1) -> None:
        self.path = Path(inbox_path)
        self.on_interrupt = on_interrupt
        self.poll_s = poll_s
        self._reader = LogReader(self.path)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> "InboxWatcher":
        self._thread = threading.Thread(target=self._run, name="inbox-watcher", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2.0)

    def _run(self) -> None:
        last_size = -1
        while not self._stop.is_set():
            try:
                size = self.path.stat().st_size
            except OSError:
                size = -1
            if size != last_size:
                last_size = size
                for line in self._reader.read().events:
                    if line.get("kind") == "interrupt" and line.get("id"):
                        try:
                            self.on_interrupt(str(line["id"]))
                        except Exception:  # noqa: BLE001 - the watcher must outlive a bad callback
                            pass
            self._stop.wait(self.poll_s)
