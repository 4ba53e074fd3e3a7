"""Watching the inbox while the runner is busy (a tool runs, the model streams).

Messages are delivered at turn boundaries by the runner's own thread; this watcher only has to
notice an `interrupt` line at once and pull the trigger (cancel the running tool, stream or
evaluation), and a `stop` line (`kernelseek stop`, from any node sharing the session directory)
and end the session. It polls the inbox file's size every `poll_s` (a stat: cheap, and it works on
every file system) and reads the new lines with a tolerant reader. On a network file system a
stat may be answered from the client's attribute cache for a few seconds, so every
`reopen_every` polls it reads the file anyway (an open revalidates the cache).
"""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Callable

from sessions.log import LogReader


class InboxWatcher:
    def __init__(self, inbox_path: str | os.PathLike, on_interrupt: Callable[[str], None], *,
                 on_stop: Callable[[str, str | None], None] | None = None, poll_s: float = 0.1,
                 reopen_every: int = 5) -> None:
        self.path = Path(inbox_path)
        self.on_interrupt = on_interrupt
        self.on_stop = on_stop
        self.poll_s = poll_s
        self.reopen_every = reopen_every
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
        polls = 0
        while not self._stop.is_set():
            try:
                size = self.path.stat().st_size
            except OSError:
                size = -1
            polls += 1
            if size != last_size or polls % self.reopen_every == 0:
                last_size = size
                for line in self._reader.read().events:
                    self._dispatch(line)
            self._stop.wait(self.poll_s)

    def _dispatch(self, line: dict) -> None:
        kind, msg_id = line.get("kind"), line.get("id")
        if not msg_id:
            return
        try:
            if kind == "interrupt":
                self.on_interrupt(str(msg_id))
            elif kind == "stop" and self.on_stop is not None:
                self.on_stop(str(msg_id), line.get("author") if isinstance(line.get("author"), str) else None)
        except Exception:  # noqa: BLE001 - the watcher must outlive a bad callback
            pass
