"""Build large transcripts for the import benchmark by repeating real records, renumbered.

Each repetition gets fresh uuids, tool ids and call ids (the first 8 hex digits of a uuid become
the repetition number), timestamps one year later per repetition, and its first root hangs under
the previous repetition's last record, so the result is one long, well-formed conversation.
"""
from __future__ import annotations

import re
from pathlib import Path

UUID_RE = re.compile(r"\b[0-9a-f]{8}(-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b")
TOOL_ID_RE = re.compile(r"\b((?:toolu|call|srvtoolu|msg|req)_[A-Za-z0-9]{10,})")
STAMP_RE = re.compile(r'("timestamp": ?")(\d{4})-')
ROOT_RE = re.compile(r'"parentUuid": ?null')


def _shift(years: int):
    def sub(m: re.Match) -> str:
        return f"{m.group(1)}{int(m.group(2)) + years}-"
    return sub


def build_large_transcript(sources: list[Path], out: Path, target_bytes: int) -> int:
    """Write `out` of at least target_bytes from repeated source lines; returns the line count."""
    lines: list[str] = []
    for src in sources:
        lines.extend(line for line in src.read_text(encoding="utf-8").splitlines() if line.strip())
    last_uuid: str | None = None
    written = n = rep = 0
    with open(out, "w", encoding="utf-8") as f:
        while written < target_bytes:
            rep += 1
            prefix = f"{rep:08x}"
            linked = False
            for line in lines:
                line = UUID_RE.sub(lambda m: prefix + m.group(1), line)
                line = TOOL_ID_RE.sub(lambda m: f"{m.group(1)}r{rep}", line)
                line = STAMP_RE.sub(_shift(rep), line)
                if not linked and last_uuid and ROOT_RE.search(line):
                    line = ROOT_RE.sub(f'"parentUuid":"{last_uuid}"', line, count=1)
                    linked = True
                m = re.search(r'"uuid": ?"([^"]+)"', line)
                if m:
                    last_uuid = m.group(1)
                f.write(line + "\n")
                written += len(line) + 1
                n += 1
    return n
