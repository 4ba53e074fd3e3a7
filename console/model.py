"""The console's view-model: a pure fold of session events into what the screen shows.

`SessionModel.add(events)` folds events (in log order) into:

- transcript rows (`Row`): one per thing a reader follows — a block of assistant text, a tool call
  (its result folds into the call's row), an evaluation (start, progress and result fold into one
  row), a decision point, a human message, a stop check, an error, the start and the end. Usage
  and progress events make no row; events of unknown types get a generic row (never dropped);
- the evaluation history, decision points, human messages, usage totals and eval runs, each with
  the event index it happened at, so `state_at(pos)` answers "what did the session look like after
  event `pos`" by bisection (replay's evaluator panel and header) in O(log n).

It holds no event bodies: rows carry a cleaned one-line title and the event indices, and the
`EventStore` gives the full event back when a row is expanded (a tool call's title is made from
its event when first read: `ToolCallRow`). No Textual in here; tested alone.
"""
from __future__ import annotations

import json
from array import array
from bisect import bisect_right
from dataclasses import dataclass, field

from console.safe_text import clean_line
from console.store import EventStore, MemoryEventStore
from sessions.digest import SessionDigest, goal_geomean

# Row kinds
START, TEXT, THINKING, TOOL, EVAL, DECISION, HUMAN, STOP, ERROR, END, OTHER, STREAM, COMPACTION = (
    "start", "text", "thinking", "tool", "eval", "decision", "human", "stop", "error", "end",
    "other", "stream", "compaction")

# Kinds whose collapsed form wraps over a few lines (the rest are one line).
MULTILINE_CAP = {TEXT: 3, STREAM: 3, HUMAN: 3, DECISION: 3}
TITLE_MAX = 600  # characters of a row's text kept for its collapsed form
# the event types that make no row of their own (they fold into others: the header, an evaluation's row)
NO_ROW = frozenset(("usage", "eval_progress"))
# the events that move the header's totals, handed to the session's digest (sessions.digest)
_SUMMARY_TYPES = frozenset(("session_start", "session_resume", "usage", "eval_result", "session_end"))


@dataclass(slots=True)
class Row:
    kind: str
    ei: int  # index (in the store) of the event that opened the row
    seq: int
    t: float
    title: str = ""  # cleaned, one line, at most TITLE_MAX characters
    text_len: int = 0  # length of the whole cleaned one-line text (for the collapsed height)
    ei2: int = -1  # the event that completed the row: tool result, eval result, final text block
    status: str = ""  # tool: "" (running) | ok | error; eval: running | pass | fail | goal
    note: str = ""  # right-hand note: duration, progress, verdict
    ref: int = -1  # index into evals / decisions / humans for those kinds
    version: int = 0  # bumped whenever the row changes (renders are cached by it)
    sub: bool = False  # from a subagent's thread (a sidechain of an imported transcript)
    superseded: bool = False  # from a model request that failed and was retried


_ROW_TITLE = Row.title  # the slot itself (ToolCallRow's property reads and sets it)


class ToolCallRow(Row):
    """A tool call's row. Its title (the tool and the one argument that says what it does) is
    made from the call's event the first time it is read, not when the log is folded: a long log
    has tens of thousands of calls and a screen shows a few dozen (making them all was a quarter
    of an open's fold)."""

    __slots__ = ("_store",)

    @property
    def title(self) -> str:
        title = _ROW_TITLE.__get__(self, Row)
        if title is None:
            title = tool_call_title(self._store.get(self.ei))
            _ROW_TITLE.__set__(self, title)
        return title

    @title.setter
    def title(self, value: str) -> None:
        _ROW_TITLE.__set__(self, value)


@dataclass(slots=True)
class EvalRecord:
    ei: int
    seq: int
    t: float
    n: int | None
    summary: dict
    report: str | None
    row: int
    best: float | None  # best geomean of the session as of this evaluation

    @property
    def geomean(self) -> float | None:
        g = self.summary.get("geomean")
        return float(g) if isinstance(g, (int, float)) and not isinstance(g, bool) else None

    @property
    def all_correct(self) -> bool:
        return bool(self.summary.get("all_correct", False))

    @property
    def goal_met(self) -> bool:
        return bool(self.summary.get("goal_met", False))


