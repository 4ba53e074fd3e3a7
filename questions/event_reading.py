"""Reading what the detectors look at: evaluation summaries (our evaluator's, the runner's, and
the thin ones inferred from foreign transcripts) and tool calls (commands, edits, patches, errors).
Pure functions; the detectors' state lives in `questions.detectors`.
"""
from __future__ import annotations

import math
import re
from typing import Mapping



def num(v) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def eval_correct(summary: Mapping) -> bool | None:
    """Whether an evaluation passed every scenario; None when it does not say."""
    if summary.get("build_ok") is False:
        return None  # nothing ran: says nothing about the output being right
    ac = summary.get("all_correct")
    if isinstance(ac, bool):
        return ac
    passed, total = summary.get("passed"), summary.get("total")
    if isinstance(passed, int) and isinstance(total, int) and total > 0:
        return passed >= total
    failing = summary.get("failing")
    if isinstance(failing, list):
        return not failing
    scen = summary.get("scenarios")
    if isinstance(scen, list):
        flags = [s.get("correct") for s in scen if isinstance(s, dict) and isinstance(s.get("correct"), bool)]
        if flags:
            return all(flags)
    return None


def per_scenario(summary: Mapping, key: str, *, correct_only: bool) -> dict[str, float]:
    """{scenario name: its number under `key`} from a summary's `scenarios` list."""
    out = {}
    scen = summary.get("scenarios")
    if isinstance(scen, list):
        for s in scen:
            if isinstance(s, dict) and isinstance(s.get("name"), str):
                v = num(s.get(key))
                if v is not None and not (correct_only and (v <= 0 or s.get("correct") is False)):
                    out[s["name"]] = v
    if key == "ratio" and not out and isinstance(summary.get("ratios"), dict):
        # inferred summaries (foreign transcripts) carry {scenario: ratio}
        for name, r in summary["ratios"].items():
            v = num(r)
            if v is not None and v > 0:
                out[str(name)] = v
    return out


def has_flag(flags, name: str) -> bool:
    """Whether a summary's flags hold `name`: a list of names or of "name xN" (the evaluator's
    form), or a mapping of names to counts."""
    if isinstance(flags, dict):
        return name in flags
    if isinstance(flags, list):
        return any(isinstance(f, str) and (f == name or f.startswith(name + " ")) for f in flags)
    return False


def fx(x: float) -> str:
    return f"{x:.3g}x"


def failing_text(summary: Mapping) -> str:
    failing = summary.get("failing")
    passed, total = summary.get("passed"), summary.get("total")
    parts = []
    if isinstance(passed, int) and isinstance(total, int):
        parts.append(f"{passed}/{total} scenarios correct")
    if isinstance(failing, list) and failing:
        names = ", ".join(str(f) for f in failing[:4]) + (", ..." if len(failing) > 4 else "")
        parts.append(f"failing: {names}")
    return "; ".join(parts) or "the evaluation is not correct"


# -- reading tool calls ------------------------------------------------------------------------------

PATH_KEYS = ("path", "file_path", "filename", "file", "target_file", "notebook_path", "target")
_OLD_KEYS = ("old_string", "old_str", "old", "search", "old_text")
_NEW_KEYS = ("new_string", "new_str", "new", "replace", "replacement", "new_text")
_CONTENT_KEYS = ("content", "contents", "file_text", "text", "code")
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\+\+\+ (?:b/)?(.+)$", re.M)
TOL_ASSIGN = re.compile(r"\b(atol|rtol|tol|tolerance|abs_tol|rel_tol|max_error|eps)\b\s*[=:]\s*([-+0-9.eE]+)")
WRITE_CMD = re.compile(r"(?:\bsed\s+-i\S*\s+(?:'[^']*'|\"[^\"]*\"|\S+)\s+|>>?\s*|\btee\s+(?:-a\s+)?|"
                        r"\b(?:cp|mv)\s+\S+\s+)(['\"]?)([^\s'\";|&]+)")
