"""Importers of foreign transcripts: Claude Code sessions and Codex rollouts become our events.

One entry point for every reader of a file path (`kernelseek replay`, `detect`, `mine`)::

    from sessions.importers import load_transcript
    result = load_transcript("~/.claude/projects/x/abc.jsonl")   # format told from content
    events, stats = result                                         # or result.events, result.stats

and one that writes a session directory (`kernelseek import`)::

    import_to_session("codex", "rollout.jsonl", "sessions/imported-1")

What each importer maps, skips and counts is in docs/importers.md.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from sessions.importers.common import (AGENT_CLAUDE_CODE, AGENT_CODEX, ImportResult, ImportStats,
                                       TranscriptError)
from sessions.importers.detect import FORMAT_NAMES, KERNELSEEK, detect_format, why_unknown

__all__ = [
    "load_transcript", "import_to_session", "detect_format", "ImportResult", "ImportStats",
    "TranscriptError", "FORMATS", "AGENT_CLAUDE_CODE", "AGENT_CODEX", "KERNELSEEK",
]

FORMATS = (AGENT_CLAUDE_CODE, AGENT_CODEX, KERNELSEEK)


def load_transcript(path: str | os.PathLike, format: str | None = None, *,
                    infer_evals: bool = True) -> ImportResult:
    """Read a transcript of any known format into our events.

    path: a Claude Code session .jsonl, a Codex rollout .jsonl, our own events.jsonl, or a
    session directory. format: "claude-code" | "codex" | "kernelseek" to insist on one (a file
    of another format is then an error); None tells it from the content.
    infer_evals: add `eval_result` events (marked inferred) for benchmark figures found in
    tool output of foreign transcripts (see sessions.importers.metrics); ours are left alone.

    Raises TranscriptError (one line, exit_code 2) when the file cannot be read or its format
    cannot be told; problems inside a readable file are counted in the result's stats.
    """
    started = time.perf_counter()
    p = Path(path).expanduser()
    if p.is_dir():
        if (p / "events.jsonl").is_file():
            p = p / "events.jsonl"
        else:
            raise TranscriptError(f"{p}: a directory without events.jsonl is not a session or transcript")
    if not p.exists():
        raise TranscriptError(f"{p}: no such file")
    found = detect_format(p)
    if format is not None and format not in FORMATS:
        raise TranscriptError(f"unknown transcript format {format!r} (known: {', '.join(FORMATS)})")
    if found is None:
        raise TranscriptError(
            f"{p}: not a Claude Code session, a Codex rollout or a KernelSeek events.jsonl: "
            f"{why_unknown(p)}")
    if format is not None and found != format:
        raise TranscriptError(f"{p}: looks like {FORMAT_NAMES[found]}, not {FORMAT_NAMES[format]}")
    if found == AGENT_CLAUDE_CODE:
        from sessions.importers.claude_code import import_claude_code
        result = import_claude_code(p)
    elif found == AGENT_CODEX:
        from sessions.importers.codex import import_codex
        result = import_codex(p)
    else:
        from sessions.importers.native import load_native
        result = load_native(p)
    if infer_evals and found != KERNELSEEK:
        from sessions.importers.metrics import add_inferred_evals
        result.events = add_inferred_evals(result.events, result.stats)
    result.stats.seconds = time.perf_counter() - started
    if result.events and result.events[0].get("type") == "session_start" and found != KERNELSEEK:
        result.events[0]["import"] = result.stats.to_dict()
        result.events[0]["note"] = result.stats.summary_line()
    return result


def import_to_session(kind: str | None, file: str | os.PathLike, out_dir: str | os.PathLike, *,
                      infer_evals: bool = True) -> ImportResult:
    """Import a transcript into a new session directory (events.jsonl written by SessionWriter).

    kind: "claude-code" | "codex" (or None to tell from the content). out_dir must not hold a
    session yet. The full import statistics go to `<out_dir>/import.json` as well.
    """
    from sessions.layout import create_session
    from sessions.log import SessionWriter

    out = Path(out_dir).expanduser()
    if (out / "events.jsonl").exists():
        raise TranscriptError(f"{out} already holds a session; import into a new directory")
    result = load_transcript(file, kind, infer_evals=infer_evals)
    sp = create_session(path=out)
    with SessionWriter(sp.events, lock_path=sp.lock) as writer:
        for ev in result.events:
            writer.write_event(ev)
    (sp.root / "import.json").write_text(json.dumps(result.stats.to_dict(), indent=1) + "\n", encoding="utf-8")
    return result