@dataclass(slots=True)
class DecisionRecord:
    ei: int
    seq: int
    t: float
    kind: str
    evidence: str
    about_seq: int | None
    suggestions: list[dict]
    row: int
    strength: float | None = None
    detail: object = None
    answers: list[int] = field(default_factory=list)  # indices into humans
    count: int = 1  # a loop or stall that grew: how often it repeated
    reasons: list = field(default_factory=list)  # [{kind, evidence, strength}] when several kinds fired

    def context(self) -> dict:
        """The decision point as a human message's context carries it."""
        return {"seq": self.seq, "kind": self.kind, "evidence": self.evidence,
                "about_seq": self.about_seq}


@dataclass(slots=True)
class HumanRecord:
    ei: int
    seq: int
    t: float
    text: str
    source: str
    bank_id: str | None
    decision_point: int | None
    inbox_id: str | None
    row: int
    author: str | None = None


@dataclass(slots=True)
class EvalRun:
    """An evaluation from eval_start to its eval_result (end_ei -1 while it runs)."""

    start_ei: int
    row: int
    n: int | None
    end_ei: int = -1
    marks: list[tuple[int, int, int, str]] = field(default_factory=list)  # (ei, done, total, scenario)
    total: int | None = None


@dataclass(slots=True)
class Posted:
    """A message in the session's inbox (posted by this console or another) and its delivery."""

    inbox_id: str
    text: str
    t: float
    source: str
    bank_id: str | None
    decision_point: int | None
    mine: bool = False
    delivered_seq: int | None = None


@dataclass(frozen=True)
class ViewState:
    """What the header, evaluator panel, dock and timeline show, as of event index `pos`."""

    pos: int
    total: int
    task: str | None = None
    model_name: str | None = None
    agent: str | None = None
    goal_geomean: float | None = None
    status: str = "stopped"
    end_reason: str | None = None
    started: float | None = None
    now: float | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    best_geomean: float | None = None
    latest_eval: EvalRecord | None = None
    history: tuple = ()  # geomean per evaluation so far (None where not all correct)
    progress: tuple[int, int, str] | None = None  # (done, total, scenario) while an eval runs
    running_eval_n: int | None = None
    decision: DecisionRecord | None = None
    answer: HumanRecord | None = None  # when the decision was answered as of pos
    posted: tuple = ()  # Posted messages still waiting for delivery
    mode: str = "live"
    loading: float | None = None  # while the log is still being read: how much of it is (0..1)
    unsandboxed: bool = False  # the agent's commands ran unconfined (session_start.sandboxed false)


def _block_key(ev: dict) -> str | None:
    """A streamed block's key: block indices restart every turn (and every retried attempt)."""
    block = ev.get("block")
    if block is None:
        return None
    return f"{ev.get('turn')}/{ev.get('attempt')}/{block}"


def _num(v: object) -> float | None:
    if type(v) is float:
        return v
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


_SUMMARY_KEYS = ("command", "cmd", "path", "file_path", "filename", "pattern", "query", "url", "description")
_FILE_KEYS = frozenset(("path", "file_path", "filename"))


def tool_summary(name: str, inp: object) -> str:
    """A tool call as one line: its name and the one argument that says what it does."""
    if isinstance(inp, dict):
        for key in _SUMMARY_KEYS:
            v = inp.get(key)
            if v is None:
                continue
            if isinstance(v, list):
                v = " ".join(str(x) for x in v)
            if isinstance(v, str) and v:
                extra = _edit_extent(inp) if key in _FILE_KEYS else ""
                return f"{name} {clean_line(v)[:300]}{extra}"
        if not inp:
            return name
        return f"{name} {clean_line(json.dumps(inp, ensure_ascii=False, default=str))[:300]}"
    if inp is None:
        return name
    return f"{name} {clean_line(inp)[:300]}"


def tool_call_title(ev: dict) -> str:
    """A tool_call event's row title."""
    return tool_summary(clean_line(ev.get("name") or "tool"), ev.get("input"))[:TITLE_MAX]


def _first_str(inp: dict, keys: tuple[str, ...]) -> str | None:
    for k in keys:
        v = inp.get(k)
        if type(v) is str:
            return v
    return None


