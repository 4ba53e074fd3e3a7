"""What every importer shares: the result and its statistics, line reading, time parsing.

An importer turns a foreign transcript into our event dicts (see `sessions.events`) and says
what it made of every record: how many of each type it saw, which it skipped and why, which it
did not know, and which lines were not JSON. None of that is ever fatal; only a file that cannot
be read at all, or whose format cannot be told, raises `TranscriptError`.
"""
from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from sessions.events import SCHEMA_VERSION
from sessions.log import Malformed

AGENT_CLAUDE_CODE = "claude-code"
AGENT_CODEX = "codex"


class TranscriptError(Exception):
    """A transcript cannot be imported at all (missing, unreadable, unknown format).

    Printed as one line by the CLI (exit 2). Problems inside a readable transcript are never
    raised; they are counted in `ImportStats`.
    """

    exit_code = 2


@dataclass
class ImportStats:
    """What an importer made of a transcript, record by record."""

    format: str
    source: str
    lines: int = 0
    records: Counter = field(default_factory=Counter)  # raw record kinds seen
    skipped: Counter = field(default_factory=Counter)  # why records (or parts) produced no event
    unknown: Counter = field(default_factory=Counter)  # record kinds this importer does not know
    malformed: list[Malformed] = field(default_factory=list)
    events: Counter = field(default_factory=Counter)  # event types produced
    human: Counter = field(default_factory=Counter)  # human messages by kind/via
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def skip(self, reason: str, n: int = 1) -> None:
        self.skipped[reason] += n

    def note(self, text: str) -> None:
        if text not in self.notes and len(self.notes) < 50:
            self.notes.append(text)

    def summary_line(self) -> str:
        """One line for session_start's `note` and for the CLI."""
        parts = [f"imported {self.format} transcript: {self.lines} lines"]
        kinds = ", ".join(f"{n} {k}" for k, n in self.events.most_common() if k not in ("session_start", "session_end"))
        if kinds:
            parts.append(kinds)
        if self.unknown:
            parts.append(f"{sum(self.unknown.values())} of unknown kinds skipped")
        if self.malformed:
            first = self.malformed[0]
            parts.append(f"{len(self.malformed)} malformed (first at line {first.line})")
        return "; ".join(parts)

    def to_dict(self) -> dict:
        return {
            "format": self.format,
            "source": self.source,
            "lines": self.lines,
            "records": dict(self.records),
            "skipped": dict(self.skipped),
            "unknown": dict(self.unknown),
            "malformed": len(self.malformed),
            "malformed_lines": [{"line": m.line, "reason": m.reason, "text": m.text} for m in self.malformed[:20]],
            "events": dict(self.events),
            "human": dict(self.human),
            "notes": list(self.notes),
            "seconds": round(self.seconds, 3),
        }


@dataclass
class ImportResult:
    """The events of one transcript and what the import made of it.

    Unpacks as `(events, stats)`: ``events, stats = load_transcript(path)``.
    """

    events: list[dict]
    stats: ImportStats

    @property
    def format(self) -> str:
        return self.stats.format

    @property
    def source(self) -> str:
        return self.stats.source

    def __iter__(self):
        yield self.events
        yield self.stats

    def count(self, type: str, **match) -> int:
        """How many events of a type (and with these field values) the import produced."""
        return sum(1 for ev in self.events
                   if ev.get("type") == type and all(ev.get(k) == v for k, v in match.items()))


@dataclass
class Line:
    """One parsed JSON line of a transcript, with its 1-based line number."""

    no: int
    record: dict


def read_json_lines(path: str | os.PathLike, stats: ImportStats) -> list[Line]:
    """Every JSON object line of a file; other lines are recorded in stats.malformed."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise TranscriptError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise TranscriptError(f"{p}: is a directory, not a transcript file") from None
    except OSError as exc:
        raise TranscriptError(f"{p}: cannot read ({exc.strerror or exc})") from None
    text = data.decode("utf-8-sig", "replace")  # tolerate a byte-order mark
    out: list[Line] = []
    loads = json.loads
    raw_lines = text.split("\n")
    if raw_lines and raw_lines[-1] == "":
        raw_lines.pop()
    stats.lines = len(raw_lines)
    for i, line in enumerate(raw_lines, 1):
        if not line.strip():
            continue
        try:
            rec = loads(line)
        except ValueError as exc:
            reason = getattr(exc, "msg", None) or str(exc)
            torn = i == len(raw_lines) and not text.endswith("\n")
            stats.malformed.append(Malformed(str(p), i, ("torn last line: " if torn else "not JSON: ") + reason,
                                             line[:80]))
            continue
        if type(rec) is not dict:
            stats.malformed.append(Malformed(str(p), i, "not a JSON object", line[:80]))
            continue
        out.append(Line(i, rec))
    return out


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def parse_time(value) -> float | None:
    """Unix seconds from an ISO 8601 string ("2025-07-16T19:34:48.385Z") or a number."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        v = float(value)
        return v / 1000.0 if v > 1e11 else v  # milliseconds
    if not isinstance(value, str) or not value:
        return None
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00") if value.endswith("Z") else value)
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return round((dt - _EPOCH).total_seconds(), 6)


class EventList:
    """Collects events in order, filling v, seq and t; t falls back to the last known time."""

    def __init__(self, stats: ImportStats) -> None:
        self.events: list[dict] = []
        self.stats = stats
        self.last_t: float = 0.0

    def add(self, type: str, t: float | None, /, **fields) -> dict:
        if t is None:
            t = self.last_t
        else:
            self.last_t = t
        ev = {"v": SCHEMA_VERSION, "seq": len(self.events), "t": t, "type": type}
        ev.update(fields)
        self.events.append(ev)
        self.stats.events[type] += 1
        if type == "human_message":
            via = fields.get("via")
            kind = fields.get("kind", "message")
            self.stats.human[f"{kind}/{via}" if via else kind] += 1
        return ev

    def first_t(self) -> float:
        for ev in self.events:
            if ev.get("t"):
                return ev["t"]
        return 0.0


def finish(events: EventList, stats: ImportStats, *, agent: str, model: str | None, task: str,
           source: str, start_fields: dict) -> list[dict]:
    """Wrap the body in session_start and session_end and renumber seq from 0."""
    body = events.events
    t0 = events.first_t()
    t_end = events.last_t or t0
    start = {"v": SCHEMA_VERSION, "seq": 0, "t": t0, "type": "session_start", "task": task,
             "agent": agent, "model": model, "source": source, "recorded_by": start_fields.pop("recorded_by", agent)}
    start.update({k: v for k, v in start_fields.items() if v is not None})
    end = {"v": SCHEMA_VERSION, "seq": 0, "t": t_end, "type": "session_end", "reason": "completed",
           "detail": "end of imported transcript"}
    out = [start, *body, end]
    for i, ev in enumerate(out):
        ev["seq"] = i
    stats.events["session_start"] += 1
    stats.events["session_end"] += 1
    start["note"] = stats.summary_line()
    start["import"] = stats.to_dict()
    return out


def short_task(text: str, limit: int = 100) -> str:
    """A task name from a first prompt: its first line, cut at a word."""
    line = text.strip().splitlines()[0].lstrip("-–•*> ").strip() if text.strip() else ""
    if len(line) <= limit:
        return line
    cut = line[:limit].rsplit(" ", 1)[0]
    return cut + "…"
