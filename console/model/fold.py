"""How session events fold into the transcript: `SessionFold.add(events)` takes events in log order
and keeps the rows (`console.model.rows`) and, beside them, the records a timeline reads
(`console.model.records`): evaluations and their runs, decision points, human messages, usage
totals, and the inbox's posted messages with their delivery.

One handler per event type (`ROW_HANDLERS`); usage and progress events make no row; an event of
an unknown type gets a generic row (never dropped). The fold is the hot loop of opening a session,
so `add` works on locals and the handlers do no more than their row needs.
"""
from __future__ import annotations

import json
from array import array

from console.model.records import DecisionRecord, EvalRecord, EvalRun, HumanRecord, Posted
from console.model.rows import (COMPACTION, DECISION, END, ERROR, EVAL, HUMAN, OTHER, START, STOP, STREAM,
                                TEXT, THINKING, TOOL, Row, ToolCallRow)
from console.model.titles import TITLE_MAX, decision_note, eval_note, number
from console.safe_text import clean_line
from console.store import EventStore, MemoryEventStore
from sessions.digest import SessionDigest, goal_geomean

# the event types that make no row of their own (they fold into others: the header, an evaluation's row)
NO_ROW = frozenset(("usage", "eval_progress"))
# the events that move the header's totals, handed to the session's digest (sessions.digest)
_SUMMARY_TYPES = frozenset(("session_start", "session_resume", "usage", "eval_result", "session_end"))


def _block_key(ev: dict) -> str | None:
    """A streamed block's key: block indices restart every turn (and every retried attempt)."""
    block = ev.get("block")
    if block is None:
        return None
    return f"{ev.get('turn')}/{ev.get('attempt')}/{block}"


class SessionFold:
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
        r = self._new_row(ToolCallRow.lazy(ei, seq, t, self.store))  # its title is made when first read
        call_id = ev.get("id")
        if call_id is not None:
            self._open_tools[call_id if type(call_id) is str else str(call_id)] = r
        return r

    def _tool_result(self, ev, ei, seq, t, changed) -> int:
        call_id = ev.get("id")
        r = self._open_tools.pop(call_id if type(call_id) is str else str(call_id), None)
        status = "error" if ev.get("is_error") else "ok"
        note = ""
        d = number(ev.get("duration_s"))
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
                             number(ev.get("strength")), ev.get("detail"), count=_count(ev),
                             reasons=list(ev.get("reasons") or []))
        if rec.count > 1 or rec.reasons:
            self.rows[r].note = decision_note(rec)
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
        rec.strength = number(ev.get("strength"))
        rec.detail = ev.get("detail")
        row = self.rows[rec.row]
        flat = clean_line(evidence)
        row.title, row.text_len, row.note, row.ei2 = flat[:TITLE_MAX], len(flat), decision_note(rec), ei
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


def _count(ev: dict) -> int:
    c = ev.get("count")
    return c if type(c) is int and c > 0 else 1


# event type -> the SessionFold method that folds it into the rows
ROW_HANDLERS = {
    "session_start": SessionFold._session_start,
    "assistant_text": SessionFold._text,
    "assistant_delta": SessionFold._delta,
    "thinking": SessionFold._thinking,
    "tool_call": SessionFold._tool_call,
    "tool_result": SessionFold._tool_result,
    "eval_start": SessionFold._eval_start,
    "eval_result": SessionFold._eval_result,
    "decision_point": SessionFold._decision,
    "human_message": SessionFold._human,
    "stop_check": SessionFold._stop,
    "error": SessionFold._error,
    "compaction": SessionFold._compaction,
    "session_resume": SessionFold._resume,
    "runner_note": SessionFold._note,
    "usage": SessionFold._usage,
    "session_end": SessionFold._end,
}
