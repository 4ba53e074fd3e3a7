"""What a steering question asks to be measured: its topic, whatever words it uses.

Paraphrases of one question often share no words ("any smem bank conflicts?", "how many wavefronts
per shared request on the ldmatrix loads?", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared for the
V transpose?") but they ask for the same measurement. The topics below are the measurements and
checks a kernel steerer asks for, each recognised by the words, abbreviations, tool flags and
profiler metric names people use for it. A question's topics are features of its vector in
clustering (`cluster.features`), weighted by how rare each is in the corpus mined, so that two
askings of one measurement meet while two questions on different measurements do not.

Three layers, all data, in two modules: `topic_senses.SENSES`, `topic_senses.WEAK` and
`topic_senses.SCOPES` read a word in its sentence, `topic_table.TOPICS` names the measurements.

- `SENSES` rewrite the uses of an ambiguous word whose sense the context decides, before any topic
  is read: "fp noise" is an error size, not run-to-run spread; "mean and variance passes" are a
  layernorm's statistics; "a 256MB scratch write between launches" flushes the L2; "compile cache"
  is a stale build, not cache state; "wall clock" is a timer, not the GPU clock.
- `TOPICS`: each measurement or check and the patterns that name it.
- `WEAK`: cues that name a topic only in a sentence without a blocker ("rerun" is about noise,
  unless the sentence is about outputs being identical or the seed being re-timed).
- `SCOPES`: a scope read with its measurement (errors "per scenario" are a check over every
  scenario, a sanitizer run "on the tail" is a sanitizer question).

Words of six letters or more one edit from a word of the table are read as that word
("conflits", "regsiters", "throughtput"), as people type them; not the common words that are words
(`topic_senses.REAL_WORDS`: "training" is not "trailing", "tiling" not "timing").

The table is written from the domain (what ncu, nsys, ptxas, compute-sanitizer and an evaluator
report; what steerers ask), section by section, not from one corpus;
`questions/benchmark/planted/RESULTS.md` says which planted sets it was tuned on.
"""
from __future__ import annotations

import re
from functools import lru_cache

from questions.mine.dispatch import dispatched, grouping_starts
from questions.mine.normalise import near, near_index
from questions.mine.topic_senses import REAL_WORDS, SCOPES, SENSES, WEAK
from questions.mine.topic_table import TOPICS

__all__ = ["SCOPES", "SENSES", "TOPICS", "WEAK", "dispatched", "forget_memos", "read_text", "respelled", "topics"]


_SENTENCE = re.compile(r"[^.?!\n;]+")


@lru_cache(maxsize=1)
def _senses() -> tuple[re.Pattern, tuple[tuple[re.Pattern, str], ...]]:
    """Any sense at all (one scan: most texts have none), and each sense with its replacement."""
    return (re.compile(r"\b(?:" + dispatched([p for p, _ in SENSES]) + ")"),
            tuple((re.compile(p), r) for p, r in SENSES))


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[str, re.Pattern], ...]:
    return tuple((name, re.compile(r"(?<![\w-])(?:" + dispatched(list(pats)) + r")(?![\w-])"))
                 for name, pats in TOPICS)


#: where a topic's match can begin: not after a word character or "-" (the compiled patterns' edge)
_MATCH_START = re.compile(r"(?<![\w-]).", re.S)


def _match_places(text: str) -> list[int]:
    """The places where some pattern of the table (or a weak cue) matches: every match of a topic
    begins at one of them."""
    rx = _any_topic()
    first = rx.search(text)  # (one scan finds the first, or that there is none: most texts)
    if first is None:
        return []
    at = first.start()
    return [at] + [m.start() for m in _MATCH_START.finditer(text, at + 1) if rx.match(text, m.start())]


@lru_cache(maxsize=1)
def _compiled_with_starts() -> tuple[tuple[str, re.Pattern, tuple[frozenset[str] | None, frozenset[str]]], ...]:
    """Each topic's pattern with the two-character and one-character beginnings its matches can have
    (`dispatch.grouping_starts`; None: some pattern's is unknown, try it wherever the table matches)."""
    out = []
    for (name, rx), (_, pats) in zip(_compiled(), TOPICS):
        twos: set[str] | None = set()
        ones: set[str] = set()
        for p in pats:
            got = grouping_starts(p)
            if got is None:
                twos = None
                break
            twos.update(s for s in got if len(s) == 2)
            ones.update(s for s in got if len(s) == 1)
        out.append((name, rx, (None if twos is None else frozenset(twos), frozenset(ones))))
    return tuple(out)


@lru_cache(maxsize=1)
def _weak() -> tuple[tuple[str, re.Pattern, re.Pattern], ...]:
    return tuple((name, re.compile(r"(?<![\w-])(?:" + "|".join(cues) + r")(?![\w-])"), re.compile(block))
                 for name, cues, block in WEAK)


@lru_cache(maxsize=1)
def _any_topic() -> re.Pattern:
    """Every pattern at once: most texts name no topic, and one scan says so."""
    pats = [p for _, pats in TOPICS for p in pats] + [p for _, cues, _ in WEAK for p in cues]
    return re.compile(r"(?<![\w-])(?:" + dispatched(pats) + r")(?![\w-])")


