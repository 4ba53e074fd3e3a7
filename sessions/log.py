"""The append-only session log: one writer (an flock on the log itself), tolerant readers.

The writer appends each event as one whole line in one `write` call and flushes it; the types
the schema marks durable (session_start, human_message, eval_result, session_end) are fsynced
before `append` returns. A second writer on the same session gets `SessionLockedError`. The
exclusion is an flock on events.jsonl's own open file, so deleting a file cannot bypass it;
`writer.lock` beside it only records who holds it (pid and host) for `kernelseek stop`.

Readers never fail on a bad file: a torn last line (a writer caught mid-line) is left for the
next read, a malformed line is skipped and reported with its line number, and everything after
it is still read.
"""
from __future__ import annotations

import errno
import fcntl
import json
import math
import os
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path

from sessions.events import FSYNC_TYPES, SCHEMA_VERSION


_DECODER = json.JSONDecoder()


class SessionError(Exception):
    """A session cannot be opened or written as asked. Printed as one line by the CLI."""

    exit_code = 2


class SessionLockedError(SessionError):
    pass


@dataclass(frozen=True)
class Malformed:
    """A line that is not an event: where it is and why."""

    path: str
    line: int  # 1-based
    reason: str
    text: str  # the start of the line, for the message

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.reason}: {self.text!r}"


def _finite(obj):
    """Replace non-finite floats (not valid JSON) by strings, recursively."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def encode_event(event: dict) -> bytes:
    try:
        text = json.dumps(event, ensure_ascii=False, separators=(",", ":"), allow_nan=False,
                          default=str)
    except ValueError:
        text = json.dumps(_finite(event), ensure_ascii=False, separators=(",", ":"), default=str)
    return text.encode("utf-8", "surrogatepass") + b"\n"


class SessionWriter:
    """The one writer of an events.jsonl. Use as a context manager, or call close()."""

    def __init__(self, path: str | os.PathLike, *, lock_path: str | os.PathLike | None = None,
                 fsync_types: frozenset[str] = FSYNC_TYPES) -> None:
        self.path = Path(path)
        self.lock_path = Path(lock_path) if lock_path else self.path.with_name("writer.lock")
        self.fsync_types = fsync_types
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = -1
        self._lock_fd = -1
        self._fd = _open_locked(self.path, self.lock_path)
        try:
            self._lock_fd = _record_holder(self.lock_path)
            self.next_seq = _next_seq_and_mend(self.path)
        except BaseException:
            self.close()
            raise

    def append(self, type: str, /, **fields) -> dict:
        """Append one event; returns it with v, seq and t filled in."""
        event = {"v": SCHEMA_VERSION, "seq": self.next_seq, "t": round(time.time(), 6), "type": type}
        event.update(fields)
        self.write_event(event)
        return event

    def write_event(self, event: dict) -> None:
        """Append an event whose seq the caller set (importers); seq must not go backwards."""
        if self._fd < 0:
            raise SessionError(f"{self.path}: writer is closed")
        seq = event.get("seq")
        if not isinstance(seq, int) or seq < self.next_seq:
            raise ValueError(f"event seq {seq!r} is behind the log's next seq {self.next_seq}")
        data = encode_event(event)
        view = memoryview(data)
        while view:  # one write() in practice; loop only if the kernel writes short
            n = os.write(self._fd, view)
            view = view[n:]
        if event.get("type") in self.fsync_types:
            os.fsync(self._fd)
        self.next_seq = seq + 1

    def sync(self) -> None:
        if self._fd >= 0:
            os.fsync(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if self._lock_fd >= 0:
            os.close(self._lock_fd)  # releases the flock
            self._lock_fd = -1

    def __enter__(self) -> "SessionWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - safety net
        try:
            self.close()
        except Exception:
            pass


def _open_locked(log_path: Path, lock_path: Path) -> int:
    """The log opened for appending, with an exclusive flock on it (the one-writer rule)."""
    fd = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            holder = ""
            try:
                holder = Path(lock_path).read_text(errors="replace").strip()[:200]
            except OSError:
                pass
            who = f" ({holder})" if holder else ""
            raise SessionLockedError(
                f"{log_path} is already being written by another process{who}; "
                f"one runner writes a session") from None
        raise
    return fd


def _record_holder(lock_path: Path) -> int:
    """Write "pid N on HOST" to the lock file and hold an flock on it too (readers of older
    versions look there); the real exclusion is the flock on the log (`_open_locked`)."""
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        pass  # a stale holder of a deleted-and-recreated file: the log's flock decides
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}\n".encode(), 0)
    return fd


def lock_holder_pid(lock_path: str | os.PathLike) -> int | None:
    """The pid the session's writer recorded in its lock file (None if there is none to read)."""
    try:
        text = Path(lock_path).read_text(errors="replace")
    except OSError:
        return None
    parts = text.split()
    return int(parts[1]) if len(parts) >= 2 and parts[0] == "pid" and parts[1].isdigit() else None


