"""What the agent hands the human at the end of its turn: a question, a choice, a plan to approve,
a step to carry out, or an offer. Pure functions over the turn's last text.

`hand_over(text)` reads the last sentences of the text (code blocks skipped) and returns the
sentence that hands something over with its pattern and strength, or None:

| pattern | e.g. | strength |
|---|---|---|
| question | "Which approach do you prefer?", "Want me to fix this?", "需要我帮你…吗？" | 0.6 |
| choice | "Pick one: 1. … 2. …", "Let me know which", "your call" | 0.6 |
| handover | "Try it now: ./run.sh", "Run it again and check the log", "You can verify with …" | 0.5 |
| proposal | "I recommend option B", "Next step: …", "I'd add timing first" | 0.45 |
| offer | "If you want, I can also …", "Happy to …", "如果你愿意，我可以…" | 0.35 |

A question, a choice or a step for the human among the last four sentences counts when what
follows only backs it up (a recommendation, what to look for), not when the agent goes on with a
plan of its own ("Let me check."); a list of options closing the text counts when a question or a
call to choose introduces it.
"""
from __future__ import annotations

import re

from questions.claims import Claim, is_question, prose, sentences


def _c(p: str) -> re.Pattern:
    return re.compile(p)


_CHOICE = _c(r"\b(?:let me know|please (?:confirm|choose|pick|decide|review|tell|reply)|pick (?:one|an? |the )|"
             r"choose (?:one|an? |the |between)|reply (?:with|\u201c|\")|tell me (?:which|what|if|whether)|your call|"
             r"up to you|which (?:one|option|approach|do you)|say the word|say \"?(?:yes|go)\b)")
_HANDOVER = _c(r"^(?:now\s+)?(?:try (?:it|this|that|running|again)|run (?:it|this|that|the (?:test|script|command))"
               r"(?: again)?|(?:you can|you could|you'll want to|you should|please) (?:now )?(?:run|try|verify|check|"
               r"test|re-?run|rebuild|restart|reload|commit|push)|next time you|once you(?:'ve| have)? (?:run|tried|"
               r"restarted)|when you run|give it a (?:try|spin)|let me know (?:how|what|if it))")
_PROPOSAL = _c(r"^(?:i(?:'d| would) (?:recommend|suggest|go with|start|add|keep|rather)|i recommend|i suggest|"
               r"i propose|my (?:recommendation|suggestion|vote|pick|take)|recommended next|(?:the )?next (?:best )?"
               r"(?:step|improvement|move)s?\b|my honest pick)")
_OFFER = _c(r"^(?:if (?:you(?:'d)? (?:want|like|prefer)|useful|needed|helpful)|happy to|i can (?:also )?|i could |"
            r"want me to|should you want|feel free)|\bif you(?:'d)? (?:want|like)\b")
_ZH_QUESTION = _c(r"(?:吗|呢|么|还是)[？?]?\s*$|[？?]\s*$")
_ZH_OFFER = _c(r"如果你(?:愿意|需要|想)|需要我|要不要我|我可以(?:继续|帮你|直接)|我下一步可以")
_ITEM = _c(r"^(?:\d+[.)]|[-*•]|[a-d][.)]|\(\w\))\s+\S")
_CHOOSE = _c(r"(?:\b(?:options?|choices?|either|one of|which|would you like|do you want|want me to|prefer|pick|"
             r"choose|approaches)\b|选|哪|两种|还是).{0,80}[:：]?\s*$")
_GOES_ON = _c(r"^(?:let me|let's|i'll|i will|now (?:let me|i'll)|next,? i'll|i'm going to|first,? let me)\b")


def _kind(sentence: str) -> tuple[str, float] | None:
    low = sentence.lower().strip().lstrip("-*>#0123456789.) ").strip()
    if not low:
        return None
    if is_question(low):
        return "question", 0.6
    if _CHOICE.search(low):
        return "choice", 0.6
    if _HANDOVER.search(low):
        return "handover", 0.5
    if _PROPOSAL.search(low):
        return "proposal", 0.45
    if _OFFER.search(low):
        return "offer", 0.35
    if not low.isascii():
        if _ZH_QUESTION.search(low):
            return "question", 0.6
        if _ZH_OFFER.search(low):
            return "offer", 0.35
    return None


def hand_over(text: str, max_chars: int = 20000) -> Claim | None:
    """The sentence at the end of a turn's text that hands the human something, or None."""
    if not text:
        return None
    tail = text[-min(max_chars, 4000):]
    sents = [s for s in sentences(prose(tail, len(tail))) if not s.startswith(("<", "</"))]
    if not sents:
        return None
    last = sents[-1]
    found = _kind(last)
    if found is not None:
        return Claim(last, found[1], found[0])
    if not _GOES_ON.search(last.lower()):  # the agent did not go on with a plan of its own
        for s in reversed(sents[-4:-1]):
            prev = _kind(s)
            if prev is not None and prev[0] in ("question", "choice", "handover"):
                return Claim(s, prev[1], prev[0])
    # a list of options closing the text, introduced by a question or a call to choose
    lines = [ln.strip() for ln in prose(tail, len(tail)).splitlines() if ln.strip()]
    items = 0
    for ln in reversed(lines):
        if _ITEM.match(ln):
            items += 1
            continue
        if items >= 2 and (_kind(ln) or _CHOOSE.search(ln.lower())):
            intro = next((s for s in sents if s and s in ln), ln)
            return Claim(intro, 0.6, "choice")
        break
    return None
