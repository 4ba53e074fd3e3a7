"""The session screen: one session, live (following its log) or replayed (with a timeline).

State has one owner, this screen: the `SessionModel` (the fold of the events), the replay
position and the console-local choices (dismissed decision points, messages sent from here).
From them it computes a `ViewState` that flows down to the header, the evaluator panel, the dock
and the timeline by data binding; the transcript reads the model's rows directly. Widgets talk
back with messages (`Transcript.CursorMoved`, `Timeline.Seek`).

The backlog is read and parsed on a worker thread a slice at a time, each slice folded on the UI
thread while the worker waits (keys go through between slices). Then, live, a watcher thread only
says when the log may have grown (one wake-up at a time) and the UI thread reads, parses and folds
what is new: a log written at thousands of events per second costs one read, one fold and at
most one repaint per sync. Never do two threads run Python at once: on a loaded 2-core machine
they would wait on each other for the GIL while a key waits. Until the backlog is
read the header says how much is; keys that need all of it (End, d, n, the timeline) wait for it
and say so. What the source says about the log (malformed lines, a log truncated or replaced) is
shown as a notice.

The layout keeps the transcript the largest thing on an 80x24 terminal: the evaluator is one
line (`EvalLine`) unless the terminal is wide and there is an evaluation to show (then a side
panel); `e` opens the panel over the transcript where there is no room beside it. The keys (`?`)
are an overlay too, the dock of an open decision point is at most four lines on a short
terminal, and the search is one line above the footer with its match count.
"""
from __future__ import annotations

import gc
import threading
import time
from bisect import bisect_left
from collections.abc import Callable

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Input, Static

from console.bank import BankSource
from console.evals import ReportCache
from console.model import SessionModel, ViewState
from console.palette import screen_commands
from console.safe_text import clean_line
from console.screens.ask import AskScreen
from console.screens.bank_browser import BankBrowser
from console.screens.keys import KeysScreen
from console.steering import offered_questions, post_question
from sessions.digest import goal_geomean, session_state
from console.source import Batch, EventSource
from console.widgets.dock import QuestionDock
from console.widgets.evalpanel import EvalLine, EvalPanel
from console.widgets.footer import Footer
from console.widgets.header import HeaderBar
from console.widgets.timeline import Timeline
from console.widgets.transcript import Transcript

SPEEDS = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 500.0)
PLAY_TICK_S = 0.05
MAX_GAP_WALL_S = 1.0  # replay never waits longer than this between two events
WAITING_AFTER_S = 30.0  # a running session quiet this long shows as "waiting"
LIVE_TICK_S = 1.0
UI_SYNC_S = 0.1  # new events reach the widgets at most this often (each sync is one repaint)
FLOOD_SYNC_S = 0.5  # ... and while a flood scrolls a screenful of rows by at each sync
FLOOD_ROWS = 40
LOADING_SYNC_S = 0.5  # while a backlog is read: its first rows at once, then this often (the header counts)
WIDE = 120  # columns from which the evaluator panel sits beside the transcript
SEARCH_CAP = 10_000  # matches counted at most (beyond: "10000+")

COMMON_BINDINGS = [
    Binding("d", "jump('decision', 1)", "decision", key_display="d/D", tooltip="next decision point"),
    Binding("D", "jump('decision', -1)", "previous decision point", show=False),
    Binding("h", "jump('human', 1)", "next human message", show=False),
    Binding("H", "jump('human', -1)", "previous human message", show=False),
    Binding("slash", "search", "search", key_display="/",
            tooltip="search the transcript (tool inputs and outputs too)"),
    Binding("n", "search_next(1)", "next match", show=False),
    Binding("N", "search_next(-1)", "previous match", show=False),
    Binding("e", "toggle_evals", "evaluator", show=False,
            tooltip="show or hide the evaluator panel (scenarios, plot, flags)"),
    Binding("question_mark", "keys", "keys", key_display="?", tooltip="list every key"),
    Binding("escape", "close", "close", show=False,
            tooltip="close the search, or the panel over the transcript"),
]


