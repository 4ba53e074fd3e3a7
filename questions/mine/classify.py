"""Telling questions from directives and from messages that supply information.

A steering question carries no answer: it asks for a measurement that can be made now, rejects
a claimed limit, or sends the agent to another layer. Only those may become bank candidates.
Every human message gets one label:

- `information`: it supplies something the agent did not have: a fact or a number about the
  hardware ("the L2 is 50 MB"), an answer or a cause ("the bug is in line 40", "it's memory
  bound"), a solution ("use wgmma", "why not use TMA?", "have you tried a 128x256 tile?", "set
  it to 4"), a reference (a URL), pasted code, output or files, a correction, or any plain
  statement. Information wins over everything else: "The L2 is 50 MB; does your tile fit?" is
  information, because the question answers itself.
- `question`: an interrogative sentence ("Is that win noise?", "what do you mean there's no
  matmul", "can you check whether the loads coalesce") and no information.
- `directive`: an action without a question ("commit and push", "run the tests", "can you
  update STATUS.md").
- `other`: acknowledgements and choices ("yes", "ok sure", "Option A", an answer picked from
  the agent's own multiple-choice question).

The rules are plain regular expressions over sentences (`asking.py`: whether a sentence asks;
`information.py`: what a message hands over; `orders.py`: when an imperative asks for a
measurement); `Classification.reasons` says which fired, so the report can show why a message was
not proposed.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from questions.mine.asking import interrogative_flags, is_request, prose, question_part, sentence_spans
from questions.mine.information import information_markers
from questions.mine.orders import changes, doubts, measurement_order
from questions.mine.phrases import ACK, strip_filler

LABELS: tuple[str, ...] = ("question", "directive", "information", "other")


@dataclass(frozen=True)
class Classification:
    label: str  # one of LABELS
    reasons: tuple[str, ...]  # the rules that decided it ("hardware number", "suggests a solution", ...)
    question_part: str  # for questions: the interrogative sentences (and measurement requests after them)


@lru_cache(maxsize=65536)
def classify(text: str, via: str | None = None) -> Classification:
    """Label one human message (see the module's docstring)."""
    text = (text or "").strip()
    if not text:
        return Classification("other", ("empty",), "")
    body = prose(text)
    spans = sentence_spans(body)
    sents = [body[a:b] for a, b in spans]
    flags = interrogative_flags(sents)
    if not any(flags) and not any(changes(strip_filler(s.lower())) for s in sents):
        # an order to measure asks when nothing else in the message asks, nor orders a change
        doubted = any(doubts(s) for s in sents)
        flags = [measurement_order(s, doubted) for s in sents]
    info = information_markers(text, sents, flags)
    if via == "ask_user_question":
        return Classification("information" if info else "other",
                              tuple(info) or ("answers the agent's question",), "")
    if info:
        return Classification("information", tuple(info), "")
    if ACK.match(text.lower()) and len(text.split()) <= 8:
        return Classification("other", ("acknowledges or chooses",), "")
    if any(flags):
        asked = sum(len(s.split()) for s, q in zip(sents, flags) if q)
        told = sum(len(s.split()) for s, q in zip(sents, flags) if not q and not is_request(s))
        if told > 30 and told > 2 * asked:
            # a question wrapped in paragraphs of context hands the agent that context
            return Classification("information", ("states context at length",), "")
        return Classification("question", ("asks",), question_part(body, spans, flags))
    if any(is_request(s) for s in sents):
        return Classification("directive", ("asks for an action",), "")
    if len(text.split()) <= 3:
        return Classification("other", ("fragment",), "")
    return Classification("information", ("states",), "")

