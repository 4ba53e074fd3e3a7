"""Node-local GPU locks: who holds a GPU (a session, a sweep) and who is timing on it now.

Two flock(2) locks per GPU, in one directory on this node (`$KERNELSEEK_GPU_LOCKS`, default
/tmp/kernelseek-gpu-locks), keyed by the GPU's UUID. A flock dies with the process that holds it
(its file descriptor closes), so a killed holder never leaves a GPU locked.

- `<uuid>.claim`: a GPU held for a process's lifetime: a session's runner pinned to it, or a
  sharded sweep while it runs. `claim()` takes it without waiting (None when it is held);
  `claimed_by()` says whether and by whom. Placement reads this to know which GPUs are free.
- `<uuid>.timing`: held while an evaluation times on the GPU, exclusively (shared for work that
  only checks correctness: several may check at once, none while someone times). A second
  evaluation waits for it and says so (`TimingLock.hold` calls `on_wait` before it waits), and
  the time it waited is in what `hold` returns.

The holder writes who it is (pid, host, user, what) into the file after it has the lock, so one
who waits can say whom it waits for; the content means nothing once the lock is free. Files are
created 0666 in a sticky directory (users on one node share GPUs), opened without following
links; only what a holder wrote is read back, and as data.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import getpass
import json
import os
import socket
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_DIR = "/tmp/kernelseek-gpu-locks"
INFO_BYTES = 2048
CLAIM_TRIES = 5
CLAIM_RETRY_S = 0.01


class GpuLockError(Exception):
    """The lock directory cannot be used safely (one line naming it and what to do)."""

    exit_code = 2


def lock_dir() -> Path:
    """The node-local directory of GPU locks, made (sticky, world-writable) when missing."""
    path = Path(os.environ.get("KERNELSEEK_GPU_LOCKS") or DEFAULT_DIR)
    try:
        path.mkdir(mode=0o1777, parents=True, exist_ok=True)
        st = os.lstat(path)
    except OSError as exc:
        raise GpuLockError(f"{path}: cannot make the GPU lock directory ({exc.strerror}); "
                           "set KERNELSEEK_GPU_LOCKS to a node-local directory") from None
    if not stat.S_ISDIR(st.st_mode):
        raise GpuLockError(f"{path}: the GPU lock directory is not a directory; set KERNELSEEK_GPU_LOCKS")
    if st.st_uid == os.geteuid() and (st.st_mode & 0o7777) != 0o1777 and path == Path(DEFAULT_DIR):
        with contextlib.suppress(OSError):
            os.chmod(path, 0o1777)  # our own umask narrowed it: other users' sessions share these GPUs
            st = os.lstat(path)
    if st.st_mode & 0o002 and not st.st_mode & stat.S_ISVTX:
        raise GpuLockError(f"{path}: the GPU lock directory is writable by everyone without the sticky bit "
                           f"(others could swap its files): chmod +t {path}")
    return path


def _safe_name(uuid: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in uuid)[:120]


def _open(path: Path) -> int:
    """The lock file open for reading (and writing when allowed), never through a link."""
    flags = os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(path, os.O_RDWR | flags, 0o666)
    except PermissionError:  # another user's file: a read-only descriptor locks as well
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise GpuLockError(f"{path}: a link where a GPU lock file should be; remove it") from None
        raise GpuLockError(f"{path}: cannot open the GPU lock ({exc.strerror})") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
        os.close(fd)
        raise GpuLockError(f"{path}: not a plain file with one name; remove it")
    if st.st_uid == os.geteuid() and st.st_mode & 0o777 != 0o666:
        with contextlib.suppress(OSError):
            os.fchmod(fd, 0o666)  # the next user on this node locks (and names itself) here too
    return fd


def _write_info(fd: int, info: dict[str, Any]) -> None:
    data = json.dumps(info, default=str).encode()[:INFO_BYTES]
    with contextlib.suppress(OSError):  # read-only (another user's file): nobody learns our name
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)


def _read_info(fd: int) -> dict[str, Any]:
    try:
        data = json.loads(os.pread(fd, INFO_BYTES, 0).decode("utf-8", "replace") or "{}")
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, (str, int, float))} \
        if isinstance(data, dict) else {}


def who_am_i(**what: Any) -> dict[str, Any]:
    """What a holder writes into its lock file: pid, host, user, since, and what it does."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = str(os.geteuid())
    return {"pid": os.getpid(), "host": socket.gethostname(), "user": user, "since": round(time.time(), 3),
            **{k: v for k, v in what.items() if v is not None}}