_ERROR_LINE = re.compile(
    r"^(?:[^\n:]*?:\d+(?::\d+)?:?\s*|[^\n(]*\(\d+\):\s*)?(?:fatal\s+)?error(?:\[\w+\])?\s*:\s*(.{4,200})$|"
    r"^(\w*(?:Error|Exception)):\s*(.{0,200})$|"
    r"(CUDA_ERROR_[A-Z_]+|cudaError[A-Z]\w+|an illegal memory access was encountered|misaligned address|"
    r"unspecified launch failure|out of memory|Segmentation fault|core dumped)", re.M)
# a command that writes a file or runs another after the first is not read-only
CD_PREFIX = re.compile(r"^\s*cd\s+\S+\s*&&\s*")
CHAINED = re.compile(r"(?<![0-9&])>(?!&)|&&|;|\|\||\$\(|`")
MASK_NUM = re.compile(r"0x[0-9a-fA-F]+|\d+")
_MASK_PATH = re.compile(r"(?:[\w.-]*/)+")


def canonical(value):
    """A hashable stand-in for a tool input (cheaper than json.dumps(sort_keys=True))."""
    if isinstance(value, dict):
        return tuple(sorted((str(k), canonical(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(canonical(v) for v in value)
    return value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)


def command_text(inp: Mapping) -> str | None:
    for key in ("command", "cmd", "script"):
        v = inp.get(key)
        if isinstance(v, str):
            return v
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            # ["bash", "-lc", "..."] runs the last element
            return v[-1] if len(v) >= 3 and v[1] in ("-c", "-lc") else " ".join(v)
    return None


def edit_ops(inp: Mapping) -> list[tuple[str, str | None, str]]:
    """(path, old, new) for edits; (path, None, content) for whole-file writes."""
    ops: list[tuple[str, str | None, str]] = []
    path = next((inp[k] for k in PATH_KEYS if isinstance(inp.get(k), str)), None)
    if path is not None:
        old = next((inp[k] for k in _OLD_KEYS if isinstance(inp.get(k), str)), None)
        new = next((inp[k] for k in _NEW_KEYS if isinstance(inp.get(k), str)), None)
        if old is not None and new is not None:
            ops.append((path, old, new))
        edits = inp.get("edits")
        if isinstance(edits, list):
            for e in edits:
                if isinstance(e, dict):
                    o = next((e[k] for k in _OLD_KEYS if isinstance(e.get(k), str)), None)
                    n = next((e[k] for k in _NEW_KEYS if isinstance(e.get(k), str)), None)
                    if o is not None and n is not None:
                        ops.append((path, o, n))
        if not ops:
            content = next((inp[k] for k in _CONTENT_KEYS if isinstance(inp.get(k), str)), None)
            if content is not None:
                ops.append((path, None, content))
    for key in ("input", "patch", "diff"):
        v = inp.get(key)
        if isinstance(v, str) and "*** Begin Patch" in v:
            ops.extend(_patch_ops(v))
    cmd = command_text(inp)
    if cmd and "*** Begin Patch" in cmd:
        ops.extend(_patch_ops(cmd))
    return ops


def _patch_ops(patch: str) -> list[tuple[str, str | None, str]]:
    ops = []
    path, minus, plus = None, [], []
    for line in patch.splitlines():
        m = _PATCH_FILE.match(line)
        if m or line.startswith("*** End Patch"):
            if path is not None:
                ops.append((path, "\n".join(minus), "\n".join(plus)))
            path = (m.group(1) or m.group(2)).strip() if m else None
            minus, plus = [], []
        elif path is not None and line.startswith("-") and not line.startswith("---"):
            minus.append(line[1:])
        elif path is not None and line.startswith("+") and not line.startswith("+++"):
            plus.append(line[1:])
    if path is not None:
        ops.append((path, "\n".join(minus), "\n".join(plus)))
    return ops


def error_signature(text: str) -> str | None:
    m = _ERROR_LINE.search(text)
    if m is None:
        return None
    if m.group(1):
        msg = m.group(1)
    elif m.group(2):
        msg = f"{m.group(2)}: {m.group(3) or ''}"
    else:
        msg = m.group(4)
    msg = _MASK_PATH.sub("", msg.strip())
    return MASK_NUM.sub("N", msg)[:160]
