"""Reading human messages, with their context, out of steering logs, sessions and transcripts.

Three kinds of LOG:

- a **steering log** (`$KERNELSEEK_HOME/steering.jsonl`, `sessions/steering.py`): one record per
  delivered message, already carrying the open decision point and the metrics of that moment.
  What followed is read from the session's own `events.jsonl` when it still exists, else from
  the metrics the same session's later records saw.
- a **session** (its directory or `events.jsonl`): the `human_message` events, their
  `context` (written by the runner), else the logged `decision_point` events since the previous
  human message, and the evaluations after.
- a **foreign transcript** (Claude Code, Codex; through `sessions.importers`): as a session,
  with the decision points found by running the detectors over the events (no look-ahead: a
  point counts for a message only if it fired at or before it).

Interrupts, slash commands without words and `!` shell inputs are not messages to mine; they
are counted in `LogRead.skipped`. The same message reached twice (a steering log and its
session) is kept once.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

from questions.mine.outcome import Outcome, evaluations, outcome_after, steering_evaluations


class MineError(Exception):
    """A LOG cannot be mined as asked. Printed as one line by the CLI."""

    exit_code = 2


@dataclass
class Message:
    """One human message as the miner sees it."""

    text: str
    session: str  # which session it belongs to (a path or an id)
    origin: str  # the LOG it was read from
    task: str | None = None
    t: float | None = None
    seq: int | None = None
    source: str | None = None  # bank | free | autopilot | imported
    via: str | None = None  # how an imported message arrived (slash_command, ask_user_question, ...)
    bank_id: str | None = None
    decision_point: dict | None = None  # {kind, evidence, seq}: the one open when it was sent
    kinds: tuple[str, ...] = ()  # every decision-point kind raised since the previous human message
    metrics: dict | None = None  # the latest evaluation summary then
    outcome: Outcome | None = None
    # filled by the miner
    label: str = ""
    reasons: tuple[str, ...] = ()
    question: str = ""


@dataclass
class LogRead:
    path: str
    format: str  # steering | session | events | claude-code | codex | ...
    messages: list[Message] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # why messages were not mined: count
    notes: list[str] = field(default_factory=list)
    sessions: int = 0


def _first_record(path: Path) -> dict | None:
    try:
        with open(path, "rb") as f:
            for raw in f:
                if raw.strip():
                    try:
                        rec = json.loads(raw)
                    except ValueError:
                        return None
                    return rec if isinstance(rec, dict) else None
    except OSError as exc:
        raise MineError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return None


def is_steering_log(path: Path) -> bool:
    rec = _first_record(path)
    return (isinstance(rec, dict) and "type" not in rec and isinstance(rec.get("text"), str)
            and ("session" in rec or "session_name" in rec))


def read_log(path: str | os.PathLike, *, window: int = 3, min_gain: float = 0.01,
             detector_config=None, sessions_dir: str | os.PathLike | None = None) -> LogRead:
    """Every human message of one LOG, with its context and what followed."""
    p = Path(path).expanduser()
    if p.is_file() and is_steering_log(p):
        return read_steering_log(p, window=window, min_gain=min_gain, detector_config=detector_config)
    from questions.source import load_events

    loaded = load_events(p, sessions_dir)
    session = _session_identity(p, loaded.events)
    read = LogRead(loaded.path, loaded.format, notes=list(loaded.notes), sessions=1)
    messages_from_events(loaded.events, session=session, origin=loaded.path, read=read, window=window,
                         min_gain=min_gain, detector_config=detector_config)
    return read


def _session_identity(p: Path, events: list[dict]) -> str:
    if p.is_dir():
        return str(p.resolve())
    if p.name == "events.jsonl":
        return str(p.parent.resolve())
    for ev in events[:1]:
        if ev.get("type") == "session_start" and ev.get("session_id"):
            return f"{ev.get('agent') or 'session'}:{ev['session_id']}"
    return str(p.resolve())


_SKIP_KINDS = {"interrupt": "interrupts", "command": "commands and shell inputs"}


def _skip_reason(ev: Mapping) -> str | None:
    kind = ev.get("kind") or "message"
    if kind in _SKIP_KINDS:
        return _SKIP_KINDS[kind]
    text = ev.get("text")
    if not isinstance(text, str) or not text.strip():
        return "empty"
    if text.startswith("[Request interrupted") or text.startswith("[turn interrupted"):
        return "interrupts"
    return None


def _points_by_position(events: list[dict], detector_config) -> list[tuple[int, dict]]:
    """(position, {kind, evidence, seq}) of every decision point, in log order.

    Logged `decision_point` events when the log has them (the runner wrote what fired);
    otherwise the detectors, run now, exactly as the runner would have run them live.
    """
    logged = [(i, {"kind": ev.get("kind"), "evidence": ev.get("evidence"), "seq": ev.get("about_seq")})
              for i, ev in enumerate(events)
              if ev.get("type") == "decision_point" and ev.get("kind") and not ev.get("updates")]
    if logged:
        return logged
    from questions.detectors import detect

    pos = {ev.get("seq"): i for i, ev in enumerate(events)}
    out = []
    for dp in detect(events, detector_config):
        at = pos.get(dp.at_seq)
        if at is None:
            continue
        # a point raised by the human message itself (a turn end in a conversation) precedes it
        out.append((at, {"kind": dp.kind, "evidence": dp.evidence, "seq": dp.about_seq}))
    out.sort(key=lambda x: x[0])
    return out


def messages_from_events(events: list[dict], *, session: str, origin: str, read: LogRead, window: int = 3,
                         min_gain: float = 0.01, detector_config=None) -> None:
    """Append the human messages of one session's events to `read`."""
    task = None
    for ev in events[:5]:
        if ev.get("type") == "session_start":
            task = ev.get("task")
            break
    points = _points_by_position(events, detector_config)
    evals = evaluations(events)
    latest_summary: dict | None = None
    open_points: list[dict] = []
    pi = 0
    for i, ev in enumerate(events):
        while pi < len(points) and points[pi][0] <= i:
            open_points.append(points[pi][1])
            pi += 1
        typ = ev.get("type")
        if typ == "eval_result" and not ev.get("sidechain"):
            if isinstance(ev.get("summary"), dict):
                latest_summary = ev["summary"]
            continue
        if typ != "human_message":
            continue
        why = _skip_reason(ev)
        if why is not None:
            read.skipped[why] = read.skipped.get(why, 0) + 1
            continue
        context = ev.get("context") if isinstance(ev.get("context"), dict) else {}
        dp = context.get("decision_point") if isinstance(context.get("decision_point"), dict) else None
        kinds = [p["kind"] for p in open_points]
        if dp is None and open_points:
            dp = open_points[-1]
        if dp is not None and dp.get("kind") and dp.get("kind") not in kinds:
            kinds.append(dp["kind"])
        metrics = context.get("eval") if isinstance(context.get("eval"), dict) else latest_summary
        seq = ev.get("seq") if isinstance(ev.get("seq"), int) else i
        t = ev.get("t") if isinstance(ev.get("t"), (int, float)) else None
        outcome = outcome_after(evals, seq, t, window=window, min_gain=min_gain)
        read.messages.append(Message(
            text=ev["text"], session=session, origin=origin, task=task, t=t, seq=seq, source=ev.get("source"),
            via=ev.get("via"), bank_id=ev.get("bank_id"), decision_point=dp, kinds=tuple(dict.fromkeys(kinds)),
            metrics=metrics, outcome=outcome))
        open_points = []  # the human has spoken: what was open is answered


