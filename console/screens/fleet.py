"""The fleet view: every session under the sessions root, sorted by who needs the steerer.

One row per session, grouped "needs you" (an open decision point or a question from the agent),
"running", "ended"; the dock under the table shows the focused session's decision point and the
questions offered for it. `enter` opens the session screen (`f` or `escape` there comes back),
`1`-`9` answer the focused session's decision point from the bank without opening it (the same
inbox line and context the session screen sends), `q` asks a question of your own. A
notification says when another session starts needing you.

A worker thread owns the `FleetWatch` (the digests of every session, the launchers' views) and
posts changed rows at most every `POST_S`; the UI thread only sorts rows and draws the lines on
screen, so a hundred sessions, ten of them written at hundreds of events a second, keep keys
prompt.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget

from console.bank import BankSource
from console.safe_text import clean_line
from console.screens.ask import AskScreen
from console.sessions_view import ENDED, NEEDS, RUNNING, SessionRow, sort_rows
from console.steering import offered_questions, post_question
from console.widgets.fleet_table import FleetTable
from console.widgets.footer import Footer
from console.widgets.lines import PartStyles

POLL_S = 0.1  # how often the worker looks for appended events
POST_S = 0.2  # changed rows reach the screen at most this often
VIEWS_S = 3.0  # how often the launchers are asked (a scheduler query)
RESCAN_S = 2.0  # how often new session directories are looked for


class FleetHeader(PartStyles, Widget):
    PART_PREFIX = "fleethead"
    COMPONENT_CLASSES = {"fleethead--title", "fleethead--dim", "fleethead--needs", "fleethead--running",
                         "fleethead--ended"}
    counts: reactive[tuple] = reactive((0, 0, 0))

    def __init__(self, root: Path, **kw) -> None:
        super().__init__(**kw)
        self.root = root

    def render(self) -> Text:
        needs, running, ended = self.counts
        out = Text(" KernelSeek fleet", self.part("title"), end="", no_wrap=True, overflow="ellipsis")
        out.append(f" · ◆ {needs} need you", self.part("needs" if needs else "dim"))
        out.append(f" · ● {running} running", self.part("running"))
        out.append(f" · ■ {ended} ended", self.part("ended"))
        out.append(f" · {clean_line(str(self.root))}", self.part("dim"))
        return out


class FleetDock(PartStyles, Widget):
    """The focused session: its open decision point and the questions 1-9, or where it stands."""

    PART_PREFIX = "fleetdock"
    COMPONENT_CLASSES = {"fleetdock--kind", "fleetdock--name", "fleetdock--evidence", "fleetdock--number",
                         "fleetdock--question", "fleetdock--dim", "fleetdock--reason"}
    row: reactive[SessionRow | None] = reactive(None, always_update=True, layout=True)
    questions: reactive[tuple] = reactive((), layout=True)

    def max_questions(self) -> int:
        height = self.app.size.height if self.app else 24
        return 9 if height >= 40 else (5 if height >= 30 else 3)

    def render(self) -> Text:
        r = self.row
        out = Text(end="", no_wrap=True, overflow="ellipsis")
        if r is None:
            out.append(" no sessions under this root yet: start some with `kernelseek run TASK --count N`",
                       self.part("dim"))
            return out
        width = max(20, self.content_size.width)
        if r.group == NEEDS and r.decision is not None:
            out.append(f" ◆ {r.decision.kind.replace('_', ' ').upper()} ", self.part("kind"))
            out.append(f" {r.name}\n", self.part("name"))
            out.append(" " + clean_line(r.decision.evidence)[: width - 2] + "\n", self.part("evidence"))
            for i, (_, text) in enumerate(self.questions[: self.max_questions()], 1):
                out.append(f" {i} ", self.part("number"))
                out.append(clean_line(text)[: width - 4] + "\n", self.part("question"))
            if not self.questions:
                out.append(" no bank question for this kind: q asks your own\n", self.part("dim"))
        elif r.group == NEEDS and r.question:
            out.append(" ◆ THE AGENT ASKS ", self.part("kind"))
            out.append(f" {r.name}\n", self.part("name"))
            out.append(" " + clean_line(r.question)[: 3 * width] + "\n", self.part("evidence"))
            out.append(" q answers it", self.part("dim"))
        else:
            out.append(f" {r.name}", self.part("name"))
            out.append(f"  {r.state}", self.part("reason"))
            if r.reason:
                out.append(f" · {r.reason}", self.part("dim"))
            out.append(f"\n {r.where}" + (f" · gpu {r.gpus}" if r.gpus else ""), self.part("dim"))
            if r.last_decision is not None:
                out.append(f" · last decision point: {r.last_decision.kind.replace('_', ' ')}", self.part("dim"))
        return out.rstrip() or out


class FleetScreen(Screen):
    BINDINGS = [
        Binding("enter", "open", "open"),
        Binding("1", "answer(1)", "answer", key_display="1-9"),
        *[Binding(str(i), f"answer({i})", f"answer with question {i}", show=False) for i in range(2, 10)],
        Binding("q", "ask", "ask"),
        Binding("f,escape", "back", "back", key_display="f/esc"),
        Binding("question_mark", "keys", "keys", key_display="?"),
    ]

    class RowsChanged(Message):
        def __init__(self, rows: dict[str, SessionRow], first: bool) -> None:
            self.rows = rows
            self.first = first
            super().__init__()

    class Loaded(Message):
        """Every session's row is on screen (the benchmark waits for this)."""

    def __init__(self, root: str | Path, *, bank: BankSource | None = None,
                 clock: Callable[[], float] = time.time, views: Callable | None = None) -> None:
        super().__init__()
        self.root = Path(root)
        self.bank = bank or BankSource()
        self.clock = clock
        self.views = views
        self.rows: dict[str, SessionRow] = {}
        self.loaded = False
        # session -> [inbox id sent from here, seen pending by the worker yet]: until the runner
        # takes it, the session does not need you (and a second key does not send twice)
        self.sent: dict[str, list] = {}
        self.rows_received = 0
        self._stop = threading.Event()

    def compose(self) -> ComposeResult:
        yield FleetHeader(self.root, id="fleet-header")
        yield FleetTable(clock=self.clock, id="fleet-table")
        yield FleetDock(id="fleet-dock")
        yield Footer(compact=True)

    @property
    def table(self) -> FleetTable:
        return self.query_one(FleetTable)

    def on_mount(self) -> None:
        self.table.focus()
        self._watch()

    def on_unmount(self) -> None:
        self._stop.set()

    def on_resize(self) -> None:
        self.query_one(Footer).show_command_palette = self.size.width >= 120

    # -- the worker ----------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="fleet")
    def _watch(self) -> None:
        from console.fleet_watch import FleetWatch

        watch = FleetWatch(self.root, **({"views": self.views} if self.views else {}))
        watch.rescan()
        watch.refresh()
        self.post_message(self.RowsChanged({n: watch.row(n) for n in watch.readers}, True))
        last_views = last_scan = last_post = 0.0
        dirty: set[str] = set()
        while not self._stop.is_set():
            now = time.monotonic()
            if now - last_scan >= RESCAN_S:
                last_scan = now
                dirty.update(watch.rescan())
            dirty.update(watch.refresh())
            if now - last_views >= VIEWS_S:
                last_views = now
                try:
                    dirty.update(watch.refresh_views())
                except Exception:  # noqa: BLE001 - a scheduler hiccup must not stop the view
                    pass
            if dirty and time.monotonic() - last_post >= POST_S:
                last_post = time.monotonic()
                self.post_message(self.RowsChanged({n: watch.row(n) for n in dirty}, False))
                dirty = set()
            self._stop.wait(POLL_S)

    def on_fleet_screen_rows_changed(self, message: RowsChanged) -> None:
        self.rows_received += len(message.rows)
        for name, row in message.rows.items():
            old = self.rows.get(name)
            mine = self.sent.get(name)
            if mine is not None:
                if mine[0] in row.pending_ids:
                    mine[1] = True
                elif mine[1]:  # seen waiting, now taken: delivered
                    del self.sent[name]
            if (not message.first and row.group == NEEDS and name not in self.sent
                    and (old is None or old.group != NEEDS or _need_key(old) != _need_key(row))):
                what = row.decision.kind.replace("_", " ") if row.decision else "a question from the agent"
                self.notify(f"{row.name} needs you: {what}", title="fleet", markup=False, timeout=6)
            self.rows[name] = row
        self._show()
        if message.first and not self.loaded:
            self.loaded = True
            self.post_message(self.Loaded())

    def _shown_rows(self) -> list[SessionRow]:
        from dataclasses import replace

        out = []
        for name, row in self.rows.items():
            if name in self.sent and row.group == NEEDS:  # answered from here, not delivered yet
                row = replace(row, group=RUNNING)
            out.append(row)
        return sort_rows(out)

    def _show(self) -> None:
        rows = self._shown_rows()
        self.table.set_rows(rows)
        counts = {NEEDS: 0, RUNNING: 0, ENDED: 0}
        for r in rows:
            counts[r.group] += 1
        self.query_one(FleetHeader).counts = (counts[NEEDS], counts[RUNNING], counts[ENDED])
        self._dock(self.table.current)

    def on_fleet_table_highlighted(self, message: FleetTable.Highlighted) -> None:
        self._dock(message.row)

    def _dock(self, row: SessionRow | None) -> None:
        dock = self.query_one(FleetDock)
        questions = self._questions(row)
        if row is not dock.row or questions != dock.questions:
            dock.questions = questions
            dock.row = row

    def _questions(self, row: SessionRow | None) -> tuple:
        if row is None or row.group != NEEDS or row.decision is None:
            return ()
        return offered_questions(row.decision, self.bank, list(row.rank_events))

    # -- actions --------------------------------------------------------------------------------

    def action_open(self) -> None:
        row = self.table.current
        if row is None:
            return
        from console.decisions import with_decisions
        from console.screens.session import session_screen
        from console.source import SessionSource
        from sessions.layout import SessionPaths

        source = with_decisions(SessionSource(SessionPaths(Path(row.path))))
        self.app.push_screen(session_screen(source, "live", clock=self.clock, bank=self.bank,
                                             classes=self.app.breakpoint_classes()))

    def action_answer(self, n: int) -> None:
        row = self.table.current
        if row is None or row.group != NEEDS or row.decision is None:
            self.notify("no open decision point on this row: q asks your own question", timeout=3)
            return
        if row.name in self.sent:
            self.notify("answered already: waiting for the runner to take it", timeout=3)
            return
        questions = self._questions(row)
        if not 1 <= n <= len(questions):
            self.notify(f"no question {n} here", timeout=2)
            return
        bank_id, text = questions[n - 1]
        self._post(row, text, source="bank", bank_id=bank_id)

    def action_ask(self) -> None:
        row = self.table.current
        if row is None:
            return
        decision = row.decision if row.group == NEEDS else None

        def sent(text: str | None) -> None:
            if text:
                self._post(row, text, source="free")

        self.app.push_screen(AskScreen(decision), sent)

    def _post(self, row: SessionRow, text: str, *, source: str, bank_id: str | None = None) -> None:
        from sessions.inbox import Inbox

        decision = row.decision if row.group == NEEDS else None
        msg = post_question(Inbox(row.path), text, source=source, bank_id=bank_id, decision=decision,
                            latest_eval=row.last_eval, seen_seq=row.last_seq)
        self.sent[row.name] = [msg.id, False]
        where = "" if row.state == "running" else " (no runner is attached: it waits in the inbox)"
        self.notify(f"sent to {row.name}: {clean_line(text)[:60]}{where}", markup=False, timeout=3)
        self._show()

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 1:  # the fleet was opened over a session screen
            self.app.pop_screen()

    def action_keys(self) -> None:
        if self.query("HelpPanel"):
            self.app.action_hide_help_panel()
        else:
            self.app.action_show_help_panel()


def _need_key(row: SessionRow) -> tuple:
    """One wait for the steerer (alarms that fire again while it waits are the same one)."""
    return (row.needs_since,)
