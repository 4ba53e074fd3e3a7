"""Helpers for the console tests: a fixed clock and bank, a session whose writer the test holds,
and waiting on the real app driven by the Pilot."""
from __future__ import annotations

import asyncio
import json
from pathlib import Path

from console.app import ConsoleApp
from console.bank import BankSource
from synthetic_session import T0, synthetic_events
from sessions.layout import SessionPaths
from sessions.log import SessionWriter

TEST_BANK = [
    {"id": "measure-bandwidth", "text": "What fraction of peak DRAM bandwidth does the kernel reach right now?",
     "triggers": ["stall", "limit_claim"], "layers": ["measurement", "memory_hierarchy"]},
    {"id": "profile-first", "text": "What does a profile of the slowest scenario say the time goes to?",
     "triggers": ["stall", "start"], "layers": ["measurement"]},
    {"id": "check-limit", "text": "Which measurement shows this is the hardware limit, and what is the number?",
     "triggers": ["limit_claim"], "layers": ["measurement"]},
    {"id": "verify-win", "text": "Does the speed-up survive a fresh seed and a cold L2?",
     "triggers": ["suspicious_win"], "layers": ["measurement", "correctness"]},
    {"id": "launch-overhead", "text": "How much of the time is launch overhead on the smallest scenario?",
     "triggers": ["stall", "regression"], "layers": ["launch"]},
    {"id": "other-layer", "text": "Which layer below this one have you not measured yet?",
     "triggers": ["stall", "loop"], "layers": ["algorithm"]},
]


def fixed_clock(t: float = T0 + 1800.0):
    return lambda: t


def fixed_bank() -> BankSource:
    return BankSource(loader=lambda: list(TEST_BANK))


class LiveSession:
    """A session whose writer stays open (the runner's lock is held), appended by the test."""

    def __init__(self, root: Path, n_tool_calls: int = 62, **kw) -> None:
        self.paths = SessionPaths(root)
        root.mkdir(parents=True, exist_ok=True)
        self.paths.evals.mkdir(exist_ok=True)
        self.writer = SessionWriter(self.paths.events, fsync_types=frozenset())
        self.reports: dict[int, dict] = {}
        self._events = synthetic_events(n_tool_calls, end=False, reports=self.reports, **kw)
        self.more = synthetic_events(100000, end=False, t0=T0 + 10_000, human_every=0)
        self.last_t = T0

    def write(self, n: int | None = None) -> int:
        """Write the next n events of the session (all remaining when None)."""
        k = 0
        for ev in self._events:
            self.write_event(ev)
            k += 1
            if n is not None and k >= n:
                break
        return k

    def write_event(self, ev: dict) -> None:
        if ev["type"] == "eval_result" and ev["n"] in self.reports:  # the report lands first
            self.paths.eval_report(ev["n"]).write_text(json.dumps(self.reports[ev["n"]]))
        self.writer.write_event(ev)
        self.last_t = ev["t"]

    def append_more(self, n: int) -> None:
        for _ in range(n):
            ev = next(self.more)
            ev["seq"] = self.writer.next_seq
            self.writer.write_event(ev)
            self.last_t = ev["t"]

    def acknowledge_all(self) -> list[dict]:
        from sessions.inbox import Inbox

        inbox = Inbox(self.paths.root)
        return [inbox.acknowledge(self.writer, m) for m in inbox.pending()]

    def close(self) -> None:
        self.writer.close()


def make_app(paths_or_source, mode: str = "live", **kw) -> ConsoleApp:
    kw.setdefault("clock", fixed_clock())
    kw.setdefault("bank", fixed_bank())
    kw.setdefault("force_polling", True)
    return ConsoleApp(paths_or_source, mode=mode, **kw)


async def wait_for(pilot, predicate, timeout: float = 10.0, step: float = 0.02) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        if loop.time() > end:
            raise AssertionError("timed out waiting for the console")
        await pilot.pause(step)
    await pilot.pause()


async def wait_loaded(pilot) -> None:
    await wait_for(pilot, lambda: getattr(pilot.app.screen, "loaded", False))


def screen_text(app) -> str:
    """What the terminal shows, as plain text (one line per row)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())
