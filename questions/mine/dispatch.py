"""One alternation of many patterns, grouped by the characters a match must start with.

The topic table has nearly two thousand patterns. Python's `re` tries the alternatives of a group
one after the other at every position, so a plain `a|b|c|...` of the table costs more than the
rest of mining. `dispatched` groups the patterns by the first two characters their matches can
start with (a lookahead per group), so that at a word's start the engine tries only the few
patterns that can match there. It is a speed-up only: the alternation matches exactly where the
plain one does (tests/mine/test_mine_topics.py checks it on every planted message).

The prefixes are read from the pattern's text by a small parser that knows what the table uses:
literals, escapes, character classes, groups, alternatives, quantifiers, lookarounds (zero width:
skipped, which only widens the set). Anything else (`.`, `\\w`, a negated class, a flag) makes a
pattern's start unknown, and it is tried everywhere, as before.
"""
from __future__ import annotations

import re

__all__ = ["dispatched", "grouping_starts", "starts"]

_WS = frozenset(" \t\n\r\f\v")
_DIGITS = frozenset("0123456789")
_ESCAPES = {"s": _WS, "d": _DIGITS, "n": frozenset("\n"), "t": frozenset("\t")}
_ZERO_WIDTH = frozenset("bBAZ")
_REPEAT = re.compile(r"\{(\d*)(?:(,)(\d*))?\}")
#: more possible starts than this: not worth a group of its own
_MAX_STARTS = 256
#: a pattern that can start in more two-character ways than this is grouped by its first character
_MAX_GROUPS = 16
#: a pattern that can start with more characters than this (a digit) is grouped with the patterns
#: that start with the same set (copied under each first character, it would bloat the alternation)
_MAX_FIRSTS = 9
#: an atom that matches characters this parser does not list ("\\w", ".", a negated class): a
#: pattern whose start depends on one is tried everywhere
_ANY = object()


class _Unknown(Exception):
    """A pattern whose start this parser does not read."""


Item = tuple[object, int, "int | None"]  # (a set of characters, or a list of alternatives), min, max


def _class(p: str, i: int) -> tuple[object, int]:
    """The characters of the class that opens at p[i] ("["), and the index after it."""
    j = i + 1
    if j < len(p) and p[j] == "^":
        return _ANY, p.index("]", j + 2) + 1
    chars: set[str] = set()
    first = True
    unlisted = False
    while j < len(p) and (p[j] != "]" or first):
        first = False
        if p[j] == "\\":
            esc = p[j + 1]
            if esc in _ESCAPES:
                chars |= _ESCAPES[esc]
            elif esc in "wWSD":
                unlisted = True
            elif esc.isalnum():
                raise _Unknown(p)
            else:
                chars.add(esc)
            j += 2
            continue
        if j + 2 < len(p) and p[j + 1] == "-" and p[j + 2] != "]":
            lo, hi = p[j], p[j + 2]
            if hi == "\\" or ord(hi) - ord(lo) > 64:
                raise _Unknown(p)
            chars.update(chr(k) for k in range(ord(lo), ord(hi) + 1))
            j += 3
            continue
        chars.add(p[j])
        j += 1
    if j >= len(p):
        raise _Unknown(p)
    return (_ANY if unlisted else frozenset(chars)), j + 1


