"""The sessions of a comparison, each with its final kernel re-evaluated by the full sweep.

What an agent claimed is not the number: each session's final candidate (the file its stop gate
judges) is copied out and evaluated again in the evaluator's child process, on every scenario,
with an environment that holds no credential (the candidate is the agent's code). A final kernel
that is not correct on every scenario, or does not build, scores 0× ("final geomean"): it is a
failure, not a slow success.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from sessions.digest import DigestReader, SessionDigest, read_digest
from sessions.layout import SessionPaths, read_launch


@dataclass
class SessionResult:
    name: str
    path: str
    arm: str
    task: str | None
    state: str  # how the log ended (goal_met, max_turns, stopped, ...) or "running" / "no end"
    goal: float | None
    claimed_best: float | None  # the session's own best geomean (its log), for reference
    geomean: float | None = None  # the re-evaluation's
    all_correct: bool = False
    passed: int | None = None
    total: int | None = None
    goal_met: bool = False
    final: float = 0.0  # geomean when correct on every scenario, else 0
    eval_seed: int | None = None
    candidate_sha256: str | None = None
    report: str | None = None  # the saved re-evaluation report
    error: str | None = None
    questions_human: int = 0
    questions_autopilot: int = 0
    tokens: int = 0
    cost: float = 0.0
    history: list[tuple[float, float]] = field(default_factory=list)  # (hours since start, best so far)

    def to_dict(self) -> dict:
        return asdict(self)


def arm_of(digest: SessionDigest, launch: dict | None, by: str) -> str:
    """The arm a session belongs to: its launch record's arm, else what its settings say."""
    if by == "model":
        return digest.model or "?"
    if by == "agent":
        return digest.agent or "?"
    if by == "autopilot":
        return "autopilot" if digest.autopilot else "none"
    arm = (launch or {}).get("arm")
    return str(arm) if arm else ("autopilot" if digest.autopilot else "none")


def best_over_time(digest: SessionDigest) -> list[tuple[float, float]]:
    """The session's best counted geomean after each evaluation, against hours since its start."""
    out: list[tuple[float, float]] = []
    best = None
    start = digest.started or 0.0
    for t, g in digest.history:
        if g is not None and (best is None or g > best):
            best = g
        if best is not None:
            out.append((round((t - start) / 3600.0, 5), best))
    return out


def collect(paths: list[SessionPaths], *, by: str = "arm", arms: dict[str, str] | None = None) -> list[SessionResult]:
    """One result per session (not evaluated yet): its arm, its log's facts."""
    out = []
    for sp in paths:
        reader = DigestReader(sp.root)
        reader.refresh()
        d = reader.digest
        arm = (arms or {}).get(str(sp.root)) or arm_of(d, read_launch(sp), by)
        by_source = d.by_source
        out.append(SessionResult(
            name=sp.name, path=str(sp.root), arm=arm, task=d.task, state=d.ended or ("running" if sp.is_running() else "no end"),
            goal=d.goal_geomean, claimed_best=d.best_geomean,
            questions_human=sum(n for s, n in by_source.items() if s != "autopilot"),
            questions_autopilot=by_source.get("autopilot", 0), tokens=d.tokens, cost=round(d.cost_usd, 6),
            history=best_over_time(d)))
    return out


def candidate_of(sp: SessionPaths) -> Path | None:
    reader = DigestReader(sp.root)
    reader.refresh()
    name = reader.digest.candidate
    if name:
        return sp.workspace / name
    found = sorted(sp.workspace.glob("candidate.*"))
    return found[0] if found else None


def task_of(sp: SessionPaths):
    from evaluator import load_task
    from kernels import TASKS_DIR

    reader = DigestReader(sp.root)
    reader.refresh()
    d = reader.digest
    if d.task_dir and Path(d.task_dir).is_dir():
        return load_task(d.task_dir)
    return load_task(d.task or "?", TASKS_DIR)


def reevaluate(result: SessionResult, *, out_dir: Path, budget_s: float | None = None,
               min_pairs: int | None = None, seed: int | None = None,
               progress: Callable[[str], None] | None = None) -> SessionResult:
    """Evaluate the session's final kernel on every scenario; fill in the result."""
    from agent.secrets import scrubbed_env, secret_values
    from evaluator import evaluate_isolated
    from evaluator.errors import EvaluatorError

    from agent.gate import judge

    sp = SessionPaths(Path(result.path))
    goal = read_digest(sp.root).goal
    cand = candidate_of(sp)
    if cand is None or not cand.is_file():
        result.error = f"no final kernel in {sp.workspace}"
        return result
    if progress:
        progress(f"re-evaluating {result.name} ({result.arm}) ...")
    with tempfile.TemporaryDirectory(prefix="ks-compare-") as tmp:
        copy = Path(tmp) / cand.name  # a running agent may edit its file meanwhile
        shutil.copyfile(cand, copy)
        options = {k: v for k, v in (("time_budget_s", budget_s), ("min_pairs", min_pairs), ("seed", seed))
                   if v is not None}
        try:
            report = evaluate_isolated(task_of(sp), str(copy), env=scrubbed_env(os.environ, secret_values()),
                                       **options)
        except EvaluatorError as exc:
            result.error = str(exc)
            return result
    s = report.summary()
    result.geomean = s.get("geomean")
    result.all_correct = bool(s.get("all_correct"))
    result.passed, result.total = s.get("passed"), s.get("total")
    result.eval_seed, result.candidate_sha256 = s.get("eval_seed"), s.get("candidate_sha256")
    result.error = s.get("error")
    # the stop gate's verdict on this report, against the session's goal (raised by /goal if it
    # was): the same rule, so a contended or ambiguous measurement meets no goal here either
    result.goal_met = judge(report, goal)[0] if goal else bool(s.get("goal_met"))
    result.final = float(result.geomean) if result.all_correct and result.geomean is not None else 0.0
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{result.name}.json"
    path.write_text(json.dumps(report.to_json(), indent=1))
    result.report = str(path)
    return result
