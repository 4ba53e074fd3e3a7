"""What followed a question: the geomean over the next evaluations, and how soon it improved.

For one asking at position `seq` (time `t`) in a session:

- `before` is the best correct geomean of the evaluations before it. On KernelSeek's own
  sessions, whose geomeans are ratios to the seed, a session with no evaluation yet starts from
  the seed itself, 1.0; a foreign transcript's inferred figures have no such baseline.
- `after` is the best correct geomean over the next `window` timed evaluations.
- `gain` is `after / before - 1` (0.12 = +12%); it is negative when everything that followed was
  slower than the best before. No correct timed evaluation in the window: no gain (None).
- `improved` says whether some evaluation in the window beat `before` by at least `min_gain`,
  and `minutes_to_gain` how long after the asking the first such evaluation came.

A cluster's statistics (`cluster_stats`) are the bank's `stats` keys: `asked`, `sessions`,
`mean_gain` (over the askings with a measured gain), `hit_rate`, `minutes_to_gain` (median over
the hits), `kinds`, plus `measured` (how many askings had evaluations after them).
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Iterable, Mapping

from questions.detectors import eval_correct


@dataclass(frozen=True)
class Evaluation:
    """One timed evaluation of a session, reduced to what outcomes need."""

    seq: int  # position in the session (event seq, or record index for a steering log)
    t: float | None
    geomean: float | None
    correct: bool | None
    inferred: bool = False
    mode: str = "full"  # full | quick: a quick run's numbers compare only with quick runs


@dataclass(frozen=True)
class Outcome:
    evals: int  # timed evaluations in the window
    before: float | None
    after: float | None
    gain: float | None
    improved: bool | None
    minutes_to_gain: float | None
    basis: str = "events"  # events | steering_log

    def to_dict(self) -> dict:
        return {"evals": self.evals, "before": self.before, "after": self.after, "gain": self.gain,
                "improved": self.improved, "minutes_to_gain": self.minutes_to_gain, "basis": self.basis}


def _num(v) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    v = float(v)
    return v if math.isfinite(v) and v > 0 else None


def summary_geomean(summary: Mapping) -> tuple[float | None, bool | None]:
    """A summary's geomean and correctness; (None, None) for an interrupted run or one over
    some scenarios only (`only`), which compare with nothing."""
    if not isinstance(summary, Mapping):
        return None, None
    if summary.get("interrupted") or summary.get("only"):
        return None, None
    return _num(summary.get("geomean")), eval_correct(summary)


def _mode(summary: Mapping) -> str:
    return "quick" if summary.get("quick") else "full"


def evaluations(events: Iterable[Mapping]) -> list[Evaluation]:
    """The timed evaluations of a session's events, in log order."""
    out = []
    for ev in events:
        if ev.get("type") != "eval_result" or ev.get("sidechain"):
            continue
        g, ok = summary_geomean(ev.get("summary") or {})
        if g is None:
            continue
        seq = ev.get("seq")
        t = ev.get("t")
        out.append(Evaluation(seq if isinstance(seq, int) else len(out), float(t) if _num(t) else None, g, ok,
                              bool(ev.get("inferred")), _mode(ev.get("summary") or {})))
    return out


def outcome_after(evals: list[Evaluation], seq: int, t: float | None, *, window: int = 3,
                  min_gain: float = 0.01, basis: str = "events", before: float | None = None) -> Outcome | None:
    """What followed an asking at `seq`; None when no timed evaluation came after it.

    Full runs are compared with full runs; a session timed by quick runs only is read from those.
    """
    for mode in ("full", "quick"):
        same = [e for e in evals if e.mode == mode]
        if same and any(e.seq > seq for e in same):
            return _outcome(same, seq, t, window=window, min_gain=min_gain, basis=basis,
                            before=before if mode == "full" else None)
    return None


