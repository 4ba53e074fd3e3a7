"""Control lines a steerer can put in a message, and the goal they change.

A line of a human message that starts with `/goal` raises the goal the stop gate checks:

    /goal 1.5                        geometric mean of the speed-ups >= 1.5x
    /goal 1.5 min_ratio=1.0          ... and every scenario at least as fast as the seed
    /goal min_ratio=1.0              only the per-scenario floor

The goal can only be raised: a value below the task's (or the current) goal is ignored, so
a stray line can never let a session stop early. The rest of the message reaches the model
as usual, with a sentence stating the new goal. Everything here is pure.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

_NUMBER = r"(\d+(?:\.\d*)?|\.\d+)"
_GOAL_LINE = re.compile(r"^\s*/goal\b(.*)$", re.IGNORECASE)
_KEYS = {"geomean": "min_geomean", "min_geomean": "min_geomean", "min_ratio": "min_scenario_ratio",
         "min_scenario_ratio": "min_scenario_ratio", "ratio": "min_scenario_ratio"}


@dataclass
class Control:
    text: str  # the message without its control lines
    goal: dict | None = None  # requested changes: {min_geomean?, min_scenario_ratio?}
    problems: list[str] = field(default_factory=list)


def parse_control(text: str) -> Control:
    kept, goal, problems = [], None, []
    for line in text.splitlines():
        m = _GOAL_LINE.match(line)
        if not m:
            kept.append(line)
            continue
        goal = goal or {}
        for token in m.group(1).split():
            key, _, value = token.partition("=")
            if not value:  # a bare number is the geomean
                key, value = "geomean", key
            name = _KEYS.get(key.lower())
            if name is None or not re.fullmatch(_NUMBER, value):
                problems.append(f"/goal: cannot read {token!r} (use e.g. /goal 1.5 min_ratio=1.0)")
                continue
            goal[name] = float(value)
    return Control("\n".join(kept), goal, problems)


def raise_goal(current: dict, requested: dict) -> dict:
    """The goal after a request: each bound moves up, never down."""
    new = dict(current)
    for key in ("min_geomean", "min_scenario_ratio"):
        want = requested.get(key)
        if want is None:
            continue
        have = new.get(key)
        if have is None or want > have:
            new[key] = want
    return new


def render_goal(goal: dict) -> str:
    parts = []
    if goal.get("all_correct", True):
        parts.append("every scenario correct")
    if goal.get("min_geomean") is not None:
        parts.append(f"geometric mean of the speed-ups over the seed >= {goal['min_geomean']:g}x")
    if goal.get("min_scenario_ratio") is not None:
        parts.append(f"every scenario's speed-up >= {goal['min_scenario_ratio']:g}x")
    parts.append("no constraint violations")
    return ", ".join(parts)
