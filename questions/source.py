"""Where `kernelseek detect` and `bank suggest` get their events: a session, a log, a transcript.

A session directory, its `events.jsonl`, or a session name under the sessions root is read with
the tolerant log reader. Any other file is a foreign transcript (Claude Code JSONL, Codex
rollout) and goes through `sessions.importers.load_transcript`, which tells the format itself.

`load_events` holds every event; `open_events` streams our own logs in slices (a 200 MB log
never exists as dicts all at once) and serves a transcript from the importer's list.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

SLICE_BYTES = 4 << 20


class SourceError(Exception):
    """The events cannot be read as asked. Printed as one line by the CLI."""

    exit_code = 2


@dataclass
class LoadedEvents:
    events: list[dict]
    path: str
    format: str  # session | events | claude-code | codex | ...
    notes: list[str] = field(default_factory=list)


def is_our_log(path: Path) -> bool:
    """Whether a file is a KernelSeek events.jsonl (read with the tolerant log reader, streamed)
    rather than a foreign transcript: by its name, or by the importers' own format detection (an
    empty file is an empty log)."""
    from sessions.importers import KERNELSEEK, detect_format

    return path.name == "events.jsonl" or detect_format(path) == KERNELSEEK or path.stat().st_size == 0


def load_events(source: str | os.PathLike, sessions_dir: str | os.PathLike | None = None) -> LoadedEvents:
    """The events of a session (dir, events.jsonl, or name) or of a foreign transcript file."""
    from sessions.layout import resolve_session
    from sessions.log import read_events

    p = Path(source).expanduser()
    if p.is_file() and is_our_log(p):
        read = read_events(p)
        notes = [f"{len(read.malformed)} malformed line(s) skipped (first: {read.malformed[0]})"] if read.malformed else []
        return LoadedEvents(read.events, str(p), "events", notes)
    if p.is_file():
        return load_foreign(p)
    sp = resolve_session(source, sessions_dir)  # raises SessionError (one line) when there is none
    read = read_events(sp.events)
    notes = [f"{len(read.malformed)} malformed line(s) skipped (first: {read.malformed[0]})"] if read.malformed else []
    return LoadedEvents(read.events, str(sp.root), "session", notes)


def load_foreign(path: Path) -> LoadedEvents:
    """A foreign transcript through the importers (they tell its format; TranscriptError, one
    line, when they cannot)."""
    from sessions.importers import load_transcript

    result = load_transcript(path)
    return LoadedEvents(result.events, str(path), result.format, [result.stats.summary_line()])


@dataclass
class EventStream:
    """A log's events, to be iterated once, in order (see `open_events`)."""

    path: str
    format: str
    notes: list[str] = field(default_factory=list)
    _events: list[dict] | None = None
    _log: Path | None = None
    _reader: object = None

    def __iter__(self) -> Iterator[dict]:
        if self._events is not None:
            yield from self._events
            return
        from sessions.log import LogReader

        self._reader = reader = LogReader(self._log)
        while True:
            before = reader.offset
            read = reader.read(max_bytes=SLICE_BYTES)
            yield from read.events
            if reader.offset == before:
                break
        if reader.malformed:
            self.notes.append(f"{len(reader.malformed)} malformed line(s) skipped (first: {reader.malformed[0]})")


def open_events(source: str | os.PathLike, sessions_dir: str | os.PathLike | None = None) -> EventStream:
    """The events of a session (dir, events.jsonl, or name) or of a foreign transcript, streamed."""
    from sessions.layout import resolve_session

    p = Path(source).expanduser()
    if p.is_file() and is_our_log(p):
        return EventStream(str(p), "events", _log=p)
    if p.is_file():
        loaded = load_foreign(p)
        return EventStream(loaded.path, loaded.format, loaded.notes, _events=loaded.events)
    sp = resolve_session(source, sessions_dir)
    return EventStream(str(sp.root), "session", _log=sp.events)
