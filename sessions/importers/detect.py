"""Tell a transcript's format from its first records, never from its name."""
from __future__ import annotations

import json
import os

from sessions.events import EVENT_TYPES
from sessions.importers.common import AGENT_CLAUDE_CODE, AGENT_CODEX, TranscriptError

KERNELSEEK = "kernelseek"

FORMAT_NAMES = {
    AGENT_CLAUDE_CODE: "a Claude Code session",
    AGENT_CODEX: "a Codex rollout",
    KERNELSEEK: "a KernelSeek events.jsonl",
}

CODEX_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
# bare response items of rollouts written before the session_meta/payload wrapping (2025)
CODEX_LEGACY_ITEMS = frozenset({"message", "reasoning", "function_call", "function_call_output",
                                "local_shell_call", "custom_tool_call", "custom_tool_call_output"})
CLAUDE_TYPES = frozenset({"user", "assistant", "system", "summary", "progress", "attachment",
                          "file-history-snapshot", "queue-operation", "ai-title", "custom-title",
                          "mode", "permission-mode", "last-prompt", "pr-link", "tag"})


def classify_record(rec: dict) -> str | None:
    """The format one record belongs to, or None when it says nothing."""
    kind = rec.get("type")
    if "v" in rec and "seq" in rec and isinstance(kind, str) and kind in EVENT_TYPES:
        return KERNELSEEK
    if kind in CODEX_TYPES and "payload" in rec:
        return AGENT_CODEX
    if kind is None and "instructions" in rec and "id" in rec and "timestamp" in rec:
        return AGENT_CODEX  # legacy rollout header
    if kind == "message" and rec.get("role") in ("user", "assistant", "developer", "system") and "uuid" not in rec:
        return AGENT_CODEX
    if kind in CLAUDE_TYPES and ("uuid" in rec or "sessionId" in rec or "leafUuid" in rec
                                 or "messageId" in rec or kind in ("summary", "queue-operation")):
        return AGENT_CLAUDE_CODE
    if "parentUuid" in rec and "uuid" in rec:
        return AGENT_CLAUDE_CODE
    return None


def _first_records(path: str | os.PathLike, max_records: int):
    """(line number, record or the ValueError that stopped it) for the first non-blank lines."""
    seen = 0
    try:
        with open(path, "rb") as f:
            for no, raw in enumerate(f, 1):
                if no == 1:
                    raw = raw.removeprefix(b"\xef\xbb\xbf")
                if not raw.strip():
                    continue
                seen += 1
                if seen > max_records:
                    return
                try:
                    yield no, json.loads(raw)
                except ValueError as exc:
                    yield no, exc
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot read ({exc.strerror or exc})") from None


def why_unknown(path: str | os.PathLike, max_records: int = 200) -> str:
    """Why a file's format cannot be told, naming the first line that shows it."""
    for no, rec in _first_records(path, max_records):
        if isinstance(rec, ValueError):
            return f"line {no} is not JSON ({getattr(rec, 'msg', rec)})"
        if not isinstance(rec, dict):
            return f"line {no} is not a JSON object"
        return f"line {no} is a JSON object of no known transcript kind (type {rec.get('type')!r})"
    return "the file is empty"


def detect_format(path: str | os.PathLike, max_records: int = 200) -> str | None:
    """'claude-code' | 'codex' | 'kernelseek', from the first records; None if none fits."""
    votes: dict[str, int] = {}
    for _, rec in _first_records(path, max_records):
        fmt = classify_record(rec) if isinstance(rec, dict) else None
        if fmt is not None:
            votes[fmt] = votes.get(fmt, 0) + 1
            if votes[fmt] >= 5:
                break
    if not votes:
        return None
    return max(votes, key=votes.__getitem__)
