"""Where `kernelseek detect` and `bank suggest` get their events: a session, a log, a transcript.

A session directory, its `events.jsonl`, or a session name under the sessions root is read with
the tolerant log reader. Any other file is a foreign transcript (Claude Code JSONL, Codex
rollout) and goes through `sessions.importers.load_transcript`, which tells the format itself.

`load_events` holds every event; `open_events` streams our own logs in slices (a 200 MB log
never exists as dicts all at once) and serves a transcript from the importer's list.
"""
from __future__ import annotations

import json
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


def _looks_like_our_log(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            for raw in f:
                if raw.strip():
                    break
            else:
                return True  # empty: an empty log
    except OSError as exc:
        raise SourceError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        first = json.loads(raw)
    except ValueError:
        return False
    return (isinstance(first, dict) and isinstance(first.get("type"), str) and isinstance(first.get("seq"), int)
            and "v" in first)


def load_events(source: str | os.PathLike, sessions_dir: str | os.PathLike | None = None) -> LoadedEvents:
    """The events of a session (dir, events.jsonl, or name) or of a foreign transcript file."""
    from sessions.layout import resolve_session
    from sessions.log import read_events

    p = Path(source).expanduser()
    if p.is_file() and (p.name == "events.jsonl" or _looks_like_our_log(p)):
        read = read_events(p)
        notes = [f"{len(read.malformed)} malformed line(s) skipped (first: {read.malformed[0]})"] if read.malformed else []
        return LoadedEvents(read.events, str(p), "events", notes)
    if p.is_file():
        return _load_transcript(p)
    sp = resolve_session(source, sessions_dir)  # raises SessionError (one line) when there is none
    read = read_events(sp.events)
    notes = [f"{len(read.malformed)} malformed line(s) skipped (first: {read.malformed[0]})"] if read.malformed else []
    return LoadedEvents(read.events, str(sp.root), "session", notes)


def _load_transcript(path: Path) -> LoadedEvents:
    try:
        from sessions.importers import load_transcript
    except ImportError:
        raise SourceError(f"{path}: not a KernelSeek log, and transcript importers (sessions.importers) "
                          f"are not available to read it") from None
    result = load_transcript(path)
    events = getattr(result, "events", None)
    stats = getattr(result, "stats", None)
    if events is None:
        if isinstance(result, tuple) and len(result) == 2:
            events, stats = result
        else:
            events = list(result)
    fmt = getattr(stats, "format", None) or "transcript"
    notes = []
    if stats is not None and hasattr(stats, "summary_line"):
        notes.append(stats.summary_line())
    return LoadedEvents(list(events), str(path), str(fmt), notes)


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
    if p.is_file() and (p.name == "events.jsonl" or _looks_like_our_log(p)):
        return EventStream(str(p), "events", _log=p)
    if p.is_file():
        loaded = _load_transcript(p)
        return EventStream(loaded.path, loaded.format, loaded.notes, _events=loaded.events)
    sp = resolve_session(source, sessions_dir)
    return EventStream(str(sp.root), "session", _log=sp.events)
