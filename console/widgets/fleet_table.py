"""The fleet table: one line per session, grouped "needs you", "running", "ended".

A `ScrollView` on the Line API, like the transcript: `render_line(y)` draws only what is on
screen, each row's line is cached by the row itself (rows are immutable; a changed session is a
new row) and the width, and the cursor moves over sessions only (group headings are skipped).
Columns are dropped, least useful first, until the line fits: at 80 columns a row keeps the
session, its state, the geomean sparkline, best/goal, the time since its last event and the
decision point's kind.
"""
from __future__ import annotations

import time
from collections.abc import Callable

from rich.text import Text
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from console.sessions_view import ENDED, GROUPS, NEEDS, SessionRow, ago, best_text, decision_text, sparkline
from console.widgets.lines import PartStyles, set_virtual_size

STYLE_NAMES = ("heading", "name", "dim", "needs", "running", "queued", "ended", "bad", "spark-met",
               "spark", "best-met", "best", "decision", "cursor", "inbox")
ICON = {NEEDS: "◆", "running": "●", "queued": "◌", "starting": "◌", "ended": "■", "stopped": "■"}
SPARK_W = 12


def _cut(text: str, width: int) -> str:
    if width <= 0:
        return ""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def _cut_left(text: str, width: int) -> str:
    if width <= 0:
        return ""
    return text if len(text) <= width else "…" + text[len(text) - width + 1:]