class SessionScreen(Screen):
    """Shared by the live and the replay screens (their key bindings differ)."""

    # repaint=False: the screen itself draws nothing; the widgets bound to these repaint
    view_state: reactive[ViewState | None] = reactive(None, always_update=True, repaint=False)
    suggestions: reactive[tuple] = reactive((), repaint=False)
    playing: reactive[bool] = reactive(False, repaint=False)
    speed: reactive[float] = reactive(1.0, repaint=False)

    class LogChanged(Message):
        """The log may have grown (posted from the watcher thread; one at a time)."""

    class Loaded(Message):
        """The backlog is folded: the session is on screen (the benchmark waits for this)."""

    def __init__(self, source: EventSource, mode: str = "live", *, clock: Callable[[], float] = time.time,
                 speed: float = 1.0, bank: BankSource | None = None, force_polling: bool | None = None,
                 inbox_poll: bool = True, classes: str = "") -> None:
        if mode not in ("live", "replay"):
            raise ValueError(f"mode must be live or replay, not {mode!r}")
        # the mode's class from the start (and the app's breakpoint classes, `classes`): added
        # once mounted they would restyle the whole screen
        super().__init__(classes=f"-{mode} {classes}".strip())
        self.source = source
        self.mode = mode
        self.clock = clock
        self.model = SessionModel(source.store)
        self.reports = ReportCache(source.paths.root if source.paths else None)
        self.bank = bank or BankSource()
        self.position = -1  # replay: the event index the session is shown as of
        self.loaded = False
        self.dismissed: set[int] = set()
        self.mine: set[str] = set()
        self.search_query = ""
        self._inbox = None
        self._inbox_poll = inbox_poll and mode == "live" and source.paths is not None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._signalled = False
        self._vt = 0.0
        self._play_timer = None
        self._decision_shown: int | None = None
        self._unsynced_added = 0
        self._unsynced_changed: set[int] = set()
        self._last_sync = 0.0
        self._last_sync_rows = 0
        self._sync_timer = None
        self._when_loaded: list[Callable[[], None]] = []
        self.notices: list[str] = []  # what was said about the log (also shown as notifications)
        self._evals_hidden = False  # wide: the steerer hid the side panel
        self._evals_over = False  # narrow: the panel is open over the transcript
        self._has_evals = False
        self._match_rows: list[int] = []  # rows holding a match of the search, in order
        self._match_events: set[int] = set()
        self._search_scanned = 0  # events counted for the current search so far
        self._search_counting = False
        self.set_reactive(SessionScreen.speed, min(SPEEDS, key=lambda s: abs(s - speed)))

    # -- composition --------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield HeaderBar(id="header").data_bind(state=SessionScreen.view_state)
        yield EvalLine(id="evalline").data_bind(state=SessionScreen.view_state)
        with Horizontal(id="body"):
            yield Transcript(self.model, self.reports, id="transcript")
            yield EvalPanel(self.reports, id="evals").data_bind(state=SessionScreen.view_state)
        yield QuestionDock(id="dock").data_bind(state=SessionScreen.view_state,
                                                 suggestions=SessionScreen.suggestions)
        if self.mode == "replay":
            yield Timeline(self.model, id="timeline").data_bind(
                state=SessionScreen.view_state, playing=SessionScreen.playing,
                speed=SessionScreen.speed)
        with Horizontal(id="searchbar"):
            yield Static("/", id="search-prompt")
            yield Input(placeholder="search: enter finds · n/N next/previous · esc closes",
                        id="search", compact=True)
            yield Static(id="search-status")
        # (given its class: set by its watcher once mounted, it would restyle the footer)
        yield Footer(compact=True, classes="-compact")

    @property
    def transcript(self) -> Transcript:
        return self.query_one(Transcript)

    def on_mount(self) -> None:
        transcript = self.transcript
        if self.mode == "replay":  # a replay starts at the top, at the first event
            transcript.set_reactive(Transcript.follow, False)
            transcript.playhead = True
        transcript.reading = True
        self.query_one("#searchbar").display = False
        transcript.count_new = self.mode == "live"
        transcript.focus()
        self._place_evals()
        self._refresh_state()
        self._read_events()
        if self.mode == "live":
            self.set_interval(LIVE_TICK_S, self._live_tick)
        else:
            self.set_interval(LIVE_TICK_S, self._loading_tick)

    def on_unmount(self) -> None:
        self._stop.set()
        self.source.close()

    def on_resize(self) -> None:
        self._place_evals()

    # -- the evaluator: a line, a side panel, or a panel over the transcript ----------------------

    def _place_evals(self) -> None:
        """Side panel where it has room and something to show; else the one-line summary, with
        the panel over the transcript while the steerer opens it (`e`)."""
        if not self.size.width:  # not sized yet: placed on the first resize (a class set now
            return  # and undone then would restyle the panel twice)
        panel = self.query_one(EvalPanel)
        line = self.query_one(EvalLine)
        if self.size.width >= WIDE:
            side = self._has_evals and not self._evals_hidden
            panel.set_class(False, "-over")
            panel.display = side
            line.display = not side
        else:
            panel.set_class(True, "-over")
            panel.display = self._evals_over
            line.display = True

    def action_toggle_evals(self) -> None:
        if self.size.width >= WIDE:
            if not self._has_evals:
                self.notify("no evaluation yet: the panel opens with the first one", timeout=2)
                return
            self._evals_hidden = not self._evals_hidden
        else:
            self._evals_over = not self._evals_over
        self._place_evals()

    # -- events in ----------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="backlog")
    def _read_events(self) -> None:
        """The backlog: read and parsed here a slice at a time, each folded on the UI thread
        while this one waits (the two never run Python at once; keys go through between
        slices). Then, live, the watcher.

        Measured against reading, parsing and folding it all on the UI thread between keys (no
        hand-off: two thread wake-ups a slice, ~7 ms each on a loaded machine): on the 2-core
        box with two busy loops, the two threads taking turns open a 87 MB log 10-25% sooner,
        though each hand-off waits; the scheduler gives two threads that sleep by turns more
        of the machine than one that never does."""
        try:
            for batch in self.source.backlog():
                if self._stop.is_set():
                    return
                self.app.call_from_thread(self._fold, [batch])
            self.app.call_from_thread(self._fold, [None])  # the backlog is done
            if self.mode == "live" and not self._stop.is_set():
                self.app.call_from_thread(self._watch_log)
        except (RuntimeError, ValueError, OSError):
            if self._stop.is_set():  # the screen closed (and its files) while this was reading
                return
            raise

    @work(thread=True, exclusive=True, group="watch")
    def _watch_log(self) -> None:
        """Only waits (no parsing here): each wake-up becomes one LogChanged at a time."""
        for _ in self.source.changes(self._stop):
            with self._lock:
                signal = not self._signalled
                self._signalled = True
            if signal:
                self.post_message(self.LogChanged())

    def on_session_screen_log_changed(self, message: LogChanged) -> None:
        with self._lock:
            self._signalled = False
        batch = self.source.read_new()
        if batch is not None:
            self._fold([batch])
        if getattr(self.source, "more_to_read", False):  # a burst: the rest after pending keys
            with self._lock:
                self._signalled = True
            self.post_message(self.LogChanged())

    def _fold(self, items: list[Batch | None]) -> None:
        """Fold batches (None: the backlog is all read); show them now, or at the next sync if
        one was just done."""
        finished = False
        model = self.model
        for item in items:
            if item is None:
                finished = True
                continue
            self.source.accept(item)
            added, changed = model.add(item.events)
            self._unsynced_added += added
            self._unsynced_changed |= changed
            for text in item.notices:
                self.say(text)
        if finished and not self.loaded:
            self._sync_ui(finished=True)
            return
        if not self._unsynced_added and not self._unsynced_changed:
            return
        # a flood gets fewer, larger repaints: nobody reads 2,000 events a second, and the time a
        # repaint takes is time a key waits
        if not self.loaded:
            interval = LOADING_SYNC_S
        else:
            interval = FLOOD_SYNC_S if self._last_sync_rows >= FLOOD_ROWS else UI_SYNC_S
        wait = interval - (time.monotonic() - self._last_sync)
        if wait <= 0:
            self._sync_ui()
        elif self._sync_timer is None:
            self._sync_timer = self.set_timer(wait, self._sync_ui)

    def _sync_ui(self, finished: bool = False) -> None:
        """Hand the rows folded since the last sync to the transcript and refresh the state."""
        if self._sync_timer is not None:
            self._sync_timer.stop()
            self._sync_timer = None
        self._last_sync = time.monotonic()
        added, changed = self._unsynced_added, self._unsynced_changed
        self._unsynced_added, self._unsynced_changed = 0, set()
        self._last_sync_rows = added
        transcript = self.transcript
        if self.goal_unknown:
            transcript.goal = goal_geomean(self.model.start.get("goal"))
        if self.mode == "replay" and not self.loaded:
            transcript.follow = False
        transcript.rows_changed(added, changed)
        if self.mode == "replay" and transcript.cursor < 0 and self.model.rows:
            self.go_to_row(0, scroll=True)  # a replay starts at the first event
        self._note_deliveries()
        if self.search_query and not self._search_counting and self._search_scanned < len(self.model):
            self._count_more()  # count the new events' matches too
        if finished:
            self.loaded = True
            transcript.reading = False
            gc.freeze()  # the fold's objects live as long as the screen: keep them out of GC scans
            if self.mode == "replay":
                # the rows may be laid out only once the widget has its size: then bring the
                # cursor into view (wherever a key may have moved it meanwhile)
                self.call_after_refresh(lambda: self.transcript.scroll_to_row(max(0, self.transcript.cursor)))
            waiting, self._when_loaded = self._when_loaded, []
            for run in waiting:
                run()
            self.post_message(self.Loaded())
        self._refresh_state()

    def say(self, text: str) -> None:
        """A notice about the log (kept in `notices`, shown for a while)."""
        self.notices.append(text)
        self.notify(text, severity="warning", timeout=10, markup=False)

    def loading_fraction(self) -> float | None:
        """While the backlog is read: how much of it is (0..1); None once it all is."""
        if self.loaded:
            return None
        return self.source.progress() or 0.0

    def wait_for_load(self, what: str, run: Callable[[], None]) -> bool:
        """Until the whole log is read, queue `run` (a key that needs all of it) and say so;
        returns whether it was queued."""
        if self.loaded:
            return False
        self._when_loaded.append(run)
        pct = round(100 * (self.loading_fraction() or 0.0))
        self.notify(f"still reading the log ({pct}%): {what} once it is all read", timeout=3)
        return True

    def _loading_tick(self) -> None:
        if not self.loaded:
            self._refresh_state()

    @on(Transcript.NotLoaded)
    def _not_loaded(self, message: Transcript.NotLoaded) -> None:
        action = getattr(self.transcript, f"action_{message.action}")
        self.wait_for_load("going to the end", action)

    @property
    def goal_unknown(self) -> bool:
        return self.transcript.goal is None and bool(self.model.start)

    # -- the state that flows down --------------------------------------------------------------

    def _status(self) -> tuple[str, float | None]:
        model = self.model
        if not self.loaded:
            return "loading", None
        if self.mode == "replay":
            return "replay", None
        paths = self.source.paths
        running = paths is not None and paths.is_running()
        if model.end_reason:
            return "stopped", None  # the header says "ended: <reason>"
        if not running:  # the digest's word for a runner gone without session_end, as everywhere
            return session_state(model.summary, None, lock_held=False).word, None
        now = self.clock()
        last = model.times[-1] if len(model.times) else now
        busy = self.model.runs and self.model.runs[-1].end_ei < 0
        return ("running" if busy or now - last < WAITING_AFTER_S else "waiting"), now

    def _refresh_state(self) -> None:
        status, now = self._status()
        pos = self.position if self.mode == "replay" else None
        state = self.model.state_at(pos, status=status, now=now, dismissed=self.dismissed,
                                    mode=self.mode, loading=self.loading_fraction())
        has = state.latest_eval is not None or state.progress is not None
        if has != self._has_evals:
            self._has_evals = has
            self._place_evals()
        d = state.decision
        if (d.seq if d else None) != self._decision_shown:
            self._decision_shown = d.seq if d else None
            self.suggestions = self._suggestions_for(d)
        self.view_state = state

    def _suggestions_for(self, d) -> tuple:
        """The decision point's own ranked suggestions, else the bank ranked live for its kind."""
        return offered_questions(d, self.bank, self._rank_events() if d is not None and not d.suggestions else [])

    def _rank_events(self) -> list[dict]:
        """What ranking needs of the session: its start and the messages already sent."""
        asked = [{"type": "human_message", "text": h.text, "bank_id": h.bank_id}
                 for h in self.model.humans]
        return [self.model.start, *asked] if self.model.start else asked

    def _live_tick(self) -> None:
        if self._inbox_poll:
            self._poll_inbox()
        self._refresh_state()

    def _poll_inbox(self) -> None:
        if self._inbox is None:
            from sessions.inbox import Inbox

            self._inbox = Inbox(self.source.paths.root)
        try:
            self.model.note_posted(self._inbox.messages(), self.mine)
        except OSError:
            return
        for bad in self._inbox.take_malformed():
            self.say(f"{bad}: not a whole message, it will not be delivered")

    def _note_deliveries(self) -> None:
        for inbox_id in list(self.mine):
            seq = self.model.delivered.get(inbox_id)
            if seq is not None:
                self.mine.discard(inbox_id)
                p = self.model.posted.get(inbox_id)
                text = clean_line(p.text)[:60] if p else inbox_id
                self.notify(f"delivered ✓ (event {seq}): {text}", markup=False)

    # -- replay ----------------------------------------------------------------------------------

    def set_position(self, pos: int, *, scroll: bool | str = True) -> None:
        """Show the session as of event `pos` (replay)."""
        n = len(self.model)
        if not n:
            return
        pos = max(0, min(pos, n - 1))
        self.position = pos
        self._vt = self.model.times[pos]
        transcript = self.transcript
        transcript.pos = pos
        r = self.model.row_at(pos)
        if r >= 0 and r != transcript.cursor:
            transcript.set_cursor(r, scroll=scroll)
        self._refresh_state()

    def go_to_row(self, r: int, *, scroll: bool | str = "center") -> None:
        transcript = self.transcript
        if not (0 <= r < len(self.model.rows)):
            return
        if self.mode == "replay":
            transcript.set_cursor(r, scroll=scroll)
            self.set_position(self.model.pos_of_row(r), scroll=scroll)
        else:
            transcript.set_cursor(r, scroll=scroll)
            transcript.follow = r >= len(self.model.rows) - 1

    @on(Transcript.CursorMoved)
    def _cursor_moved(self, message: Transcript.CursorMoved) -> None:
        if self.mode == "replay":
            self.set_position(self.model.pos_of_row(message.row), scroll=False)
        if self.search_query:
            self._show_search_status()

    @on(Timeline.Seek)
    def _timeline_seek(self, message: Timeline.Seek) -> None:
        if self.wait_for_load("seeking", lambda: self._timeline_seek(message)):
            return
        self.set_position(int(message.fraction * (len(self.model) - 1)), scroll="center")

    def action_play(self) -> None:
        if self.playing:
            self.playing = False
            return
        if self.position >= len(self.model) - 1:
            self.set_position(0)
        self._vt = self.model.times[max(0, self.position)] if len(self.model) else 0.0
        self.playing = True

    def watch_playing(self, playing: bool) -> None:
        if playing and self._play_timer is None:
            self._play_timer = self.set_interval(PLAY_TICK_S, self._play_tick)
        elif not playing and self._play_timer is not None:
            self._play_timer.stop()
            self._play_timer = None

    def _play_tick(self) -> None:
        times = self.model.times
        n = len(times)
        pos = self.position
        if pos >= n - 1:
            self.playing = False
            return
        self._vt += PLAY_TICK_S * self.speed
        gap = times[pos + 1] - self._vt
        if gap > MAX_GAP_WALL_S * self.speed:
            self._vt = times[pos + 1] - MAX_GAP_WALL_S * self.speed
        new = pos
        while new + 1 < n and times[new + 1] <= self._vt:
            new += 1
        if new != pos:
            vt = self._vt
            self.set_position(new)
            self._vt = vt

    def action_speed(self, direction: int) -> None:
        i = SPEEDS.index(self.speed) if self.speed in SPEEDS else 1
        self.speed = SPEEDS[max(0, min(len(SPEEDS) - 1, i + direction))]
        self.notify(f"speed {self.speed:g}×", timeout=1.5)

    def action_seek(self, fraction: float) -> None:
        if fraction > 0 and self.wait_for_load("seeking", lambda: self.action_seek(fraction)):
            return
        n = len(self.model)
        if n:
            self.set_position(self.position + int(round(fraction * n)) or (1 if fraction > 0 else -1),
                              scroll="center")

    # -- navigation ------------------------------------------------------------------------------

    def action_jump(self, what: str, direction: int) -> None:
        rows = self.model.decision_rows if what == "decision" else self.model.human_rows
        cur = self.transcript.cursor
        target = self.model.next_row_of(rows, cur, direction)
        label = "decision point" if what == "decision" else "human message"
        if target is None and direction > 0 and self.wait_for_load(
                f"the next {label}", lambda: self.action_jump(what, direction)):
            return
        if target is None:
            self.notify(f"no {'next' if direction > 0 else 'previous'} {label}", timeout=2)
            return
        self.go_to_row(target)

    def action_search(self) -> None:
        self.query_one("#searchbar").display = True
        box = self.query_one("#search", Input)
        box.value = self.search_query
        box.focus()
        self._show_search_status()

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        query = event.value.strip()
        self.transcript.focus()
        if not query:
            self._end_search()
            return
        if query != self.search_query:
            self.search_query = query
            self.transcript.search = query
            self._match_rows, self._match_events = [], set()
            self._search_scanned = 0
            self._count_more()
        self.action_search_next(1)

    def _count_more(self) -> None:
        """Count the matches in the events not counted yet (on a worker thread)."""
        self._search_counting = True
        self._show_search_status()
        limit = max(1, SEARCH_CAP + 1 - len(self._match_events))
        self._count_matches(self.search_query, self._search_scanned, len(self.model), limit)

    @work(thread=True, exclusive=True, group="search")
    def _count_matches(self, query: str, start: int, stop: int, limit: int) -> None:
        found = self.model.store.matching(query, start, stop, limit)
        self.app.call_from_thread(self._matches_counted, query, found, stop)

    def _matches_counted(self, query: str, found: list[int], stop: int) -> None:
        if query != self.search_query:
            return
        self._search_counting = False
        self._search_scanned = max(self._search_scanned, stop)
        event_row = self.model.event_row
        rows = {event_row[i] for i in found if event_row[i] >= 0}
        self._match_events.update(found)
        if rows:
            self._match_rows = sorted(set(self._match_rows) | rows)
        self._show_search_status()

    def search_status(self) -> str:
        """What the search line says: where the cursor is among the matches, or that none is."""
        q = self.search_query
        if not q:
            return ""
        n = len(self._match_rows)
        more = "+" if len(self._match_events) > SEARCH_CAP else ""
        if self._search_counting and not n:
            return "counting…"
        if not n:
            return f"no match for {q!r}" + ("" if self.loaded else " yet (still reading)")
        cur = self.transcript.cursor
        i = bisect_left(self._match_rows, cur)
        on_one = i < n and self._match_rows[i] == cur
        where = f"match {i + 1} of {n}{more}" if on_one else f"{n}{more} matches"
        return where + (" (counting…)" if self._search_counting else "") + " · n/N · esc"

    def _show_search_status(self) -> None:
        bar = self.query_one("#searchbar")
        if self.search_query and not bar.display:
            bar.display = True
        self.query_one("#search-status", Static).update(self.search_status())

    def _end_search(self) -> None:
        self.search_query = ""
        self.transcript.search = ""
        self._match_rows, self._match_events = [], set()
        self.query_one("#search", Input).value = ""
        self.query_one("#searchbar").display = False
        self.transcript.focus()

    def action_search_next(self, direction: int) -> None:
        q = self.search_query
        if not q:
            self.action_search()
            return
        model = self.model
        cur = max(0, self.transcript.cursor)
        if not model.rows:
            return
        start = model.pos_of_row(cur) + 1 if direction > 0 else model.row_ei[cur] - 1
        n = len(model)
        while 0 <= start < n:
            i = model.store.search(q, start, direction)
            if i is None or i >= n:
                break
            r = model.event_row[i]
            if r >= 0 and ((direction > 0 and r > cur) or (direction < 0 and r < cur)):
                self.go_to_row(r)
                self._show_search_status()
                return
            start = i + direction
        if direction > 0 and self.wait_for_load("the next match", lambda: self.action_search_next(1)):
            return
        self.notify(f"no {'more' if direction > 0 else 'earlier'} matches for {q!r}",
                    markup=False, timeout=2)

    def action_close(self) -> None:
        box = self.query_one("#search", Input)
        if box.has_focus:
            if self.search_query:
                self.transcript.focus()
            else:
                self._end_search()
        elif self.search_query:
            self._end_search()
        elif self._evals_over:
            self._evals_over = False
            self._place_evals()

    def action_keys(self) -> None:
        title = f"Keys · {'replay' if self.mode == 'replay' else 'live'}"
        self.app.push_screen(KeysScreen(screen_commands(self), title))

    # -- steering (live) -----------------------------------------------------------------------------

    def action_send(self, n: int) -> None:
        state = self.view_state
        if state is None or state.decision is None or state.answer is not None:
            self.notify("no open decision point: q asks your own question, b opens the bank",
                        timeout=3)
            return
        if not (1 <= n <= len(self.suggestions)):
            self.notify(f"no question {n} here", timeout=2)
            return
        bank_id, text = self.suggestions[n - 1]
        self.post_question(text, source="bank", bank_id=bank_id)

    def action_ask(self, interrupt: bool = False) -> None:
        state = self.view_state
        decision = state.decision if state and state.answer is None else None

        def sent(text: str | None) -> None:
            if text:
                self.post_question(text, source="free", kind="interrupt" if interrupt else "message")

        self.app.push_screen(AskScreen(decision, interrupt=interrupt), sent)

    def action_bank(self) -> None:
        entries = self.bank.load()
        state = self.view_state
        kind = state.decision.kind if state and state.decision else None
        if kind:  # the open decision point's kind: the bank's best questions for it first
            order = {bank_id: i for i, (bank_id, _) in enumerate(self.bank.rank(kind, self._rank_events(), None) or ())}
            entries = sorted(entries, key=lambda e: order.get(e.id, len(order)))

        def chosen(entry) -> None:
            if entry is not None and self.mode == "live":
                self.post_question(entry.text, source="bank", bank_id=entry.id or None)

        self.app.push_screen(BankBrowser(entries, trigger=kind, readonly=self.mode != "live",
                                         error=self.bank.error), chosen)

    def action_dismiss_decision(self) -> None:
        state = self.view_state
        if state and state.decision:
            self.dismissed.add(state.decision.seq)
            self._refresh_state()
            self.query_one(QuestionDock).at_once()

    def post_question(self, text: str, *, source: str, bank_id: str | None = None,
                      kind: str = "message"):
        """Append a question to the session's inbox with its context; returns the InboxMessage."""
        if self.mode != "live" or self.source.paths is None:
            self.notify("replay is read-only", severity="warning", timeout=2)
            return None
        from sessions.inbox import Inbox

        state = self.view_state
        decision = state.decision if state and state.answer is None else None
        latest = state.latest_eval if state else None
        if self._inbox is None:
            self._inbox = Inbox(self.source.paths.root)
        msg = post_question(self._inbox, text, source=source, bank_id=bank_id, kind=kind, decision=decision,
                            latest_eval=latest.summary if latest else None,
                            seen_seq=self.model.seqs[-1] if len(self.model.seqs) else None)
        self.mine.add(msg.id)
        self.model.note_posted([msg], self.mine)
        ended = self.model.end_reason is not None
        running = self.source.paths.is_running()
        where = "" if running and not ended else " (no runner is attached: it waits in the inbox)"
        self.notify(f"sent: {clean_line(text)[:70]}{where}", markup=False, timeout=3)
        self._refresh_state()
        return msg


