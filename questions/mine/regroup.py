"""A second opinion on the grouping: something outside the rules (a model, a reviewer) regroups
the distinct wordings the clusterer grouped, and the miner builds its candidates from that.

The clusterer groups wordings that share words or a measurement its topic table names; a steerer
from a setting the table has not met asks one question in words that share neither, and it comes
out as several candidates (questions/benchmark/planted/RESULTS.md). A `Regrouper` sees every
distinct wording with the group the rules gave it and answers a partition of them:

    answer = regrouper(wordings)        # Regrouping: groups of Wording.index, notes, who answered
    clusters = apply_partition(answer.groups, rule_clusters, sent_from)

What the answer may do is decided here, by code, whatever it says: it can only regroup the
wordings it was shown (an index it was not shown is dropped, one it names twice counts where it
first appears, one it leaves out stays with the rule-group mates it also left out), and it can
never put together two wordings sent from different bank items (different questions by
construction: such a group falls back to the rules' grouping of its wordings). Nothing here
imports a model: `agent/grouping.py` asks one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class Wording:
    """One distinct wording of a question, as the regrouper sees it."""

    index: int  # the distinct doc's index in the miner
    text: str  # the whole message as it was asked (the most asked of its spellings)
    asked: int  # how often
    rule_group: int  # the rules' cluster (its position in the clustering)


@dataclass
class Regrouping:
    """A regrouper's answer: a partition of Wording.index (validated by `apply_partition`)."""

    groups: list[list[int]]
    by: str  # who answered: "claude-... (2 requests)", "reviewer", ...
    labels: list[str] = field(default_factory=list)  # per group: what it asks for, in the answer's words
    notes: list[str] = field(default_factory=list)  # anything the report should say (fallbacks, costs)
    ok: bool = True  # False: no usable answer; the rules' grouping stands


class Regrouper(Protocol):
    def __call__(self, wordings: list[Wording]) -> Regrouping: ...


@dataclass
class Applied:
    clusters: list[list[int]]  # the partition in force (doc indices)
    labels: dict[int, str]  # cluster position -> the answer's label for it
    dropped: int = 0  # indices the answer named that it was not shown, or named twice
    kept_by_rules: int = 0  # wordings it left out (kept with their rule-group mates)
    refused: int = 0  # groups that joined wordings sent from different bank items
    placed: set[int] = field(default_factory=set)  # wordings the answer itself grouped (accepted groups)


def apply_partition(groups: list[list[int]], rule_clusters: list[list[int]],
                    sent_from: list[frozenset[str]] | None = None,
                    labels: list[str] | None = None) -> Applied:
    """The partition to build candidates from: `groups` checked against what was shown (the docs
    of `rule_clusters`), completed with what they left out, and never joining askings sent from
    different bank items."""
    shown = {d for c in rule_clusters for d in c}
    rule_of = {d: i for i, c in enumerate(rule_clusters) for d in c}
    seen: set[int] = set()
    out: list[list[int]] = []
    out_labels: dict[int, str] = {}
    dropped = refused = 0
    placed: set[int] = set()
    for gi, g in enumerate(groups):
        members = []
        for d in g:
            if not isinstance(d, int) or isinstance(d, bool) or d not in shown or d in seen:
                dropped += 1
                continue
            seen.add(d)
            members.append(d)
        if not members:
            continue
        items = {b for d in members for b in (sent_from[d] if sent_from else ())}
        if len(items) > 1:
            # askings sent from different bank items are different questions: keep the rules' say
            refused += 1
            by_rule: dict[int, list[int]] = {}
            for d in members:
                by_rule.setdefault(rule_of[d], []).append(d)
            out.extend(by_rule.values())
            continue
        if labels and gi < len(labels) and labels[gi]:
            out_labels[len(out)] = labels[gi]
        out.append(members)
        placed.update(members)
    left: dict[int, list[int]] = {}
    for d in sorted(shown - seen):
        left.setdefault(rule_of[d], []).append(d)
    out.extend(left.values())
    return Applied(out, out_labels, dropped=dropped, kept_by_rules=len(shown - seen), refused=refused,
                   placed=placed)
