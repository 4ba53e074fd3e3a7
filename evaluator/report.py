"""The evaluation report: per-scenario results, the overall figures, the goal verdict.

`EvalReport.to_json()` is the full report (docs/evaluator.md, Report JSON); `summary()` is the
compact dict the `eval_result` event carries; `text_table()` is what the agent reads, worst ratio
first. Ratios are seed time / candidate time: > 1 means the candidate is faster.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from evaluator.stats import geomean

SCHEMA = "kernelseek.eval/1"
# flags that make a result untrustworthy: the goal fails on them (and `kernelseek eval` exits 1)
GOAL_FLAGS = ("outside_stream", "outside_call", "late_writes", "timing_inconsistent", "impossible")
# flags that make a measurement undecidable: the goal cannot be met until it is measured again
REMEASURE_FLAGS = ("contended", "impossible_unconfirmed", "timing_unconfirmed")
FAILING_CAP = 10
Z95 = 1.959963984540054
LEGEND = ("ratio = median over rounds of (seed time / candidate time) in the same round (> 1: faster); "
          "seed ms and cand ms are each kernel's own median, so ratio need not equal their quotient. "
          "fast_1 = share of all scenarios that are correct and at least as fast as the seed.")


@dataclass
class ScenarioResult:
    name: str
    params: dict[str, Any]
    correct: bool
    failure: str | None = None
    errors: dict[str, dict[str, float]] = field(default_factory=dict)
    seed_errors: dict[str, dict[str, float]] = field(default_factory=dict)
    limits: dict[str, dict[str, float]] = field(default_factory=dict)
    seed_ms: float | None = None
    cand_ms: float | None = None
    ratio: float | None = None
    ci: list[float] | None = None
    pairs: int = 0
    tflops: float | None = None
    gbps: float | None = None
    pct_peak: float | None = None
    baselines: dict[str, dict[str, Any]] = field(default_factory=dict)
    audit: dict[str, Any] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    seconds: float = 0.0
    physics: dict[str, Any] | None = None  # the fastest time the measured peaks allow (audit.Floor)
    phases: dict[str, float] = field(default_factory=dict)  # seconds per phase of the verdict's work
    gpu: dict[str, Any] | None = None  # cuda: the GPU that measured it (index, uuid) and its timing lock's hold

    def to_json(self) -> dict[str, Any]:
        return _finite(asdict(self))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ScenarioResult:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    @property
    def sort_key(self) -> tuple[int, float]:
        """Worst first: incorrect, then untimed, then by ratio ascending."""
        if not self.correct:
            return (0, 0.0)
        if self.ratio is None:
            return (1, 0.0)
        return (2, self.ratio)


def _compact(s: ScenarioResult) -> dict[str, Any]:
    row: dict[str, Any] = {"name": s.name, "correct": s.correct, "ratio": _round(s.ratio)}
    if s.pct_peak is not None:
        row["pct_peak"] = _round(s.pct_peak)
    if s.flags:
        row["flags"] = list(s.flags)
    if s.failure:
        row["failure"] = s.failure[:160]
    return row


@dataclass
class EvalReport:
    task: str
    task_dir: str
    backend: str
    candidate: dict[str, Any]
    seed_source: dict[str, Any]
    eval_seed: int
    options: dict[str, Any]
    goal_spec: dict[str, Any]
    roofline: str = "memory"
    device: dict[str, Any] = field(default_factory=dict)
    build: dict[str, Any] = field(default_factory=dict)
    seed_build: dict[str, Any] = field(default_factory=dict)
    reference_build: dict[str, Any] | None = None
    violations: list[dict[str, Any]] = field(default_factory=list)
    scenarios: list[ScenarioResult] = field(default_factory=list)
    total_planned: int = 0
    error: str | None = None
    error_kind: str | None = None
    log_tail: str | None = None
    started_at: float = 0.0
    duration_s: float = 0.0
    pinned: bool | None = None  # the task's trusted files were checked against PINNED
    host: dict[str, Any] = field(default_factory=dict)  # where the candidate ran: sandbox kind, note, confinement
    timeline: dict[str, float] = field(default_factory=dict)  # seconds: start, builds, hosts, peaks, scenarios

    # figures ------------------------------------------------------------------------------
    @property
    def build_ok(self) -> bool:
        return bool(self.build.get("ok"))

    @property
    def total(self) -> int:
        return max(self.total_planned, len(self.scenarios))

    @property
    def passed(self) -> int:
        return sum(1 for s in self.scenarios if s.correct)

    @property
    def all_correct(self) -> bool:
        return self.build_ok and self.error is None and self.total > 0 and self.passed == self.total

    @property
    def timed(self) -> list[ScenarioResult]:
        return [s for s in self.scenarios if s.correct and s.ratio is not None]

    @property
    def geomean(self) -> float | None:
        return geomean([s.ratio for s in self.timed])

    @property
    def min_ratio(self) -> float | None:
        return min((s.ratio for s in self.timed), default=None)

    @property
    def fast_1(self) -> float | None:
        if not self.total:
            return None
        return sum(1 for s in self.timed if s.ratio >= 1.0) / self.total

    def goal(self) -> tuple[bool, list[str]]:
        """The verdict and, when it fails, every reason, each one line."""
        reasons: list[str] = []
        spec = self.goal_spec
        if not self.build_ok:
            reasons.append("the candidate did not build")
        if self.error:
            reasons.append(f"evaluation stopped: {self.error}")
        for v in self.violations:
            reasons.append(f"constraint violation: {v['kind']} {v['name']!r}"
                           + (f" matches {v['rule']!r}" if v.get("rule") else f": {v.get('detail', '')}"))
        wrong = [s.name for s in self.scenarios if not s.correct]
        if spec.get("all_correct", True):
            if wrong:
                first = next(s for s in self.scenarios if not s.correct)
                reasons.append(f"incorrect on {len(wrong)}/{self.total} scenarios: "
                               f"{', '.join(wrong[:5])}{' ...' if len(wrong) > 5 else ''} "
                               f"({first.name}: {first.failure})")
            elif self.build_ok and len(self.scenarios) < self.total:
                reasons.append(f"only {len(self.scenarios)}/{self.total} scenarios were evaluated")
        for flag in GOAL_FLAGS:
            hit = [s for s in self.scenarios if flag in s.flags]
            if hit:
                reasons.append(f"{flag} on {', '.join(s.name for s in hit[:5])}" + _flag_detail(flag, hit[0]))
        if self.options.get("timing", True) and self.build_ok and not self.error:
            gm = self.geomean
            want = spec.get("min_geomean")
            if gm is None:
                if not wrong:
                    reasons.append("no scenario was timed")
            elif want is not None and gm < want:
                reasons.append(f"geomean {gm:.3f} < goal {want:.3f}")
            floor = spec.get("min_scenario_ratio")
            if floor is not None:
                low = [s for s in self.timed if s.ratio < floor]
                if low:
                    w = min(low, key=lambda s: s.ratio)
                    reasons.append(f"{len(low)} scenario(s) below ratio {floor:.2f}; worst {w.name} {w.ratio:.3f}")
        elif not self.options.get("timing", True):
            reasons.append("timing was skipped")
        if not reasons:
            reasons = self.remeasure()
        return (not reasons, reasons)

    def remeasure(self) -> list[str]:
        """Why this measurement cannot decide the goal (each reason starts 're-measure:'), when the
        goal would otherwise be met: a contended machine, or intervals that straddle the goal."""
        out: list[str] = []
        for flag in REMEASURE_FLAGS:
            hit = [s.name for s in self.scenarios if flag in s.flags]
            if hit:
                what = {"contended": "other processes used the cores while timing",
                        "impossible_unconfirmed": "faster than the machine's peaks, which were measured on a busy machine",
                        "timing_unconfirmed": "the verdict's clock saw more time than the host reported, once, while "
                                              "the launch census saw every call whole"}[flag]
                out.append(f"re-measure: {flag} on {', '.join(hit[:5])} ({what})")
        spec = self.goal_spec
        want = spec.get("min_geomean")
        ci = self.geomean_ci()
        if want is not None and ci is not None and ci[0] < want <= (self.geomean or 0):
            out.append(f"re-measure: geomean {self.geomean:.3f} reaches the goal {want:.3f} but its 95% interval "
                       f"[{ci[0]:.3f}, {ci[1]:.3f}] does not exclude missing it")
        floor = spec.get("min_scenario_ratio")
        if floor is not None:
            close = [s for s in self.timed if s.ci and s.ratio >= floor > s.ci[0]]
            if close:
                out.append(f"re-measure: {len(close)} scenario(s) reach ratio {floor:.2f} only within their "
                           f"intervals, e.g. {close[0].name} {close[0].ratio:.3f} [{close[0].ci[0]:.3f}, "
                           f"{close[0].ci[1]:.3f}]")
        return out

    def geomean_ci(self) -> tuple[float, float] | None:
        """A 95% interval of the geomean from the scenarios' intervals (log-normal, independent)."""
        rows = [s for s in self.timed if s.ci and s.ci[0] > 0 and s.ratio and s.ratio > 0]
        if not rows or len(rows) != len(self.timed):
            return None
        logs = [math.log(s.ratio) for s in rows]
        ses = [(math.log(s.ci[1]) - math.log(s.ci[0])) / (2 * Z95) for s in rows]
        mean = sum(logs) / len(logs)
        se = math.sqrt(sum(x * x for x in ses)) / len(rows)
        return math.exp(mean - Z95 * se), math.exp(mean + Z95 * se)

    def host_text(self) -> str:
        """Where the candidate ran, in a few words ("unsandboxed" when nothing confined it)."""
        kind = self.host.get("kind")
        if kind in (None, "in-process"):
            return "candidate in this process (trusted code only)"
        seccomp = "no process creation" if (self.host.get("confined") or {}).get("seccomp") else "no syscall filter"
        text = f"unsandboxed host, {seccomp}" if kind == "none" else f"host sandboxed by {kind}, {seccomp}"
        census = self.host.get("census") or {}
        if self.backend == "cuda" and census:
            text += ", launch census" if census.get("on") else f", {(census.get('note') or 'no launch census')[:120]}"
        return text

    def flag_counts(self) -> list[str]:
        counts = Counter(f for s in self.scenarios for f in s.flags)
        return [f"{flag} x{n}" if n > 1 else flag for flag, n in sorted(counts.items())]

    def exit_code(self, require_goal: bool = False) -> int:
        """3: the candidate did not build. 1: it crashed or hung (the evaluation stopped), broke a
        constraint, was incorrect on a scenario, or its timing cannot be trusted (GOAL_FLAGS); with
        `require_goal` also when the goal is not met (re-measure included). 0 otherwise."""
        if not self.build_ok:
            return 3
        if self.error or self.violations or not self.all_correct:
            return 1
        if any(flag in s.flags for s in self.scenarios for flag in GOAL_FLAGS):
            return 1
        if require_goal and not self.goal()[0]:
            return 1
        return 0

    # outputs ------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        met, reasons = self.goal()
        data = {
            "schema": SCHEMA,
            "task": self.task, "task_dir": self.task_dir, "backend": self.backend,
            "candidate": self.candidate, "seed_source": self.seed_source,
            "eval_seed": self.eval_seed, "options": self.options, "roofline": self.roofline,
            "device": self.device,
            "build": self.build, "seed_build": self.seed_build, "reference_build": self.reference_build,
            "violations": self.violations,
            "scenarios": [s.to_json() for s in self.scenarios],
            "geomean": self.geomean, "min_ratio": self.min_ratio, "fast_1": self.fast_1,
            "all_correct": self.all_correct, "passed": self.passed, "total": self.total,
            "goal": {"met": met, "reasons": reasons, **self.goal_spec},
            "error": self.error, "error_kind": self.error_kind, "log_tail": self.log_tail,
            "started_at": self.started_at, "duration_s": round(self.duration_s, 3),
            "pinned": self.pinned, "host": self.host, "timeline": self.timeline,
        }
        data["goal"]["remeasure"] = self.remeasure()
        return _finite(data)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EvalReport:
        report = cls(
            task=data["task"], task_dir=data["task_dir"], backend=data["backend"],
            candidate=data["candidate"], seed_source=data["seed_source"], eval_seed=data["eval_seed"],
            options=data.get("options", {}), roofline=data.get("roofline", "memory"),
            goal_spec={k: v for k, v in data.get("goal", {}).items() if k not in ("met", "reasons", "remeasure")},
            device=data.get("device", {}), build=data.get("build", {}),
            seed_build=data.get("seed_build", {}), reference_build=data.get("reference_build"),
            violations=data.get("violations", []),
            scenarios=[ScenarioResult.from_json(s) for s in data.get("scenarios", [])],
            total_planned=data.get("total", 0), error=data.get("error"),
            error_kind=data.get("error_kind"), log_tail=data.get("log_tail"),
            started_at=data.get("started_at", 0.0), duration_s=data.get("duration_s", 0.0),
            pinned=data.get("pinned"), host=data.get("host") or {}, timeline=data.get("timeline") or {},
        )
        return report

    def summary(self) -> dict[str, Any]:
        """The compact figures for the `eval_result` event."""
        met, reasons = self.goal()
        return _finite({
            "geomean": _round(self.geomean), "all_correct": self.all_correct,
            "passed": self.passed, "total": self.total, "min_ratio": _round(self.min_ratio),
            "fast_1": _round(self.fast_1), "goal_met": met, "reasons": reasons,
            "flags": self.flag_counts(),
            "failing": [s.name for s in self.scenarios if not s.correct][:FAILING_CAP],
            "build_ok": self.build_ok,
            "violations": [_violation_text(v) for v in self.violations],
            "candidate_sha256": self.candidate.get("sha256"), "eval_seed": self.eval_seed,
            "error": self.error,
            # the stop gate reads this: non-empty = the goal cannot be decided from this measurement
            "remeasure": self.remeasure(),
            "sandbox": self.host.get("kind"),
            # compact per-scenario figures: the detectors (per-scenario jumps and drops, above
            # roofline) and the console's table work from the event without opening the report
            "scenarios": [_compact(s) for s in self.scenarios],
        })

    def text_table(self, limit: int | None = None) -> str:
        """A plain table for the agent, worst ratio first, then the verdict."""
        lines = [f"task {self.task} · candidate {self.candidate.get('path')} "
                 f"(sha256 {str(self.candidate.get('sha256'))[:12]}) · eval seed {self.eval_seed}"
                 + (f" · {self.host_text()}" if self.host else "")]
        if not self.build_ok:
            lines.append("BUILD FAILED:")
            lines.append(str(self.build.get("log", ""))[-3000:])
        rows = sorted(self.scenarios, key=lambda s: s.sort_key)
        if limit is not None:
            rows = rows[:limit]
        if rows:
            header = f"{'scenario':<28} {'ok':<3} {'seed ms':>9} {'cand ms':>9} {'ratio':>7} {'95% CI':>15} {'rate':>12} {'%peak':>6}  flags / failure"
            lines.append(header)
            for s in rows:
                lines.append(_row(s, self.roofline))
        gm, mn, f1 = self.geomean, self.min_ratio, self.fast_1
        lines.append(
            f"passed {self.passed}/{self.total} · geomean {_fmt(gm, '.3f')} · min {_fmt(mn, '.3f')} "
            f"· fast_1 {_fmt(f1, '.2f')}"
        )
        if rows:
            lines.append(LEGEND)
        for v in self.violations:
            lines.append(f"violation: {_violation_text(v)}")
        if self.error:
            lines.append(f"error ({self.error_kind}): {self.error}")
        met, reasons = self.goal()
        lines.append("GOAL MET" if met else "goal not met: " + "; ".join(reasons))
        return "\n".join(lines)


