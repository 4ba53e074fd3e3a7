"""The KernelSeek console app: one session on screen, live or replayed.

    app = ConsoleApp(SessionPaths(dir), mode="live")   # follow a running (or finished) session
    app = ConsoleApp(SessionPaths(dir), mode="replay") # read-only, with a timeline
    app = ConsoleApp.for_transcript("rollout.jsonl")   # a foreign transcript, replayed
    app.run()

`kernelseek steer` will start the agent runner as a detached child process on a session directory
(agent.launch) and then run `ConsoleApp(paths, mode="live", runner=proc)`: the console only reads
events.jsonl and appends to inbox.jsonl, so it can quit and re-attach without stopping the runner.
`runner`, when given, is kept as `app.runner` for steer's own use; the console never owns the
runner's lifetime (to stop a session, post an interrupt or signal the runner).

`clock` is injected so tests and snapshots never depend on the wall clock.
"""
from __future__ import annotations

import gc
import time
from collections.abc import Callable
from pathlib import Path

from textual.app import App
from textual.binding import Binding

from console.bank import BankSource
from console.decisions import with_decisions
from console.palette import ConsoleCommands
from console.screens.session import SessionScreen, session_screen
from console.source import EventSource, SessionSource, transcript_source
from sessions.layout import SessionPaths


class ConsoleApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "KernelSeek"
    COMMANDS = App.COMMANDS | {ConsoleCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (36, "-tall")]
    BINDINGS = [Binding("ctrl+q", "quit", "quit", key_display="^q", priority=True)]

    def __init__(self, session: SessionPaths | EventSource, mode: str = "live", *,
                 clock: Callable[[], float] = time.time, speed: float = 1.0,
                 bank: BankSource | None = None, runner: object | None = None,
                 force_polling: bool | None = None) -> None:
        super().__init__()
        # Rendering a frame allocates many short-lived objects; with the default thresholds the
        # cyclic collector runs mid-frame often enough to put 50-100 ms spikes on key presses.
        # Fewer, larger young collections keep a key's frame under 50 ms (bench_console).
        gc.set_threshold(20_000, 50, 100)
        if isinstance(session, SessionPaths):
            source: EventSource = SessionSource(session, force_polling=force_polling)
        else:
            source = session
        source = with_decisions(source)  # every log shows the decision points `kernelseek detect` finds
        self.source = source
        self.mode = mode
        self.clock = clock
        self.speed = speed
        self.bank = bank or BankSource()
        self.runner = runner
        self.sub_title = f"{'replay' if mode == 'replay' else 'live'} · {source.label}"

    @classmethod
    def for_transcript(cls, path: str | Path, *, loader: Callable | None = None, **kw) -> "ConsoleApp":
        """Replay a foreign transcript (or our own events.jsonl) read by sessions.importers."""
        return cls(transcript_source(path, loader), mode="replay", **kw)

    def get_default_screen(self) -> SessionScreen:
        return self.session_screen()

    def session_screen(self) -> SessionScreen:
        return session_screen(self.source, self.mode, clock=self.clock, speed=self.speed,
                              bank=self.bank)