def holder_text(info: dict[str, Any]) -> str:
    """`pid 4242 (ann): session attn-3` -- a holder in a few words."""
    if not info:
        return "another process"
    who = f"pid {info.get('pid', '?')}" + (f" ({info['user']})" if info.get("user") else "")
    what = info.get("what") or ""
    return f"{who}: {what}" if what else who


# -- claims: a GPU held for a process's lifetime -----------------------------------------------------

@dataclass
class Claim:
    """A GPU this process holds; released by `release()` or by the process ending."""

    uuid: str
    path: Path
    fd: int | None
    info: dict[str, Any] = field(default_factory=dict)

    def note(self, **more: Any) -> None:
        """Say more of what holds the GPU (a session's directory, once it has one)."""
        if self.fd is not None:
            self.info = {**self.info, **{k: v for k, v in more.items() if v is not None}}
            _write_info(self.fd, self.info)

    def release(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self.fd, fcntl.LOCK_UN)
                os.close(self.fd)
            self.fd = None

    def __enter__(self) -> Claim:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()


def claim(uuid: str, **what: Any) -> Claim | None:
    """Hold the GPU for this process (None when another process holds it). `what` says what for
    (e.g. what="session attn-3", session=path): others waiting or refused read it."""
    path = lock_dir() / f"{_safe_name(uuid)}.claim"
    fd = _open(path)
    for attempt in range(CLAIM_TRIES):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if attempt + 1 == CLAIM_TRIES:
                os.close(fd)
                return None
            time.sleep(CLAIM_RETRY_S * 2 ** attempt)  # one who only looked (`claimed_by`) lets go at once
    info = who_am_i(gpu=uuid, **what)
    _write_info(fd, info)
    return Claim(uuid, path, fd, info)


def claimed_by(uuid: str) -> dict[str, Any] | None:
    """None when nobody holds the GPU; else what its holder wrote (possibly {})."""
    return _held(lock_dir() / f"{_safe_name(uuid)}.claim")


