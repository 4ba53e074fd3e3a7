"""The KernelSeek console app: one session on screen, live or replayed.

    app = ConsoleApp(SessionPaths(dir), mode="live")   # follow a running (or finished) session
    app = ConsoleApp(SessionPaths(dir), mode="replay") # read-only, with a timeline
    app = ConsoleApp.for_transcript("rollout.jsonl")   # a foreign transcript, replayed
    app = ConsoleApp.for_fleet(sessions_root)          # every session under a root (the fleet view)
    app.run()

From any session screen `f` opens the fleet view of the sessions beside it (and `f` or `escape`
there comes back); from the fleet, `enter` opens a session.

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
    CSS_PATH = ["app.tcss", "screens/fleet.tcss"]  # the fleet screen may be the default one: load it here
    TITLE = "KernelSeek"
    COMMANDS = App.COMMANDS | {ConsoleCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-medium"), (36, "-tall")]
    BINDINGS = [Binding("ctrl+q", "quit", "quit", key_display="^q", priority=True),
                Binding("f", "fleet", "the fleet: every session, who needs you", show=False)]

    def __init__(self, session: SessionPaths | EventSource | None, mode: str = "live", *,
                 clock: Callable[[], float] = time.time, speed: float = 1.0,
                 bank: BankSource | None = None, runner: object | None = None,
                 force_polling: bool | None = None, fleet_root: str | Path | None = None,
                 fleet_views: Callable | None = None) -> None:
        super().__init__()
        # Rendering a frame allocates many short-lived objects; with the default thresholds the
        # cyclic collector runs mid-frame often enough to put 50-100 ms spikes on key presses.
        # Fewer, larger young collections keep a key's frame under 50 ms (bench_console).
        gc.set_threshold(20_000, 50, 100)
        if isinstance(session, SessionPaths):
            source: EventSource | None = SessionSource(session, force_polling=force_polling)
        else:
            source = session
        if source is not None:  # (None: the fleet view, no one session)
            source = with_decisions(source)  # every log shows the decision points `kernelseek detect` finds
        self.source = source
        # where the fleet view looks: given, else the directory holding this session
        paths = source.paths if source is not None else None
        self.fleet_root = Path(fleet_root) if fleet_root else (paths.root.parent if paths else None)
        self.fleet_views = fleet_views
        self.mode = mode
        self.clock = clock
        self.speed = speed
        self.bank = bank or BankSource()
        self.runner = runner
        self.sub_title = "fleet" if source is None else f"{'replay' if mode == 'replay' else 'live'} · {source.label}"

    @classmethod
    def for_transcript(cls, path: str | Path, **kw) -> "ConsoleApp":
        """Replay a foreign transcript (or our own events.jsonl) read by sessions.importers."""
        return cls(transcript_source(path), mode="replay", **kw)

    def get_system_commands(self, screen):
        """Textual's system commands, less its keys panel (it would squeeze the transcript;
        `?` shows ours over it, and the palette lists every action already)."""
        for command in super().get_system_commands(screen):
            if command.title != "Keys":
                yield command

    @classmethod
    def for_fleet(cls, root: str | Path, **kw) -> "ConsoleApp":
        """The fleet view of every session under `root`."""
        return cls(None, mode="live", fleet_root=root, **kw)

    def get_default_screen(self):
        if self.source is None:
            return self.fleet_screen()
        return self.session_screen()

    def fleet_screen(self):
        from console.screens.fleet import FleetScreen

        return FleetScreen(self.fleet_root, bank=self.bank, clock=self.clock, views=self.fleet_views)

    def action_fleet(self) -> None:
        from console.screens.fleet import FleetScreen

        if isinstance(self.screen, FleetScreen) or self.fleet_root is None:
            return
        for screen in self.screen_stack:
            if isinstance(screen, FleetScreen):  # opened from the fleet: go back to it
                while not isinstance(self.screen, FleetScreen):
                    self.pop_screen()
                return
        self.push_screen(self.fleet_screen())

    def breakpoint_classes(self) -> str:
        """The breakpoint classes the screen's first resize would set, for a screen made now:
        given at construction, they do not restyle every node of it again (~20 ms of an open)."""
        width, height = self.size
        names = []
        for breakpoints, dimension in ((self.HORIZONTAL_BREAKPOINTS, width), (self.VERTICAL_BREAKPOINTS, height)):
            names += [name for edge, name in sorted(breakpoints, reverse=True) if dimension >= edge][:1]
        return " ".join(names)

    def session_screen(self) -> SessionScreen:
        return session_screen(self.source, self.mode, clock=self.clock, speed=self.speed,
                              classes=self.breakpoint_classes(),
                              bank=self.bank)
