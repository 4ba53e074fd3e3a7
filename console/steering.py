"""Asking a session a question: the questions a decision point offers, and the inbox line.

The session screen and the fleet view both answer decision points through here, so a question
sent from either carries the same context and arrives the same way (exactly once, acknowledged
by the runner's `human_message`).
"""
from __future__ import annotations

from typing import Protocol

from console.bank import BankSource
from sessions.inbox import Inbox, InboxMessage


class Decision(Protocol):
    """A decision point as the screens hold it (console.model.DecisionRecord, sessions.digest.OpenDecision)."""

    seq: int
    kind: str
    suggestions: list[dict]

    def context(self) -> dict: ...


def offered_questions(decision: Decision | None, bank: BankSource, rank_events: list[dict]) -> tuple:
    """(bank id, text) pairs for keys 1-9: the decision point's own ranked suggestions, else the
    bank ranked live for its kind (from the session's start and the questions already asked)."""
    if decision is None:
        return ()
    if decision.suggestions:
        return tuple((s.get("id"), s.get("text")) for s in decision.suggestions[:9])
    return tuple(bank.rank(decision.kind, rank_events) or ())


def post_question(inbox: Inbox, text: str, *, source: str, bank_id: str | None = None, kind: str = "message",
                  decision: Decision | None = None, latest_eval: dict | None = None,
                  seen_seq: int | None = None) -> InboxMessage:
    """Append a question to the session's inbox with the context the steering log keeps."""
    context = {
        "decision_point": decision.context() if decision else None,
        "eval": latest_eval,
        "bank_id": bank_id,
        "seen_seq": seen_seq,
    }
    return inbox.post(text, kind=kind, source=source, bank_id=bank_id,
                      decision_point=decision.seq if decision else None, context=context)