def _held(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    fd = _open(path)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read_info(fd)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


# -- the timing lock -------------------------------------------------------------------------------

@dataclass
class Held:
    """One hold of the timing lock: how long it waited, for whom, and when it held the GPU."""

    exclusive: bool
    waited_s: float = 0.0
    waited_for: dict[str, Any] | None = None
    since: float = 0.0  # unix time the lock was had
    until: float = 0.0  # unix time it was let go

    def record(self) -> dict[str, Any]:
        out: dict[str, Any] = {"lock": "exclusive" if self.exclusive else "shared",
                               "held": [round(self.since, 4), round(self.until, 4)]}
        if self.waited_s:
            out["waited_s"] = round(self.waited_s, 3)
            if self.waited_for:
                out["waited_for"] = holder_text(self.waited_for)
        return out


class TimingLock:
    """The per-GPU timing lock. Each `hold` opens the file afresh, so two holds in one process
    exclude each other like two processes do (do not nest them)."""

    def __init__(self, uuid: str, on_wait: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.uuid = uuid
        self.path = lock_dir() / f"{_safe_name(uuid)}.timing"
        self.on_wait = on_wait or (lambda holder: None)

    def holder(self) -> dict[str, Any] | None:
        return _held(self.path)

    @contextlib.contextmanager
    def hold(self, what: str, *, exclusive: bool = True) -> Iterator[Held]:
        """Hold the lock for `what` (exclusive: timing; shared: correctness only), waiting for it."""
        fd = _open(self.path)
        held = Held(exclusive)
        mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
        try:
            try:
                fcntl.flock(fd, mode | fcntl.LOCK_NB)
            except BlockingIOError:
                t0 = time.monotonic()  # the wait begins when the GPU is found busy (telling it is part of it)
                holder = _read_info(fd)
                held.waited_for = holder
                self.on_wait(holder)
                fcntl.flock(fd, mode)
                held.waited_s = time.monotonic() - t0
            held.since = time.time()
            _write_info(fd, who_am_i(gpu=self.uuid, what=what, lock="exclusive" if exclusive else "shared"))
            yield held
        finally:
            held.until = time.time()
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


# -- the verdict's side ------------------------------------------------------------------------------

class VerdictGpu:
    """The GPU an evaluation's verdict opened, and its timing lock. The verdict holds the lock for
    all its scenarios at once (exclusively when it times, shared when it only checks) and for a
    peak measurement: work an evaluation sends ahead across scenarios (the next scenario's set-up)
    stays inside its hold. A hold inside the held one only notes a scenario's span for its result.
    A wait is announced through `progress` (`gpu_wait`, then `gpu_lock` with the seconds waited)."""

    def __init__(self, ident: dict[str, Any], progress: Callable[[dict[str, Any]], None]) -> None:
        self.ident = ident  # {uuid, index, pci_bus_id}
        self.progress = progress
        self._what = ""
        self.current: Held | None = None  # the hold this evaluation has now
        self._waited_s = 0.0  # a wait not yet told to a scenario's result: how long, and for whom
        self._waited_for: list[str] = []
        self.lock = TimingLock(ident["uuid"], on_wait=self._waiting)

    @classmethod
    def of(cls, device: Any, progress: Callable[[dict[str, Any]], None]) -> VerdictGpu | None:
        """For an open CudaDevice (None when its UUID cannot be read: nothing to key a lock by)."""
        from evaluator.gpus import device_gpu, node_index

        ident = device_gpu(device)
        if not ident.get("uuid"):
            return None
        ident = {"index": node_index(ident["uuid"]), **ident}
        return cls(ident, progress)

    def _waiting(self, holder: dict[str, Any]) -> None:
        gpu = f"GPU {self.ident['index']}" if self.ident.get("index") is not None else self.ident["uuid"]
        self.progress({"event": "gpu_wait", "what": self._what, "gpu": self.ident, "holder": holder_text(holder),
                       "message": f"{gpu} is busy ({holder_text(holder)}); this evaluation waits for it "
                                  f"({self._what})"})

    @contextlib.contextmanager
    def hold(self, what: str, *, exclusive: bool = True, result: Any = None) -> Iterator[None]:
        """Hold the lock for `what` (or, inside a hold, note `what`'s span); `result` (a
        ScenarioResult) gets `gpu`: which GPU, the lock, the span it ran in, a wait before it."""
        since = time.time()
        if self.current is not None:
            try:
                yield
            finally:
                self._note(result, self.current, since)
            return
        self._what = what
        with self.lock.hold(what, exclusive=exclusive) as held:
            if held.waited_s:  # the wait belongs to the first scenario after it (a peak measurement is none)
                self._waited_s += held.waited_s
                # every holder waited for, in order (a later one does not hide the first)
                if held.waited_for and holder_text(held.waited_for) not in self._waited_for:
                    self._waited_for.append(holder_text(held.waited_for))
                self.progress({"event": "gpu_lock", "what": what, "gpu": self.ident,
                               "waited_s": round(held.waited_s, 3)})
            self.current = held
            try:
                yield
            finally:
                self.current = None
                self._note(result, held, held.since)

    def _note(self, result: Any, held: Held, since: float) -> None:
        if result is None:
            return
        record = {k: v for k, v in self.ident.items() if v is not None} | held.record()
        record.pop("waited_s", None)
        record.pop("waited_for", None)
        record["held"] = [round(since, 4), round(time.time(), 4)]  # this scenario's span, inside the hold
        if self._waited_s:
            record["waited_s"] = round(self._waited_s, 3)
            if self._waited_for:
                record["waited_for"] = "; then ".join(self._waited_for)
        self._waited_s, self._waited_for = 0.0, []
        result.gpu = record
