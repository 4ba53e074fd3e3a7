"""Turns: where the agent stops and the human must act.

`TurnWatch` is part of `questions.detectors.Detectors` (one per log). A turn ends at a runner's
stop check, at the session's end, or (in a conversation: a foreign transcript) when the human
speaks right after the agent's text. What the end of a turn is:

- `agent_question` when the agent's last words hand the human a question, a choice, a plan to
  approve or a step to carry out (`questions.handover`), or when it calls a tool that asks the human
  (Claude Code's AskUserQuestion, ExitPlanMode): the steerer must answer;
- otherwise `completion_claim` (rule `turn_end`) when the turn did some work: ending a turn is
  claiming to be done.

At most one of each per turn; a turn whose words already made a completion claim adds nothing.
"""
from __future__ import annotations

from typing import Callable, Mapping

from questions import claims
from questions.decision import DetectorConfig
from questions.handover import hand_over

#: Tools whose call is the agent asking the human (the answer comes back as the tool's result).
ASKING_TOOLS = frozenset(("askuserquestion", "exitplanmode", "request_user_input", "ask_user", "ask_human",
                          "askfollowupquestion", "ask_followup_question"))


def _asking_text(inp) -> str:
    """The question(s) an asking tool puts to the human, for the evidence."""
    if not isinstance(inp, Mapping):
        return ""
    qs = inp.get("questions")
    if isinstance(qs, list):
        texts = [q.get("question") for q in qs if isinstance(q, Mapping) and isinstance(q.get("question"), str)]
        if texts:
            return " / ".join(texts)
    for key in ("question", "plan", "prompt", "message", "text"):
        if isinstance(inp.get(key), str):
            return inp[key]
    return ""


class TurnWatch:
    def __init__(self, config: DetectorConfig, fire: Callable[..., None], goal_facts: Callable[[], dict]) -> None:
        self.config = config
        self._fire = fire
        self._goal_facts = goal_facts
        self.calls = 0  # tool calls in this turn
        self.claimed = False  # a completion claim was made in this turn
        self.asked = False  # an agent_question was raised in this turn
        self.last_agent: str | None = None  # "text" | "tool"
        self.last_text: tuple[int | None, str] | None = None
        self.conversation = False  # a foreign transcript: every turn ends with the human's next message

    def new_turn(self) -> None:
        self.calls = 0
        self.claimed = False
        self.asked = False
        self.last_agent = None

    def on_text(self, seq, text: str) -> None:
        self.last_agent = "text"
        self.last_text = (seq, text)

    def on_call(self, ev: Mapping, seq, out) -> None:
        self.last_agent = "tool"
        self.calls += 1
        name = str(ev.get("name") or "").lower()
        if name in ASKING_TOOLS and not self.asked:
            self.asked = True
            words = claims.evidence_text(_asking_text(ev.get("input")) or f"the agent called {ev.get('name')}")
            self._fire(out, "agent_question", f"asks the human ({ev.get('name')}): \u201c{words}\u201d", seq, seq,
                       {"rule": "asking_tool", "tool": ev.get("name")}, 0.7)

    def on_result(self) -> None:
        self.last_agent = "tool"

    def on_human(self, ev: Mapping, seq, out) -> None:
        if ev.get("kind") == "interrupt" or str(ev.get("text", "")).startswith("[Request interrupted"):
            self.new_turn()
            return
        if self.last_agent == "text":
            self.turn_end(seq, None, out)
        self.new_turn()

    def on_stop(self, ev: Mapping, seq, out) -> None:
        self.turn_end(seq, ev, out)
        self.new_turn()

    def on_end(self, seq, out, ended: bool) -> None:
        if self.last_agent == "text" and not ended:
            self.turn_end(seq, None, out)
        self.new_turn()

    def turn_end(self, seq, stop: Mapping | None, out) -> None:
        cfg = self.config
        last = self.last_text if self.last_agent == "text" or stop is not None else None
        about = seq
        handed = None
        words = ""
        if last is not None:
            about = last[0] if stop is None and last[0] is not None else seq
            handed = hand_over(last[1], cfg.max_scan_chars)
            tail = list(claims.sentences(claims.prose(last[1][-2000:], 2000)))
            words = claims.evidence_text(tail[-1]) if tail else ""
        if handed is not None:
            if not self.asked and (stop is None or cfg.question_on_stop) and (
                    handed.pattern != "offer" or cfg.question_offers):
                self.asked = True
                self._fire(out, "agent_question", "the turn ends by asking the human: "
                           f"\u201c{claims.evidence_text(handed.sentence)}\u201d", about, seq,
                           {"rule": handed.pattern}, handed.strength)
            if stop is None and not cfg.completion_turn_end_questions:
                return  # in a conversation a turn that asks is not a claim of being done
        if not cfg.completion_on_turn_end or self.claimed or self.calls < cfg.completion_turn_min_tool_calls:
            return
        if stop is None and self.conversation and cfg.completion_turn_end_asserts:
            # in a conversation every turn ends with the human's next message: only a turn whose
            # last words assert something to check (it works, it is done, this is the cause) is a claim
            said = claims.asserts(last[1], cfg.max_scan_chars) if last is not None else None
            if said is None:
                return
            words = claims.evidence_text(said.sentence)
        detail: dict = {"rule": "turn_end", **self._goal_facts()}
        strength = 0.4
        verdict = ""
        if stop is not None:
            detail["goal_met"] = stop.get("goal_met")
            if stop.get("reasons"):
                detail["reasons"] = stop.get("reasons")
            if stop.get("goal_met") is False:
                strength = 0.6
            verdict = " (stop check: goal met)" if stop.get("goal_met") else " (stop check: goal not met)"
        n = self.calls
        evidence = f"ended its turn after {n} tool call{'s' if n != 1 else ''}{verdict}"
        if words:
            evidence += f": \u201c{words}\u201d"
        self.claimed = True
        self._fire(out, "completion_claim", evidence, about, seq, detail, strength)
