"""Decision points live, and the autopilot that answers them from the bank.

`Detection` feeds every event the runner writes to the detectors of `questions/` and returns
the `decision_point` fields to log, with the ranked bank suggestions attached (ranking knows
the task's arch and capabilities from session_start, and what was already asked from the
human_message events). `Autopilot` keeps the latest decision point that has suggestions; at a
turn boundary, once its grace period has passed and no human has written since it fired, it
names the top-ranked question for its kind not yet asked in this session. The runner posts it to the inbox
(source `autopilot`), so it travels the same path as a human's message: delivered at the
boundary, acknowledged by a `human_message` event.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

SUGGESTIONS = 5


class Detection:
    """The detectors, the bank and the ranking context; a no-op when questions/ cannot load."""

    def __init__(self, detector_settings: dict | None = None) -> None:
        self.problem: str | None = None
        self.detectors = self.bank = self.context = None
        try:
            from questions.detectors import DetectorConfig, Detectors
            from questions.loader import load_bank
            from questions.ranking import RankContext
        except ImportError as exc:
            self.problem = f"decision-point detection is off: {exc}"
            return
        config = DetectorConfig.from_mapping(detector_settings or {})  # a bad knob is the user's error
        try:
            self.bank = load_bank()
        except Exception as exc:  # noqa: BLE001 - detection is an aid; the session goes on without it
            self.problem = f"decision-point detection is off: {exc}"
            return
        self.detectors = Detectors(config)
        self.context = RankContext()

    @property
    def on(self) -> bool:
        return self.detectors is not None

    def feed(self, ev: dict) -> list[dict]:
        """The decision_point event fields this event raises (usually none)."""
        if self.detectors is None:
            return []
        from questions.ranking import suggestions

        self.context.add(ev)
        out = []
        for dp in self.detectors.feed(ev):
            fields = dp.to_event_fields()
            if dp.updates is None:  # an update (a loop that grew) keeps the point's first suggestions
                fields["suggestions"] = suggestions(dp, self.bank, self.context, n=SUGGESTIONS)
            out.append(fields)
        return out

    def replay(self, events: list[dict]) -> None:
        """Bring detectors and ranking up to date with an existing log, firing nothing."""
        for ev in events:
            self.feed(ev)

    def top_unasked(self, kind: str) -> dict | None:
        """The best bank question for a decision-point kind not yet asked in this session."""
        if self.detectors is None:
            return None
        from questions.ranking import rank

        top = rank(kind, self.bank, self.context, include_asked=False, limit=1)
        return {"id": top[0].id, "text": top[0].text} if top else None


@dataclass
class PendingQuestion:
    dp_seq: int
    dp_t: float
    kind: str
    evidence: str


class Autopilot:
    def __init__(self, detection: Detection, grace_s: float = 0.0) -> None:
        self.detection = detection
        self.grace_s = grace_s
        self.pending: PendingQuestion | None = None

    def note(self, ev: dict) -> None:
        """Follow the log: remember the newest decision point; a human's message answers it."""
        if ev.get("type") == "decision_point" and ev.get("suggestions"):
            self.pending = PendingQuestion(ev["seq"], ev["t"], ev.get("kind", ""), ev.get("evidence", ""))
        elif ev.get("type") == "human_message" and ev.get("source") != "autopilot" and self.pending:
            if (ev.get("posted_t") or ev.get("t") or 0) >= self.pending.dp_t:
                self.pending = None

    def due(self, now: float | None = None, human_posted_since: bool = False) -> dict | None:
        """The question to send now, if any: {text, bank_id, decision_point, kind, evidence}."""
        p = self.pending
        if p is None:
            return None
        if human_posted_since:
            self.pending = None
            return None
        if (now if now is not None else time.time()) < p.dp_t + self.grace_s:
            return None
        self.pending = None
        top = self.detection.top_unasked(p.kind)
        if top is None:
            return None
        return {"text": top["text"], "bank_id": top["id"], "decision_point": p.dp_seq, "kind": p.kind,
                "evidence": p.evidence}