def lock_is_held(path: str | os.PathLike) -> bool:
    """Whether a live process holds an flock on `path`: a session's events.jsonl (the writer's
    own lock: the session is running) or, for older callers, its writer.lock."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def _next_seq_and_mend(path: Path) -> int:
    """The seq after the last whole event; terminate a torn last line so appends stay whole.

    The torn fragment is kept (a reader reports it as malformed): nothing written is lost.
    """
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return 0
    if size == 0:
        return 0
    with open(path, "rb") as f:
        f.seek(size - 1)
        if f.read(1) != b"\n":
            with open(path, "ab") as a:
                a.write(b"\n")
                a.flush()
                os.fsync(a.fileno())
    # scan backwards for the last line that parses
    block = 1 << 16
    with open(path, "rb") as f:
        end = path.stat().st_size
        tail = b""
        pos = end
        while pos > 0:
            start = max(0, pos - block)
            f.seek(start)
            tail = f.read(pos - start) + tail
            pos = start
            lines = tail.split(b"\n")
            # lines[0] may be partial unless we reached the start of the file
            candidates = lines if pos == 0 else lines[1:]
            for raw in reversed(candidates):
                if not raw.strip():
                    continue
                try:
                    ev = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(ev, dict) and isinstance(ev.get("seq"), int):
                    return ev["seq"] + 1
            if len(tail) > 64 * block:
                break
    return 0


@dataclass
class LogRead:
    """What one read of a log found."""

    events: list[dict] = field(default_factory=list)
    malformed: list[Malformed] = field(default_factory=list)
    torn_tail: bool = False  # the file ends in an unfinished line (left for the next read)


class LogReader:
    """Reads a log incrementally: each `read()` returns the events appended since the last.

    Holds the byte offset of the first unread whole line and the line number, so a torn last
    line is picked up once it is whole and malformed lines are reported with true line numbers.

    A log that shrinks under it (truncated, or rewritten shorter) is read again from its start,
    with a notice. With `hold=True` (a follower) it also keeps the file open between reads: a
    log renamed or deleted while its writer still appends to it is followed where it went, and
    a path that comes to name another file (a new log put in its place) is read from that file's
    start once the old one is drained, each with a notice. `generation` counts the restarts, so
    a caller can tell re-read events from new ones (by seq).
    """

    def __init__(self, path: str | os.PathLike, *, hold: bool = False) -> None:
        self.path = Path(path)
        self.offset = 0
        self.line_no = 0  # lines consumed so far
        self.malformed: list[Malformed] = []
        self.notices: list[str] = []  # what happened to the file, in words (truncated, moved, replaced)
        self.generation = 0  # bumped each time reading starts over from the start of a file
        self.hold = hold
        self._file = None  # hold: the file being read (it may no longer be at self.path)
        self._ident: tuple[int, int] | None = None
        self._moved_noted = False
        self._switch_pending = False

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __del__(self) -> None:  # a held file goes with its reader
        try:
            self.close()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass

    def _restart(self, notice: str) -> None:
        self.notices.append(notice)
        self.offset = 0
        self.line_no = 0
        self.generation += 1

    def _open_held(self) -> None:
        self._file = open(self.path, "rb")
        fst = os.fstat(self._file.fileno())
        self._ident = (fst.st_dev, fst.st_ino)
        self._moved_noted = False
        self._switch_pending = False

    def _held(self):
        """The open file to read now (hold mode); notices a move, marks a replacement.

        The path is opened again on every read, as a reader without `hold` does: on a network
        file system an open revalidates the client's cached size (another node's appends show).
        While it names the same file the new handle replaces the old one."""
        try:
            f = open(self.path, "rb")
        except FileNotFoundError:
            f = None
        if f is not None:
            fst = os.fstat(f.fileno())
            ident = (fst.st_dev, fst.st_ino)
            if self._file is None or ident == self._ident:
                if self._file is not None:
                    self._file.close()
                self._file, self._ident = f, ident
                self._moved_noted = False
                return f
            f.close()
            self._switch_pending = True  # another file at the path: read it once the old is drained
            return self._file
        if self._file is not None and not self._moved_noted:
            self._moved_noted = True
            self.notices.append(f"{self.path} was moved or deleted: following the file it was "
                                f"(its writer may still append to it)")
        return self._file

    def read(self, max_bytes: int | None = None) -> LogRead:
        """What was appended since the last read; with `max_bytes`, at most about that much (whole
        lines; one line longer than that is taken whole), so a long log can be read in slices."""
        try:
            if self.hold:
                f = self._held()
                if f is None:
                    return LogRead()
                data = self._read_from(f, max_bytes)
                if self._switch_pending and b"\n" not in data:  # the old file has no more whole lines
                    f.close()
                    self._open_held()
                    self._restart(f"{self.path} was replaced by another file: reading the new one "
                                  f"from its start")
                    data = self._read_from(self._file, max_bytes)
            else:
                with open(self.path, "rb") as f:
                    data = self._read_from(f, max_bytes)
        except FileNotFoundError:
            return LogRead()
        if not data:
            return LogRead()
        cut = data.rfind(b"\n") + 1
        result = LogRead(torn_tail=cut < len(data))
        if cut == 0:
            return result
        self.offset += cut
        self._parse(data if cut == len(data) else data[:cut], result)
        self.malformed.extend(result.malformed)
        return result

    def _read_from(self, f, max_bytes: int | None) -> bytes:
        size = os.fstat(f.fileno()).st_size
        if size < self.offset:
            self._restart(f"{self.path} was truncated (it had {self.offset} bytes, now {size}): "
                          f"reading it again from its start")
        f.seek(self.offset)
        return self._read_slice(f, max_bytes)

    def _read_slice(self, f, max_bytes: int | None) -> bytes:
        """From f's position: all of it, or about `max_bytes` (one longer line is taken whole)."""
        if max_bytes is None:
            return f.read()
        data = f.read(max_bytes)
        if data and b"\n" not in data:
            data += f.readline()
        return data

    def _parse(self, chunk: bytes, result: LogRead) -> None:
        text = chunk.decode("utf-8", "replace")
        lines = text.split("\n")
        lines.pop()  # the chunk ends in "\n": the last piece is empty
        first_line = self.line_no + 1
        self.line_no += len(lines)
        if not lines:
            return
        decode = _DECODER.raw_decode
        events = result.events
        for i, line in enumerate(lines):
            try:
                ev, end = decode(line)
                if end != len(line) and line[end:].strip():
                    raise ValueError("extra data after the event")
            except ValueError as exc:  # JSONDecodeError too; retry leniently (leading blanks)
                if not line.strip():
                    continue
                try:
                    ev = json.loads(line)
                except ValueError as exc2:
                    reason = getattr(exc2, "msg", None) or str(exc)
                    result.malformed.append(
                        Malformed(str(self.path), first_line + i, f"not JSON ({reason})", line[:80]))
                    continue
            problem = "not a JSON object" if type(ev) is not dict else self.problem(ev)
            if problem:
                result.malformed.append(Malformed(str(self.path), first_line + i, problem, line[:80]))
            else:
                events.append(ev)

    def problem(self, ev: dict) -> str | None:
        """Why a JSON object is not a record of this log (None: it is one)."""
        return None if type(ev.get("type")) is str else "no event type"


def not_a_log(path: str | os.PathLike, sample_bytes: int = 1 << 16) -> str | None:
    """Why `path` is not a session log, judged from its first `sample_bytes` (None: it is one, or
    it is empty and may become one). A log may hold malformed lines, but not only those."""
    try:
        with open(path, "rb") as f:
            head = f.read(sample_bytes)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if not head.strip():
        return None
    if b"\0" in head:
        return "it holds binary data (NUL bytes), not JSON lines"
    reader = LogReader(path)
    lines = head.split(b"\n")
    whole = head if len(head) < sample_bytes else b"\n".join(lines[:-1]) + b"\n"
    if not whole.endswith(b"\n"):
        whole += b"\n"  # a one-line file without its newline yet
    result = LogRead()
    reader._parse(whole, result)
    if result.events or not result.malformed:
        return None
    first = result.malformed[0]
    return (f"none of its first {len(result.malformed)} line(s) is an event "
            f"(line {first.line}: {first.reason})")


def read_events(path: str | os.PathLike) -> LogRead:
    """Read a whole log once (a torn last line is reported as torn_tail, not as malformed)."""
    return LogReader(path).read()
