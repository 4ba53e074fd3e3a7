"""The records the fold keeps beside the rows, each with the event index it happened at (so the
timeline can bisect them): evaluations and their runs, decision points, human messages, and the
messages posted to the inbox with their delivery.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)


class EvalRecord:
    ei: int
    seq: int
    t: float
    n: int | None
    summary: dict
    report: str | None
    row: int
    best: float | None  # best geomean of the session as of this evaluation

    @property
    def geomean(self) -> float | None:
        g = self.summary.get("geomean")
        return float(g) if isinstance(g, (int, float)) and not isinstance(g, bool) else None

    @property
    def all_correct(self) -> bool:
        return bool(self.summary.get("all_correct", False))

    @property
    def goal_met(self) -> bool:
        return bool(self.summary.get("goal_met", False))


@dataclass(slots=True)


class DecisionRecord:
    ei: int
    seq: int
    t: float
    kind: str
    evidence: str
    about_seq: int | None
    suggestions: list[dict]
    row: int
    strength: float | None = None
    detail: object = None
    answers: list[int] = field(default_factory=list)  # indices into humans
    count: int = 1  # a loop or stall that grew: how often it repeated
    reasons: list = field(default_factory=list)  # [{kind, evidence, strength}] when several kinds fired

    def context(self) -> dict:
        """The decision point as a human message's context carries it."""
        return {"seq": self.seq, "kind": self.kind, "evidence": self.evidence,
                "about_seq": self.about_seq}


@dataclass(slots=True)


class HumanRecord:
    ei: int
    seq: int
    t: float
    text: str
    source: str
    bank_id: str | None
    decision_point: int | None
    inbox_id: str | None
    row: int
    author: str | None = None


@dataclass(slots=True)


class EvalRun:
    """An evaluation from eval_start to its eval_result (end_ei -1 while it runs)."""

    start_ei: int
    row: int
    n: int | None
    end_ei: int = -1
    marks: list[tuple[int, int, int, str]] = field(default_factory=list)  # (ei, done, total, scenario)
    total: int | None = None


@dataclass(slots=True)


class Posted:
    """A message in the session's inbox (posted by this console or another) and its delivery."""

    inbox_id: str
    text: str
    t: float
    source: str
    bank_id: str | None
    decision_point: int | None
    mine: bool = False
    delivered_seq: int | None = None