def read_steering_log(path: Path, *, window: int = 3, min_gain: float = 0.01, detector_config=None) -> LogRead:
    """The records of a steering log, grouped by session, with what followed each.

    A record whose session is still on disk is read from the session's events (the open points
    since the previous message, the evaluations after); the others from the record itself."""
    read = LogRead(str(path), "steering")
    by_session: dict[str, list[dict]] = {}
    bad = 0
    first_bad = 0
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise MineError(f"{path}: cannot read: {exc.strerror or exc}") from None
    with f:
        for n, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw)
            except ValueError:
                bad += 1
                first_bad = first_bad or n
                continue
            if not isinstance(rec, dict) or not isinstance(rec.get("text"), str):
                bad += 1
                first_bad = first_bad or n
                continue
            key = str(rec.get("session") or rec.get("session_name") or "unknown")
            by_session.setdefault(key, []).append(rec)
    if bad:
        read.notes.append(f"{bad} malformed line(s) skipped (first: line {first_bad})")
    read.sessions = len(by_session)
    for session, records in by_session.items():
        records.sort(key=lambda r: (r.get("t") if isinstance(r.get("t"), (int, float)) else 0.0,
                                    r.get("seq") if isinstance(r.get("seq"), int) else 0))
        from_events = _session_messages(session, window=window, min_gain=min_gain, detector_config=detector_config)
        steer_evals, bests = steering_evaluations(records) if from_events is None else ([], [])
        for i, rec in enumerate(records):
            why = _skip_reason(rec)
            if why is not None:
                read.skipped[why] = read.skipped.get(why, 0) + 1
                continue
            seq = rec.get("seq") if isinstance(rec.get("seq"), int) else None
            if from_events is not None and seq in from_events:
                m = from_events[seq]
                m.origin = str(path)
                m.task = m.task or rec.get("task")
                read.messages.append(m)
                continue
            dp = rec.get("decision_point") if isinstance(rec.get("decision_point"), dict) else None
            t = rec.get("t") if isinstance(rec.get("t"), (int, float)) else None
            outcome = None
            if from_events is None:
                outcome = outcome_after(steer_evals, 2 * i, t, window=window, min_gain=min_gain,
                                        basis="steering_log", before=bests[i] if bests else None)
            kind = dp.get("kind") if dp else None
            read.messages.append(Message(
                text=rec["text"], session=session, origin=str(path), task=rec.get("task"), t=t, seq=seq,
                source=rec.get("source"), bank_id=rec.get("bank_id"), decision_point=dp,
                kinds=(kind,) if kind else (), metrics=rec.get("metrics") if isinstance(rec.get("metrics"), dict) else None,
                outcome=outcome))
    return read


def _session_messages(session: str, **kw) -> dict[int, Message] | None:
    """{seq: message} of a steering record's session, read from its events when still on disk."""
    p = Path(session)
    events = p / "events.jsonl"
    if not p.is_absolute() or not events.is_file():
        return None
    from sessions.log import read_events

    try:
        evs = read_events(events).events
    except OSError:
        return None
    tmp = LogRead(str(events), "session")
    messages_from_events(evs, session=session, origin=str(events), read=tmp, **kw)
    return {m.seq: m for m in tmp.messages if m.seq is not None}


def read_logs(paths: Iterable[str | os.PathLike], **kw) -> list[LogRead]:
    """Read every LOG; drop messages already read from another LOG (same session and seq)."""
    reads = []
    seen: set[tuple[str, int]] = set()
    for p in paths:
        read = read_log(p, **kw)
        kept = []
        for m in read.messages:
            if m.seq is not None:
                key = (m.session, m.seq)
                if key in seen:
                    read.skipped["already read from another log"] = read.skipped.get(
                        "already read from another log", 0) + 1
                    continue
                seen.add(key)
            kept.append(m)
        read.messages = kept
        reads.append(read)
    return reads
