"""The grouped alternation (questions/mine/dispatch.py) is a speed-up only: it must match wherever
the plain alternation of the same patterns matches, on any text, including patterns whose start the
parser cannot read."""
from __future__ import annotations

import random
import re

import pytest

from questions.mine.dispatch import dispatched, starts
from questions.mine.topic_senses import SENSES
from questions.mine.topic_table import TOPICS


@pytest.mark.parametrize(("pattern", "expected"), [
    ("(?:a |the )?single", {"a ", "th", "si"}),
    (r"(?<!smem )(?:memory )?access pattern", {"me", "ac"}),  # a lookbehind is no character
    (r"x{3}y", {"xx"}),
    (r"(?:ab|c)+d", {"ab", "ca", "cc", "cd"}),
    (r"\+ ?1 (?:padding|pad)", {"+ ", "+1"}),
    (r"-?inf\b", {"-i", "in"}),
    (r"(?:smsp__)?average_warp_latency\w*", {"sm", "av"}),  # \w after the start does not matter
    (r"ab[^c]d", {"ab"}),
    (r"\bcub (temp(?:orary)? storage)", {"cu"}),
    (r"a?", {"", "a"}),  # may match nothing: tried everywhere
])
def test_the_starts_of_a_pattern_are_read_from_its_text(pattern, expected):
    assert starts(pattern) == expected


@pytest.mark.parametrize("pattern", [r"\w*hit_rate", r"a.b", r"[^a]bc", r"(?i:x)y", r"[\w/ -]{1,30} vs"])
def test_a_start_the_parser_cannot_read_is_unknown_and_still_matched(pattern):
    assert starts(pattern) is None
    fast = re.compile(dispatched(["occupancy", pattern]))
    plain = re.compile("occupancy|" + pattern)
    for text in ("the l2 hit_rate", "aXb", "zbc", "Xy", "long thing vs", "nothing here"):
        assert bool(fast.search(text)) == bool(plain.search(text)), (pattern, text)


def _table_text(rng: random.Random, words: list[str]) -> str:
    """Text made of the table's own words and pieces of them, digits and punctuation."""
    out = []
    for _ in range(rng.randint(3, 14)):
        w = rng.choice(words)
        roll = rng.random()
        if roll < 0.15:
            w = w[: rng.randint(1, len(w))]
        elif roll < 0.25:
            w = str(rng.choice([1, 2, 16, 32, 128, 256, 1024, 4096])) + rng.choice(["", "x", "mb", "e5", " gb/s"])
        out.append(w)
    return rng.choice(["", "the ", "- ", "~"]) + rng.choice([" ", "  ", "_", "-"]).join(out) + rng.choice(["", "?", "."])


def test_grouped_and_plain_alternations_match_the_same_texts():
    rng = random.Random(12)
    pats = [p for _, ps in TOPICS for p in ps]
    words = sorted({w for p in pats for w in re.findall(r"[a-z0-9_]{2,}", p)})
    plain = re.compile(r"(?<![\w-])(?:" + "|".join(pats) + r")(?![\w-])")
    fast = re.compile(r"(?<![\w-])(?:" + dispatched(pats) + r")(?![\w-])")
    senses = [p for p, _ in SENSES]
    plain_s = re.compile(r"\b(?:" + "|".join(senses) + ")")
    fast_s = re.compile(r"\b(?:" + dispatched(senses) + ")")
    hits = 0
    for _ in range(3000):
        t = _table_text(rng, words)
        got = bool(fast.search(t))
        assert got == bool(plain.search(t)), t
        assert bool(fast_s.search(t)) == bool(plain_s.search(t)), t
        hits += got
    assert 300 < hits < 2900  # the texts exercise both outcomes


def test_case_insensitive_grouping_matches_what_the_plain_one_does():
    pats = [r"\bwhy not\s+[a-z]", r"\b(?:Have you tried|did you try)\b", r"\bH100 has\b", r"\b(?:use|try)\s+\d+x\d+"]
    fast = re.compile(dispatched(pats), re.I)
    plain = re.compile("|".join(f"(?:{p})" for p in pats), re.I)
    for t in ("Why not tile it", "HAVE YOU TRIED tma", "the h100 HAS 132 sms", "Try 64x64", "why not?", "nothing"):
        assert bool(fast.search(t)) == bool(plain.search(t)), t


def test_no_patterns_match_nothing_and_a_named_group_is_not_copied():
    assert re.compile(dispatched([])).search("anything at all") is None
    # a named group copied under two first characters would be a second definition of its name
    rx = re.compile(dispatched([r"(?:the |a )?(?P<n>spill)s?", "occupancy"]))
    assert rx.search("a spills") and rx.search("the spill") and rx.search("occupancy")
