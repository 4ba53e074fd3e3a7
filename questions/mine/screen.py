"""A second opinion on the labels: something outside the rules (a model, a reviewer) reads the
distinct human messages and says which are questions, and the miner proposes from that.

The classifier's rules (`classify.py`) read a sentence's form; on new material they lose askings
typed in forms they have no rule for ("1) time it 2) post the numbers", "hw much vs cuBLAS") and
let through information that reads like a question (a cause handed over with its remedy). Every
held-out miss of the model's regrouping was such a loss (questions/benchmark/planted/RESULTS.md).
A `Screener` sees each distinct message once and answers a label for it:

    answer = screener(shown)                    # Screening: (index, label) pairs, notes, who
    applied = apply_screening(answer, shown)    # what counts of it

What the answer may do is decided here and in the miner, by code, whatever it says: only the
messages it was shown are relabelled (an index it was not shown, or named again, is dropped; a
label outside `LABELS` is dropped, an index given two labels keeps the rules'), a message it leaves
out keeps the rules' label, and some
messages are never shown, so never relabelled (`shown_to_screen`): questions sent from the bank
or by the autopilot (questions by construction), answers to the agent's own question, and
messages that hand over code, output, files or a reference (information the agent did not have,
whatever else they ask). Nothing here imports a model: `agent/screening.py` asks one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from questions.mine.classify import LABELS

# the rules' reasons that no second opinion overrides: the message hands over material
HANDS_OVER = frozenset({"attaches files or images", "pastes code or output", "gives a reference (URL)"})


@dataclass(frozen=True)
class Shown:
    """One distinct message, as the screener sees it."""

    index: int
    text: str


@dataclass
class Screening:
    """A screener's answer: a label per shown index (validated by `apply_screening`)."""

    labels: list[tuple[int, str]]
    by: str  # who answered: "claude-... (1 request)", "reviewer", ...
    notes: list[str] = field(default_factory=list)
    ok: bool = True  # False: no usable answer; the rules' labels stand


class Screener(Protocol):
    def __call__(self, shown: list[Shown]) -> Screening: ...


@dataclass
class AppliedScreening:
    labels: dict[int, str]  # shown index -> the label in force
    dropped: int = 0  # pairs naming an index it was not shown, one already labelled, or no label of LABELS
    left_out: int = 0  # shown messages it gave no label (the rules' stands)


def apply_screening(answer: Screening, shown: list[Shown]) -> AppliedScreening:
    """The labels to use: `answer` checked against what was shown. A pair naming an index it was
    not shown, or a label outside LABELS, is dropped; an index given two different labels keeps
    the rules' (the answer contradicts itself), one given the same label twice counts once."""
    indices = {s.index for s in shown}
    said: dict[int, set[str]] = {}
    dropped = 0
    for pair in answer.labels:
        try:
            i, label = pair
        except (TypeError, ValueError):
            dropped += 1
            continue
        if not isinstance(i, int) or isinstance(i, bool) or i not in indices or label not in LABELS:
            dropped += 1
            continue
        if i in said:
            dropped += 1
        said.setdefault(i, set()).add(label)
    labels = {i: next(iter(ls)) for i, ls in said.items() if len(ls) == 1}
    return AppliedScreening(labels, dropped=dropped, left_out=len(indices - labels.keys()))


def shown_to_screen(source: str | None, via: str | None, bank_id: str | None, reasons: tuple[str, ...],
                    text: str) -> bool:
    """Whether a message goes to the screener at all (see the module's docstring)."""
    if not text.strip():
        return False
    if source == "autopilot" or (source == "bank" and bank_id):
        return False
    if via == "ask_user_question":
        return False
    return not HANDS_OVER.intersection(reasons)
