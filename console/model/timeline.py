"""A folded session read at a point: `SessionModel` is the fold (`console.model.fold`) plus the
questions a screen asks of it — which row the session was at after event `pos`, where the next
decision point is, and `state_at(pos)`: what the header, evaluator panel, dock and timeline show
as of that event (`ViewState`), answered by bisection over the records in O(log n), so replay can
seek anywhere at once.
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from console.model.fold import SessionFold
from console.model.records import DecisionRecord, EvalRecord, HumanRecord
from console.model.rows import DECISION, TEXT, Row
from sessions.digest import goal_geomean


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


class SessionModel(SessionFold):
    """The session's view-model: the fold, read at any event."""

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
