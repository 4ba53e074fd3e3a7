"""The stop gate's judgement and its words: pure functions of a report and the session's goal.

The runner decides when to judge (the model ended its turn) and which report (a fresh
evaluation, or the last one of the same file content); here is how: the evaluator's own verdict
with the goal spec replaced by the session's goal (the task's, or higher when the steerer raised
it), when a verdict is undecided (re-measure: the gate measures once more), and what the model is
told when the stop is refused.
"""
from __future__ import annotations

import dataclasses

from agent.control import render_goal

TABLE_ROWS = 25


def with_goal(report, goal: dict):
    """The report judged against `goal` instead of the task's own."""
    spec = dict(report.goal_spec)
    spec.update({k: v for k, v in goal.items() if k in ("all_correct", "min_geomean", "min_scenario_ratio")})
    return dataclasses.replace(report, goal_spec=spec)


def judge(report, goal: dict) -> tuple[bool, list[str]]:
    """Whether the report meets the goal, and every reason it does not (one line each)."""
    return with_goal(report, goal).goal()


def undecided(met: bool, reasons: list[str]) -> bool:
    """The measurement cannot decide the goal: it would be met but for reasons that all say
    're-measure' (a contended machine, intervals that straddle the goal). The gate then measures
    once more before it answers."""
    return not met and bool(reasons) and all(r.startswith("re-measure:") for r in reasons)


def undecided_feedback(candidate: str, report, goal: dict, reasons: list[str], ev: dict, *, measured: int,
                       best: float | None) -> str:
    """What the model is told when the gate measured again and still cannot decide."""
    lines = [f"[Stop check] You ended your turn, so the runner evaluated {candidate} "
             f"(evaluation #{ev.get('n')}, measured {measured} time{'s' if measured != 1 else ''} for this stop). "
             "It cannot decide whether the goal is met: the numbers would meet it, but the measurement "
             "cannot be trusted to:"]
    lines += [f"- {r.removeprefix('re-measure: ')}" for r in reasons]
    lines.append("A contended machine clears by itself; an interval straddling the goal narrows with a clear margin "
                 "over the goal (a faster kernel) or a quieter machine. The goal is not met until a measurement "
                 "decides it.")
    lines.append(f"The goal: {render_goal(goal)}.")
    if best is not None:
        lines.append(f"Best correct geomean in this session so far: {best:.3f}.")
    lines += ["", with_goal(report, goal).text_table(limit=TABLE_ROWS), "", "The session continues."]
    return "\n".join(lines)


def unmet_feedback(candidate: str, report, goal: dict, reasons: list[str], ev: dict, *, reused: bool,
                   best: float | None) -> str:
    """The facts that fail, as the model reads them after a refused stop."""
    how = (f"evaluation #{ev.get('n')} reused: the file is unchanged since" if reused
           else f"evaluation #{ev.get('n')}")
    lines = [f"[Stop check] You ended your turn, so the runner checked {candidate} ({how}). "
             "The goal is not met:"]
    lines += [f"- {r}" for r in reasons]
    lines.append(f"The goal: {render_goal(goal)}.")
    if best is not None:
        lines.append(f"Best correct geomean in this session so far: {best:.3f}.")
    lines += ["", with_goal(report, goal).text_table(limit=TABLE_ROWS), "", "The session continues."]
    return "\n".join(lines)


def met_but_written_feedback(goal: dict, summary: dict) -> str:
    """The goal is met but a steerer message waits: the stop is refused so it gets an answer."""
    g = summary.get("geomean")
    shown = f"{g:.3f}" if isinstance(g, (int, float)) else "-"
    return (f"[Stop check] The goal is met ({render_goal(goal)}; geomean {shown}), but the steerer has "
            "written to you; read it and answer.")
