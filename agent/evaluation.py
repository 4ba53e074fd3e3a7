"""Evaluations in a session: the `evaluate` tool and the stop gate both come through here.

Each evaluation runs the evaluator in its child process (`evaluate_isolated`) on a worker
thread, logs `eval_start`, `eval_progress` per step and `eval_result` (the summary plus the
session's best geomean, the report saved as evals/NNNN.json), and remembers the report by the
candidate's content hash so the stop gate can reuse it when the file has not changed.
A cancel (the steerer's interrupt) kills the evaluator's process group and abandons the result.
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from sessions.digest import counted_geomean
from sessions.layout import SessionPaths

POLL_S = 0.05


@dataclass
class EvalOutcome:
    report: object | None  # evaluator.EvalReport
    summary: dict
    text: str  # what the agent reads
    event: dict | None  # the eval_result event
    interrupted: bool = False
    error: str | None = None
    exception: BaseException | None = None


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Evaluations:
    """The session's evaluation history and the one way to run a new evaluation."""

    def __init__(self, task, paths: SessionPaths, emit: Callable[..., dict], *,
                 options: dict | None = None, gate_quick: bool = False, env: dict | None = None,
                 workspace: Path | None = None) -> None:
        self.task = task
        self.paths = paths
        self.emit = emit
        self.options = dict(options or {})  # for evaluate_isolated: time_budget_s, timeout_s, ...
        self.gate_quick = gate_quick  # the scope the stop gate judges (and best_geomean counts)
        self.env = env  # the evaluator child's environment: scrubbed of credentials
        self.workspace = workspace or paths.workspace  # where candidates live (attach: the user's project)
        self.best_geomean: float | None = None
        self.latest: dict | None = None  # the last eval_result event
        # (sha256, quick, only) -> (report, eval_result event)
        self._by_hash: dict[tuple, tuple[object, dict]] = {}

    # -- history ---------------------------------------------------------------------------------

    def note_result(self, ev: dict, report=None) -> None:
        """Fold an eval_result event (live, or read back from the log on resume)."""
        s = ev.get("summary") or {}
        self.latest = ev
        self.best_geomean = self.best_with(s)
        sha = ev.get("candidate_hash") or s.get("candidate_sha256")
        if sha and not s.get("error"):
            key = (sha, bool(s.get("quick")), s.get("only"))
            self._by_hash[key] = (report, ev)

    def best_with(self, summary: dict) -> float | None:
        """The best geomean after an evaluation, by the rule every viewer uses
        (sessions.digest.counted_geomean: all-correct evaluations of the gate's scope)."""
        g = counted_geomean(summary, gate_quick=self.gate_quick)
        if g is None:
            return self.best_geomean
        return g if self.best_geomean is None else max(self.best_geomean, g)

    def cached(self, sha: str, quick: bool, only: str | None) -> tuple[object, dict] | None:
        """The latest report of this exact content and scope (loaded from evals/ when needed)."""
        hit = self._by_hash.get((sha, quick, only))
        if hit is None:
            return None
        report, ev = hit
        if report is None and ev.get("report"):
            from evaluator.report import EvalReport

            try:
                report = EvalReport.from_json(json.loads((self.paths.root / ev["report"]).read_text()))
            except (OSError, ValueError, KeyError):
                return None
            self._by_hash[(sha, quick, only)] = (report, ev)
        return (report, ev) if report is not None else None

    # -- running ---------------------------------------------------------------------------------

    def remeasure(self, candidate: Path, *, quick: bool, cancel: threading.Event | None = None) -> EvalOutcome:
        """The stop gate's second measurement of an undecided verdict: a fresh evaluation with twice
        the timing budget (tighter intervals), never a reused report."""
        budget = self.options.get("time_budget_s") or self.task.timing.budget_s
        return self.run(candidate, quick=quick, cancel=cancel, purpose="remeasure",
                        options={"time_budget_s": 2 * budget})

    def run(self, candidate: Path, *, quick: bool = False, only: str | None = None,
            cancel: threading.Event | None = None, call_id: str | None = None,
            purpose: str = "tool", options: dict | None = None) -> EvalOutcome:
        from evaluator import evaluate_isolated

        rel = os.path.relpath(candidate, self.workspace)
        sha = file_sha256(candidate)
        n_names = len(self.task.select(quick=quick, only=only))
        self.emit("eval_start", candidate=rel, candidate_hash=sha, quick=quick, only=only,
                  scenarios=n_names, call_id=call_id, purpose=purpose)
        total = {"n": n_names}

        def progress(step: dict) -> None:
            kind = step.get("event")
            if kind == "start":
                total["n"] = step.get("total") or total["n"]
                self.emit("eval_progress", done=0, total=total["n"], phase="start")
            elif kind == "build":
                self.emit("eval_progress", done=0, total=total["n"], phase="build",
                          role=step.get("role"), ok=step.get("ok"), cached=step.get("cached"))
            elif kind == "scenario":
                self.emit("eval_progress", done=step.get("index", 0), total=total["n"],
                          scenario=step.get("name"), phase=step.get("phase"))
            elif kind == "scenario_done":
                result = step.get("result") or {}
                total["done"] = step.get("index", 0) + 1
                self.emit("eval_progress", done=total["done"], total=total["n"],
                          scenario=step.get("name"), phase="done", correct=result.get("correct"),
                          ratio=result.get("ratio"))
            elif kind == "gpu_wait":  # another evaluation times on this GPU: ours waits its turn
                self.emit("eval_progress", done=total.get("done", 0), total=total["n"],
                          phase="waiting for the GPU", detail=step.get("message"))

        box: dict = {}
        stop = threading.Event()

        def work() -> None:
            try:
                box["report"] = evaluate_isolated(
                    self.task, str(candidate), quick=quick, only=only, progress=progress,
                    cancel=stop, env=self.env, **(self.options | (options or {})))
            except BaseException as exc:  # noqa: BLE001 - reported below
                box["error"] = exc

        worker = threading.Thread(target=work, name="evaluate", daemon=True)
        started = time.monotonic()
        worker.start()
        while worker.is_alive():
            worker.join(POLL_S)
            if cancel is not None and cancel.is_set():
                stop.set()  # the evaluator kills its child's process group
                worker.join(5.0)
                self.emit("eval_result", summary={"interrupted": True, "quick": quick, "only": only,
                                                  "best_geomean": self.best_geomean},
                          candidate_hash=sha, call_id=call_id, interrupted=True, purpose=purpose)
                return EvalOutcome(None, {}, "[evaluation interrupted by the steerer]", None, interrupted=True)
        if "error" in box:
            exc = box["error"]
            message = f"{type(exc).__name__}: {exc}" if not getattr(exc, "exit_code", None) else str(exc)
            self.emit("error", message=f"evaluation failed: {message}", where="evaluate", fatal=False)
            return EvalOutcome(None, {}, f"evaluation failed: {message}", None, error=message, exception=exc)
        report = box["report"]
        report_path = self.paths.next_eval_report()
        data = report.to_json()
        tmp = report_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(data, indent=1))
        os.replace(tmp, report_path)
        summary = dict(report.summary())
        summary.update(quick=quick, only=only, file=rel)
        summary["best_geomean"] = self.best_with(summary)
        ev = self.emit("eval_result", summary=summary, report=os.path.relpath(report_path, self.paths.root),
                       n=int(report_path.stem), candidate_hash=sha, call_id=call_id, purpose=purpose,
                       duration_s=round(time.monotonic() - started, 3))
        self.note_result(ev, report)
        return EvalOutcome(report, summary, report.text_table(), ev)

