"""Where the console keeps events: byte spans into events.jsonl, parsed again on demand.

A session of 100,000 events is ~100 MB of dicts once parsed; the console needs almost none of it
at once (a screenful of rows, one expanded tool call). Like toolong's `LogLines`, it keeps only
where each event's line lies in the file (two arrays of ints) and re-reads and parses a line when
it is shown, through an LRU cache. `IndexedLogReader` is `sessions.log.LogReader` (same
tolerance: torn tails wait, malformed lines are skipped and reported) that also records each
event's span. Foreign transcripts, imported in memory, live in a `MemoryEventStore`.

Opening a session parses only what its rows show. A tool's output (2-20 KB each, most of a log's
bytes) is in no row's title, so the reader skims it: the line is parsed with that string emptied
(found by its closing quote, never decoded) and the event carries `output_skimmed` (the bytes
left out). The whole event comes from the store when a row is expanded or searched. Slices of a
long log are read into one buffer the reader keeps (no fresh 4 MB allocation a slice). A log whose
decision points the console derives itself (console.decisions: foreign and imported logs) is read
whole, since the detectors read tool outputs.
"""
from __future__ import annotations

import json
import os
from array import array
from bisect import bisect_right
from collections.abc import Iterable
from pathlib import Path

from textual.cache import LRUCache

from sessions.log import LogRead, LogReader


SKIM_BYTES = 1024  # lines longer than this have their tool output skimmed
_OUTPUT = b'"output":"'
_SKIM_QUOTES = 64  # escaped quotes looked past before giving up (then the line is parsed whole)
_SKIM_ANY_QUOTES = 8  # ... of which the first few by any quote (memchr), the rest by `",` only


def skim_output(buf: bytes, start: int = 0, end: int | None = None) -> tuple[bytes, int] | None:
    """The line buf[start:end] with its "output" string emptied, and how many bytes that left
    out; None when the line has no such string, or finding its end would cost more than parsing
    it. The output itself is never copied or decoded.

    The string ends at its first quote that no backslash escapes; in a line written with compact
    separators such a quote is followed by `,` (another field) or `}` (the last). Most outputs
    hold few quotes, so the first ones are found as any quote (a memchr, several times faster
    than looking for two bytes); an output full of escaped quotes is then looked through for
    quotes followed by a comma only, then the line's end."""
    end = len(buf) if end is None else end
    i = buf.find(_OUTPUT, start, end)
    if i < 0:
        return None
    j = i + len(_OUTPUT)
    k = j
    find = buf.find
    for n in range(_SKIM_QUOTES):
        if n < _SKIM_ANY_QUOTES:
            k = find(b'"', k, end)
            if k < 0:
                return None
        else:
            k = find(b'",', k, end)
            if k < 0:
                k = end - 2  # the output is the line's last field: `"}`
                if k < j or buf[k:end] != b'"}':
                    return None
        b = k - 1
        while buf[b] == 92:  # a backslash: the quote is escaped if an odd run of them precedes it
            b -= 1
        if (k - 1 - b) % 2 == 0:
            if buf[k + 1:k + 2] not in (b",", b"}"):
                return None  # not the compact form this reads: the line is parsed whole
            return buf[start:j] + buf[k:end], k - j
        if k >= end - 2:
            return None
        k += 1
    return None


class IndexedLogReader(LogReader):
    """A LogReader whose `spans` list, in step with the events it returns, holds (offset, length).
    Long lines have their tool output skimmed unless `skim` is off (see the module's note)."""

    skim = True

    def __init__(self, path: str | os.PathLike, *, hold: bool = False) -> None:
        super().__init__(path, hold=hold)
        self.span_start: array = array("q")
        self.span_len: array = array("l")
        self._buffer = bytearray()

    def _read_slice(self, f, max_bytes: int | None) -> bytes | bytearray:
        """A slice of whole lines, read into one buffer kept from read to read and handed over
        as it is (parsing copies out what it keeps). Reading a 4 MB slice into a new bytes
        object, then copying its whole lines out, made two fresh allocations a slice: on a
        first open, whose heap is still growing, their page faults cost twice the skim."""
        if max_bytes is None:
            return super()._read_slice(f, max_bytes)
        buf = self._buffer
        if len(buf) < max_bytes:
            buf.extend(bytes(max_bytes - len(buf)))  # (back to full size: a line's worth at most)
        start = f.tell()
        n = f.readinto(buf)
        if n < max_bytes:  # the end of the file: all of it (a torn last line too), copied (a
            return buf[:n]  # follower's small reads leave the buffer its size)
        cut = buf.rfind(b"\n") + 1
        if cut == 0:  # one line longer than the slice: read as the plain reader does
            f.seek(start)
            return super()._read_slice(f, max_bytes)
        del buf[cut:]  # (in place: the allocation stays for the next slice)
        return buf

    def _parse(self, chunk: bytes, result: LogRead) -> None:
        base = self.offset - len(chunk)  # read() advanced the offset before parsing the chunk
        first_line = self.line_no + 1
        n_events = len(result.events)
        n_bad = len(result.malformed)
        parsed, offs, lens, skimmed = _lines(chunk, self.skim)
        events = _parse_all(parsed)
        if events is not None:  # every line a whole event: one json call for the lot
            self.line_no += len(parsed)
            result.events.extend(events)
            for i, left_out in skimmed.items():
                events[i]["output_skimmed"] = left_out
        else:  # something odd in here: the tolerant reader, line by line (whole lines)
            super()._parse(chunk, result)
        got = len(result.events) - n_events
        if got == len(parsed):  # every line an event: the common case
            self.span_start.extend([base + o for o in offs])
            self.span_len.extend(lens)
            return
        bad = {m.line for m in result.malformed[n_bad:]}
        for i, (o, n) in enumerate(zip(offs, lens)):
            if chunk[o:o + n].strip() and first_line + i not in bad:
                self.span_start.append(base + o)
                self.span_len.append(n)


