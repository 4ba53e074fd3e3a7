"""The transcript: a virtual list of rows on Textual's Line API (no widget per event).

Like toolong's `LogLines`, it is a `ScrollView` whose `virtual_size` is the number of lines and
whose `render_line(y)` builds only what is on screen. Each row's height is known without
rendering it (`render.collapsed_height`), so the layout of 100,000 rows is one list of cumulative
line ends; a line finds its row by bisection. Rendered rows are kept in an LRU cache keyed by the
row's version, the width, whether it is expanded, and the search term; the cursor's look
(reverse video and a ▶ in the first column, so it shows on a monochrome terminal too) is
applied on top.

It follows the tail (cursor on the last row, scrolled to the bottom) until the reader moves
away; then new rows are counted and an "N new" marker shows on the last line.

In replay (`playhead=True`) the cursor is the playhead: the rows after it are not shown at all
(the session as it was then), and a row whose step finishes after the replay position (`pos`)
shows as still running.
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import replace
from itertools import accumulate

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from console import render
from console.evals import ReportCache
from console.model import EVAL, MULTILINE_CAP, TOOL, SessionModel
from console.widgets.lines import QuietScrollbar, set_virtual_size

STYLE_NAMES = (
    "time", "note", "text", "stream", "thinking", "tool-name", "tool-args", "status-ok",
    "status-error", "status-running", "eval-running", "eval-pass", "eval-fail", "eval-goal", "eval-interrupted",
    "decision", "decision-badge", "human", "human-badge", "start", "stop", "error", "end", "other",
    "section", "output", "output-error", "diff-add", "diff-del", "diff-hunk", "ratio-good",
    "ratio-mid", "ratio-bad", "match", "cursor", "new-marker", "icon-decision",
    "icon-human", "icon-tool", "icon-eval", "icon-error", "superseded",
)


class Transcript(QuietScrollbar, ScrollView, can_focus=True, inherit_bindings=False):
    """Rows of a `SessionModel`; the screen tells it when rows were added or changed."""

    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False, tooltip="up a row (replay: step back)"),
        Binding("down,j", "cursor(1)", "Down", show=False, tooltip="down a row (replay: step forward)"),
        Binding("pageup,ctrl+b", "page(-1)", "Page up", show=False, tooltip="up a page"),
        Binding("pagedown,ctrl+f", "page(1)", "Page down", show=False, tooltip="down a page"),
        Binding("home,g", "first", "First row", show=False, tooltip="the first row"),
        Binding("end,G", "last", "Last row / follow", show=False,
                tooltip="the last row (live: follow the tail)"),
        Binding("enter", "toggle_expand", "expand", show=True,
                tooltip="expand or collapse the row (a tool's input and output, edits as diffs)"),
    ]

    COMPONENT_CLASSES = {f"transcript--{name}" for name in STYLE_NAMES}

    class CursorMoved(Message):
        """The reader moved the cursor (replay turns it into a seek)."""

        def __init__(self, row: int) -> None:
            self.row = row
            super().__init__()

    class NotLoaded(Message):
        """A key that needs the whole log (End) came before the log was read; the screen runs
        `action` once it is."""

        def __init__(self, action: str) -> None:
            self.action = action
            super().__init__()

    cursor: reactive[int] = reactive(-1, repaint=False, init=False)
    follow: reactive[bool] = reactive(True, init=False)
    new_rows: reactive[int] = reactive(0)
    search: reactive[str] = reactive("")
    pos: reactive[int | None] = reactive(None)  # replay: the event index the session is shown as of
    count_new = True  # live: count rows that arrive while the reader is away from the tail
    playhead = False  # replay: the cursor is the playhead; rows after it are not shown
    reading = False  # the log is still being read (End waits for it)

    def __init__(self, model: SessionModel, reports: ReportCache | None = None, *,
                 goal: float | None = None, name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.model = model
        self.reports = reports
        self.goal = goal
        self.expanded: set[int] = set()
        self._heights: list[int] = []
        self._ends: list[int] = []
        self._layout_width = 0
        self._cache: LRUCache[tuple, list[Strip]] = LRUCache(2000)
        self._styles: dict[str, Style] | None = None
        self._base: Style | None = None

    # -- layout -------------------------------------------------------------------------------

    @property
    def line_count(self) -> int:
        """Lines shown: all rows', or in replay those up to the cursor (the playhead)."""
        if not self._ends:
            return 0
        if self.playhead:
            return self._ends[min(max(self.cursor, 0), len(self._ends) - 1)]
        return self._ends[-1]

    @property
    def row_count(self) -> int:
        return len(self._heights)

    def _content_width(self) -> int:
        return max(20, self.scrollable_content_region.width or self.size.width or 80)

    def _height_of(self, r: int, width: int) -> int:
        if r in self.expanded:
            return len(self._strips(r, width))
        row = self.model.rows[r]
        return render.collapsed_height(row, width) if row.kind in MULTILINE_CAP else 1

    def _relayout(self, width: int) -> None:
        rows = self.model.rows
        height = render.collapsed_height
        expanded = self.expanded
        hs = []
        for r, row in enumerate(rows):
            if r in expanded:
                hs.append(len(self._strips(r, width)))
            elif row.kind in MULTILINE_CAP:
                hs.append(height(row, width))
            else:
                hs.append(1)
        self._heights = hs
        self._ends = list(accumulate(hs))
        self._layout_width = width
        self._update_virtual_size()

    def _update_from(self, r: int) -> None:
        base = self._ends[r - 1] if r > 0 else 0
        self._ends[r:] = list(accumulate(self._heights[r:], initial=base))[1:]

    @property
    def _ahead(self) -> int:
        """Replay: rows after the playhead (not shown; a line below the last says so)."""
        if not self.playhead or not self._ends:
            return 0
        return max(0, self.row_count - 1 - max(self.cursor, 0))

    def _update_virtual_size(self) -> None:
        lines = self.line_count + (1 if self._ahead else 0)
        set_virtual_size(self, Size(self._layout_width or self._content_width(), lines))

    def row_start(self, r: int) -> int:
        return self._ends[r] - self._heights[r]

    def row_at_line(self, line: int) -> int:
        return min(bisect_right(self._ends, line), max(0, self.row_count - 1))

    def rows_changed(self, added: int, changed: set[int] | frozenset = frozenset()) -> None:
        """The model gained `added` rows at its end and changed rows `changed` in place."""
        width = self._layout_width
        if not width:  # not laid out yet (rows may come before the first resize)
            if self.is_mounted and self.size.width:
                self._relayout(self._content_width())
            if self.follow and self.model.rows:  # the tail, once there is a layout to show it
                self.set_reactive(Transcript.cursor, len(self.model.rows) - 1)
                if self._layout_width:
                    self.call_after_refresh(self._scroll_to_end)
            return
        first_dirty = None
        for r in sorted(changed):
            if r >= self.row_count:
                continue
            h = self._height_of(r, width)
            if h != self._heights[r]:
                self._heights[r] = h
                first_dirty = r if first_dirty is None else min(first_dirty, r)
        if first_dirty is not None:
            self._update_from(first_dirty)
        if added:
            start = self.row_count
            ends, heights, rows = self._ends, self._heights, self.model.rows
            total = ends[-1] if ends else 0
            height, expanded = render.collapsed_height, self.expanded
            for r in range(start, len(rows)):  # the hot loop of opening a long log: inlined
                row = rows[r]
                if r in expanded:
                    h = len(self._strips(r, width))
                else:
                    h = height(row, width) if row.kind in MULTILINE_CAP else 1
                heights.append(h)
                total += h
                ends.append(total)
        self._update_virtual_size()
        if added:
            if self.follow:
                self.set_cursor(self.row_count - 1, scroll="end")
            elif self.count_new:
                self.new_rows += added
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        width = self._content_width()
        if width != self._layout_width:
            anchor = self.cursor
            self._relayout(width)
            if self.follow:
                self.call_after_refresh(self._scroll_to_end)
            elif anchor >= 0:
                self.call_after_refresh(self.scroll_to_row, anchor, True)
        elif self._layout_width and self.cursor >= 0:
            # only the height changed (the dock or the search line came or went): the tail, the
            # playhead or the cursor stays in view
            if self.follow or self.playhead:
                self.call_after_refresh(self._scroll_to_end)
            else:
                self.call_after_refresh(self.scroll_to_row, self.cursor)

    def watch_has_focus(self, has_focus: bool) -> None:
        """Nothing in app.tcss styles the transcript by focus (a test holds it so): Textual's
        restyle on each focus change (its 42 parts, ~4 ms) would change nothing."""

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = None
        self._base = None
        self._cache.clear()

    @property
    def base_style(self) -> Style:
        """The widget's own background and colour (looking it up walks the DOM: kept)."""
        if self._base is None:
            self._base = self.rich_style
        return self._base

    # -- rendering ----------------------------------------------------------------------------

    @property
    def styles_map(self) -> dict[str, Style]:
        if self._styles is None:
            self._styles = {n: self.get_component_rich_style(f"transcript--{n}", partial=True)
                            for n in STYLE_NAMES}
        return self._styles

    def _pending(self, r: int) -> str | None:
        """Replay: the note a tool or evaluation row shows while its step is still running as
        of the replay position (None when the row is finished by then)."""
        pos = self.pos
        row = self.model.rows[r]
        if pos is None or row.kind not in (TOOL, EVAL) or not (0 <= pos < row.ei2):
            return None
        if row.kind == EVAL:
            progress = self.model.progress_at(r, pos)
            return f"{progress[0]}/{progress[1]} {progress[2]}".strip() if progress else "starting"
        return ""

    def _strips(self, r: int, width: int, look: str = "") -> list[Strip]:
        """Row r's lines, finished (cropped, on the widget's background), cached.

        look: "" plain, or "cursor" (reverse video on the row, a mark in its first column; an
        expanded body keeps its own colours).
        """
        row = self.model.rows[r]
        expanded = r in self.expanded
        pending = self._pending(r)
        key = (r, row.version, width, expanded, self.search, look, pending)
        strips = self._cache.get(key)
        if strips is not None:
            return strips
        if look:
            plain = self._strips(r, width)
            style = self.styles_map[look]
            whole = not expanded or row.kind in MULTILINE_CAP
            strips = [s.apply_style(style) if (whole or i == 0) else s for i, s in enumerate(plain)]
            if strips:
                first = strips[0]
                mark = Segment(render.CURSOR_MARK, self.base_style + style)
                strips[0] = Strip([mark, *first.crop(1, first.cell_length)], first.cell_length)
            self._cache[key] = strips
            return strips
        if pending is not None:  # replay: shown as it was, its result still to come
            title = row.title.partition(": ")[0] if row.kind == EVAL else row.title
            row = replace(row, title=title, status="running" if row.kind == EVAL else "", note=pending)
        styles = self.styles_map
        started = self.model.times[0] if len(self.model.times) else None
        console = self.app.console
        base = self.base_style
        if expanded and row.kind in MULTILINE_CAP:
            lines = render.expanded_prose(row, self.model, width, started, styles)
            strips = [self._line_strip(t, width, console, base) for t in lines]
        else:
            segments = None
            if row.kind not in MULTILINE_CAP and not self.search:
                left, right = render.line_pieces(row, width, started, styles, expanded)
                segments = render.fit_segments(left, right, width, base)
            if segments is not None:
                strips = [Strip(segments, width)]
            else:
                lines = render.collapsed_lines(row, width, started, styles, expanded)
                strips = [self._line_strip(t, width, console, base) for t in lines]
            if expanded:
                body = render.expanded_body(row, self.model, styles, self.reports, self.goal)
                if body is not None:
                    indent = render.gutter_width(width) + 2
                    options = console.options.update_width(max(10, width - indent))
                    pad = Segment(" " * indent)
                    for segs in console.render_lines(body, options, pad=True):
                        strips.append(Strip([pad, *segs]).crop_extend(0, width, None).apply_style(base))
        self._cache[key] = strips
        return strips

    def _line_strip(self, text: Text, width: int, console, base: Style) -> Strip:
        """One finished line: cut or padded to the width, on the background, as one Strip
        (a Strip is costly to make; the Text does the cutting and styling first)."""
        if self.search:
            text.highlight_words([self.search], self.styles_map["match"], case_sensitive=False)
        text.truncate(width, overflow="crop", pad=True)
        text.stylize_before(base)
        return Strip(list(text.render(console)), width)

    def render_line(self, y: int) -> Strip:
        scroll_y = self.scroll_offset.y
        width = self.scrollable_content_region.width or self.size.width
        line = scroll_y + y
        base = self.base_style
        if self.new_rows and not self.follow and y == self.scrollable_content_region.height - 1:
            return self._marker_strip(width, base)
        if line == self.line_count and self._ahead:
            return self._ahead_strip(width, base)
        if line >= self.line_count or not self._layout_width:
            return Strip.blank(width, base)
        r = bisect_right(self._ends, line)
        sub = line - (self._ends[r] - self._heights[r])
        strips = self._strips(r, self._layout_width, "cursor" if r == self.cursor else "")
        if sub >= len(strips):
            return Strip.blank(width, base)
        strip = strips[sub]
        return strip if strip.cell_length == width else strip.crop_extend(0, width, base)

    def _ahead_strip(self, width: int, base: Style) -> Strip:
        n = self._ahead
        label = Text(f"  ⋯ {n} more row{'s' if n != 1 else ''} after the playhead: ↓ step · "
                     f"space play · d next decision point · End the end", self.styles_map["note"], end="")
        label.truncate(width, overflow="ellipsis", pad=True)
        label.stylize_before(base)
        return Strip(list(label.render(self.app.console)), width)

    def _marker_strip(self, width: int, base: Style) -> Strip:
        n = self.new_rows
        label = Text(f" ▼ {n} new row{'s' if n != 1 else ''} · End to follow ",
                     self.styles_map["new-marker"], end="")
        pad = max(0, width - label.cell_len)
        strip = Strip([Segment(" " * pad, base), *label.render(self.app.console)])
        return strip.crop_extend(0, width, base)

    # -- cursor and scrolling -----------------------------------------------------------------

    def watch_cursor(self, old: int, new: int) -> None:
        if self.playhead:  # the rows shown end at the cursor
            self._update_virtual_size()
            self.refresh()
            return
        for r in (old, new):
            if 0 <= r < self.row_count:
                self._refresh_row(r)

    def watch_search(self) -> None:
        self.refresh()

    def watch_pos(self) -> None:
        self.refresh()

    def watch_follow(self, follow: bool) -> None:
        if follow:
            self.new_rows = 0
        self.refresh()

    def _refresh_row(self, r: int) -> None:
        start = self.row_start(r) - self.scroll_offset.y
        h = self._heights[r]
        height = self.scrollable_content_region.height
        if start + h < 0 or start > height:
            return
        self.refresh(Region(0, max(0, start), self.size.width, h))

    def set_cursor(self, r: int, *, scroll: str | bool = True, notify: bool = False) -> None:
        """Put the cursor on row r. scroll: True keeps it in view, "center", or "end" (the tail)."""
        if not self.row_count:
            return
        r = max(0, min(r, self.row_count - 1))
        self.cursor = r
        view = self.scrollable_content_region.height
        if self.playhead and scroll and self._heights[r] < view:
            self._scroll_to_end()  # the playhead is the last row shown: keep it at the bottom
        elif scroll == "end":
            self._scroll_to_end()
        elif scroll:
            self.scroll_to_row(r, center=(scroll == "center"))
        if notify:
            self.post_message(self.CursorMoved(r))

    def _scroll_to_end(self) -> None:
        lines = self.line_count + (1 if self._ahead else 0)
        self.scroll_to(y=max(0, lines - self.scrollable_content_region.height),
                       animate=False, immediate=True)

    def scroll_to_row(self, r: int, center: bool = False) -> None:
        if not (0 <= r < self.row_count):
            return
        start, h = self.row_start(r), self._heights[r]
        view = max(1, self.scrollable_content_region.height)
        top = self.scroll_offset.y
        if center:
            target = max(0, start - view // 3)
        elif start < top:
            target = start
        elif start + min(h, view) > top + view:
            target = start + min(h, view) - view
        else:
            return
        self.scroll_to(y=target, animate=False, immediate=True)

    def _user_moved(self, r: int) -> None:
        last = self.row_count - 1
        self.set_cursor(r, notify=True)
        self.follow = self.cursor >= last

    def action_cursor(self, delta: int) -> None:
        self._user_moved((self.cursor if self.cursor >= 0 else 0) + delta)

    def action_page(self, direction: int) -> None:
        view = max(1, self.scrollable_content_region.height - 1)
        cur = max(0, self.cursor)
        line = self.row_start(cur) + direction * view
        self._user_moved(self.row_at_line(max(0, line)))

    def action_first(self) -> None:
        self._user_moved(0)

    def action_last(self) -> None:
        if self.reading:
            self.post_message(self.NotLoaded("last"))
            return
        self._user_moved(self.row_count - 1)
        self._scroll_to_end()

    def action_toggle_expand(self) -> None:
        self.toggle_expand(self.cursor)

    def toggle_expand(self, r: int) -> None:
        if not (0 <= r < self.row_count):
            return
        if r in self.expanded:
            self.expanded.discard(r)
        else:
            self.expanded.add(r)
        self._heights[r] = self._height_of(r, self._layout_width)
        self._update_from(r)
        self._update_virtual_size()
        self.scroll_to_row(r)
        self.refresh()

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self.follow = False

    def on_click(self, event: events.Click) -> None:
        line = self.scroll_offset.y + event.y
        if line >= self.line_count:
            return
        r = self.row_at_line(line)
        if r == self.cursor:
            self.toggle_expand(r)
        else:
            self._user_moved(r)
