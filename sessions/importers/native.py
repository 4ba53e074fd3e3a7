"""Our own events.jsonl, read through the same entry point as foreign transcripts."""
from __future__ import annotations

from pathlib import Path

from sessions.importers.common import ImportResult, ImportStats
from sessions.log import read_events


def load_native(path: Path) -> ImportResult:
    read = read_events(path)
    stats = ImportStats(format="kernelseek", source=str(path))
    stats.malformed.extend(read.malformed)
    stats.lines = len(read.events) + len(read.malformed) + (1 if read.torn_tail else 0)
    if read.torn_tail:
        stats.note("the last line is unfinished (a writer may be mid-line); it was left out")
    for ev in read.events:
        stats.records[ev.get("type", "?")] += 1
        stats.events[ev.get("type", "?")] += 1
    return ImportResult(read.events, stats)