def _lines(chunk: bytes, skim: bool = True) -> tuple[list[bytes], list[int], list[int], dict[int, int]]:
    """The chunk's lines (it ends in a newline) as they are parsed: short ones whole, long ones
    with their output skimmed; with each line's offset and length in the chunk, and which were
    skimmed (index -> bytes left out). One pass, no copy of the long lines."""
    parsed: list[bytes] = []
    offs: list[int] = []
    lens: list[int] = []
    skimmed: dict[int, int] = {}
    find = chunk.find
    add, add_off, add_len = parsed.append, offs.append, lens.append
    pos, total = 0, len(chunk)
    while pos < total:
        end = find(b"\n", pos)
        n = end - pos
        cut = skim_output(chunk, pos, end) if skim and n > SKIM_BYTES else None
        if cut is None:
            add(chunk[pos:end])
        else:
            skimmed[len(parsed)] = cut[1]
            add(cut[0])
        add_off(pos)
        add_len(n)
        pos = end + 1
    return parsed, offs, lens, skimmed


def _parse_all(lines: list[bytes]) -> list[dict] | None:
    """The lines as events in one `json.loads` (a third faster than line by line), or None if
    any line is not a whole event object (then the caller reads them one by one). The list is
    used up (its first and last lines are changed)."""
    if not lines:
        return []
    n = len(lines)
    # the brackets go on the first and last line, so the text is made in one join (not copied
    # twice more to add them)
    lines[0] = b"[" + lines[0]
    lines[-1] = lines[-1] + b"]"
    try:
        events = json.loads(b",".join(lines))
    except ValueError:
        return None
    if len(events) != n:
        return None
    for ev in events:
        if type(ev) is not dict or type(ev.get("type")) is not str:
            return None
    return events


class EventStore:
    """Events by index (the order they were read). Subclasses say where they are kept."""

    def __len__(self) -> int:  # pragma: no cover - interface
        raise NotImplementedError

    def get(self, index: int) -> dict:  # pragma: no cover - interface
        raise NotImplementedError

    def search(self, query: str, start: int, direction: int = 1) -> int | None:
        """The index of the next event (from `start`, inclusive) whose text contains `query`."""
        q = query.casefold()
        if not q:
            return None
        indices = range(start, len(self)) if direction > 0 else range(start, -1, -1)
        for i in indices:
            if q in searchable(self.get(i)):
                return i
        return None

    def matching(self, query: str, start: int, stop: int, limit: int) -> list[int]:
        """Indices in [start, stop) of the events whose text contains `query`, at most `limit`.
        Safe to call from another thread (it does not touch the cache)."""
        q = query.casefold()
        out: list[int] = []
        for i in range(start, stop):
            if q and q in searchable(self.peek(i)):
                out.append(i)
                if len(out) >= limit:
                    break
        return out

    def peek(self, index: int) -> dict:
        """The event, not through the cache (any thread)."""
        return self.get(index)


class MemoryEventStore(EventStore):
    def __init__(self, events: Iterable[dict] = ()) -> None:
        self.events: list[dict] = list(events)

    def __len__(self) -> int:
        return len(self.events)

    def extend(self, events: list[dict]) -> None:
        self.events.extend(events)

    def get(self, index: int) -> dict:
        return self.events[index]


