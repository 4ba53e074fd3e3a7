"""The per-user steering log: every human message of every session, with its context.

`$KERNELSEEK_HOME/steering.jsonl` gets one line per delivered human message (bank, free-form
or autopilot): when, which session and task, the text, the bank id, the open decision point and
the metrics at that moment. It is what `kernelseek mine` turns into a better bank.
Set KERNELSEEK_STEERING_LOG to another path, or to `off`, to move or silence it.

The session log is the record of delivery; this is a copy, written just after it. A runner that
dies between the two would leave a message out of the copy, so a resumed runner calls
`restore_steering` with its session's events: it appends the messages the copy lacks (by inbox
id, else by seq), and appends nothing when none is missing.
"""
from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path

from sessions.layout import kernelseek_home


def steering_log_path() -> Path | None:
    env = os.environ.get("KERNELSEEK_STEERING_LOG")
    if env and env.lower() in ("off", "0", "none"):
        return None
    return Path(env).expanduser() if env else kernelseek_home() / "steering.jsonl"


def steering_record(event: dict, *, session_dir: str | os.PathLike, task: str | None) -> dict:
    """The steering-log line for a `human_message` event."""
    context = event.get("context") or {}
    return {
        "v": 1,
        "t": event.get("t"),
        "session": str(Path(session_dir).resolve()),
        "session_name": Path(session_dir).name,
        "task": task,
        "seq": event.get("seq"),
        "text": event.get("text"),
        "source": event.get("source"),
        "kind": event.get("kind", "message"),
        "bank_id": event.get("bank_id"),
        "inbox_id": event.get("inbox_id"),
        "decision_point": context.get("decision_point"),
        "metrics": context.get("eval") or context.get("metrics"),
    }


def append_steering(record: dict, path: Path | None = None) -> Path | None:
    """Append one record (whole line, under a lock); returns the log path, or None when off."""
    path = path or steering_log_path()
    if path is None:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str) + "\n"
    _append_lines(path, [line])
    return path


def _append_lines(path: Path, lines: list[str]) -> None:
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        data = "".join(lines).encode("utf-8", "surrogatepass")
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data  # a torn line (a writer killed mid-line) stays apart
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _recorded_keys(path: Path, session: str) -> set[tuple[str, object]]:
    """(kind, key) of the records of `session` already in the steering log."""
    keys: set[tuple[str, object]] = set()
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        return keys
    needle = json.dumps(session, ensure_ascii=False)[1:-1].encode("utf-8", "surrogatepass")
    with f:
        for raw in f:
            if needle not in raw:  # most lines belong to other sessions: skip them unparsed
                continue
            try:
                rec = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(rec, dict) or rec.get("session") != session:
                continue
            if rec.get("inbox_id"):
                keys.add(("inbox", rec["inbox_id"]))
            if isinstance(rec.get("seq"), int):
                keys.add(("seq", rec["seq"]))
    return keys


def restore_steering(events: list[dict], *, session_dir: str | os.PathLike, task: str | None,
                     path: Path | None = None) -> int:
    """Append the session's human messages that the steering log lacks; returns how many.

    Idempotent: a message already there (same session and inbox id, or same seq when it has no
    inbox id) is not written again."""
    path = path or steering_log_path()
    if path is None:
        return 0
    session = str(Path(session_dir).resolve())
    have = _recorded_keys(path, session)
    lines = []
    for ev in events:
        if ev.get("type") != "human_message":
            continue
        key = ("inbox", ev["inbox_id"]) if ev.get("inbox_id") else ("seq", ev.get("seq"))
        if key in have:
            continue
        have.add(key)
        record = steering_record(ev, session_dir=session_dir, task=task)
        lines.append(json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str) + "\n")
    if lines:
        path.parent.mkdir(parents=True, exist_ok=True)
        _append_lines(path, lines)
    return len(lines)