def rate_text(s: ScenarioResult, roofline: str) -> str:
    """The rate that the task's roofline is about: GB/s for memory, FLOP/s otherwise."""
    if roofline == "memory" and s.gbps:
        return f"{s.gbps:.4g} GB/s"
    if s.tflops:
        return f"{s.tflops:.2f} TF/s" if s.tflops >= 1 else f"{s.tflops * 1e3:.1f} GF/s"
    return f"{s.gbps:.4g} GB/s" if s.gbps else ""


def _row(s: ScenarioResult, roofline: str) -> str:
    ci = f"[{s.ci[0]:.3f},{s.ci[1]:.3f}]" if s.ci else ""
    rate = rate_text(s, roofline)
    tail = s.failure if not s.correct else " ".join(s.flags)
    return (f"{s.name[:28]:<28} {'yes' if s.correct else 'NO':<3} {_fmt(s.seed_ms, '.4f'):>9} "
            f"{_fmt(s.cand_ms, '.4f'):>9} {_fmt(s.ratio, '.3f'):>7} {ci:>15} {rate:>12} "
            f"{_fmt(s.pct_peak, '.0f'):>6}  {tail or ''}")


def _flag_detail(flag: str, s: ScenarioResult) -> str:
    """The numbers behind an integrity flag, for the first scenario that has it."""
    if flag == "impossible" and s.physics:
        p = s.physics
        return (f" ({s.name}: {s.cand_ms:.4g} ms, but the measured peaks need at least {p['floor_ms']:.4g} ms "
                f"({p['bound']} bound; a time below 1/{p['margin']:g} of that is not a measurement))")
    if flag == "outside_stream" and s.audit.get("census_problem"):
        return f" ({s.name}: {s.audit['census_problem']})"
    if flag == "outside_stream" and isinstance(s.audit.get("gap"), dict):
        g = s.audit["gap"]
        return (f" ({s.name}: each call's wall clock exceeds its events by {g['excess_ms']:+.4f} ms more than "
                f"the seed's; allowed {g['threshold_ms']:.4f})")
    if flag == "outside_call" and isinstance(s.audit.get("outside_cpu_share"), dict):
        c = s.audit["outside_cpu_share"]
        return f" ({s.name}: kernel threads kept {c.get('cand')} / {c.get('seed')} of a core busy between calls)"
    if flag == "timing_inconsistent":
        return f" ({s.name}: {s.audit.get('timing_problem') or 'the verdict clock saw more time than the host reported'})"
    return ""


def _violation_text(v: dict[str, Any]) -> str:
    text = f"{v['kind']} {v['name']!r}"
    if v.get("rule"):
        text += f" (rule {v['rule']!r})"
    return text + (f": {v['detail']}" if v.get("detail") else "")


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _finite(obj: Any) -> Any:
    """JSON has no inf/nan: write them as strings so a report always serialises."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj
