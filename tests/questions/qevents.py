"""Building event logs for detector tests: plain dicts in the shape the log holds."""
from __future__ import annotations

import dataclasses

from questions.detectors import DecisionPoint, DetectorConfig, detect


class Log:
    """An event log being written by a test, one event at a time, with time moving forward."""

    def __init__(self, t0: float = 1_764_000_000.0) -> None:
        self.events: list[dict] = []
        self.t = t0
        self._ids = 0

    def add(self, type_: str, dt: float = 5.0, **fields) -> dict:
        self.t += dt
        ev = {"v": 1, "seq": len(self.events), "t": self.t, "type": type_, **fields}
        self.events.append(ev)
        return ev

    def start(self, task: str = "attention-fwd", **fields) -> dict:
        return self.add("session_start", task=task, **fields)

    def text(self, text: str, **fields) -> dict:
        return self.add("assistant_text", text=text, **fields)

    def call(self, name: str, input: dict, output: str = "ok", is_error: bool = False, dt: float = 5.0) -> dict:
        self._ids += 1
        cid = f"call{self._ids}"
        self.add("tool_call", dt=dt, id=cid, name=name, input=input)
        return self.add("tool_result", dt=dt, id=cid, output=output, is_error=is_error)

    def bash(self, command: str, output: str = "", **kw) -> dict:
        return self.call("bash", {"command": command}, output, **kw)

    def eval(self, geomean: float | None = 1.0, correct: bool = True, total: int = 4,
             scenarios: list[dict] | None = None, event: dict | None = None, **summary) -> dict:
        s = {"all_correct": correct, "passed": total if correct else total - 1, "total": total}
        if geomean is not None:
            s["geomean"] = geomean
        if scenarios is not None:
            s["scenarios"] = scenarios
        if not correct:
            s["failing"] = ["s0"]
        s.update(summary)
        return self.add("eval_result", summary=s, **(event or {}))

    def human(self, text: str = "What does the profile say?", **fields) -> dict:
        return self.add("human_message", text=text, **fields)

    def stop(self, goal_met: bool = False, **fields) -> dict:
        return self.add("stop_check", goal_met=goal_met, **fields)

    def end(self, reason: str = "completed") -> dict:
        return self.add("session_end", reason=reason)


def scen(*ratios: float, correct: bool = True, pct=None) -> list[dict]:
    out = []
    for i, r in enumerate(ratios):
        d = {"name": f"s{i}", "ratio": r, "correct": correct}
        if pct is not None:
            d["pct_peak"] = pct[i] if isinstance(pct, (list, tuple)) else pct
        out.append(d)
    return out


def fired(events: list[dict], kind: str, config: DetectorConfig | None = None) -> list[DecisionPoint]:
    """The points that stand for `kind`; a merged point led by another kind is shown as its `kind`
    reason (evidence and strength of that reason)."""
    out = []
    for dp in detect(events, config):
        if dp.kind == kind:
            out.append(dp)
        elif kind in dp.kinds:
            r = next(r for r in dp.reasons if r.get("kind") == kind)
            out.append(dataclasses.replace(dp, kind=kind, evidence=r["evidence"], strength=r["strength"]))
    return out


def started() -> Log:
    """A log that has begun (so `start` is behind us)."""
    log = Log()
    log.start(goal={"geomean": 1.3}, arch="sm90")
    return log
