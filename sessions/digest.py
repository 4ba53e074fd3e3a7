"""One digest per session: the facts every viewer shows, folded from the log by one set of rules.

The console header, `kernelseek sessions`, the fleet view and `kernelseek compare` all read a
session through `SessionDigest`, so none of them can show another best geomean or another state.

- `counted_geomean(event, gate_quick=...)` is the one definition of which evaluations count toward
  a session's best geomean (the runner's stop gate uses it too): an evaluation of the whole task
  (no `only` subset) in the timing scope the stop gate judges (quick or full), not interrupted,
  without an error, and correct on every scenario (`all_correct` true; an evaluation inferred from
  a foreign transcript that says nothing about correctness is taken at its word).
- `SessionDigest.add(event)` folds events one at a time: task, agent, where the runner ran, best
  geomean and its history, the open decision point, an open question from the agent, messages
  delivered, tokens and cost, how the session ended.
- `DigestReader` keeps a digest up to date from a growing events.jsonl (and the inbox's
  undelivered messages), parsing only the lines that can change a digest: a 50 MB log of tool
  output is digested at the speed of reading it.
- `session_state(digest, view)` combines what the log says with what the launcher says (a local
  pid, a Slurm job's state and reason) into one state word and a reason.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from sessions.log import LogRead, LogReader, Malformed

HISTORY_MAX = 240  # evaluations kept for a sparkline / a plot (the oldest are dropped)
QUESTION_TOOLS = frozenset(("AskUserQuestion", "ask_user", "ask_steerer"))

# what a state word means for grouping: a session that needs the steerer, one at work, one over
ACTIVE_STATES = frozenset(("running", "starting", "queued"))


def _number(v: object) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def counted_geomean(event: dict, *, gate_quick: bool = False) -> float | None:
    """The geomean of an `eval_result` event if it counts toward the session's best, else None.

    `event` may also be a bare summary (the runner's own evaluations, before they are events)."""
    summary = event.get("summary") if isinstance(event.get("summary"), dict) else event
    if event.get("interrupted") or summary.get("interrupted") or summary.get("error"):
        return None
    if summary.get("only") or bool(summary.get("quick")) != bool(gate_quick):
        return None
    correct = summary.get("all_correct")
    if correct is not True and not (correct is None and "all_correct" not in summary and event.get("inferred")):
        return None
    return _number(summary.get("geomean"))


def goal_geomean(goal: object) -> float | None:
    """The geomean a session must reach, from session_start's goal (a number or a mapping)."""
    if isinstance(goal, (int, float)) and not isinstance(goal, bool):
        return float(goal)
    if isinstance(goal, dict):
        for key in ("min_geomean", "geomean", "speedup", "target"):
            v = _number(goal.get(key))
            if v is not None:
                return v
    return None


@dataclass
class OpenDecision:
    """A decision point nobody has answered yet."""

    seq: int
    kind: str
    evidence: str
    t: float | None
    suggestions: list[dict] = field(default_factory=list)  # [{id, text}], ranked

    def context(self) -> dict:
        """The decision point as a human message's context carries it."""
        return {"seq": self.seq, "kind": self.kind, "evidence": self.evidence}


@dataclass
class SessionDigest:
    """What a session is, where it ran, how far it got and whether it waits for a human."""

    task: str | None = None
    agent: str | None = None
    model: str | None = None
    goal: dict = field(default_factory=dict)
    host: str | None = None
    pid: int | None = None
    device: str | None = None
    candidate: str | None = None  # the file the stop gate judges, in workspace/
    task_dir: str | None = None
    arch: str | None = None
    capabilities: list = field(default_factory=list)
    place: dict = field(default_factory=dict)  # where the runner runs (launcher, job, node, gpus)
    autopilot: bool = False
    gate_quick: bool = False
    started: float | None = None
    last_t: float | None = None
    events: int = 0
    last_seq: int = -1
    resumes: int = 0
    # how it ended (None while it runs); end_by: stop_request | signal | None (the runner itself)
    ended: str | None = None
    end_detail: str | None = None
    end_t: float | None = None
    end_by: str | None = None
    fatal: str | None = None
    # evaluations
    evals: int = 0
    best_geomean: float | None = None
    last_eval: dict | None = None
    history: list[tuple[float, float | None]] = field(default_factory=list)  # (t, counted geomean)
    # the steerer's side
    decision: OpenDecision | None = None  # the open one
    last_decision: OpenDecision | None = None  # the latest, answered or not
    question: str | None = None  # an open question from the agent
    needs_since: float | None = None  # when it began to wait for the steerer (the first of its alarms)
    human_messages: int = 0
    by_source: dict[str, int] = field(default_factory=dict)  # bank | free | autopilot | imported
    asked: list[tuple[str, str | None]] = field(default_factory=list)  # (text, bank id), the last 50
    delivered: set[str] = field(default_factory=set)  # inbox ids acknowledged in the log
    # cost
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    _pending_question: str | None = None
    _ask_ids: set[str] = field(default_factory=set)

    # -- derived --------------------------------------------------------------------------------

    @property
    def goal_geomean(self) -> float | None:
        return goal_geomean(self.goal)

    @property
    def goal_met(self) -> bool:
        g, best = self.goal_geomean, self.best_geomean
        return g is not None and best is not None and best >= g

    @property
    def needs_you(self) -> bool:
        """An open decision point or a question from the agent, in a session still going."""
        return self.ended is None and (self.decision is not None or self.question is not None)

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def rank_events(self) -> list[dict]:
        """What ranking bank questions for this session needs: its start and what was asked."""
        start = {"type": "session_start", "task": self.task, "arch": self.arch, "device": self.device,
                 "capabilities": list(self.capabilities)}
        return [start, *({"type": "human_message", "text": t, "bank_id": b} for t, b in self.asked)]

    # -- folding --------------------------------------------------------------------------------

    def add(self, ev: dict) -> None:
        t = _number(ev.get("t"))
        seq = ev.get("seq")
        self.tick(seq if isinstance(seq, int) and not isinstance(seq, bool) else None, t)
        fold = _FOLDS.get(ev.get("type"))
        if fold is not None:
            fold(self, ev, t)

    def tick(self, seq: int | None, t: float | None) -> None:
        """One more event (what every event changes: the count, the clock, the last seq)."""
        self.events += 1
        if t is not None:
            self.last_t = t
            if self.started is None:
                self.started = t
        if seq is not None and seq > self.last_seq:
            self.last_seq = seq

    def skim(self, kind: str, seq: int, t: float, line: str) -> bool:
        """Fold an event from its type and raw line alone, when its fields cannot change the digest
        (most events); False when the line must be parsed."""
        if kind in _SKIMMED:
            self.tick(seq, t)
            return True
        if kind == "tool_call":
            if any(n in line for n in QUESTION_TOOLS):
                return False  # a question from the agent: its input matters
            self.tick(seq, t)
            self._pending_question = None
            return True
        if kind == "assistant_text" and '?"' not in line:
            self.tick(seq, t)  # no text ending in a question mark in it
            self._pending_question = None
            return True
        if kind == "tool_result" and not self._ask_ids:
            self.tick(seq, t)
            return True
        if kind == "error" and '"fatal":true' not in line:
            self.tick(seq, t)
            return True
        if kind == "usage":  # one per model request: its numbers without parsing the line
            self.tick(seq, t)
            self._usage({k: float(v) for k, v in _USAGE_FIELD.findall(line)}, t)
            return True
        return False

    def _start(self, ev: dict, t: float | None) -> None:
        self.task = ev.get("task") if isinstance(ev.get("task"), str) else self.task
        for name in ("agent", "model", "host", "device", "arch", "candidate", "task_dir"):
            if isinstance(ev.get(name), str):
                setattr(self, name, ev[name])
        if isinstance(ev.get("capabilities"), list):
            self.capabilities = [str(c) for c in ev["capabilities"]]
        self.goal = ev.get("goal") if isinstance(ev.get("goal"), dict) else (
            {"min_geomean": ev["goal"]} if _number(ev.get("goal")) is not None else self.goal)
        self._runner(ev)
        config = ev.get("config") if isinstance(ev.get("config"), dict) else {}
        self.autopilot = bool(config.get("autopilot", False))
        self.gate_quick = bool(config.get("gate_quick", False))

    def _runner(self, ev: dict) -> None:
        if isinstance(ev.get("pid"), int):
            self.pid = ev["pid"]
        if isinstance(ev.get("host"), str):
            self.host = ev["host"]
        if isinstance(ev.get("place"), dict):
            self.place = dict(ev["place"])

    def _resume(self, ev: dict, t: float | None) -> None:
        self.resumes += 1
        self.ended = self.end_detail = self.end_t = self.end_by = self.fatal = None
        self._runner(ev)
        if isinstance(ev.get("model"), str):
            self.model = ev["model"]
        self.delivered.update(i for i in ev.get("voided_stops") or () if isinstance(i, str))

    def _eval(self, ev: dict, t: float | None) -> None:
        summary = ev.get("summary") if isinstance(ev.get("summary"), dict) else {}
        if ev.get("interrupted") or summary.get("interrupted"):
            return
        self.evals += 1
        self.last_eval = summary
        g = counted_geomean(ev, gate_quick=self.gate_quick)
        if g is not None and (self.best_geomean is None or g > self.best_geomean):
            self.best_geomean = g
        if g is not None or not summary.get("only"):
            self.history.append((t if t is not None else 0.0, g))
            if len(self.history) > HISTORY_MAX:
                del self.history[0]

    def _decision_point(self, ev: dict, t: float | None) -> None:
        evidence = ev.get("evidence")
        if not isinstance(evidence, str):
            evidence = json.dumps(evidence, ensure_ascii=False, default=str)
        suggestions = []
        for s in ev.get("suggestions") or ():
            if isinstance(s, dict) and isinstance(s.get("text"), str):
                suggestions.append({"id": s.get("id"), "text": s["text"]})
            elif isinstance(s, str):
                suggestions.append({"id": None, "text": s})
        seq = ev.get("seq") if isinstance(ev.get("seq"), int) else self.last_seq
        self.last_decision = OpenDecision(seq, str(ev.get("kind") or "decision"), evidence, t, suggestions)
        if self.decision is None and self.question is None:
            self.needs_since = t
        self.decision = self.last_decision

    def _human(self, ev: dict, t: float | None) -> None:
        self.human_messages += 1
        source = str(ev.get("source") or "free")
        self.by_source[source] = self.by_source.get(source, 0) + 1
        if isinstance(ev.get("inbox_id"), str):
            self.delivered.add(ev["inbox_id"])
        if isinstance(ev.get("goal"), dict):  # `/goal 1.5` in a message raised it
            self.goal = dict(ev["goal"])
        if isinstance(ev.get("text"), str):
            self.asked.append((ev["text"][:500], ev.get("bank_id") if isinstance(ev.get("bank_id"), str) else None))
            del self.asked[:-50]
        # a message answers the open decision point it names, or the open one when it names none
        dp = ev.get("decision_point")
        if self.decision is not None and (dp is None or dp == self.decision.seq):
            self.decision = None
        self.question = self._pending_question = None
        if self.decision is None:
            self.needs_since = None

    def _text(self, ev: dict, t: float | None) -> None:
        text = ev.get("text")
        if isinstance(text, str) and text.rstrip().endswith("?") and not ev.get("sidechain"):
            self._pending_question = text.strip()
        else:
            self._pending_question = None

    def _tool_call(self, ev: dict, t: float | None) -> None:
        self._pending_question = None  # the turn went on: the text was not a question to us
        if ev.get("name") in QUESTION_TOOLS:
            inp = ev.get("input") if isinstance(ev.get("input"), dict) else {}
            asked = inp.get("question")
            if not isinstance(asked, str):
                qs = inp.get("questions")
                first = qs[0] if isinstance(qs, list) and qs else None
                asked = first.get("question") if isinstance(first, dict) else None
            if self.decision is None and self.question is None:
                self.needs_since = t
            self.question = asked if isinstance(asked, str) else "(a question)"
            if ev.get("id") is not None:
                self._ask_ids.add(str(ev["id"]))

    def _tool_result(self, ev: dict, t: float | None) -> None:
        if str(ev.get("id")) in self._ask_ids:
            self._ask_ids.discard(str(ev.get("id")))
            self.question = None
            if self.decision is None:
                self.needs_since = None

    def _stop_check(self, ev: dict, t: float | None) -> None:
        # the agent ended its turn on a question: it waits for an answer
        if self._pending_question:
            if self.decision is None and self.question is None:
                self.needs_since = t
            self.question = self._pending_question
        self._pending_question = None

    def _usage(self, ev: dict, t: float | None) -> None:
        get = ev.get  # (once per model request: a long session folds tens of thousands)
        self.input_tokens += (int(get("input_tokens") or 0) + int(get("cache_read_tokens") or 0)
                              + int(get("cache_write_tokens") or 0))
        self.output_tokens += int(ev.get("output_tokens") or 0)  # (floats when skimmed: int() drops .0)
        total = _number(ev.get("total_cost_usd"))
        self.cost_usd = total if total is not None else self.cost_usd + (_number(ev.get("cost_usd")) or 0.0)

    def _error(self, ev: dict, t: float | None) -> None:
        if ev.get("fatal"):
            self.fatal = str(ev.get("message") or "")

    def _end(self, ev: dict, t: float | None) -> None:
        self.ended = str(ev.get("reason") or "ended")
        self.end_detail = ev.get("detail") if isinstance(ev.get("detail"), str) else None
        self.end_t = t
        self.end_by = ev.get("by") if isinstance(ev.get("by"), str) else None
        if isinstance(ev.get("inbox_id"), str):
            self.delivered.add(ev["inbox_id"])
        self.decision = None
        self.question = self._pending_question = None
        self.needs_since = None


_FOLDS = {
    "session_start": SessionDigest._start,
    "session_resume": SessionDigest._resume,
    "eval_result": SessionDigest._eval,
    "decision_point": SessionDigest._decision_point,
    "human_message": SessionDigest._human,
    "assistant_text": SessionDigest._text,
    "tool_call": SessionDigest._tool_call,
    "tool_result": SessionDigest._tool_result,
    "stop_check": SessionDigest._stop_check,
    "usage": SessionDigest._usage,
    "error": SessionDigest._error,
    "session_end": SessionDigest._end,
}
# the types whose fields a digest never reads (seq and t are enough)
_SKIMMED = frozenset(("assistant_delta", "thinking", "eval_start", "eval_progress", "runner_note", "compaction"))
# lines our writer makes start like this: the type is known without parsing the line
_PREFIX = re.compile(r'\{"v":\d+,"seq":(\d+),"t":([0-9.eE+-]+),"type":"([A-Za-z_]+)"')
_DECODE = json.JSONDecoder().raw_decode
_USAGE_FIELD = re.compile(r'"(input_tokens|output_tokens|cache_read_tokens|cache_write_tokens|cost_usd|'
                          r'total_cost_usd)":(-?[0-9.]+(?:[eE][+-]?\d+)?)')


def digest_events(events) -> SessionDigest:
    d = SessionDigest()
    for ev in events:
        d.add(ev)
    return d


class DigestReader(LogReader):
    """A session's digest, kept up to date by `refresh()` (reads only what was appended)."""

    def __init__(self, session_dir: str | os.PathLike) -> None:
        self.dir = Path(session_dir)
        super().__init__(self.dir / "events.jsonl")
        self.digest = SessionDigest()
        self._inbox = LogReader(self.dir / "inbox.jsonl")
        self._posted: dict[str, dict] = {}  # inbox id -> line (messages and interrupts)
        self.size = -1  # of events.jsonl at the last refresh

    @property
    def name(self) -> str:
        return self.dir.name

    def refresh(self, max_bytes: int | None = None) -> bool:
        """Fold what is new in the log and the inbox; True when anything changed."""
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            size = 0
        changed = False
        if size != self.size or self.offset < size:
            before = self.digest.events
            self.read(max_bytes)
            self.size = size
            changed = self.digest.events != before
        for line in self._inbox.read().events:
            if line.get("kind", "message") in ("message", "interrupt") and isinstance(line.get("id"), str):
                self._posted[line["id"]] = line
                changed = True
        return changed

    def undelivered(self) -> list[dict]:
        """Inbox messages the runner has not acknowledged yet, oldest first."""
        done = self.digest.delivered
        return [m for i, m in self._posted.items() if i not in done]

    def _parse(self, chunk: bytes, result: LogRead) -> None:
        lines = chunk.decode("utf-8", "replace").split("\n")
        lines.pop()
        first_line = self.line_no + 1
        self.line_no += len(lines)
        d = self.digest
        match, skim = _PREFIX.match, d.skim
        for i, line in enumerate(lines):
            m = match(line)
            if m is not None and skim(m.group(3), int(m.group(1)), float(m.group(2)), line):
                continue
            if not line.strip():
                continue
            try:
                ev, end = _DECODE(line.strip())
            except ValueError as exc:
                result.malformed.append(Malformed(str(self.path), first_line + i,
                                                  f"not JSON ({getattr(exc, 'msg', exc)})", line[:80]))
                continue
            if isinstance(ev, dict) and isinstance(ev.get("type"), str):
                d.add(ev)


def read_digest(session_dir: str | os.PathLike) -> SessionDigest:
    reader = DigestReader(session_dir)
    reader.refresh()
    return reader.digest


# -- state: the log and the launcher together ----------------------------------------------------

# scheduler states after which no runner is left (Slurm's words)
FINISHED_JOB_STATES = frozenset(("COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL",
                                 "PREEMPTED", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "REVOKED",
                                 "SPECIAL_EXIT"))
# ... of which these mean the scheduler ended it, not the runner
KILLED_JOB_STATES = FINISHED_JOB_STATES - {"COMPLETED", "FAILED", "SPECIAL_EXIT"}


@dataclass(frozen=True)
class RunnerView:
    """What a launcher says about a session's runner: a pid on a host, or a scheduler's job."""

    launcher: str  # local | slurm
    where: str  # "pid 4242 on node7", "job 812_3 on gpu-a12"
    alive: bool | None  # None: cannot be told from here (a pid on another host)
    job_id: str | None = None
    state: str | None = None  # the scheduler's word: PENDING, RUNNING, TIMEOUT, CANCELLED, ...
    reason: str | None = None  # the scheduler's reason or last words
    node: str | None = None
    gpus: str | None = None
    exit_code: str | None = None
    source: str | None = None  # where the scheduler's view came from (sacct, scontrol, ...)

    def to_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass(frozen=True)
class SessionState:
    word: str  # queued | starting | running | ended | stopped | lost | cancelled | timeout | ...
    reason: str = ""

    @property
    def active(self) -> bool:
        return self.word in ACTIVE_STATES


def _scheduler_words(view: RunnerView) -> str:
    parts = [view.state or "?"]
    if view.reason and view.reason not in ("None", view.state):
        parts.append(view.reason)
    if view.exit_code and view.exit_code not in ("0:0",):
        parts.append(f"exit {view.exit_code}")
    return f"{view.launcher}: " + " · ".join(parts)


def session_state(d: SessionDigest, view: RunnerView | None, *, lock_held: bool = False) -> SessionState:
    """One state from the log's view (`d`) and the launcher's (`view`; None when there is none)."""
    killed = view is not None and view.state in KILLED_JOB_STATES
    if d.ended is not None:
        detail = f"{d.ended}" + (f" ({d.end_detail})" if d.end_detail else "")
        if killed and d.end_by != "stop_request":
            # the runner saw only a signal; the scheduler knows why (time limit, scancel, node)
            return SessionState(view.state.lower(), f"{_scheduler_words(view)}; the log ends {detail}")
        if d.ended == "stopped":
            return SessionState("stopped", d.end_detail or "")
        return SessionState("ended", detail)
    if view is not None and view.alive is False:
        if killed:
            return SessionState(view.state.lower(), _scheduler_words(view))
        why = _scheduler_words(view) + "; " if view.state else ""
        if d.started is None:
            return SessionState("lost", f"{why}the runner never wrote session_start (see runner.log)")
        return SessionState("lost", f"{why}the runner is gone without session_end"
                                    + (f": {d.fatal}" if d.fatal else " (see runner.log)"))
    if view is not None and view.alive and view.state in ("PENDING", "CONFIGURING", "REQUEUED"):
        return SessionState("queued", _scheduler_words(view))
    alive = view.alive if view is not None and view.alive is not None else lock_held
    if d.started is None:
        return SessionState("starting" if alive or view is None else "lost", "no session_start yet")
    if alive:
        return SessionState("running", _scheduler_words(view) if view is not None and view.state else "")
    return SessionState("lost", "the runner is gone without session_end (killed or crashed); "
                                "--resume carries it on")