def _skip_group(p: str, i: int) -> int:
    """The index just past the group that opens at p[i] (escapes and classes read)."""
    depth, j = 0, i
    while j < len(p):
        c = p[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            j = _class(p, j)[1]
            continue
        depth += (c == "(") - (c == ")")
        j += 1
        if depth == 0:
            return j
    raise _Unknown(p)


def _atom(p: str, i: int) -> tuple[object | None, int]:
    """The atom at p[i] (None: zero width) and the index after it."""
    c = p[i]
    if c == "\\":
        esc = p[i + 1]
        if esc in _ZERO_WIDTH:
            return None, i + 2
        if esc in _ESCAPES:
            return _ESCAPES[esc], i + 2
        if esc in "wWSD":
            return _ANY, i + 2
        if esc.isalnum():
            raise _Unknown(p)
        return frozenset(esc), i + 2
    if c == "[":
        return _class(p, i)
    if c == "(":
        if p.startswith(("(?=", "(?!", "(?<=", "(?<!"), i):
            return None, _skip_group(p, i)
        if p.startswith("(?:", i):
            start = i + 3
        elif p.startswith("(?", i):  # (a named group too: copied into two groups, its name would clash)
            raise _Unknown(p)
        else:
            start = i + 1
        alts, j = _parse(p, start)
        if j >= len(p) or p[j] != ")":
            raise _Unknown(p)
        return alts, j + 1
    if c in "^$":
        return None, i + 1
    if c == ".":
        return _ANY, i + 1
    if c in "*+?{|)":
        raise _Unknown(p)
    return frozenset(c), i + 1


def _parse(p: str, i: int = 0) -> tuple[list[list[Item]], int]:
    """The alternatives of the pattern from p[i] to the ")" that closes it (or the end)."""
    alts: list[list[Item]] = [[]]
    while i < len(p):
        c = p[i]
        if c == "|":
            alts.append([])
            i += 1
            continue
        if c == ")":
            return alts, i
        atom, i = _atom(p, i)
        lo, hi = 1, 1
        if i < len(p) and p[i] in "?*+{":
            if p[i] == "{":
                m = _REPEAT.match(p, i)
                if m is None:
                    raise _Unknown(p)
                lo = int(m.group(1) or 0)
                hi = lo if not m.group(2) else (int(m.group(3)) if m.group(3) else None)
                i = m.end()
            else:
                lo, hi = {"?": (0, 1), "*": (0, None), "+": (1, None)}[p[i]]
                i += 1
            if i < len(p) and p[i] in "?+":  # lazy or possessive: the same strings
                i += 1
        if atom is not None:
            alts[-1].append((atom, lo, hi))
    return alts, i


def _expand(alts: list[list[Item]], n: int) -> set[str]:
    """The beginnings, up to n characters, of what the alternatives match: a string shorter than n
    is a whole match."""
    out: set[str] = set()
    for seq in alts:
        states = {""}
        for atom, lo, hi in seq:
            done = {s for s in states if len(s) >= n}
            grow = states - done
            if not grow:
                break
            reps = n if hi is None else min(hi, n)
            for s in grow:
                level = {s}
                if lo == 0:
                    done.add(s)
                for k in range(1, max(reps, lo) + 1):
                    nxt: set[str] = set()
                    for t in level:
                        if len(t) >= n:
                            nxt.add(t)
                            continue
                        if atom is _ANY:
                            raise _Unknown("a start this parser does not list")
                        if isinstance(atom, frozenset):
                            nxt.update(t + ch for ch in atom)
                        else:
                            nxt.update(t + tail for tail in _expand(atom, n - len(t)))
                    if len(nxt) > _MAX_STARTS:
                        raise _Unknown("too many starts")
                    # a beginning n long is one whatever repeats are still owed; a shorter one only
                    # once the least number of repeats is made
                    done |= nxt if k >= lo else {t for t in nxt if len(t) >= n}
                    level = {t for t in nxt if len(t) < n}
                    if not level:
                        break
            states = done
            if len(states) > _MAX_STARTS:
                raise _Unknown("too many starts")
        out |= {s[:n] for s in states}
    return out


def starts(pattern: str, n: int = 2) -> frozenset[str] | None:
    """The strings of up to `n` characters that a match of `pattern` can begin with (one shorter
    than n is a whole match), or None when the pattern's start is not plain."""
    try:
        alts, end = _parse(pattern)
        if end != len(pattern):
            return None
        return frozenset(_expand(alts, n))
    except (_Unknown, IndexError, ValueError):
        return None


def grouping_starts(pattern: str) -> frozenset[str] | None:
    """The beginnings a pattern is grouped by: two characters where they can be read, else one; None
    when neither can, or the pattern may match nothing (then it must be tried everywhere)."""
    got = starts(pattern)
    if got is None:
        got = starts(pattern, 1)
    return None if got is None or "" in got else got


def dispatched(pats: list[str]) -> str:
    """One alternation of `pats`, grouped by the characters each can start with: under each first
    character a pattern can start with, by the set of second characters it can have there (one whose
    matches may be one character long by its first alone); a pattern that can start with many
    characters (a digit) in a group of its own set of first characters; one whose start is unknown
    is tried everywhere. Only whether one matches is kept, not which. No patterns: one that never
    matches (not the empty alternation, which matches everywhere)."""
    if not pats:
        return "(?!)"
    by_pair: dict[tuple[str, frozenset[str]], list[str]] = {}
    by_one: dict[str, list[str]] = {}
    by_set: dict[frozenset[str], list[str]] = {}
    rest: list[str] = []
    for p in pats:
        got = grouping_starts(p)
        if got is None:
            rest.append(p)
            continue
        firsts = frozenset(s[0] for s in got)
        if len(firsts) > _MAX_FIRSTS:
            by_set.setdefault(firsts, []).append(p)
            continue
        for c in firsts:
            mine = [s for s in got if s[0] == c]
            if any(len(s) == 1 for s in mine) or len(mine) > _MAX_GROUPS:
                by_one.setdefault(c, []).append(p)
            else:
                by_pair.setdefault((c, frozenset(s[1] for s in mine)), []).append(p)
    parts = []
    for c in sorted({c for c, _ in by_pair} | set(by_one)):
        inner = [f"(?={re.escape(c)}{_one_of(after)})(?:{'|'.join(ps)})"
                 for (first, after), ps in sorted(by_pair.items(), key=lambda kv: sorted(kv[0][1])) if first == c]
        inner += by_one.get(c, [])
        parts.append(f"(?={re.escape(c)})(?:{'|'.join(inner)})")
    parts += [f"(?={_one_of(firsts)})(?:{'|'.join(ps)})" for firsts, ps in sorted(by_set.items(), key=lambda kv: sorted(kv[0]))]
    return "|".join(parts + rest)


def _one_of(chars: frozenset[str]) -> str:
    if len(chars) == 1:
        return re.escape(next(iter(chars)))
    return "[" + "".join(re.escape(ch) for ch in sorted(chars)) + "]"
