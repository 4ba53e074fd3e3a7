"""Evaluation results as the console shows them: per-scenario rows (worst first) and the report.

An `eval_result` event carries the evaluator's compact summary (docs/evaluator.md: geomean,
all_correct, passed/total, min_ratio, fast_1, goal_met, reasons, flags, failing, ...) and names
the full report (`evals/NNNN.json`, schema kernelseek.eval/1) whose `scenarios[]` hold the
per-scenario results. A summary that carries `scenarios` itself is used as is.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path

from console.safe_text import clean_line


@dataclass(frozen=True)
class ScenarioRow:
    name: str
    correct: bool | None
    ratio: float | None
    ci: tuple[float, float] | None
    flags: tuple[str, ...]
    failure: str | None
    cand_ms: float | None
    seed_ms: float | None
    pct_peak: float | None

    @property
    def sort_key(self) -> tuple:
        # incorrect first, then untimed, then by ratio ascending: the worst at the top
        return (self.correct is not False, self.ratio is not None,
                self.ratio if self.ratio is not None else 0.0, self.name)


def _num(v: object) -> float | None:
    if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
        return float(v)
    return None


def scenario_rows(scenarios: object) -> list[ScenarioRow]:
    """Scenario results (a report's or a summary's list) as rows, worst ratio first."""
    rows = []
    if not isinstance(scenarios, list):
        return rows
    for i, s in enumerate(scenarios):
        if not isinstance(s, dict):
            continue
        name = s.get("name") or s.get("scenario") or s.get("id") or f"#{i}"
        correct = s.get("correct", s.get("ok"))
        ratio = _num(s.get("ratio", s.get("speedup")))
        ci = s.get("ci")
        ci_t = (float(ci[0]), float(ci[1])) if (
            isinstance(ci, (list, tuple)) and len(ci) == 2 and all(_num(c) is not None for c in ci)) else None
        flags = tuple(clean_line(f) for f in (s.get("flags") or []) if f)
        rows.append(ScenarioRow(
            name=clean_line(name), correct=bool(correct) if correct is not None else None,
            ratio=ratio, ci=ci_t, flags=flags,
            failure=clean_line(s.get("failure")) if s.get("failure") else None,
            cand_ms=_num(s.get("cand_ms", s.get("time_ms"))), seed_ms=_num(s.get("seed_ms")),
            pct_peak=_num(s.get("pct_peak"))))
    rows.sort(key=lambda r: r.sort_key)
    return rows


class ReportCache:
    """Reads evals/NNNN.json reports once each (they are written once, never changed)."""

    def __init__(self, session_root: str | os.PathLike | None, size: int = 64) -> None:
        self.root = Path(session_root) if session_root else None
        self._cache: dict[str, dict | None] = {}
        self._size = size

    def path_of(self, report: str | None, n: int | None) -> Path | None:
        if self.root is None:
            return None
        if report:
            p = Path(report)
            candidates = [p] if p.is_absolute() else [self.root / p, self.root / "evals" / p.name]
            for cand in candidates:
                if cand.is_file():
                    return cand
        if n is not None:
            p = self.root / "evals" / f"{n:04d}.json"
            if p.is_file():
                return p
        return None

    def load(self, report: str | None, n: int | None = None) -> dict | None:
        key = f"{report}|{n}"
        if key in self._cache:
            return self._cache[key]
        path = self.path_of(report, n)
        data = None
        if path is not None:
            try:
                loaded = json.loads(path.read_text(encoding="utf-8", errors="replace"))
                data = loaded if isinstance(loaded, dict) else None
            except (OSError, ValueError):
                data = None
        if data is not None or path is not None:  # a missing file may still appear: ask again
            if len(self._cache) >= self._size:
                self._cache.pop(next(iter(self._cache)))
            self._cache[key] = data
        return data

    def scenarios_for(self, summary: dict, report: str | None, n: int | None) -> list[ScenarioRow]:
        if isinstance(summary.get("scenarios"), list):
            return scenario_rows(summary["scenarios"])
        data = self.load(report, n)
        return scenario_rows(data.get("scenarios")) if data else []
