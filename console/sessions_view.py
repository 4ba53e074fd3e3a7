"""One row per session, as `kernelseek sessions` and the fleet view show it (pure: no I/O).

A row joins what the session's log says (its digest) with what its launcher says (a pid on a
host, a Slurm job's state and reason), and sorts the session into one of three groups: it needs
the steerer (an open decision point or a question from the agent), it runs, or it is over.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

from console.safe_text import clean_line
from sessions.digest import OpenDecision, RunnerView, SessionDigest, session_state

NEEDS, RUNNING, ENDED = "needs you", "running", "ended"
GROUPS = (NEEDS, RUNNING, ENDED)
SPARK = "▁▂▃▄▅▆▇█"


@dataclass(frozen=True)
class SessionRow:
    name: str
    path: str
    task: str | None
    agent: str | None
    model: str | None
    arm: str | None
    where: str
    job_id: str | None
    node: str | None
    gpus: str | None
    state: str
    reason: str
    group: str
    best: float | None
    goal: float | None
    history: tuple  # counted geomeans, oldest first (None: an evaluation that did not count)
    started: float | None
    last_t: float | None
    decision: OpenDecision | None  # open
    last_decision: OpenDecision | None
    question: str | None
    undelivered: int
    evals: int
    questions_asked: int
    tokens: int
    cost: float
    autopilot: bool
    last_seq: int = -1
    last_eval: dict | None = None
    pending_ids: tuple = ()  # inbox ids the runner has not taken yet
    needs_since: float | None = None  # when it began to wait for you (while it does)
    gpu_uuid: str | None = None  # the GPU the runner is pinned to (`gpus` then holds its index)
    rank_events: tuple = ()  # what ranking bank questions needs (only while it needs you)

    @property
    def needs_you(self) -> bool:
        return self.group == NEEDS

    def to_dict(self) -> dict:
        d = {k: v for k, v in self.__dict__.items()
             if k not in ("decision", "last_decision", "history", "rank_events", "last_eval")}
        d["history"] = list(self.history)
        for key in ("decision", "last_decision"):
            dp = getattr(self, key)
            d[key] = None if dp is None else {"seq": dp.seq, "kind": dp.kind, "evidence": dp.evidence,
                                              "t": dp.t, "suggestions": dp.suggestions}
        return d


def session_row(name: str, path: str, d: SessionDigest, *, undelivered: list[dict] | tuple = (),
                launch: dict | None = None, view: RunnerView | None = None, lock_held: bool = False) -> SessionRow:
    """`undelivered`: the inbox lines the runner has not taken yet. While one waits, the steerer
    has spoken: the session waits for its runner, not for you (a decision point that fires again
    before the runner takes the answer does not ask twice)."""
    state = session_state(d, view, lock_held=lock_held)
    if d.needs_you and state.word == "running" and not undelivered:
        group = NEEDS
    elif state.active:
        group = RUNNING
    else:
        group = ENDED
    place = d.place or {}
    launch = launch or {}
    node = (view.node if view else None) or place.get("node") or d.host
    pinned = place.get("gpu") if isinstance(place.get("gpu"), dict) else {}
    gpus = pinned_label(pinned) or place.get("gpus") or (view.gpus if view else None)
    if view is not None:
        where = view.where
    elif d.pid is not None:
        where = f"pid {d.pid} on {d.host or '?'}"
    else:
        where = "—"
    return SessionRow(
        name=clean_line(name), path=path, task=_clean(d.task or launch.get("task")), agent=_clean(d.agent),
        model=_clean(d.model), arm=_clean(launch.get("arm")), where=clean_line(where),
        job_id=_clean(view.job_id if view else place.get("job_id")), node=_clean(node), gpus=_clean(gpus),
        state=clean_line(state.word), reason=clean_line(state.reason)[:300], group=group,
        best=d.best_geomean, goal=d.goal_geomean, history=tuple(g for _, g in d.history),
        started=d.started, last_t=d.last_t, decision=d.decision if group == NEEDS else None,
        last_decision=d.last_decision, question=_clean(d.question) if group == NEEDS else None,
        undelivered=len(undelivered), pending_ids=tuple(m.get("id") for m in undelivered), evals=d.evals, questions_asked=d.human_messages, tokens=d.tokens,
        cost=d.cost_usd, autopilot=d.autopilot, last_seq=d.last_seq, last_eval=d.last_eval,
        rank_events=tuple(d.rank_events()) if group == NEEDS else (),
        needs_since=d.needs_since if group == NEEDS else None, gpu_uuid=_clean(pinned.get("uuid")))


def pinned_label(gpu: dict) -> str | None:
    """The pinned GPU as people name it: its index on the node (the UUID's start without one)."""
    if isinstance(gpu.get("index"), int):
        return str(gpu["index"])
    return str(gpu["uuid"])[:12] if gpu.get("uuid") else None


def _clean(v: object) -> str | None:
    return None if v is None else clean_line(str(v))


def sort_rows(rows: list[SessionRow]) -> list[SessionRow]:
    """Needs you first (the one waiting longest first), then running (by name: rows that move
    while their sessions work are hard to follow), then ended (the latest to end first)."""
    def key(r: SessionRow):
        g = GROUPS.index(r.group)
        if r.group == NEEDS:  # by when it began to wait: a detector firing again moves nothing
            return (g, r.needs_since or r.last_t or 0.0, r.name)
        if r.group == RUNNING:
            return (g, 0.0, r.name)
        return (g, -(r.last_t or r.started or 0.0), r.name)
    return sorted(rows, key=key)


def ago(t: float | None, now: float | None = None) -> str:
    if t is None:
        return "—"
    s = max(0.0, (now if now is not None else time.time()) - t)
    if s < 60:
        return f"{s:.0f}s"
    if s < 3600:
        return f"{s / 60:.0f}m"
    if s < 86400:
        return f"{s / 3600:.1f}h"
    return f"{s / 86400:.0f}d"


def best_text(best: float | None, goal: float | None) -> str:
    b = "—" if best is None else f"{best:.2f}"
    return b if goal is None else f"{b}/{goal:.2f}"


def sparkline(values: tuple | list, goal: float | None, width: int) -> list[tuple[str, bool | None]]:
    """Up to `width` characters, the last evaluations' geomeans as bars; each with whether it
    meets the goal (None: an evaluation that did not count, drawn as a gap)."""
    vals = list(values)[-width:] if width > 0 else []
    known = [v for v in vals if v is not None and math.isfinite(v)]
    if not known:
        return [(" " if v is None else SPARK[0], None) for v in vals]
    lo = min(known + ([goal] if goal is not None else [])) * 0.95
    hi = max(known + ([goal] if goal is not None else []))
    span = hi - lo or 1.0
    out = []
    for v in vals:
        if v is None or not math.isfinite(v):
            out.append(("·", None))
            continue
        level = int(round((v - lo) / span * (len(SPARK) - 1)))
        out.append((SPARK[max(0, min(len(SPARK) - 1, level))], goal is not None and v >= goal))
    return out


def decision_text(d: OpenDecision | None, width: int = 60) -> str:
    if d is None:
        return ""
    kind = d.kind.replace("_", " ")
    evidence = clean_line(d.evidence)
    if evidence.lower().startswith(kind + ":"):  # evidence that names its kind already
        evidence = evidence[len(kind) + 1:].lstrip()
    return f"{kind}: {evidence}"[:width]