def _outcome(evals: list[Evaluation], seq: int, t: float | None, *, window: int, min_gain: float, basis: str,
             before: float | None) -> Outcome | None:
    best = before
    later: list[Evaluation] = []
    for e in evals:
        if e.seq < seq:
            if e.correct is not False and (best is None or e.geomean > best):
                best = e.geomean
        elif e.seq > seq:
            later.append(e)
            if len(later) >= window:
                break
    if not later:
        return None
    if best is None and not any(e.inferred for e in later):
        best = 1.0  # our evaluator's geomean is a ratio to the seed: before any change, the seed is 1.0
    correct = [e for e in later if e.correct is not False]
    after = max((e.geomean for e in correct), default=None)
    gain = after / best - 1.0 if after is not None and best else None
    improved = None
    minutes = None
    if best is not None:
        improved = False
        for e in correct:
            if e.geomean >= best * (1.0 + min_gain):
                improved = True
                if e.t is not None and t is not None:
                    minutes = max(0.0, (e.t - t) / 60.0)
                break
    return Outcome(len(later), best, after, None if gain is None else round(gain, 6), improved,
                   None if minutes is None else round(minutes, 3), basis)


def steering_evaluations(records: list[Mapping]) -> tuple[list[Evaluation], list[float | None]]:
    """Evaluations seen through a steering log's `metrics` (the latest summary at each message).

    A steering log holds no evaluation events, only the summary each message saw; a summary that
    differs from the one before is a new evaluation, placed just before the message that first
    saw it (time: that message's). Returns the evaluations and, per record, the best geomean
    the record's own summary reports (`best_geomean`), if any.
    """
    out: list[Evaluation] = []
    bests: list[float | None] = []
    last_key = None
    for i, r in enumerate(records):
        m = r.get("metrics") if isinstance(r.get("metrics"), Mapping) else None
        bests.append(_num(m.get("best_geomean")) if m else None)
        if not m:
            continue
        key = m.get("n") if isinstance(m.get("n"), int) else repr(sorted((k, repr(v)) for k, v in m.items()))
        if key == last_key:
            continue
        last_key = key
        g, ok = summary_geomean(m)
        if g is None:
            continue
        t = r.get("t")
        # the evaluation happened before record i: give it a position between i-1 and i
        out.append(Evaluation(2 * i - 1, float(t) if _num(t) else None, g, ok, False, _mode(m)))
    return out, bests


def cluster_stats(askings: Iterable, *, digits: int = 4) -> dict:
    """The bank `stats` of a group of askings (objects with .session, .kinds, .outcome)."""
    askings = list(askings)
    sessions = {a.session for a in askings}
    kinds: dict[str, int] = {}
    for a in askings:
        for k in a.kinds:
            kinds[k] = kinds.get(k, 0) + 1
    measured = [a.outcome for a in askings if a.outcome is not None]
    gains = [o.gain for o in measured if o.gain is not None]
    verdicts = [o.improved for o in measured if o.improved is not None]
    minutes = [o.minutes_to_gain for o in measured if o.improved and o.minutes_to_gain is not None]
    stats: dict = {"asked": len(askings), "sessions": len(sessions)}
    if gains:
        stats["mean_gain"] = round(statistics.fmean(gains), digits)
    if verdicts:
        stats["hit_rate"] = round(sum(verdicts) / len(verdicts), digits)
    if minutes:
        stats["minutes_to_gain"] = round(statistics.median(minutes), 2)
    if kinds:
        stats["kinds"] = dict(sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
    stats["measured"] = len(measured)
    return stats


def shrunk_gain(stats: Mapping) -> float:
    """The gain ranking trusts: `mean_gain * asked / (asked + 3)` (as questions.ranking does)."""
    g = stats.get("mean_gain")
    n = stats.get("measured", stats.get("asked", 0)) or 0
    if not isinstance(g, (int, float)):
        return float("-inf")
    return float(g) * n / (n + 3)
