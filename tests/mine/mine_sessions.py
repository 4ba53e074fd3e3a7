"""Session logs for miner tests: events as the runner writes them, and session directories."""
from __future__ import annotations

from pathlib import Path

from sessions.layout import create_session
from sessions.log import SessionWriter


class Log:
    """An event log written one event at a time, with time moving forward."""

    def __init__(self, t0: float = 1_790_000_000.0) -> None:
        self.events: list[dict] = []
        self.t = t0
        self._ids = 0
        self._n = 0

    def add(self, type_: str, dt: float = 30.0, **fields) -> dict:
        self.t += dt
        ev = {"v": 1, "seq": len(self.events), "t": self.t, "type": type_, **fields}
        self.events.append(ev)
        return ev

    def start(self, task: str = "rmsnorm-cuda", **fields) -> dict:
        return self.add("session_start", task=task, **fields)

    def text(self, text: str, **fields) -> dict:
        return self.add("assistant_text", text=text, **fields)

    def bash(self, command: str, output: str = "ok") -> dict:
        self._ids += 1
        cid = f"call{self._ids}"
        self.add("tool_call", id=cid, name="bash", input={"command": command})
        return self.add("tool_result", id=cid, output=output)

    def eval(self, geomean: float, correct: bool = True, dt: float = 60.0, **summary) -> dict:
        self._n += 1
        s = {"n": self._n, "geomean": geomean, "all_correct": correct, "passed": 4 if correct else 3, "total": 4}
        s.update(summary)
        return self.add("eval_result", dt=dt, summary=s)

    def human(self, text: str, **fields) -> dict:
        fields.setdefault("source", "free")
        return self.add("human_message", text=text, **fields)

    def point(self, kind: str, evidence: str = "planted", about: int | None = None) -> dict:
        return self.add("decision_point", dt=0.0, kind=kind, evidence=evidence,
                        about_seq=self.events[-1]["seq"] if about is None else about)

    def write(self, root: Path) -> Path:
        sp = create_session(path=root)
        with SessionWriter(sp.events) as w:
            for ev in self.events:
                w.write_event(ev)
        return sp.root
