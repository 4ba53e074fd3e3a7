"""The inbox: human messages travelling from a console to the runner, exactly once.

Consoles append lines to `inbox.jsonl` (each in one O_APPEND write, under a shared flock so
several consoles can type at once). The runner reads the lines it has not delivered, delivers
each at the next turn boundary, and acknowledges it by writing a `human_message` event carrying
the line's `inbox_id` to events.jsonl (fsynced) *before* the model sees it. The log is the
record of delivery: after a crash, the acknowledged ids are read back from it, so every line is
delivered once and none is lost. Each acknowledged message is also copied, with its context, to
the per-user steering log (sessions/steering.py).

A `stop` line (`request_stop`, what `kernelseek stop` writes) is no message: the runner's inbox
watcher ends the session when it sees one, and the `session_end` event carries its id. This is
how a session is stopped from any node that shares the session directory (a pid means nothing
there). A stop made before a `--resume` is void for the resumed runner (`session_resume` lists it
in `voided_stops`).

The inbox file is created private (0600; 0660 in a directory shared with a group).
"""
from __future__ import annotations

import fcntl
import json
import os
import secrets
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from sessions.layout import first_event
from sessions.log import LogReader, Malformed, SessionWriter, read_events
from sessions.steering import append_steering, steering_record


@dataclass
class InboxMessage:
    id: str
    text: str
    t: float
    kind: str = "message"  # message | interrupt | stop
    source: str = "free"  # bank | free | autopilot
    bank_id: str | None = None
    decision_point: int | None = None  # seq of the open decision point
    context: dict = field(default_factory=dict)
    author: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "InboxMessage":
        known = {k: d[k] for k in cls.__dataclass_fields__ if k in d}
        return cls(**known)


def new_inbox_id() -> str:
    return f"m{int(time.time() * 1000):x}{secrets.token_hex(3)}"


class Inbox:
    """One session's inbox. `post` is for consoles; `pending` / `acknowledge` for the runner."""

    def __init__(self, session_dir: str | os.PathLike) -> None:
        self.dir = Path(session_dir)
        self.path = self.dir / "inbox.jsonl"
        self.events_path = self.dir / "events.jsonl"
        self._reader = LogReader(self.path)
        self._messages: dict[str, InboxMessage] = {}
        self._order: list[str] = []
        self._delivered: set[str] | None = None

    # -- console side -------------------------------------------------------------------------

    def post(self, text: str, *, kind: str = "message", source: str = "free",
             bank_id: str | None = None, decision_point: int | None = None,
             context: dict | None = None, author: str | None = None) -> InboxMessage:
        """Append a message; durable (fsynced) when this returns."""
        if kind not in ("message", "interrupt"):  # a stop is request_stop
            raise ValueError(f"inbox kind must be message or interrupt, not {kind!r}")
        msg = InboxMessage(id=new_inbox_id(), text=text, t=round(time.time(), 6), kind=kind,
                           source=source, bank_id=bank_id, decision_point=decision_point,
                           context=context or {}, author=author or os.environ.get("USER"))
        self._append(msg)
        return msg

    def request_stop(self, *, author: str | None = None, reason: str = "kernelseek stop") -> InboxMessage:
        """Ask the runner to end the session cleanly (durable when this returns)."""
        msg = InboxMessage(id=new_inbox_id(), text=reason, t=round(time.time(), 6), kind="stop",
                           source="free", author=author or os.environ.get("USER"))
        self._append(msg)
        return msg

    def _append(self, msg: InboxMessage) -> None:
        line = json.dumps({"type": "inbox", **msg.to_dict()}, ensure_ascii=False,
                          separators=(",", ":")).encode() + b"\n"
        self.dir.mkdir(parents=True, exist_ok=True)
        shared = os.stat(self.dir).st_mode & 0o070
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o660 if shared else 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)

    # -- runner side --------------------------------------------------------------------------

    @property
    def malformed(self) -> list[Malformed]:
        return self._reader.malformed

    def _lines(self) -> list[InboxMessage]:
        for raw in self._reader.read().events:
            msg = InboxMessage.from_dict(raw)
            if msg.id not in self._messages:
                self._messages[msg.id] = msg
                self._order.append(msg.id)
        return [self._messages[i] for i in self._order]

    def messages(self) -> list[InboxMessage]:
        """Every message posted so far, in order (reads what is new since the last call); stop
        requests are not messages (see `stop_requests`)."""
        return [m for m in self._lines() if m.kind != "stop"]

    def stop_requests(self) -> list[InboxMessage]:
        """Stop requests no session_end or session_resume has answered yet, oldest first."""
        done = self.delivered_ids()
        return [m for m in self._lines() if m.kind == "stop" and m.id not in done]

    def void_stops(self) -> list[str]:
        """Mark the stop requests not yet answered as answered (a `--resume` overrides them);
        their ids, for session_resume's `voided_stops`."""
        ids = [m.id for m in self.stop_requests()]
        self.delivered_ids().update(ids)
        return ids

    def delivered_ids(self) -> set[str]:
        """Ids acknowledged in the session's log (read once, then kept up to date in memory):
        messages by their human_message, stop requests by the session_end that obeyed them or
        the session_resume that voided them."""
        if self._delivered is None:
            done: set[str] = set()
            for ev in read_events(self.events_path).events:
                kind = ev.get("type")
                if kind in ("human_message", "session_end") and ev.get("inbox_id"):
                    done.add(ev["inbox_id"])
                elif kind == "session_resume":
                    done.update(i for i in ev.get("voided_stops") or () if isinstance(i, str))
            self._delivered = done
        return self._delivered

    def pending(self) -> list[InboxMessage]:
        """Messages posted and not yet acknowledged, oldest first."""
        done = self.delivered_ids()
        return [m for m in self.messages() if m.id not in done]

    def acknowledge(self, writer: SessionWriter, msg: InboxMessage, **extra) -> dict:
        """Record delivery: a fsynced `human_message` event carrying the inbox id.

        Call this before the message is handed to the model; it is the commit point.
        """
        done = self.delivered_ids()
        if msg.id in done:
            raise ValueError(f"inbox message {msg.id} was already delivered")
        fields = {
            "text": msg.text, "source": msg.source, "bank_id": msg.bank_id,
            "decision_point": msg.decision_point, "inbox_id": msg.id, "kind": msg.kind,
            "context": msg.context, "author": msg.author, "posted_t": msg.t,
        }
        fields.update(extra)
        event = writer.append("human_message", **fields)
        done.add(msg.id)
        try:
            append_steering(steering_record(event, session_dir=self.dir, task=self._task()))
        except OSError:
            pass  # the session log holds the message; the per-user copy is best effort
        return event

    def _task(self) -> str | None:
        return first_event(self.events_path).get("task")