_IDENT_SEP = re.compile(r"_+|(?<=[a-z0-9])\.(?=[a-z])|(?<=[a-z])-(?=[a-z])")
_WORD = re.compile(r"[a-z]{6,}")
#: the endings a stem of the table takes ("coalesc" + "ed", "throttl" + "ing")
_ENDING = re.compile(r"e?[sd]|e?rs?|ing|ings|ions?|ations?|ly|ity|ities|ness|ments?|[ai]ble|al|ally|ive|i[sz](?:e|ed|es|ing)|e")
_LITERAL = re.compile(r"(?<![\\a-z])[a-z]{6,}")
#: what in a pattern is not a whole word of it: a lookaround (where, not what), a group that ends a
#: word ("att(?:n|ention)": "ention" is no word), and a word that a group begins ("(?:re-?)?measure")
_NOT_WORDS = re.compile(r"\(\?<?[!=][^)]*\)|(?<=[a-z])\(\?:[^()]*\)\??|\)\??(?=[a-z])")


@lru_cache(maxsize=1)
def _table_words() -> tuple[frozenset[str], dict[str, tuple[str, ...]]]:
    """The literal words of six letters or more in the table's patterns, alternatives of a group
    included ("dominant" in "(?:top|dominant) stall": a word of the table is never respelt into
    another, "dominant" into the stem "dominat"); some are stems ("coalesc", "throttl"). With an
    index of their one-deletion forms for spelling (`normalise.near_index`)."""
    words: set[str] = set()
    for _, pats in TOPICS:
        for p in pats:
            words.update(_LITERAL.findall(_NOT_WORDS.sub(" ", p)))
    return frozenset(words), near_index(words)


@lru_cache(maxsize=65536)
def respelled(word: str) -> str:
    """A word of six letters or more one edit from exactly one word (or stem) of the table, read as
    that word ("conflits" -> "conflicts", "regsiters" -> "registers"); any other word as it is."""
    words, index = _table_words()
    if len(word) < 6 or word in REAL_WORDS or any(word[:k] in words for k in range(6, len(word) + 1)):
        return word
    # a word that is another's beginning is an inflection ("permute", "permuted"), not a typo
    # nor is another ending of the same stem ("produced", "producer"; "counted", "counter")
    hits = {w for w in near(word, index) if w[0] == word[0] and not (w.startswith(word) or word.startswith(w))
            and not (len(w) == len(word) and w[:-1] == word[:-1])}
    if hits:
        return next(iter(hits)) if len(hits) == 1 else word
    # a misspelt stem followed by its ending ("coalsced": "coalsc" + "ed"), the longest stem first;
    # the stem must end where the head does ("variant" is not "variab" + "t": the edit would be
    # the stem's last letter, where an ending begins, not a typo inside the stem), and what follows
    # must be an ending words take ("blockdim" is not "blocked" + "im")
    for cut in range(len(word) - 1, 5, -1):
        head, tail = word[:cut], word[cut:]
        if _ENDING.fullmatch(tail) is None:
            continue
        got = {w + tail for w in near(head, index)
               if w[0] == word[0] and head[-1] == w[-1] and not (w.startswith(head) or head.startswith(w))}
        if got:
            return next(iter(got)) if len(got) == 1 else word
    return word


def _respell(text: str) -> str:
    return _WORD.sub(lambda m: respelled(m.group(0)), text)


def read_text(text: str) -> str:
    """The text as the topics read it: lower case, misspelt table words corrected, the senses of
    ambiguous words settled (`SENSES`)."""
    low = _respell((text or "").lower())
    any_sense, senses = _senses()
    if any_sense.search(low) is not None:
        for rx, repl in senses:
            low = rx.sub(repl, low)
    return low


@lru_cache(maxsize=65536)
def topics(text: str) -> tuple[str, ...]:
    """The topics a question asks about, in the table's order. Identifiers are read as words too:
    a profiler metric (`l1tex__data_bank_conflicts_pipe_lsu_mem_shared`, `sm__warps_active.avg`)
    names what it measures."""
    low = read_text(text)
    spaced = _IDENT_SEP.sub(" ", low) if "_" in low or "." in low or "-" in low else low
    # where any pattern of the table matches (one pass: most texts have no such place); a topic is
    # then tried only there, and only if its patterns can begin with what is there
    read = [(low, _match_places(low))]
    if spaced is not low:
        read.append((spaced, _match_places(spaced)))
    if not any(places for _, places in read):
        return ()
    found = {name for name, rx, (t2, t1) in _compiled_with_starts()
             if any((t2 is None or s[p:p + 2] in t2 or s[p] in t1) and rx.match(s, p) for s, places in read for p in places)}
    for name, cue, block in _weak():
        if name in found:
            continue
        for s in _SENTENCE.findall(low):
            if cue.search(s) and not block.search(s):
                found.add(name)
                break
    for scope, measurements, read_as in SCOPES:
        if scope in found and found & measurements:
            found.discard(scope)
            if read_as is not None:
                found.add(read_as)
    return tuple(name for name, _ in TOPICS if name in found)


def forget_memos() -> None:
    """Forget the topics and spellings of texts seen so far (as a fresh process); the compiled
    table stays."""
    topics.cache_clear()
    respelled.cache_clear()
