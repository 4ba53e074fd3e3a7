"""Scoring decision points against hand labels of real transcripts.

Pure functions: `score_transcript(events, points, labels)` says which decision point came just
before which labelled moment; `summarise(scores)` turns a set of transcripts into precision,
recall of real interventions and alarms per active hour, per kind and overall. The definitions
(docs/questions.md, "The labelled benchmark"):

- an **alarm** is a decision point other than `start` (a merged point counts once);
- the **active time** of a log is the sum of the gaps between consecutive events, each gap
  capped at `ACTIVE_GAP_CAP_S` (a pause longer than that counts as that long);
- a human message's **moment** is the message itself, or the first of the interrupts that
  directly precede it (no agent event between them): that is when the human acted;
- a decision point **comes just before** a moment when what it is about (`about_seq`, else the
  event that fired it) lies after the previous human message and before the moment, it fired
  no later than the moment, and at most `MAX_AGENT_ACTIONS` agent actions (assistant texts and
  tool calls of the main thread) lie between what it is about and the moment;
- for a **missed** label (an agent event that deserved a question), a decision point counts
  when what it is about lies between the same two human messages as the event and within
  `MAX_AGENT_ACTIONS` agent actions of it, either side;
- an alarm is **right** when it comes just before an intervention or an answer, or counts for a
  missed label; **precision** is right alarms / alarms; **recall** is the share of
  interventions that some alarm comes just before.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from questions.benchmark.labels_io import INTERVENTIONS, Label, LabelsError

ACTIVE_GAP_CAP_S = 300.0
MAX_AGENT_ACTIONS = 20
_AGENT_EVENTS = frozenset(("assistant_text", "tool_call", "tool_result", "thinking", "eval_result"))
_ACTIONS = frozenset(("assistant_text", "tool_call"))


def point_kinds(dp) -> tuple[str, ...]:
    """Every kind a (possibly merged) decision point stands for, its own first."""
    kinds = [dp.kind]
    for r in getattr(dp, "reasons", None) or ():
        k = r.get("kind") if isinstance(r, Mapping) else None
        if isinstance(k, str) and k not in kinds:
            kinds.append(k)
    return tuple(kinds)


def point_pos(dp) -> int | None:
    return dp.about_seq if dp.about_seq is not None else dp.at_seq


def active_seconds(events: Iterable[Mapping], cap: float = ACTIVE_GAP_CAP_S) -> float:
    ts = sorted(t for t in (ev.get("t") for ev in events)
                if isinstance(t, (int, float)) and not isinstance(t, bool))
    return sum(min(b - a, cap) for a, b in zip(ts, ts[1:]) if b > a)


@dataclass
class Moment:
    label: Label
    seq: int  # where the human acted (the first interrupt of a run), or the missed event
    span: tuple[int, int]  # (previous human message's seq, next one's or the end) around it
    matched: list[int] = field(default_factory=list)  # indices into the transcript's points


@dataclass
class TranscriptScore:
    name: str
    part: str
    active_s: float
    points: list  # the alarms (no start), in order
    moments: list[Moment]
    right: list[bool]  # per alarm

    @property
    def interventions(self) -> list[Moment]:
        return [m for m in self.moments if m.label.intervention]


def _norm(s: str) -> str:
    s = s.replace("*", "").replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    return " ".join(s.split()).casefold()


def _find(label: Label, events_by_seq: dict, candidates: Sequence[Mapping], where: str) -> int:
    """The seq of the event a label names: its seq if the text agrees, else the nearest event
    whose text agrees (a human message begins with the label's text; a missed agent moment's
    text holds it anywhere; markdown emphasis is ignored)."""
    want = _norm(label.text)[:60]

    def agrees(ev: Mapping) -> bool:
        text = ev.get("text")
        if not isinstance(text, str):
            return False
        return want in _norm(text[:20000]) if label.act == "missed" else _norm(text[:400]).startswith(want)

    ev = events_by_seq.get(label.seq)
    if ev is not None and ev in candidates and agrees(ev):
        return label.seq
    found = [e["seq"] for e in candidates if agrees(e)]
    if not found:
        raise LabelsError(f"{where}: no {'event' if label.act == 'missed' else 'human message'} "
                          f"at seq {label.seq} or elsewhere begins with {label.text[:40]!r}")
    return min(found, key=lambda s: abs(s - label.seq))


def score_transcript(name: str, part: str, events: Sequence[Mapping], points: Sequence,
                     labels: Sequence[Label], where: str = "") -> TranscriptScore:
    """Match one transcript's decision points with its labels (see the module's definitions)."""
    where = where or name
    main = [ev for ev in events if not ev.get("sidechain") and isinstance(ev.get("seq"), int)]
    by_seq = {ev["seq"]: ev for ev in main}
    humans = [ev for ev in main if ev.get("type") == "human_message"]
    human_seqs = [ev["seq"] for ev in humans]
    actions = [ev["seq"] for ev in main if ev.get("type") in _ACTIONS]
    agent_seqs = [ev["seq"] for ev in main if ev.get("type") in _AGENT_EVENTS]
    texts = [ev for ev in main if isinstance(ev.get("text"), str)]
    labelled: dict[int, Label] = {}
    moments: list[Moment] = []
    for label in labels:
        cands = texts if label.act == "missed" else humans
        seq = _find(label, by_seq, cands, f"{where}:{label.line}" if label.line else where)
        if seq in labelled:
            raise LabelsError(f"{where}:{label.line}: seq {seq} is already labelled")
        labelled[seq] = label
        m = seq
        if label.act != "missed":  # the interrupts that opened this message
            k = human_seqs.index(seq)
            while k > 0 and by_seq[human_seqs[k - 1]].get("kind") == "interrupt":
                prev = human_seqs[k - 1]
                if bisect_left(agent_seqs, m) != bisect_right(agent_seqs, prev):
                    break  # the agent did something in between: a separate moment
                m, k = prev, k - 1
        i = bisect_left(human_seqs, m)
        before = human_seqs[i - 1] if i > 0 else -1
        j = bisect_right(human_seqs, m)
        after = human_seqs[j] if j < len(human_seqs) else (main[-1]["seq"] + 1 if main else 0)
        moments.append(Moment(label, m, (before, after)))
    missing = [s for s in human_seqs if s not in labelled]
    if missing:
        ev = by_seq[missing[0]]
        raise LabelsError(f"{where}: {len(missing)} human message(s) carry no label, the first at seq "
                          f"{missing[0]}: {_norm(str(ev.get('text')))[:50]!r}")
    alarms = [dp for dp in points if dp.kind != "start"]
    right = [False] * len(alarms)

    def n_actions(a: int, b: int) -> int:  # agent actions strictly between seqs a < b
        return max(0, bisect_left(actions, b) - bisect_right(actions, a))

    for m in moments:
        act = m.label.act
        if act not in INTERVENTIONS and act not in ("answer", "missed"):
            continue
        before, after = m.span
        for n, dp in enumerate(alarms):
            pos = point_pos(dp)
            if pos is None:
                continue
            if act == "missed":
                ok = before < pos < after and n_actions(min(pos, m.seq), max(pos, m.seq)) <= MAX_AGENT_ACTIONS
            else:
                at = dp.at_seq if dp.at_seq is not None else pos
                ok = before < pos < m.seq and at <= m.seq and n_actions(pos, m.seq) <= MAX_AGENT_ACTIONS
            if ok:
                m.matched.append(n)
                right[n] = True
    return TranscriptScore(name, part, active_seconds(main), alarms, moments, right)


@dataclass
class Figures:
    """One row of the report: a kind, or all of them."""

    alarms: int = 0
    right: int = 0
    interventions: int = 0
    recalled: int = 0
    answers: int = 0
    answered: int = 0
    missed: int = 0
    caught: int = 0
    hours: float = 0.0

    @property
    def precision(self) -> float | None:
        return self.right / self.alarms if self.alarms else None

    @property
    def recall(self) -> float | None:
        return self.recalled / self.interventions if self.interventions else None

    @property
    def per_hour(self) -> float | None:
        return self.alarms / self.hours if self.hours > 0 else None

    def to_dict(self) -> dict:
        def r(x):
            return None if x is None else round(x, 3)
        return {"alarms": self.alarms, "right": self.right, "precision": r(self.precision),
                "interventions": self.interventions, "recalled": self.recalled, "recall": r(self.recall),
                "answers": self.answers, "answered": self.answered, "missed_moments": self.missed,
                "missed_caught": self.caught, "active_hours": r(self.hours), "alarms_per_hour": r(self.per_hour)}


def summarise(scores: Sequence[TranscriptScore]) -> dict[str, Figures]:
    """{"all": Figures, kind: Figures, ...}: for a kind, its alarms are the points that stand for
    it (a merged point counts for each of its kinds) and its recall is the interventions such a
    point came just before."""
    rows: dict[str, Figures] = {"all": Figures()}
    for s in scores:
        kinds_of = [point_kinds(dp) for dp in s.points]
        for kinds, ok in zip(kinds_of, s.right):
            for k in ("all",) + kinds:
                f = rows.get(k)
                if f is None:
                    f = rows[k] = Figures()
                f.alarms += 1
                f.right += ok
        for m in s.moments:
            act = m.label.act
            if act in INTERVENTIONS:
                rows["all"].interventions += 1
                rows["all"].recalled += bool(m.matched)
            elif act == "answer":
                rows["all"].answers += 1
                rows["all"].answered += bool(m.matched)
            elif act == "missed":
                rows["all"].missed += 1
                rows["all"].caught += bool(m.matched)
            else:
                continue
            for k in {k for n in m.matched for k in kinds_of[n]}:
                f = rows[k]
                if act in INTERVENTIONS:
                    f.recalled += 1
                elif act == "answer":
                    f.answered += 1
                else:
                    f.caught += 1
    hours = sum(s.active_s for s in scores) / 3600.0
    for k, f in rows.items():
        f.hours = hours
        if k != "all":
            f.interventions, f.answers, f.missed = rows["all"].interventions, rows["all"].answers, rows["all"].missed
    return rows
