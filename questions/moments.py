"""One moment, one alarm: what the detectors' raw findings become in the log.

The detectors find reasons (a limit claim, a loop, a turn that ends on a question); the
`MomentBook` turns the reasons one event raises into at most one decision point:

- reasons raised on the same moment merge into one point with all of them (`reasons`), named by
  the strongest kind (`decision.KIND_ORDER`); a reason about a moment that already has a point
  (the turn's end, found when the human speaks, about the text that already made a claim) is an
  update of that point;
- a loop or a stall is one open point: each further repeat is an update whose `count` grows,
  until the detectors close it (the agent moved on, progress was made, a human spoke).

An update carries the whole point again with `updates` set to its `id`; `fold` applies a stream
of points and updates to the list a reader shows (what `detect` returns).
"""
from __future__ import annotations

import dataclasses
from collections import OrderedDict
from typing import Iterable

from questions.decision import KIND_ORDER, DecisionPoint

_RANK = {k: i for i, k in enumerate(KIND_ORDER)}
_RECENT = 16  # points remembered for merging by the moment they are about


def _reason(dp: DecisionPoint) -> dict:
    r = {"kind": dp.kind, "evidence": dp.evidence, "strength": round(dp.strength, 3)}
    rule = dp.detail.get("rule") if isinstance(dp.detail, dict) else None
    if rule:
        r["rule"] = rule
    return r


def merge(points: list[DecisionPoint]) -> DecisionPoint:
    """Several reasons on one moment as one point: the strongest kind leads, every reason kept."""
    ordered = sorted(points, key=lambda p: (_RANK.get(p.kind, len(_RANK)), -p.strength))
    lead = ordered[0]
    reasons: list[dict] = []
    for p in ordered:
        for r in (p.reasons or [_reason(p)]):
            if not any(x.get("kind") == r.get("kind") and x.get("evidence") == r.get("evidence") for x in reasons):
                reasons.append(dict(r))
    detail = {}
    for p in reversed(ordered):
        detail.update(p.detail)
    return dataclasses.replace(lead, detail=detail, reasons=reasons if len(reasons) > 1 else [],
                               strength=max(p.strength for p in points), count=max(p.count for p in points),
                               about_seq=min((p.about_seq for p in points if p.about_seq is not None), default=None),
                               at_seq=max((p.at_seq for p in points if p.at_seq is not None), default=None))


class MomentBook:
    """Settles the reasons each event raises into new points and updates (one instance per log)."""

    def __init__(self) -> None:
        self._by_about: OrderedDict[int, DecisionPoint] = OrderedDict()
        self._open: dict[str, DecisionPoint] = {}  # open loops and stalls by their key
        self._ids: set[str] = set()

    def _name(self, dp: DecisionPoint) -> str:
        base = f"{dp.kind}@{dp.at_seq if dp.at_seq is not None else dp.about_seq}"
        name, n = base, 2
        while name in self._ids:
            name, n = f"{base}.{n}", n + 1
        self._ids.add(name)
        return name

    def is_open(self, key: str) -> bool:
        return key in self._open

    def close(self, key: str) -> None:
        self._open.pop(key, None)

    def close_all(self, prefix: str = "") -> None:
        for key in [k for k in self._open if k.startswith(prefix)]:
            del self._open[key]

    def settle(self, raw: list[DecisionPoint]) -> list[DecisionPoint]:
        """The points and updates one event's reasons make (in the order a log records them)."""
        if not raw:
            return []
        out: list[DecisionPoint] = []
        fresh: list[DecisionPoint] = []
        for dp in raw:
            key = dp.detail.get("open_key") if isinstance(dp.detail, dict) else None
            prev = self._open.get(key) if key else None
            if prev is not None:  # an open loop or stall goes on: the same point, grown
                count = dp.count if dp.count > prev.count else prev.count + 1
                grown = dataclasses.replace(prev, evidence=dp.evidence, count=count,
                                            strength=max(prev.strength, dp.strength), at_seq=dp.at_seq,
                                            detail={**prev.detail, **dp.detail}, updates=prev.id)
                if grown.reasons:
                    grown.reasons = [dict(r, evidence=dp.evidence) if r.get("kind") == dp.kind else r
                                     for r in grown.reasons]
                self._store(dataclasses.replace(grown, updates=None), key)
                out.append(grown)
            else:
                fresh.append(dp)
        if fresh:
            point = merge(fresh)
            prev = self._by_about.get(point.about_seq) if point.about_seq is not None else None
            if prev is not None:  # the same moment already has a point: it gains these reasons
                both = merge([dataclasses.replace(prev, updates=None), point])
                both = dataclasses.replace(both, id=prev.id, about_seq=prev.about_seq, updates=prev.id)
                self._store(dataclasses.replace(both, updates=None), None)
                for p in fresh:
                    key = p.detail.get("open_key")
                    if key:
                        self._open[key] = dataclasses.replace(both, updates=None)
                out.append(both)
            else:
                point.id = self._name(point)
                self._store(point, None)
                for p in fresh:
                    key = p.detail.get("open_key")
                    if key:
                        self._open[key] = point
                out.append(point)
        return out

    def _store(self, dp: DecisionPoint, key: str | None) -> None:
        if key:
            self._open[key] = dp
        for k, v in list(self._open.items()):  # keep open entries in step with the point's latest state
            if v.id == dp.id:
                self._open[k] = dp
        if dp.about_seq is not None:
            self._by_about[dp.about_seq] = dp
            self._by_about.move_to_end(dp.about_seq)
            while len(self._by_about) > _RECENT:
                self._by_about.popitem(last=False)


def fold(stream: Iterable[DecisionPoint]) -> list[DecisionPoint]:
    """Points and updates, applied: every point once, in the order it opened, as it ended up."""
    out: list[DecisionPoint] = []
    where: dict[str, int] = {}
    for dp in stream:
        if dp.updates is not None and dp.updates in where:
            out[where[dp.updates]] = dataclasses.replace(dp, updates=None)
            continue
        if dp.id is not None:
            where[dp.id] = len(out)
        out.append(dp)
    return out
