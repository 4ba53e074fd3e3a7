"""The console's one seam for decision points: every log on screen carries what `kernelseek detect`
finds in it.

`with_decisions(source)` wraps any `EventSource`. A session our runner wrote already carries its
decision points and passes through untouched; any other log (a Claude Code or Codex transcript,
a session made by `kernelseek import`) is run through `questions.annotate.DecisionAnnotator` on
the reader thread as its batches arrive, live or in replay, so the timeline, `d`/`D` and the dock
show the same points as `kernelseek detect`. The points made here are kept in memory beside the
source's own store (`DecisionStore`): nothing is written to the log.
"""
from __future__ import annotations

import threading
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field

from console.source import Batch, EventSource
from console.store import EventStore, searchable


@dataclass
class AnnotatedBatch(Batch):
    """A source's batch with the derived decision points put in (`derived` marks them)."""

    inner: Batch | None = None
    derived: list[bool] = field(default_factory=list)


class DecisionStore(EventStore):
    """The source's store, with the derived points at their places in between."""

    def __init__(self, inner: EventStore) -> None:
        self.inner = inner
        self._map: array = array("q")  # our index -> the inner store's index, or -(k + 1) for derived point k
        self._derived: list[tuple[int, dict]] = []  # (our index, event)
        self._back: array = array("q")  # the inner store's index -> ours
        self._inner_n = 0

    def __len__(self) -> int:
        return len(self._map)

    def add(self, batch: AnnotatedBatch) -> None:
        for ev, derived in zip(batch.events, batch.derived):
            if derived:
                self._map.append(-(len(self._derived) + 1))
                self._derived.append((len(self._map) - 1, ev))
            else:
                self._back.append(len(self._map))
                self._map.append(self._inner_n)
                self._inner_n += 1

    def get(self, index: int) -> dict:
        m = self._map[index]
        return self._derived[-m - 1][1] if m < 0 else self.inner.get(m)

    def search(self, query: str, start: int, direction: int = 1) -> int | None:
        """The inner store's own (fast) search, then the derived points in between."""
        q = query.casefold()
        n = len(self._map)
        if not q or n == 0:
            return None
        start = max(0, min(start, n - 1))
        # the first inner event at or after (before) `start` in the search's direction
        i = start
        while 0 <= i < n and self._map[i] < 0:
            i += direction
        hit = None
        if 0 <= i < n:
            found = self.inner.search(query, self._map[i], direction)
            hit = self._back[found] if found is not None else None
        for idx, ev in (self._derived if direction > 0 else reversed(self._derived)):
            between = (start <= idx and (hit is None or idx < hit)) if direction > 0 else \
                (idx <= start and (hit is None or idx > hit))
            if between and q in searchable(ev):
                return idx
        return hit

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if close is not None:
            close()


class DecisionSource(EventSource):
    """An `EventSource` whose batches carry the decision points of the log they come from."""

    def __init__(self, inner: EventSource) -> None:
        from questions.annotate import DecisionAnnotator

        self.inner = inner
        self.paths = inner.paths
        self.label = inner.label
        self.store = DecisionStore(inner.store)
        self._annotator = DecisionAnnotator()
        self._lock = threading.Lock()  # backlog and follow run one after the other, but never share a feed

    def _annotate(self, batch: Batch) -> AnnotatedBatch:
        events: list[dict] = []
        derived: list[bool] = []
        with self._lock:
            for ev in batch.events:
                for shown in self._annotator.feed(ev):
                    events.append(shown)
                    derived.append(shown is not ev)
        return AnnotatedBatch(events, inner=batch, derived=derived)

    def backlog(self) -> Iterator[Batch]:
        for batch in self.inner.backlog():
            yield self._annotate(batch)

    def follow(self, stop: threading.Event) -> Iterator[Batch]:
        for batch in self.inner.follow(stop):
            yield self._annotate(batch)

    def accept(self, batch: Batch) -> None:
        if isinstance(batch, AnnotatedBatch) and batch.inner is not None:
            self.inner.accept(batch.inner)
            self.store.add(batch)
        else:  # a batch that did not come through here (nothing derived in it)
            self.inner.accept(batch)
            self.store.add(AnnotatedBatch(batch.events, inner=batch, derived=[False] * len(batch.events)))

    @property
    def malformed(self) -> list:
        return self.inner.malformed


def with_decisions(source: EventSource) -> EventSource:
    """`source`, its batches carrying the log's decision points (idempotent)."""
    return source if isinstance(source, DecisionSource) else DecisionSource(source)