def _edit_extent(inp: dict) -> str:
    old = _first_str(inp, ("old_str", "old_string", "old"))
    new = _first_str(inp, ("new_str", "new_string", "new", "content"))
    if old is not None and new is not None:
        return f"  (-{old.count(chr(10)) + 1} +{new.count(chr(10)) + 1} lines)"
    if new is not None:
        return f"  ({new.count(chr(10)) + 1} lines)"
    return ""


def eval_note(summary: dict) -> tuple[str, str]:
    """(status, one-line verdict) of an evaluation summary."""
    g = _num(summary.get("geomean"))
    passed, total = summary.get("passed"), summary.get("total")
    ok = bool(summary.get("all_correct"))
    parts = []
    if summary.get("build_ok") is False:
        parts.append("build failed")
    if passed is not None and total is not None:
        parts.append(f"{passed}/{total} correct")
    if g is not None:
        parts.append(f"geomean {g:.3f}×")
    mr = _num(summary.get("min_ratio"))
    if mr is not None:
        parts.append(f"min {mr:.2f}×")
    if summary.get("error"):
        parts.append(f"error: {clean_line(summary.get('error'))[:80]}")
    flags = summary.get("flags") or []
    if flags:
        parts.append("flags: " + ", ".join(clean_line(f) for f in flags[:4]))
    if summary.get("interrupted"):
        return "interrupted", "interrupted" + (" · " + " · ".join(parts) if parts else "")
    status = "goal" if summary.get("goal_met") else ("pass" if ok else "fail")
    return status, " · ".join(parts)


