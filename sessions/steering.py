"""The per-user steering log: every human message of every session, with its context.

`$KERNELSEEK_HOME/steering.jsonl` gets one line per delivered human message (bank, free-form
or autopilot): when, which session and task, the text, the bank id, the open decision point and
the metrics at that moment. It is what `kernelseek mine` turns into a better bank.
Set KERNELSEEK_STEERING_LOG to another path, or to `off`, to move or silence it.
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
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, line.encode("utf-8", "surrogatepass"))
    finally:
        os.close(fd)
    return path
