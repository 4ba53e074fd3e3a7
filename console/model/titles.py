"""The one-line texts of the transcript: what a tool call, an evaluation's verdict and a decision
point's badge read as in a collapsed row. Pure functions of an event (or a record); every string
an agent or a tool wrote passes `clean_line` before it is kept.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

from console.safe_text import clean_line

if TYPE_CHECKING:
    from console.model.records import DecisionRecord

TITLE_MAX = 600  # characters of a row's text kept for its collapsed form


def number(v: object) -> float | None:
    """A JSON number as a float (None for anything else, booleans included)."""
    if type(v) is float:
        return v
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


_SUMMARY_KEYS = ("command", "cmd", "path", "file_path", "filename", "pattern", "query", "url", "description")
_FILE_KEYS = frozenset(("path", "file_path", "filename"))


def tool_summary(name: str, inp: object) -> str:
    """A tool call as one line: its name and the one argument that says what it does."""
    if isinstance(inp, dict):
        for key in _SUMMARY_KEYS:
            v = inp.get(key)
            if v is None:
                continue
            if isinstance(v, list):
                v = " ".join(str(x) for x in v)
            if isinstance(v, str) and v:
                extra = _edit_extent(inp) if key in _FILE_KEYS else ""
                return f"{name} {clean_line(v)[:300]}{extra}"
        if not inp:
            return name
        return f"{name} {clean_line(json.dumps(inp, ensure_ascii=False, default=str))[:300]}"
    if inp is None:
        return name
    return f"{name} {clean_line(inp)[:300]}"


def tool_call_title(ev: dict) -> str:
    """A tool_call event's row title."""
    return tool_summary(clean_line(ev.get("name") or "tool"), ev.get("input"))[:TITLE_MAX]


def _first_str(inp: dict, keys: tuple[str, ...]) -> str | None:
    for k in keys:
        v = inp.get(k)
        if type(v) is str:
            return v
    return None


def _edit_extent(inp: dict) -> str:
    old = _first_str(inp, ("old_str", "old_string", "old"))
    new = _first_str(inp, ("new_str", "new_string", "new", "content"))
    if old is not None and new is not None:
        return f"  (-{old.count(chr(10)) + 1} +{new.count(chr(10)) + 1} lines)"
    if new is not None:
        return f"  ({new.count(chr(10)) + 1} lines)"
    return ""


def eval_note(summary: dict) -> tuple[str, str]:
    """(status, one-line verdict) of an evaluation summary."""
    g = number(summary.get("geomean"))
    passed, total = summary.get("passed"), summary.get("total")
    ok = bool(summary.get("all_correct"))
    parts = []
    if summary.get("build_ok") is False:
        parts.append("build failed")
    if passed is not None and total is not None:
        parts.append(f"{passed}/{total} correct")
    if g is not None:
        parts.append(f"geomean {g:.3f}×")
    mr = number(summary.get("min_ratio"))
    if mr is not None:
        parts.append(f"min {mr:.2f}×")
    if summary.get("error"):
        parts.append(f"error: {clean_line(summary.get('error'))[:80]}")
    flags = summary.get("flags") or []
    if flags:
        parts.append("flags: " + ", ".join(clean_line(f) for f in flags[:4]))
    if summary.get("interrupted"):
        return "interrupted", "interrupted" + (" · " + " · ".join(parts) if parts else "")
    status = "goal" if summary.get("goal_met") else ("pass" if ok else "fail")
    return status, " · ".join(parts)


def decision_note(rec: DecisionRecord) -> str:
    """A decision row's badge: its kinds (the strongest first) and how often a loop repeated."""
    kinds = [rec.kind] + [r.get("kind") for r in rec.reasons if isinstance(r, dict) and r.get("kind") != rec.kind]
    note = " + ".join(clean_line(k).replace("_", " ") for k in kinds if k)
    return f"{note} ×{rec.count}" if rec.count > 1 else note