class SessionModel:
    """The fold. `add()` returns the indices of rows added and changed."""

    def __init__(self, store: EventStore | None = None) -> None:
        self.store = store if store is not None else MemoryEventStore()
        self.rows: list[Row] = []
        self.row_ei: array = array("q")  # rows' opening event indices, increasing (for bisect)
        self.event_row: array = array("l")  # per event: the row it shows in, or -1
        self.times: array = array("d")  # per event: its t
        self.seqs: array = array("q")  # per event: its seq
        self.summary = SessionDigest()  # the header's facts, by the rules every viewer uses
        self.start: dict = {}
        self.evals: list[EvalRecord] = []  # evaluations that finished (the panel's history)
        self.eval_rows: list[EvalRecord] = []  # every eval_result, interrupted ones too (rows' ref)
        self.eval_ei: list[int] = []
        self.decisions: list[DecisionRecord] = []
        self.decision_ei: list[int] = []
        self.decision_by_seq: dict[int, int] = {}
        self.decision_by_id: dict[str, int] = {}  # a point's id -> its record (updates name it)
        self.humans: list[HumanRecord] = []
        self.human_ei: list[int] = []
        self.delivered: dict[str, int] = {}  # inbox id -> seq of its human_message
        self.runs: list[EvalRun] = []
        self.run_ei: list[int] = []
        self.run_of_row: dict[int, EvalRun] = {}
        self.usage_ei: list[int] = []
        self.usage_totals: list[tuple[int, int, float]] = []
        self.posted: dict[str, Posted] = {}
        self.end_ei = -1
        self.end_reason: str | None = None
        self._open_tools: dict[str, int] = {}
        self._streams: dict[str, int] = {}
        self._attempt_rows: dict[object, list[tuple[int, object]]] = {}  # turn -> [(row, attempt)]
        self._stream_raw: dict[str, str] = {}
        self._open_run: EvalRun | None = None
        self._last_t = 0.0

    # -- folding ------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.times)

    def add(self, events: list[dict]) -> tuple[int, set[int]]:
        """Fold events (already in the store, in order). Returns (rows added, rows changed).

        The hot loop of opening a session (50,000 events in a fraction of a second): locals,
        no per-event method lookups."""
        n_rows = len(self.rows)
        changed: set[int] = set()
        rows = self.rows
        summary_add = self.summary.add
        handlers = ROW_HANDLERS
        summary_types = _SUMMARY_TYPES
        last_t = self._last_t
        ei = len(self.times)
        # per event: its t, seq and row, appended to the arrays once per batch
        ts: list[float] = []
        ss: list[int] = []
        rs: list[int] = []
        t_add, s_add, r_add = ts.append, ss.append, rs.append
        for ev in events:
            get = ev.get
            t = get("t")
            if type(t) is not float and type(t) is not int:
                t = last_t
            last_t = t
            seq = get("seq")
            if type(seq) is not int:
                seq = ei
            t_add(t)
            s_add(seq)
            kind = get("type")
            if kind in summary_types:  # the header's totals (sessions.digest.SessionDigest)
                summary_add(ev)
            handler = handlers.get(kind)
            if handler is not None:
                before = len(rows)
                row = handler(self, ev, ei, seq, t, changed)
                if len(rows) > before and ("sidechain" in ev or "attempt" in ev):
                    if get("sidechain"):
                        rows[-1].sub = True
                    if "attempt" in ev and "turn" in ev:
                        self._attempt_rows.setdefault(ev["turn"], []).append((len(rows) - 1, ev["attempt"]))
            elif kind == "eval_progress":
                row = self._eval_progress(ev, ei, changed)
            else:
                row = self._other(ev, ei, seq, t)
            r_add(row)
            ei += 1
        self.times.extend(ts)
        self.seqs.extend(ss)
        self.event_row.extend(rs)
        self._last_t = last_t
        changed = {r for r in changed if r < n_rows}
        return len(rows) - n_rows, changed

    def _new_row(self, row: Row) -> int:
        self.rows.append(row)
        self.row_ei.append(row.ei)
        return len(self.rows) - 1

    def _other(self, ev: dict, ei: int, seq: int, t: float) -> int:
        rest = {k: v for k, v in ev.items() if k not in ("v", "seq", "t", "type")}
        title = f"{ev.get('type')}: {json.dumps(rest, ensure_ascii=False, default=str)}"
        return self._new_row(Row(OTHER, ei, seq, t, clean_line(title)[:TITLE_MAX]))

    def _session_start(self, ev, ei, seq, t, changed) -> int:
        self.start = ev
        g = goal_geomean(ev.get("goal"))
        parts = [str(ev.get("task") or "?")]
        for key in ("model", "agent"):
            if ev.get(key):
                parts.append(str(ev[key]))
        if g is not None:
            parts.append(f"goal ≥ {g:.2f}×")
        where = "/".join(str(ev[k]) for k in ("host", "device") if ev.get(k))
        if where:
            parts.append(where)
        note = clean_line(ev.get("note") or ev.get("recorded_by") or ev.get("source") or "")
        return self._new_row(Row(START, ei, seq, t, "session " + clean_line(" · ".join(parts))[:TITLE_MAX],
                                 note=note[:80]))

    def _text(self, ev, ei, seq, t, changed) -> int:
        flat = clean_line(ev.get("text"))
        block = _block_key(ev)
        if block is not None and block in self._streams:
            r = self._streams.pop(block)
            self._stream_raw.pop(block, None)
            row = self.rows[r]
            row.kind, row.ei2, row.title, row.text_len = TEXT, ei, flat[:TITLE_MAX], len(flat)
            row.version += 1
            changed.add(r)
            return r
        return self._new_row(Row(TEXT, ei, seq, t, flat[:TITLE_MAX], len(flat)))

    def _delta(self, ev, ei, seq, t, changed) -> int:
        block = _block_key(ev) or ""
        piece = ev.get("text") if isinstance(ev.get("text"), str) else ""
        r = self._streams.get(block)
        raw = self._stream_raw.get(block, "") + piece
        raw = raw[-4 * TITLE_MAX:]
        self._stream_raw[block] = raw
        flat = clean_line(raw)[-TITLE_MAX:]
        if r is None:
            r = self._new_row(Row(STREAM, ei, seq, t, flat, len(flat)))
            self._streams[block] = r
            return r
        row = self.rows[r]
        row.title, row.text_len = flat, len(flat)
        row.version += 1
        changed.add(r)
        return r

    def _thinking(self, ev, ei, seq, t, changed) -> int:
        flat = "(redacted)" if ev.get("redacted") else clean_line(ev.get("text"))
        return self._new_row(Row(THINKING, ei, seq, t, flat[:TITLE_MAX], len(flat)))

    def _tool_call(self, ev, ei, seq, t, changed) -> int:
        row = ToolCallRow(TOOL, ei, seq, t, None)  # its title is made when first read
        row._store = self.store
        r = self._new_row(row)
        call_id = ev.get("id")
        if call_id is not None:
            self._open_tools[call_id if type(call_id) is str else str(call_id)] = r
        return r

    def _tool_result(self, ev, ei, seq, t, changed) -> int:
        call_id = ev.get("id")
        r = self._open_tools.pop(call_id if type(call_id) is str else str(call_id), None)
        status = "error" if ev.get("is_error") else "ok"
        note = ""
        d = _num(ev.get("duration_s"))
        if d is not None:
            note = f"{d:.2f}s" if d < 100 else f"{d:.0f}s"
        if ev.get("truncated"):
            note = (note + " truncated").strip()
        if ev.get("interrupted"):
            note = (note + " interrupted").strip()
        if r is None:
            name = clean_line(ev.get("name") or "tool")
            return self._new_row(Row(TOOL, ei, seq, t, f"{name} (result of an earlier call)",
                                     ei2=ei, status=status, note=note))
        row = self.rows[r]
        row.ei2, row.status, row.note = ei, status, note
        row.version += 1
        changed.add(r)
        return r

    def _eval_start(self, ev, ei, seq, t, changed) -> int:
        n = ev.get("n") if isinstance(ev.get("n"), int) else None
        title = f"evaluation #{n}" if n is not None else "evaluation"
        purpose = clean_line(ev.get("purpose") or "").replace("_", " ")
        why = [w for w in (purpose if purpose != "tool" else "", "quick" if ev.get("quick") else "") if w]
        if why:
            title += f" ({', '.join(why)})"
        r = self._new_row(Row(EVAL, ei, seq, t, title, status="running", note="starting"))
        run = EvalRun(ei, r, n, total=ev.get("scenarios") if isinstance(ev.get("scenarios"), int) else None)
        self.runs.append(run)
        self.run_ei.append(ei)
        self.run_of_row[r] = run
        self._open_run = run
        return r

    def _eval_progress(self, ev, ei, changed) -> int:
        run = self._open_run
        if run is None:
            return -1
        done, total = ev.get("done"), ev.get("total")
        done = done if isinstance(done, int) else 0
        total = total if isinstance(total, int) else (run.total or 0)
        waiting = ev.get("phase") == "waiting for the GPU"  # another evaluation times on it
        scenario = clean_line(ev.get("scenario") or ("waiting for the GPU" if waiting else ""))[:60]
        run.marks.append((ei, done, total, scenario))
        row = self.rows[run.row]
        row.note = f"{done}/{total} {scenario}".strip()
        row.version += 1
        changed.add(run.row)
        return run.row

    def _eval_result(self, ev, ei, seq, t, changed) -> int:
        summary = ev.get("summary") if isinstance(ev.get("summary"), dict) else {}
        status, note = eval_note(summary)
        n = ev.get("n") if isinstance(ev.get("n"), int) else None
        run = self._open_run
        if run is not None:
            run.end_ei = ei
            self._open_run = None
            r = run.row
            row = self.rows[r]
            row.ei2, row.status, row.note = ei, status, ""
            base = row.title
            if n is not None and "#" not in base:
                base = base.replace("evaluation", f"evaluation #{n}", 1)
            row.title = f"{base}: {note}"
            if ev.get("inferred"):
                row.title += " (inferred)"
            row.version += 1
            changed.add(r)
        else:
            title = (f"evaluation #{n}" if n is not None else "evaluation") + ": " + note
            if ev.get("inferred"):
                title += " (inferred)"
            r = self._new_row(Row(EVAL, ei, seq, t, title[:TITLE_MAX], ei2=ei, status=status))
        report = ev.get("report") if isinstance(ev.get("report"), str) else None
        rec = EvalRecord(ei, seq, t, n, summary, report, r, self.summary.best_geomean)
        self.rows[r].ref = len(self.eval_rows)
        self.eval_rows.append(rec)
        if not summary.get("interrupted"):  # an interrupted one has no verdict to show
            self.evals.append(rec)
            self.eval_ei.append(ei)
        return r

    def _decision(self, ev, ei, seq, t, changed) -> int:
        kind = clean_line(ev.get("kind") or "decision")
        evidence = ev.get("evidence")
        if not isinstance(evidence, str):
            evidence = json.dumps(evidence, ensure_ascii=False, default=str)
        k = self.decision_by_id.get(ev.get("updates")) if isinstance(ev.get("updates"), str) else None
        if k is not None:  # a point that grew or gained a reason: the same row, brought up to date
            return self._decision_update(ev, ei, seq, kind, evidence, k, changed)
        sugg = []
        for s in ev.get("suggestions") or []:
            if isinstance(s, dict) and s.get("text"):
                sugg.append({"id": s.get("id"), "text": s.get("text")})
            elif isinstance(s, str):
                sugg.append({"id": None, "text": s})
        flat = clean_line(evidence)
        about = ev.get("about_seq") if isinstance(ev.get("about_seq"), int) else None
        r = self._new_row(Row(DECISION, ei, seq, t, flat[:TITLE_MAX], len(flat),
                              note=kind.replace("_", " ")))
        rec = DecisionRecord(ei, seq, t, kind, evidence, about, sugg, r,
                             _num(ev.get("strength")), ev.get("detail"), count=_count(ev),
                             reasons=list(ev.get("reasons") or []))
        if rec.count > 1 or rec.reasons:
            self.rows[r].note = _decision_note(rec)
        self.rows[r].ref = len(self.decisions)
        if isinstance(ev.get("id"), str):
            self.decision_by_id[ev["id"]] = len(self.decisions)
        self.decision_by_seq[seq] = len(self.decisions)
        self.decisions.append(rec)
        self.decision_ei.append(ei)
        return r

    def _decision_update(self, ev, ei, seq, kind, evidence, k, changed) -> int:
        rec = self.decisions[k]
        rec.kind, rec.evidence, rec.count = kind, evidence, _count(ev)
        rec.reasons = list(ev.get("reasons") or [])
        rec.strength = _num(ev.get("strength"))
        rec.detail = ev.get("detail")
        row = self.rows[rec.row]
        flat = clean_line(evidence)
        row.title, row.text_len, row.note, row.ei2 = flat[:TITLE_MAX], len(flat), _decision_note(rec), ei
        row.version += 1
        changed.add(rec.row)
        self.decision_by_seq.setdefault(seq, k)  # a message answering the update answers the point
        return rec.row

    def _human(self, ev, ei, seq, t, changed) -> int:
        flat = clean_line(ev.get("text"))
        source = clean_line(ev.get("source") or "free")
        bank_id = ev.get("bank_id") if isinstance(ev.get("bank_id"), str) else None
        dp = ev.get("decision_point") if isinstance(ev.get("decision_point"), int) else None
        inbox_id = ev.get("inbox_id") if isinstance(ev.get("inbox_id"), str) else None
        note = source + (f" {clean_line(bank_id)}" if bank_id else "")
        if ev.get("kind") == "interrupt":
            note += " interrupt"
        r = self._new_row(Row(HUMAN, ei, seq, t, flat[:TITLE_MAX], len(flat), note=note))
        rec = HumanRecord(ei, seq, t, ev.get("text") if isinstance(ev.get("text"), str) else flat,
                          source, bank_id, dp, inbox_id, r, ev.get("author"))
        self.rows[r].ref = len(self.humans)
        self.humans.append(rec)
        self.human_ei.append(ei)
        if dp is not None and dp in self.decision_by_seq:
            self.decisions[self.decision_by_seq[dp]].answers.append(len(self.humans) - 1)
        if inbox_id:
            self.delivered[inbox_id] = seq
            p = self.posted.get(inbox_id)
            if p is not None:
                p.delivered_seq = seq
        return r

    def _stop(self, ev, ei, seq, t, changed) -> int:
        reasons = ev.get("reasons") or []
        if isinstance(reasons, str):
            reasons = [reasons]
        if ev.get("goal_met"):
            title, status = "stop accepted: goal met", "ok"
        elif ev.get("blocked", True):
            title, status = "stop refused: " + "; ".join(clean_line(r) for r in reasons), "error"
        else:
            title, status = "stopped without the goal: " + "; ".join(clean_line(r) for r in reasons), "error"
        return self._new_row(Row(STOP, ei, seq, t, title[:TITLE_MAX], status=status))

    def _resume(self, ev, ei, seq, t, changed) -> int:
        parts = ["session resumed"]
        if ev.get("model"):
            parts.append(clean_line(ev["model"]))
        if ev.get("previous_end"):
            parts.append(f"after {clean_line(ev['previous_end'])}")
        pending = ev.get("unanswered_tool_calls")
        if pending:
            parts.append(f"{len(pending)} tool call(s) left unanswered")
        return self._new_row(Row(START, ei, seq, t, " · ".join(parts)[:TITLE_MAX]))

    def _note(self, ev, ei, seq, t, changed) -> int:
        flat = clean_line(ev.get("text") or ev.get("message") or "")
        return self._new_row(Row(OTHER, ei, seq, t, flat[:TITLE_MAX], len(flat)))

    def _compaction(self, ev, ei, seq, t, changed) -> int:
        facts = [clean_line(ev.get("trigger") or "")]
        if isinstance(ev.get("pre_tokens"), int):
            facts.append(f"{ev['pre_tokens']:,} tokens before")
        head = "context compacted" + (f" ({', '.join(f for f in facts if f)})" if any(facts) else "")
        flat = clean_line(ev.get("text"))
        return self._new_row(Row(COMPACTION, ei, seq, t, f"{head}: {flat}"[:TITLE_MAX], len(flat)))

    def _error(self, ev, ei, seq, t, changed) -> int:
        where = f" ({clean_line(ev.get('where'))})" if ev.get("where") else ""
        title = clean_line(ev.get("message")) + where
        return self._new_row(Row(ERROR, ei, seq, t, title[:TITLE_MAX], len(title),
                                 status="fatal" if ev.get("fatal") else "error"))

    def _usage(self, ev, ei, seq, t, changed) -> int:
        # the request that was billed is the one that counts: rows of its turn's other attempts
        # (a failed request, retried) are shown as superseded
        if "turn" in ev and "attempt" in ev:
            for r, attempt in self._attempt_rows.pop(ev["turn"], ()):
                if attempt != ev["attempt"] and not self.rows[r].superseded:
                    self.rows[r].superseded = True
                    self.rows[r].version += 1
                    changed.add(r)
        s = self.summary
        self.usage_ei.append(ei)
        self.usage_totals.append((s.input_tokens, s.output_tokens, s.cost_usd))
        return -1

    def _end(self, ev, ei, seq, t, changed) -> int:
        self.end_ei = ei
        self.end_reason = clean_line(ev.get("reason"))
        return self._new_row(Row(END, ei, seq, t, f"session ended: {self.end_reason}",
                                 note=clean_line(ev.get("detail") or "")[:80]))

    # -- inbox --------------------------------------------------------------------------------

    def note_posted(self, messages, mine: set[str] | frozenset = frozenset()) -> list[Posted]:
        """Record inbox messages (InboxMessage-like); returns the ones seen for the first time."""
        new = []
        for m in messages:
            if m.id in self.posted:
                if m.id in mine:
                    self.posted[m.id].mine = True
                continue
            p = Posted(m.id, m.text, m.t, m.source, m.bank_id, m.decision_point, m.id in mine,
                       self.delivered.get(m.id))
            self.posted[m.id] = p
            new.append(p)
        return new

    def pending(self) -> list[Posted]:
        return [p for p in self.posted.values() if p.delivered_seq is None]

    # -- navigation ---------------------------------------------------------------------------

    def row_at(self, pos: int) -> int:
        """The row showing the step the session was at after event `pos` (-1 before any row)."""
        return bisect_right(self.row_ei, pos) - 1

    def pos_of_row(self, r: int) -> int:
        """The event index at which row `r`'s step is over: just before the next row opens."""
        if r + 1 < len(self.row_ei):
            return self.row_ei[r + 1] - 1
        return len(self.times) - 1

    def next_row_of(self, rows: list[int], current: int, direction: int) -> int | None:
        """The first of `rows` (sorted row indices) after (direction 1) or before (-1) `current`."""
        i = bisect_right(rows, current)
        if direction > 0:
            return rows[i] if i < len(rows) else None
        i = bisect_right(rows, current - 1)
        return rows[i - 1] if i > 0 else None

    @property
    def decision_rows(self) -> list[int]:
        return [d.row for d in self.decisions]

    @property
    def human_rows(self) -> list[int]:
        return [h.row for h in self.humans]

    def progress_at(self, r: int, pos: int) -> tuple[int, int, str] | None:
        """(done, total, scenario) of evaluation row r's run as of event `pos`, if any progress."""
        run = self.run_of_row.get(r)
        if run is None or not run.marks:
            return None
        j = bisect_right(run.marks, (pos, 1 << 62))
        return run.marks[j - 1][1:] if j else None

    def content_event(self, row: Row) -> dict:
        """The event whose text a row shows (a streamed block's final text once it has come)."""
        return self.store.get(row.ei2 if row.kind in (TEXT, DECISION) and row.ei2 >= 0 else row.ei)

    # -- state as of an event -----------------------------------------------------------------

    def state_at(self, pos: int | None = None, *, status: str = "stopped", now: float | None = None,
                 dismissed: frozenset | set = frozenset(), mode: str = "live",
                 loading: float | None = None) -> ViewState:
        total = len(self.times)
        if pos is None or pos >= total:
            pos = total - 1
        s = self.summary
        start = self.start
        started = self.times[0] if total else None
        tin = tout = 0
        cost = 0.0
        k = bisect_right(self.usage_ei, pos)
        if k:
            tin, tout, cost = self.usage_totals[k - 1]
        k = bisect_right(self.eval_ei, pos)
        latest = self.evals[k - 1] if k else None
        history = tuple(e.geomean if e.all_correct else None for e in self.evals[:k])
        best = latest.best if latest else None
        progress = None
        running_n = None
        k = bisect_right(self.run_ei, pos)
        if k:
            run = self.runs[k - 1]
            if run.end_ei < 0 or run.end_ei > pos:
                j = bisect_right(run.marks, (pos, 1 << 62)) if run.marks else 0
                if j:
                    _, done, tot, scen = run.marks[j - 1]
                    progress = (done, tot, scen)
                else:
                    progress = (0, run.total or 0, "")
                running_n = run.n
        decision, answer = self._decision_at(pos, dismissed)
        end_reason = self.end_reason if 0 <= self.end_ei <= pos else None
        if now is None:
            now = self.times[pos] if total and pos >= 0 else None
        posted = tuple(p for p in self.posted.values() if p.delivered_seq is None) if mode == "live" else ()
        return ViewState(
            pos=pos, total=total, task=start.get("task") or s.task, model_name=start.get("model"),
            agent=start.get("agent"), goal_geomean=goal_geomean(start.get("goal")), status=status,
            end_reason=end_reason, started=started, now=now, tokens_in=tin, tokens_out=tout,
            cost=cost, best_geomean=best, latest_eval=latest, history=history, progress=progress,
            running_eval_n=running_n, decision=decision, answer=answer, posted=posted, mode=mode,
            loading=loading, unsandboxed=start.get("sandboxed") is False)

    def _decision_at(self, pos: int, dismissed) -> tuple[DecisionRecord | None, HumanRecord | None]:
        k = bisect_right(self.decision_ei, pos)
        if not k:
            return None, None
        d = self.decisions[k - 1]
        if d.seq in dismissed:
            return None, None
        answer = None
        for h in d.answers:
            rec = self.humans[h]
            if rec.ei <= pos:
                answer = rec
                break
        if answer is not None and self.row_at(pos) != answer.row:
            return None, None  # answered, and the reader has moved past the answer
        if 0 <= self.end_ei <= pos and answer is None:
            return None, None  # the session is over: nobody can answer it now
        return d, answer


