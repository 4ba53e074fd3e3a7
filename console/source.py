"""Where a console's events come from: a session directory (followed live, or replayed) or an
imported transcript held in memory.

Both hand events over in batches with their byte spans, so the screen can put the spans in the
store and fold the events into the model in one step on the UI thread. Reading and JSON parsing
happen on a worker thread; a long log is read in slices of a few MB so the parsed dicts of a
100,000-event log never exist all at once.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from console.store import EventStore, FileEventStore, IndexedLogReader, MemoryEventStore
from sessions.follow import LogFollower
from sessions.layout import SessionPaths

SLICE_BYTES = 4 << 20


@dataclass
class Batch:
    events: list[dict]
    starts: list[int] = field(default_factory=list)
    lens: list[int] = field(default_factory=list)


class EventSource:
    paths: SessionPaths | None = None
    store: EventStore
    label: str = ""

    def backlog(self) -> Iterator[Batch]:  # pragma: no cover - interface
        raise NotImplementedError

    def follow(self, stop: threading.Event) -> Iterator[Batch]:
        return iter(())

    def accept(self, batch: Batch) -> None:
        """Put a batch's events (or where they lie) in the store; call on the UI thread."""
        raise NotImplementedError  # pragma: no cover - interface

    @property
    def malformed(self) -> list:
        return []


class SessionSource(EventSource):
    """A session directory's events.jsonl."""

    def __init__(self, paths: SessionPaths, *, force_polling: bool | None = None) -> None:
        self.paths = paths
        self.label = paths.name
        self.store = FileEventStore(paths.events)
        self.reader = IndexedLogReader(paths.events)
        self._force_polling = force_polling
        self._taken = 0  # spans handed over so far

    def _batch(self, events: list[dict]) -> Batch:
        k = self._taken
        n = len(events)
        self._taken = k + n
        return Batch(events, self.reader.span_start[k:k + n].tolist(),
                     self.reader.span_len[k:k + n].tolist())

    def backlog(self) -> Iterator[Batch]:
        while True:
            before = self.reader.offset
            read = self.reader.read(max_bytes=SLICE_BYTES)
            if read.events:
                yield self._batch(read.events)
            elif self.reader.offset == before:
                return

    def accept(self, batch: Batch) -> None:
        self.store.add_spans(batch.starts, batch.lens)

    def follow(self, stop: threading.Event) -> Iterator[Batch]:
        follower = LogFollower(self.paths.events, force_polling=self._force_polling)
        follower.reader = self.reader  # same offsets and spans as the backlog read
        for events in follower.follow(stop):
            yield self._batch(events)

    @property
    def malformed(self) -> list:
        return self.reader.malformed


class MemorySource(EventSource):
    """Events already in memory (an imported transcript)."""

    def __init__(self, events: list[dict], label: str = "transcript",
                 paths: SessionPaths | None = None) -> None:
        self._events = events
        self.store = MemoryEventStore()
        self.label = label
        self.paths = paths

    def backlog(self) -> Iterator[Batch]:
        step = 20000
        for i in range(0, len(self._events), step):
            yield Batch(self._events[i:i + step])

    def accept(self, batch: Batch) -> None:
        self.store.extend(batch.events)


def transcript_source(path: str | Path, loader: Callable | None = None) -> MemorySource:
    """A foreign transcript (Claude Code, Codex) through sessions.importers.load_transcript."""
    if loader is None:
        from sessions.importers import load_transcript as loader
    result = loader(path)
    events = getattr(result, "events", None)
    if events is None:
        events = result[0] if isinstance(result, tuple) else list(result)
    return MemorySource(list(events), label=Path(path).name)
