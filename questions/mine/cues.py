"""Learned cues: words that, in steerers' paraphrases, go with one measurement.

The topic table (`questions.mine.topics`) is written by hand from the domain; new writers keep
naming a measurement in words it lacks ("how many warps r actually resident per SM", "based on
what? what's it actually running at"). `learned_cues.json` holds cues learned from paraphrases
grouped by question (the planted sets, `questions.benchmark.cues` writes it): a word is a cue for
a topic when it appears in at least `min_askings` askings and at least `purity` of them belong to
questions that ask for that topic. An asking the table names no topic for takes the topic most of
its cue words vote for, at least two of them (`learned_topics`); an asking the table reads is left as the table reads it.

The file says which sets it was learned from, so a figure on a set is held out only when that set
is not among them (`questions/benchmark/planted/RESULTS.md`).
"""
from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache
from pathlib import Path

from questions.mine.normalise import generalise, terms

#: cue words that must agree on a topic before it is read
MIN_VOTES = 2

CUES_FILE = Path(__file__).resolve().parent / "learned_cues.json"


def cue_words(text: str) -> frozenset[str]:
    """The content terms a cue can be (no placeholders, no secondary or topic marks)."""
    return frozenset(t for t in terms(generalise(text).text) if t[0] not in "<~@")


@lru_cache(maxsize=1)
def _cues() -> dict[str, str]:
    try:
        data = json.loads(CUES_FILE.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    return dict(data.get("cues", {}))


def learned_topics(text: str) -> tuple[str, ...]:
    """The topic(s) most of a text's cue words vote for (several on a tie; none without a cue)."""
    return voted_topics(cue_words(text))


def terms_cue_words(term_list: list[str]) -> frozenset[str]:
    """The cue words of a question's terms as the miner has them (`~` marks a request's term)."""
    return frozenset(t[1:] if t[0] == "~" else t for t in term_list if t[0] not in "<@" and t != "~")


@lru_cache(maxsize=65536)
def voted_topics(words: frozenset[str]) -> tuple[str, ...]:
    """The topic(s) most of these cue words vote for, when at least `MIN_VOTES` agree."""
    cues = _cues()
    if not cues:
        return ()
    votes = Counter(cues[w] for w in words if w in cues)
    if not votes:
        return ()
    top = max(votes.values())
    if top < MIN_VOTES:  # one word ("commit", "result") is too little to say what is measured
        return ()
    return tuple(sorted(t for t, v in votes.items() if v == top))