def _count(ev: dict) -> int:
    c = ev.get("count")
    return c if type(c) is int and c > 0 else 1


def _decision_note(rec: DecisionRecord) -> str:
    """A decision row's badge: its kinds (the strongest first) and how often a loop repeated."""
    kinds = [rec.kind] + [r.get("kind") for r in rec.reasons if isinstance(r, dict) and r.get("kind") != rec.kind]
    note = " + ".join(clean_line(k).replace("_", " ") for k in kinds if k)
    return f"{note} ×{rec.count}" if rec.count > 1 else note


# event type -> the SessionModel method that folds it into the rows
ROW_HANDLERS = {
    "session_start": SessionModel._session_start,
    "assistant_text": SessionModel._text,
    "assistant_delta": SessionModel._delta,
    "thinking": SessionModel._thinking,
    "tool_call": SessionModel._tool_call,
    "tool_result": SessionModel._tool_result,
    "eval_start": SessionModel._eval_start,
    "eval_result": SessionModel._eval_result,
    "decision_point": SessionModel._decision,
    "human_message": SessionModel._human,
    "stop_check": SessionModel._stop,
    "error": SessionModel._error,
    "compaction": SessionModel._compaction,
    "session_resume": SessionModel._resume,
    "runner_note": SessionModel._note,
    "usage": SessionModel._usage,
    "session_end": SessionModel._end,
}
