"""Ranking: which bank questions to offer at a decision point, best first.

Filters, then order:

1. the item serves the decision point's kind (its `triggers` list it);
2. it applies to the task's architecture (`any`; `gpu` on any GPU or an unknown one; `smNN` on
   that generation; `cpu` on CPU tasks);
3. its requirements are met by the task's capabilities (e.g. `other_implementation`);
4. not yet asked in this session before asked ones (by bank id, or by the same text sent free);
5. higher recorded outcome statistics first (`mean_gain`, shrunk toward 0 by how few askings
   it rests on);
6. then fit: items whose first trigger is the kind before those that list it later; within
   each, a round-robin over the bank's sets in bank order (the core set's first item, the
   architecture set's first, the capability set's first, then each one's second, ...), so
   the top few mix the best general question with the most specific ones.

`RankContext` is what ranking needs to know about the session. Build it from a session's events
with `context_from_events`, or fold events into one live with `RankContext.add`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from questions.detectors import DecisionPoint
from questions.loader import Bank, BankItem, arch_specificity, normalize_arch

#: How many askings a mined gain needs before it counts in full (score = gain * n / (n + K)).
STATS_SHRINK = 3.0

_DEVICE_ARCH: tuple[tuple[re.Pattern, str], ...] = (
    (re.compile(r"\b(?:GH|H)(?:100|200|800|20)\b", re.I), "sm90"),
    (re.compile(r"\b(?:GB|B)(?:100|200|300)\b", re.I), "sm100"),
    (re.compile(r"\bRTX (?:PRO )?(?:50\d0|6000 Blackwell)\b", re.I), "sm120"),
    (re.compile(r"\b(?:A100|A800|A30|A10G?|A40|RTX A\d000)\b", re.I), "sm80"),
    (re.compile(r"\b(?:L4|L40S?|RTX 40\d0|RTX 6000 Ada)\b", re.I), "sm89"),
)


def arch_from_device(device: str | None) -> str | None:
    """A GPU's architecture tag from its name ("NVIDIA H200" -> sm90), or None."""
    if not device:
        return None
    for rx, arch in _DEVICE_ARCH:
        if rx.search(str(device)):
            return arch
    return None


def _text_key(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", str(text).lower()).split())


@dataclass
class RankContext:
    """What ranking knows about a session: architecture, capabilities, what was asked."""

    arch: str | None = None  # sm90 | sm100 | cpu | ... ; None when unknown
    capabilities: frozenset[str] = frozenset()
    asked: dict[str, int] = field(default_factory=dict)  # bank id -> times asked this session
    asked_texts: set[str] = field(default_factory=set)  # normalised texts of every human message
    stats: dict[str, dict] = field(default_factory=dict)  # bank id -> statistics over the bank's

    def add(self, event: Mapping) -> None:
        """Fold one event in (session_start and human_message matter; the rest are ignored)."""
        kind = event.get("type")
        if kind == "session_start":
            arch = event.get("arch")
            if not arch and isinstance(event.get("config"), Mapping):
                arch = event["config"].get("arch")
            self.arch = normalize_arch(arch) if arch else (arch_from_device(event.get("device")) or self.arch)
            caps = event.get("capabilities")
            if isinstance(caps, (list, tuple)):
                self.capabilities = frozenset(str(c) for c in caps)
        elif kind == "human_message":
            bank_id = event.get("bank_id")
            if isinstance(bank_id, str) and bank_id:
                self.asked[bank_id] = self.asked.get(bank_id, 0) + 1
            text = event.get("text")
            if isinstance(text, str) and text:
                self.asked_texts.add(_text_key(text))

    def was_asked(self, item: BankItem) -> bool:
        return item.id in self.asked or _text_key(item.text) in self.asked_texts

    def item_stats(self, item: BankItem) -> Mapping:
        return self.stats.get(item.id) or item.stats


def context_from_events(events: Iterable[Mapping], stats: Mapping[str, Mapping] | None = None,
                        **overrides) -> RankContext:
    """The ranking context of a session, from its events (arch, capabilities, bank ids asked)."""
    ctx = RankContext(stats=dict(stats or {}))
    for ev in events:
        ctx.add(ev)
    for key, value in overrides.items():
        if value is not None:
            setattr(ctx, key, normalize_arch(value) if key == "arch" else value)
    return ctx


def stats_score(stats: Mapping | None) -> float:
    """Recorded outcome as one number: mean gain, shrunk by how few askings it rests on."""
    if not stats:
        return 0.0
    gain = stats.get("mean_gain")
    if isinstance(gain, bool) or not isinstance(gain, (int, float)):
        return 0.0
    n = stats.get("asked")
    if isinstance(n, (int, float)) and not isinstance(n, bool) and n >= 0:
        return float(gain) * n / (n + STATS_SHRINK)
    return float(gain)


def rank(decision_point: DecisionPoint | str, bank: Bank | Iterable[BankItem],
         context: RankContext | None = None, *, limit: int | None = None,
         include_asked: bool = True) -> list[BankItem]:
    """The bank items to offer at a decision point (or for a kind given by name), best first."""
    ctx = context or RankContext()
    kind = decision_point.kind if isinstance(decision_point, DecisionPoint) else str(decision_point)
    scored = []
    position: dict[tuple[int, str], int] = {}  # (primary?, set) -> items of that set seen so far
    for index, item in enumerate(bank):
        if kind not in item.triggers:
            continue
        if not item.applies_to(ctx.arch):
            continue
        if not item.requirements_met(ctx.capabilities):
            continue
        primary = 0 if item.triggers[0] == kind else 1
        slot = (primary, item.set)
        r = position.get(slot, 0)
        position[slot] = r + 1
        asked = ctx.was_asked(item)
        if asked and not include_asked:
            continue
        key = (
            1 if asked else 0,
            -stats_score(ctx.item_stats(item)),
            primary,
            r,  # round-robin over the sets: each set's first item, then each set's second, ...
            _set_class(item, ctx.arch),
            index,
        )
        scored.append((key, item))
    scored.sort(key=lambda kv: kv[0])
    ranked = [item for _, item in scored]
    return ranked[:limit] if limit is not None else ranked


def _set_class(item: BankItem, arch: str | None) -> int:
    """Within a round: the general questions, then those for this architecture, then those that
    need a capability of the task."""
    if item.requires:
        return 2
    return 1 if arch_specificity(item.arch, arch) == 0 else 0


def suggestions(decision_point: DecisionPoint | str, bank: Bank | Iterable[BankItem],
                context: RankContext | None = None, n: int = 9) -> list[dict]:
    """The `suggestions` field of a decision_point event: [{id, text}] for the top n."""
    return [{"id": it.id, "text": it.text} for it in rank(decision_point, bank, context, limit=n)]