class LiveScreen(SessionScreen):
    BINDINGS = [
        Binding("1", "send(1)", "send", key_display="1-9",
                tooltip="send the decision point's question with that number"),
        # listed once, as 1-9 (system: not in the palette or the keys list on their own)
        *[Binding(str(i), f"send({i})", f"send question {i}", show=False, system=True) for i in range(2, 10)],
        Binding("q", "ask", "ask", tooltip="ask the agent your own question"),
        Binding("b", "bank", "bank", tooltip="browse the question bank and send one"),
        Binding("x", "dismiss_decision", "dismiss the decision point", show=False),
        Binding("exclamation_mark", "ask(True)", "interrupt the agent with a question", show=False),
        *COMMON_BINDINGS,
    ]

    def __init__(self, source: EventSource, **kw) -> None:
        super().__init__(source, "live", **kw)


class ReplayScreen(SessionScreen):
    BINDINGS = [
        Binding("space", "play", "play", key_display="space", tooltip="play or pause the replay"),
        Binding("left", "seek(-0.01)", "seek", key_display="←→", tooltip="seek back 1% of the events"),
        Binding("right", "seek(0.01)", "seek forward 1%", show=False),
        Binding("shift+left", "seek(-0.1)", "seek back 10%", show=False),
        Binding("shift+right", "seek(0.1)", "seek forward 10%", show=False),
        Binding("plus,equals_sign", "speed(1)", "speed", key_display="+-", show=False,
                tooltip="play faster"),
        Binding("minus", "speed(-1)", "slower", show=False, tooltip="play slower"),
        Binding("b", "bank", "browse the question bank", show=False),
        *COMMON_BINDINGS,
    ]

    def __init__(self, source: EventSource, **kw) -> None:
        super().__init__(source, "replay", **kw)


def session_screen(source: EventSource, mode: str, **kw) -> SessionScreen:
    if mode == "live":
        return LiveScreen(source, **kw)
    if mode == "replay":
        return ReplayScreen(source, **kw)
    raise ValueError(f"mode must be live or replay, not {mode!r}")
