"""Where a console's events come from: a session directory (followed live, or replayed) or an
imported transcript held in memory.

Both hand events over in batches with their byte spans, so the screen can put the spans in the
store and fold the events into the model in one step. A backlog is read and parsed on a worker
thread in slices of 4 MB (so the parsed dicts of a 100,000-event log never exist all at once),
each folded on the UI thread while the worker waits.
Following a live log, a watcher thread only says when the file may have changed (`changes`), and
the UI thread reads what is new (`read_new`): one thread does the Python work, so a loaded machine
never makes two hand the GIL to and fro while a key waits.

Nothing odd about a log goes unsaid: each batch carries notices in words (malformed lines with
their numbers, a log truncated, moved or replaced while followed) for the screen to show. After
the log restarts (truncated or replaced), events whose seq was already shown are not shown twice.
"""
from __future__ import annotations

import threading
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from console.store import EventStore, FileEventStore, IndexedLogReader, MemoryEventStore
from questions.annotate import carries_points
from sessions.follow import LogFollower
from sessions.layout import SessionPaths, first_event

SLICE_BYTES = 4 << 20


@dataclass
class Batch:
    events: list[dict]
    starts: array | list[int] = field(default_factory=list)  # byte offsets of the events' lines
    lens: array | list[int] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)  # what happened to the log, for the steerer
    new_file: bool = False  # the spans are in another file than the batch before (a replaced log)


def malformed_notice(path: str, lines: list[int], reasons: list[str]) -> str:
    """One line about skipped lines: how many, which (the first few), and the first reason."""
    shown = ", ".join(str(n) for n in lines[:8]) + (", …" if len(lines) > 8 else "")
    what = "line" if len(lines) == 1 else "lines"
    return f"{path}: {len(lines)} malformed {what} skipped ({what} {shown}): {reasons[0]}"


class EventSource:
    paths: SessionPaths | None = None
    store: EventStore
    label: str = ""

    def backlog(self) -> Iterator[Batch]:  # pragma: no cover - interface
        raise NotImplementedError

    def changes(self, stop: threading.Event) -> Iterator[None]:
        """Wake-ups while following (on a watcher thread); nothing to follow by default."""
        return iter(())

    def read_new(self) -> Batch | None:
        """What was appended since the last read (on the UI thread); None when nothing was."""
        return None

    def accept(self, batch: Batch) -> None:
        """Put a batch's events (or where they lie) in the store; call on the UI thread."""
        raise NotImplementedError  # pragma: no cover - interface

    @property
    def malformed(self) -> list:
        return []

    def progress(self) -> float | None:
        """How much of the backlog has been read (0..1), where that can be told."""
        return None

    def close(self) -> None:
        """Let go of open files (the screen is gone)."""


class SessionSource(EventSource):
    """A session directory's events.jsonl."""

    def __init__(self, paths: SessionPaths, *, force_polling: bool | None = None) -> None:
        self.paths = paths
        self.label = paths.name
        self.store = FileEventStore(paths.events)
        self.reader = IndexedLogReader(paths.events, hold=True)
        # a log that carries its own decision points is shown from what rows need (outputs
        # skimmed); any other has its points derived by the detectors, which read the outputs
        self.reader.skim = carries_points(first_event(paths.events))
        self._force_polling = force_polling
        self._taken = 0  # spans handed over so far
        self._notices_taken = 0
        self._malformed_taken = 0
        self._generation = 0
        self._max_seq = -1  # the highest seq handed over (after a restart, seqs up to it are not new)
        self.more_to_read = False
        try:
            self._backlog_bytes = paths.events.stat().st_size
        except OSError:
            self._backlog_bytes = 0

    def _batch(self, events: list[dict]) -> Batch:
        reader = self.reader
        k = self._taken
        n = len(events)
        self._taken = k + n
        starts = reader.span_start[k:k + n]
        lens = reader.span_len[k:k + n]
        notices = reader.notices[self._notices_taken:]
        self._notices_taken = len(reader.notices)
        bad = reader.malformed[self._malformed_taken:]
        self._malformed_taken = len(reader.malformed)
        if bad:
            notices.append(malformed_notice(str(reader.path), [m.line for m in bad],
                                            [m.reason for m in bad]))
        new_file = False
        if reader.generation != self._generation:
            self._generation = reader.generation
            new_file = True
            keep = [i for i, ev in enumerate(events)
                    if not (isinstance(ev.get("seq"), int) and ev["seq"] <= self._max_seq)]
            if len(keep) < n:
                notices.append(f"{n - len(keep)} event(s) read again were shown already (same seq): "
                               f"not shown twice")
                events = [events[i] for i in keep]
                starts = array("q", [starts[i] for i in keep])
                lens = array("l", [lens[i] for i in keep])
        if events:  # seqs only grow in a log: the last one is the highest
            seq = events[-1].get("seq")
            if isinstance(seq, int) and seq > self._max_seq:
                self._max_seq = seq
        return Batch(events, starts, lens, notices, new_file)

    def progress(self) -> float | None:
        if self._backlog_bytes <= 0:
            return None
        return min(1.0, self.reader.offset / self._backlog_bytes)

    def backlog(self) -> Iterator[Batch]:
        while True:
            before = self.reader.offset
            read = self.reader.read(max_bytes=SLICE_BYTES)
            if read.events or read.malformed:
                yield self._batch(read.events)
            elif self.reader.offset == before:
                return

    def close(self) -> None:
        self.reader.close()
        self.store.close()

    def accept(self, batch: Batch) -> None:
        if batch.new_file:
            self.store.new_file()
        self.store.add_spans(batch.starts, batch.lens)

    def changes(self, stop: threading.Event) -> Iterator[None]:
        follower = LogFollower(self.paths.events, force_polling=self._force_polling)
        yield from follower.changes(stop)

    def read_new(self, max_bytes: int = SLICE_BYTES) -> Batch | None:
        reader = self.reader
        n_notices = len(reader.notices)
        before = reader.offset
        read = reader.read(max_bytes=max_bytes)
        # a read that took most of its limit probably left more: the caller reads again soon
        self.more_to_read = reader.offset - before > max_bytes // 2
        if read.events or read.malformed or len(reader.notices) > n_notices:
            return self._batch(read.events)
        return None

    @property
    def malformed(self) -> list:
        return self.reader.malformed


class MemorySource(EventSource):
    """Events already in memory (an imported transcript)."""

    def __init__(self, events: list[dict], label: str = "transcript",
                 paths: SessionPaths | None = None, notices: list[str] | None = None) -> None:
        self._events = events
        self.store = MemoryEventStore()
        self.label = label
        self.paths = paths
        self._notices = list(notices or [])
        self._given = 0

    def backlog(self) -> Iterator[Batch]:
        step = 2000  # folded on the UI thread: slices short enough for keys to go through
        for i in range(0, len(self._events), step):
            self._given = i + step
            yield Batch(self._events[i:i + step], notices=self._notices if i == 0 else [])
        if not self._events and self._notices:
            yield Batch([], notices=self._notices)

    def progress(self) -> float | None:
        return min(1.0, self._given / len(self._events)) if self._events else None

    def accept(self, batch: Batch) -> None:
        self.store.extend(batch.events)


def transcript_source(path: str | Path) -> MemorySource:
    """A foreign transcript (Claude Code, Codex) through sessions.importers.load_transcript."""
    from sessions.importers import load_transcript

    result = load_transcript(path)
    bad = result.stats.malformed
    notices = [malformed_notice(str(path), [m.line for m in bad], [m.reason for m in bad])] if bad else []
    return MemorySource(result.events, label=Path(path).name, notices=notices)
