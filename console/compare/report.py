"""A comparison of arms, as numbers (JSON), a terminal table, and a Markdown report with a plot.

Per arm: sessions, goal met, the median final geomean with its bootstrap interval, questions
asked (by humans and by the autopilot), tokens and cost; then each arm against the baseline arm
(`none` when there is one, else the first): the difference of median final geomeans with its
interval, and what the interval allows one to say.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from console.compare.gather import SessionResult
from console.compare.stats import Estimate, median_ci, median_difference_ci, verdict
from console.compare.svg import Chart, Series, render_svg


@dataclass
class ArmSummary:
    arm: str
    sessions: int
    goal_met: int
    median: Estimate
    questions_human: int
    questions_autopilot: int
    tokens: int
    cost: float
    evaluated: int

    def to_dict(self) -> dict:
        return {"arm": self.arm, "sessions": self.sessions, "evaluated": self.evaluated, "goal_met": self.goal_met,
                "median_final_geomean": self.median.to_dict(), "questions_human": self.questions_human,
                "questions_autopilot": self.questions_autopilot, "tokens": self.tokens,
                "cost_usd": round(self.cost, 6)}


@dataclass
class Difference:
    arm: str
    base: str
    estimate: Estimate

    def to_dict(self) -> dict:
        return {"arm": self.arm, "baseline": self.base, "median_difference": self.estimate.to_dict(),
                "verdict": verdict(self.estimate)}


@dataclass
class Comparison:
    results: list[SessionResult]
    arms: list[ArmSummary]
    differences: list[Difference]
    confidence: float = 0.95

    def to_dict(self) -> dict:
        return {"confidence": self.confidence, "arms": [a.to_dict() for a in self.arms],
                "differences": [d.to_dict() for d in self.differences],
                "sessions": [r.to_dict() for r in self.results]}


def arm_order(results: list[SessionResult], preferred: list[str] | None = None) -> list[str]:
    seen = list(dict.fromkeys(r.arm for r in results))
    order = [a for a in (preferred or []) if a in seen] + [a for a in seen if a not in (preferred or [])]
    if "none" in order:  # the baseline first
        order.remove("none")
        order.insert(0, "none")
    return order


def compare_arms(results: list[SessionResult], *, preferred: list[str] | None = None, seed: int = 0) -> Comparison:
    order = arm_order(results, preferred)
    by_arm = {a: [r for r in results if r.arm == a] for a in order}
    summaries = []
    for arm in order:
        rs = by_arm[arm]
        finals = [r.final for r in rs if r.report is not None or r.error]
        summaries.append(ArmSummary(
            arm=arm, sessions=len(rs), goal_met=sum(r.goal_met for r in rs), median=median_ci(finals, seed=seed),
            questions_human=sum(r.questions_human for r in rs), questions_autopilot=sum(r.questions_autopilot for r in rs),
            tokens=sum(r.tokens for r in rs), cost=sum(r.cost for r in rs), evaluated=len(finals)))
    diffs = []
    if len(order) > 1:
        base = order[0]
        base_finals = [r.final for r in by_arm[base] if r.report is not None or r.error]
        for arm in order[1:]:
            finals = [r.final for r in by_arm[arm] if r.report is not None or r.error]
            diffs.append(Difference(arm, base, median_difference_ci(base_finals, finals, seed=seed)))
    return Comparison(results, summaries, diffs)


def _x(v: float | None, spec: str = ".3f") -> str:
    return "—" if v is None else format(v, spec)


def _ci(e: Estimate, spec: str = ".3f") -> str:
    if e.value is None:
        return "—"
    return f"{e.value:{spec}} [{_x(e.lo, spec)}, {_x(e.hi, spec)}]"


def _signed_ci(e: Estimate) -> str:
    if e.value is None:
        return "—"
    return f"{e.value:+.3f} [{e.lo:+.3f}, {e.hi:+.3f}]"


def arm_rows(c: Comparison) -> list[list[str]]:
    rows = []
    for a in c.arms:
        per = a.sessions or 1
        rows.append([a.arm, str(a.sessions), f"{a.goal_met}/{a.sessions}", _ci(a.median),
                     f"{a.questions_human} + {a.questions_autopilot} auto",
                     f"{a.tokens:,} ({a.tokens / per:,.0f}/session)", f"${a.cost:.2f} (${a.cost / per:.2f}/session)"])
    return rows


ARM_HEADER = ["arm", "sessions", "goal met", "median final geomean [95% CI]", "questions (human + autopilot)",
              "tokens", "cost"]


def difference_lines(c: Comparison) -> list[str]:
    return [f"{d.arm} − {d.base}: median final geomean {_signed_ci(d.estimate)} → {verdict(d.estimate)}"
            for d in c.differences]


def session_rows(c: Comparison) -> list[list[str]]:
    out = []
    for r in c.results:
        out.append([r.name, r.arm, r.state, _x(r.claimed_best), _x(r.geomean),
                    "yes" if r.all_correct else ("—" if r.report is None else f"{r.passed}/{r.total}"),
                    "yes" if r.goal_met else "no", _x(r.final), r.error or ""])
    return out


SESSION_HEADER = ["session", "arm", "ended", "claimed best", "re-evaluated", "correct", "goal met", "final", "note"]


def plot(c: Comparison) -> str:
    goal = next((r.goal for r in c.results if r.goal is not None), None)
    chart = Chart(title="Best geomean over time, per arm (each session; the session's own evaluations)",
                  x_label="hours since the session started", y_label="best geomean (×)", goal=goal)
    for r in c.results:
        chart.series.append(Series(r.name, list(r.history), group=r.arm))
    return render_svg(chart)


def markdown(c: Comparison, *, title: str, plot_file: str | None) -> str:
    def table(header: list[str], rows: list[list[str]]) -> list[str]:
        esc = [[cell.replace("|", "\\|") for cell in row] for row in rows]
        return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + ["| " + " | ".join(r) + " |" for r in esc]

    lines = [f"# {title}", "",
             "Each session's final kernel re-evaluated on every scenario (the trusted number); a final "
             "kernel that is not correct everywhere counts as 0×. Intervals: percentile bootstrap over "
             f"sessions, {int(c.confidence * 100)}%.", "", "## Arms", ""]
    lines += table(ARM_HEADER, arm_rows(c))
    if c.differences:
        lines += ["", "## Differences", ""] + [f"- {x}" for x in difference_lines(c)]
    if plot_file:
        lines += ["", "## Geomean over time", "", f"![best geomean over time per arm]({plot_file})"]
    lines += ["", "## Sessions", ""] + table(SESSION_HEADER, session_rows(c))
    return "\n".join(lines) + "\n"
