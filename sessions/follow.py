"""Following a live log: new events within ~100 ms of their append.

`LogFollower` wraps a `LogReader` and wakes on file-system notifications from watchfiles
(inotify on Linux). Where notifications are unavailable (no inotify, a network file system,
the watch limit reached, or KERNELSEEK_FORCE_POLLING=1) it polls the file's size instead.
Either way it re-reads at least every `idle_check_s`, so a missed notification costs latency,
never events.

Its reader holds the file open (`LogReader(hold=True)`): a log truncated, renamed, deleted or
replaced while followed is said so in `notices` (and a batch, possibly empty, is yielded when a
notice arrives) and followed on where that is possible.
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from sessions.log import LogReader, Malformed


class LogFollower:
    def __init__(self, path: str | os.PathLike, *, force_polling: bool | None = None,
                 poll_interval_s: float = 0.02, idle_check_s: float = 0.25) -> None:
        self.path = Path(path)
        self.reader = LogReader(self.path, hold=True)
        if force_polling is None:
            force_polling = os.environ.get("KERNELSEEK_FORCE_POLLING", "") not in ("", "0")
        self.force_polling = force_polling
        self.poll_interval_s = poll_interval_s
        self.idle_check_s = idle_check_s
        self.mode = "polling" if force_polling else "notify"

    @property
    def malformed(self) -> list[Malformed]:
        return self.reader.malformed

    @property
    def notices(self) -> list[str]:
        return self.reader.notices

    def read_available(self) -> list[dict]:
        """Whatever whole events were appended since the last call (never blocks)."""
        return self.reader.read().events

    def _batch(self) -> list[dict] | None:
        """New events, or [] when only a notice is new, or None when nothing is."""
        n = len(self.reader.notices)
        batch = self.read_available()
        return batch if batch or len(self.reader.notices) > n else None

    def follow(self, stop: threading.Event | None = None) -> Iterator[list[dict]]:
        """Yield batches of new events until `stop` is set. The first batch is the backlog."""
        stop = stop or threading.Event()
        backlog = self.read_available()
        if backlog:
            yield backlog
        for _ in self.changes(stop):
            batch = self._batch()
            if batch is not None:
                yield batch

    def changes(self, stop: threading.Event) -> Iterator[None]:
        """Wake-ups, without reading: after each notification that the log may have changed, and
        at least every `idle_check_s`. A caller that reads on another thread (the console reads
        on its UI thread, so that one thread does all the parsing) uses this instead of follow."""
        if not self.force_polling:
            try:
                yield from self._changes_notify(stop)
                return
            except Exception:  # watchfiles/inotify unavailable: fall back, losing nothing
                self.mode = "polling"
        yield from self._changes_poll(stop)

    def _changes_notify(self, stop: threading.Event) -> Iterator[None]:
        import watchfiles

        target = self.path.resolve()
        watch_dir = target.parent
        watch_dir.mkdir(parents=True, exist_ok=True)
        name = target.name

        def only_log(_change, changed_path: str) -> bool:
            return os.path.basename(changed_path) == name

        changes = watchfiles.watch(
            watch_dir, watch_filter=only_log, debounce=40, step=5, stop_event=stop,
            rust_timeout=int(self.idle_check_s * 1000), yield_on_timeout=True,
            recursive=False, raise_interrupt=False,
        )
        self.mode = "notify"
        for _ in changes:
            yield None
            if stop.is_set():
                return

    def _changes_poll(self, stop: threading.Event) -> Iterator[None]:
        last_size = -1
        last_check = 0.0
        while not stop.is_set():
            try:
                size = self.path.stat().st_size
            except FileNotFoundError:
                size = -1
            now = time.monotonic()
            if size != last_size or now - last_check >= self.idle_check_s:
                last_size, last_check = size, now
                yield None
            stop.wait(self.poll_interval_s)