class FleetTable(PartStyles, ScrollView, can_focus=True, inherit_bindings=False):
    PART_PREFIX = "fleet"
    COMPONENT_CLASSES = {f"fleet--{n}" for n in STYLE_NAMES}
    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,g", "edge(-1)", "First session", show=False),
        Binding("end,G", "edge(1)", "Last session", show=False),
    ]

    class Highlighted(Message):
        """The cursor is on another session (or the same one changed)."""

        def __init__(self, row: SessionRow | None) -> None:
            self.row = row
            super().__init__()

    cursor_name: reactive[str | None] = reactive(None, repaint=False, init=False)

    def __init__(self, *, clock: Callable[[], float] = time.time, id: str | None = None) -> None:
        super().__init__(id=id)
        self.clock = clock
        self.rows: list[SessionRow] = []
        self.lines: list[SessionRow | str] = []  # a row, or a group heading
        self.line_of: dict[str, int] = {}
        self._cache: LRUCache[tuple, Strip] = LRUCache(1000)
        self._version: dict[str, tuple[SessionRow, int]] = {}  # name -> (row shown, its version)
        self.name_width = 14

    # -- data ---------------------------------------------------------------------------------

    def set_rows(self, rows: list[SessionRow]) -> None:
        """Show these rows (already sorted by group); keep the cursor on the same session."""
        self.rows = rows
        for r in rows:
            shown = self._version.get(r.name)
            if shown is None or shown[0] is not r:
                self._version[r.name] = (r, shown[1] + 1 if shown else 0)
        lines: list[SessionRow | str] = []
        counts = {g: 0 for g in GROUPS}
        for r in rows:
            counts[r.group] += 1
        group = None
        for r in rows:
            if r.group != group:
                group = r.group
                lines.append(f"{group} ({counts[group]})")
            lines.append(r)
        self.lines = lines
        self.name_width = max((len(r.name) for r in rows), default=14)
        self.line_of = {x.name: i for i, x in enumerate(lines) if isinstance(x, SessionRow)}
        set_virtual_size(self, Size(self.size.width or 80, len(lines)))
        if self.cursor_name not in self.line_of:
            self.set_reactive(FleetTable.cursor_name, rows[0].name if rows else None)
            self.post_message(self.Highlighted(self.current))
        self.refresh()

    @property
    def current(self) -> SessionRow | None:
        i = self.line_of.get(self.cursor_name or "")
        return self.lines[i] if i is not None else None

    # -- cursor -------------------------------------------------------------------------------

    def _move_to(self, name: str | None) -> None:
        if name == self.cursor_name:
            return
        self.cursor_name = name
        i = self.line_of.get(name or "")
        if i is not None:
            top, height = int(self.scroll_offset.y), self.scrollable_content_region.height
            if i < top + 1:
                self.scroll_to(y=max(0, i - 1), animate=False, immediate=True)
            elif i >= top + height:
                self.scroll_to(y=i - height + 1, animate=False, immediate=True)
        self.refresh()
        self.post_message(self.Highlighted(self.current))

    def action_cursor(self, step: int) -> None:
        if not self.rows:
            return
        names = [r.name for r in self.rows]
        i = names.index(self.cursor_name) if self.cursor_name in names else 0
        self._move_to(names[max(0, min(len(names) - 1, i + step))])

    def action_page(self, direction: int) -> None:
        self.action_cursor(direction * max(1, self.scrollable_content_region.height - 2))

    def action_edge(self, direction: int) -> None:
        if self.rows:
            self._move_to(self.rows[0 if direction < 0 else -1].name)

    def on_click(self, event) -> None:
        line = int(self.scroll_offset.y) + event.y
        if 0 <= line < len(self.lines) and isinstance(self.lines[line], SessionRow):
            self._move_to(self.lines[line].name)

    # -- drawing ------------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        self._cache.clear()
        super().notify_style_update()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width or self.size.width
        line = int(self.scroll_offset.y) + y
        base = self.rich_style
        if line >= len(self.lines):
            return Strip.blank(width, base)
        item = self.lines[line]
        bucket = int(self.clock() // 5)  # "last event" texts age: redraw every 5 s
        if isinstance(item, str):
            key = ("h", item, width)
        else:
            key = (item.name, self._version[item.name][1], width, item.name == self.cursor_name, bucket)
        strip = self._cache.get(key)
        if strip is None:
            text = self._heading(item, width) if isinstance(item, str) else self._row(item, width)
            strip = Strip(list(text.render(self.app.console)), text.cell_len).crop_extend(0, width, base)
            if not isinstance(item, str) and item.name == self.cursor_name:
                strip = strip.apply_style(self.part("cursor"))
            self._cache[key] = strip
        return strip

    def _heading(self, label: str, width: int) -> Text:
        return Text(_cut(f" {label} " + "─" * width, width), self.part("heading"), end="")

    def _row(self, r: SessionRow, width: int) -> Text:
        now = self.clock()
        state_style = {NEEDS: "needs"}.get(r.group) or (
            r.state if r.state in ("running", "queued") else ("ended" if r.state in ("ended", "stopped") else "bad"))
        icon = Text(f" {ICON.get(r.group if r.group == NEEDS else r.state, '✖')} ", self.part(state_style))
        spark = Text()
        for ch, met in sparkline(r.history, r.goal, SPARK_W):
            spark.append(ch, self.part("spark-met" if met else "spark"))
        spark.append(" " * (SPARK_W - spark.cell_len))
        met = r.best is not None and r.goal is not None and r.best >= r.goal
        what = ""
        dp = r.decision if r.group == NEEDS else None
        if dp is not None:
            what = decision_text(dp, 400)
        elif r.question and r.group == NEEDS:
            what = f"asks: {r.question}"
        elif r.group == ENDED and r.reason:
            what = r.reason
        elif r.last_decision is not None:
            what = f"last: {r.last_decision.kind.replace('_', ' ')}"
        where = r.where + (f" gpu {r.gpus}" if r.gpus else "")
        model = " ".join(x for x in (r.agent, r.model) if x)
        # (priority: higher stays longer, text, style, width: 0 = flexible)
        name_w = 14 if width < 120 else max(14, min(32, self.name_width))
        cols = [
            (9, _cut_left(r.name, name_w), "name", name_w),
            (7, r.state, state_style, 9),
            (6, None, None, SPARK_W),  # the sparkline
            (8, best_text(r.best, r.goal), "best-met" if met else "best", 9),
            (5, ago(r.last_t, now), "dim", 4),
            (4, f"✉{r.undelivered}" if r.undelivered else "", "inbox", 3),
            (2, r.task or "", "dim", 16),
            (1, model, "dim", 18),
            (3, where, "dim", 26),
            (7, what, "decision" if dp is not None else "dim", 0),
        ]
        keep = list(range(len(cols)))

        def fixed() -> int:
            return 3 + sum(cols[i][3] + 1 for i in keep if cols[i][3])

        while fixed() + 12 > width and len(keep) > 3:  # the last column takes what is left
            keep.remove(min((i for i in keep if cols[i][3]), key=lambda i: cols[i][0]))
        flex = max(0, width - fixed())
        out = icon
        for i in keep:
            _, text, style, w = cols[i]
            if text is None:
                out.append(spark)
                out.append(" ")
                continue
            w = w or flex
            out.append(_cut(text, w).ljust(w), self.part(style))
            out.append(" ")
        return out
