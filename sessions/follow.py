"""Following a live log: new events within ~100 ms of their append.

`LogFollower` wraps a `LogReader` and wakes on file-system notifications from watchfiles
(inotify on Linux). Where notifications are unavailable (no inotify, the watch limit reached, or
KERNELSEEK_FORCE_POLLING=1) it polls the file's size instead. On a network file system (NFS,
Lustre, GPFS, BeeGFS, CephFS, ... found in /proc/mounts) it polls from the start: inotify there
sees only this machine's writes, never those of a runner on another node. Either way it re-reads
(opens) the file at least every `idle_check_s` (0.25 s): a missed notification costs latency,
never events, and an open revalidates an NFS client's cached size, so a runner's events on
another node arrive within a second.

Its reader also keeps the file it read (`LogReader(hold=True)`): a log truncated, renamed, deleted
or replaced while followed is said so in `notices` (and a batch, possibly empty, is yielded when
a notice arrives) and followed on where that is possible.
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from sessions.log import LogReader, Malformed

# file systems whose writes from other machines inotify does not see
NETWORK_FS = frozenset((
    "nfs", "nfs4", "lustre", "gpfs", "beegfs", "ceph", "cifs", "smb3", "smbfs", "afs", "9p",
    "glusterfs", "ocfs2", "gfs2", "panfs", "pvfs2", "orangefs", "wekafs", "fuse.sshfs",
    "fuse.glusterfs", "fuse.ceph", "fuse.cephfs", "fuse.beegfs", "fuse.gcsfuse", "fuse.s3fs",
    "fuse.juicefs", "virtiofs", "davfs",
))


def _unescape_mount(field: str) -> str:
    return field.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")


def filesystem_type(path: str | os.PathLike, mounts: str | None = None) -> str | None:
    """The type of the file system holding `path` (the longest mount point above it), from
    /proc/mounts (or the text of one); None when it cannot be told."""
    if mounts is None:
        try:
            mounts = Path("/proc/mounts").read_text(errors="replace")
        except OSError:
            return None
    target = os.path.realpath(path)
    best, kind = "", None
    for line in mounts.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        point = _unescape_mount(parts[1])
        if (target == point or target.startswith(point.rstrip("/") + "/")) and len(point) >= len(best):
            best, kind = point, parts[2]
    return kind


def on_network_fs(path: str | os.PathLike, mounts: str | None = None) -> bool:
    kind = filesystem_type(path, mounts)
    return kind is not None and (kind in NETWORK_FS or kind.split(".")[0] in NETWORK_FS)


def polling_wanted(path: str | os.PathLike) -> bool:
    """Follow by polling: asked for (KERNELSEEK_FORCE_POLLING=1), or a network file system."""
    if os.environ.get("KERNELSEEK_FORCE_POLLING", "") not in ("", "0"):
        return True
    p = Path(path)
    return on_network_fs(p if p.exists() else p.parent)


class LogFollower:
    def __init__(self, path: str | os.PathLike, *, force_polling: bool | None = None,
                 poll_interval_s: float = 0.02, idle_check_s: float = 0.25) -> None:
        self.path = Path(path)
        self.reader = LogReader(self.path, hold=True)
        if force_polling is None:
            force_polling = polling_wanted(self.path)
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

        # a quiet log's append wakes the follower 20 ms later; a busy one (a write every few ms)
        # every 40 ms with all that came meanwhile, not at each write: every wake-up is work for
        # the one thread that reads, and a GIL hand-off from this thread on a loaded machine
        changes = watchfiles.watch(
            watch_dir, watch_filter=only_log, debounce=40, step=20, stop_event=stop,
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