class FileEventStore(EventStore):
    """Events of an events.jsonl, found by their spans (as an IndexedLogReader recorded them).

    A log replaced by another file while followed goes on in that file: `new_file()` starts a
    segment of events whose spans are in the file now at the path (the earlier ones stay in the
    file they were read from, held open)."""

    def __init__(self, path: str | os.PathLike, cache_size: int = 1024) -> None:
        self.path = Path(path)
        self.starts: array = array("q")
        self.lens: array = array("l")
        self._cache: LRUCache[int, dict] = LRUCache(cache_size)
        self._segment_start: list[int] = [0]  # first event index of each file
        self._fds: list[int | None] = [None]

    def __len__(self) -> int:
        return len(self.starts)

    def add_spans(self, starts: Iterable[int], lens: Iterable[int]) -> None:
        self.starts.extend(starts)
        self.lens.extend(lens)

    def new_file(self) -> None:
        """The spans added from now on are in the file now at the path."""
        self._segment_start.append(len(self.starts))
        self._fds.append(None)

    def _fd_for(self, index: int) -> int:
        k = bisect_right(self._segment_start, index) - 1
        fd = self._fds[k]
        if fd is None:
            fd = self._fds[k] = os.open(self.path, os.O_RDONLY)
        return fd

    def _read(self, offset: int, length: int, index: int | None = None) -> bytes:
        fd = self._fd_for(len(self.starts) - 1 if index is None else index)
        return os.pread(fd, length, offset)

    def peek(self, index: int) -> dict:
        raw = self._read(self.starts[index], self.lens[index], index)
        try:
            return json.loads(raw)
        except ValueError:  # the file changed under us (truncated, rewritten): say so, do not crash
            return {"type": "error", "message": f"event {index} is no longer readable in {self.path}"}

    def get(self, index: int) -> dict:
        ev = self._cache.get(index)
        if ev is None:
            ev = self.peek(index)
            self._cache[index] = ev
        return ev

    def matching(self, query: str, start: int, stop: int, limit: int) -> list[int]:
        """As EventStore.matching, finding candidates in the file's bytes first (a query JSON
        would escape falls back to parsing every event)."""
        q = query.casefold()
        if not q or not q.isascii() or any(c in q for c in '"\\') or not q.isprintable():
            return super().matching(query, start, stop, limit)
        needle = q.encode()
        out: list[int] = []
        lo_i = start
        while lo_i < stop and len(out) < limit:
            hi_i = min(stop, max(lo_i + 1, bisect_right(self.starts, self.starts[lo_i] + (1 << 22), lo=lo_i)))
            base = self.starts[lo_i]
            data = self._read(base, self.starts[hi_i - 1] + self.lens[hi_i - 1] - base, lo_i).lower()
            pos = data.find(needle)
            while pos >= 0 and len(out) < limit:
                i = bisect_right(self.starts, base + pos, lo=lo_i, hi=hi_i) - 1
                if q in searchable(self.peek(i)):
                    out.append(i)
                nxt = self.starts[i + 1] - base if i + 1 < hi_i else len(data)
                pos = data.find(needle, nxt)
            lo_i = hi_i
        return out

    def close(self) -> None:
        for fd in self._fds:
            if fd is not None:
                os.close(fd)
        self._fds = [None] * len(self._fds)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass

    def search(self, query: str, start: int, direction: int = 1) -> int | None:
        """Scan the file's bytes for the query, then confirm on the parsed event.

        A raw match may sit in a JSON key or across an escape; a query with characters JSON
        escapes (quote, backslash, controls) or non-ASCII letters falls back to parsing each event.
        """
        q = query.casefold()
        if not q or len(self) == 0:
            return None
        if not q.isascii() or any(c in q for c in '"\\') or not q.isprintable():
            return super().search(query, start, direction)
        needle = q.encode()
        n = len(self)
        start = max(0, min(start, n - 1))
        chunk = 1 << 22
        if direction > 0:
            lo_i = start
            while lo_i < n:
                hi_i = min(n, bisect_right(self.starts, self.starts[lo_i] + chunk, lo=lo_i))
                hi_i = max(hi_i, lo_i + 1)
                base = self.starts[lo_i]
                data = self._read(base, self.starts[hi_i - 1] + self.lens[hi_i - 1] - base, lo_i).lower()
                pos = data.find(needle)
                while pos >= 0:
                    i = bisect_right(self.starts, base + pos, lo=lo_i, hi=hi_i) - 1
                    if q in searchable(self.get(i)):
                        return i
                    nxt = self.starts[i + 1] - base if i + 1 < hi_i else len(data)
                    pos = data.find(needle, nxt)
                lo_i = hi_i
        else:
            hi_i = start + 1
            while hi_i > 0:
                base_end = self.starts[hi_i - 1] + self.lens[hi_i - 1]
                lo_i = bisect_right(self.starts, base_end - chunk, hi=hi_i) - 1
                lo_i = max(0, min(lo_i, hi_i - 1))
                base = self.starts[lo_i]
                data = self._read(base, base_end - base, lo_i).lower()
                pos = data.rfind(needle)
                while pos >= 0:
                    i = bisect_right(self.starts, base + pos, lo=lo_i, hi=hi_i) - 1
                    if q in searchable(self.get(i)):
                        return i
                    pos = data.rfind(needle, 0, self.starts[i] - base)
                hi_i = lo_i
        return None


_NOT_SEARCHED = frozenset(("v", "seq", "t", "type", "id", "call_id", "inbox_id", "block", "turn"))


def searchable(event: dict) -> str:
    """The event's text as a search sees it: its values (not its bookkeeping), casefolded."""
    out: list[str] = []
    for key, value in event.items():
        if key not in _NOT_SEARCHED:
            _collect(value, out)
    return "\n".join(out).casefold()


def _collect(value: object, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            _collect(v, out)
    elif isinstance(value, list):
        for v in value:
            _collect(v, out)
    elif value is not None and not isinstance(value, bool):
        out.append(str(value))
