"""The evaluator panel: latest verdict, a progress bar while an evaluation runs, geomean over the
session as a braille plot, scenarios worst ratio first with colour, and flags. `EvalLine` is the
same in one line, shown where the panel has no room (an 80-column terminal; there `e` opens the
panel over the transcript) or nothing to show yet.

It shows the state it is given (live: the latest; replay: as of the cursor). Its lines are built
once per change of that state and kept as strips (a Line-API `ScrollView`, like the transcript):
following a session at thousands of events per second or jumping between decision points costs
no layout and no re-render of a Rich table on every repaint.
"""
from __future__ import annotations

import time

from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from console.evals import ReportCache
from console.model import EvalRecord, ViewState
from console.plot import braille_plot
from console.render import scenario_table
from console.safe_text import clean_line
from console.widgets.lines import PartStyles, QuietScrollbar, set_virtual_size

_STYLES = ("verdict-goal", "verdict-pass", "verdict-fail", "plot-data", "plot-goal", "axis",
           "section", "note", "ratio-good", "ratio-mid", "ratio-bad", "status-ok", "flag",
           "bar-done", "bar-todo")


def verdict(rec: EvalRecord) -> tuple[str, str]:
    """(style part, word) of an evaluation's verdict."""
    s = rec.summary
    if s.get("interrupted"):
        return "note", "interrupted"
    if s.get("goal_met"):
        return "verdict-goal", "GOAL MET"
    if rec.all_correct:
        return "verdict-pass", "correct"
    return "verdict-fail", "INCORRECT" if s.get("build_ok", True) else "BUILD FAILED"


def eval_facts(rec: EvalRecord) -> list[str]:
    """The session's best geomean so far, the minimum ratio and fast_1 (the share of scenarios
    faster than the seed), as short texts."""
    facts = []
    if rec.best is not None:
        facts.append(f"best {rec.best:.3f}×")
    mr = rec.summary.get("min_ratio")
    if isinstance(mr, (int, float)):
        facts.append(f"min {mr:.2f}×")
    f1 = rec.summary.get("fast_1")
    if isinstance(f1, (int, float)):
        facts.append(f"fast₁ {f1:.0%}")
    return facts


class EvalLine(PartStyles, Widget):
    """The evaluator in one line: the running evaluation's progress, else the latest verdict with
    its geomean against the goal and the facts beside it, else "no evaluation yet"."""

    PART_PREFIX = "evalpanel"
    COMPONENT_CLASSES = {f"evalpanel--{n}" for n in _STYLES}

    state: reactive[ViewState | None] = reactive(None, always_update=True)
    panel_key = "e"  # shown as the way to the whole panel

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self._key: tuple | None = None
        self._text = Text(end="")

    def render(self) -> Text:
        s = self.state
        width = self.size.width or 80
        key = (None if s is None else (id(s.latest_eval), s.progress, s.running_eval_n, s.goal_geomean), width)
        if key != self._key:
            self._key, self._text = key, self._line(s, width)
        return self._text

    def _line(self, s: ViewState | None, width: int) -> Text:
        out = Text(end="", no_wrap=True, overflow="ellipsis")
        note = self.part("note")
        out.append("◈ ", self.part("section"))
        if s is None:
            return out
        hint = Text(f"  {self.panel_key} details", note, end="")
        if s.progress is not None:
            done, total, scen = s.progress
            n = f" #{s.running_eval_n}" if s.running_eval_n is not None else ""
            head = f"evaluating{n} {done}/{total} "
            pct = f" {round(100 * done / total) if total else 0:3d}%"
            cells = max(6, min(30, width - len(head) - len(pct) - hint.cell_len - 24))
            filled = round(cells * done / total) if total else 0
            out.append(head, note)
            out.append("━" * filled, self.part("bar-done"))
            out.append("━" * (cells - filled), self.part("bar-todo"))
            out.append(pct + " ", note)
            out.append(clean_line(scen), note)
        elif s.latest_eval is None:
            out.append("no evaluation yet", note)
        else:
            rec = s.latest_eval
            part, word = verdict(rec)
            style = self.part(part)
            n = f"#{rec.n} " if rec.n is not None else ""
            out.append(f"{n}{word}", style)
            sm = rec.summary
            if sm.get("passed") is not None and sm.get("total") is not None:
                out.append(f" {sm['passed']}/{sm['total']}", style)
            g = rec.geomean
            out.append(" · geomean ", note)
            out.append(f"{g:.3f}×" if g is not None else "—", style)
            if s.goal_geomean is not None:
                out.append(f" / goal {s.goal_geomean:.2f}×", note)
            facts = eval_facts(rec)
            if facts:
                out.append(" · " + " · ".join(facts), note)
            flags = sm.get("flags") or []
            if flags:
                out.append(" · ", note)
                out.append(", ".join(clean_line(f) for f in flags[:3]), self.part("flag"))
        room = width - hint.cell_len
        if out.cell_len > room:
            out.truncate(max(4, room), overflow="ellipsis")
        else:
            out.pad_right(room - out.cell_len)
        out.append_text(hint)
        return out


# Live, evaluations that finish faster than this apart (a flood) redraw the panel's plot and
# table at most this often: each redraw is ~10 ms a key would wait, and nobody reads faster
TAIL_MIN_S = 0.5


class EvalPanel(PartStyles, QuietScrollbar, ScrollView, can_focus=False):
    PART_PREFIX = "evalpanel"
    COMPONENT_CLASSES = {f"evalpanel--{n}" for n in _STYLES}

    state: reactive[ViewState | None] = reactive(None, always_update=True)

    def __init__(self, reports: ReportCache | None = None, **kw) -> None:
        super().__init__(**kw)
        self.reports = reports
        self._shown: tuple | None = None
        self._tail_key: tuple | None = None
        self._tail: list[Strip] = []
        self._lines: list[Strip] = []
        self._base: Style | None = None
        self._tail_at = 0.0  # when the plot and table were last drawn
        self._head_height = 0  # lines of the verdict and progress (above the plot)
        self._tail_timer = None

    @property
    def text(self) -> str:
        """The panel's content as plain text (for tests and the curious)."""
        return "\n".join(strip.text.rstrip() for strip in self._lines)

    def watch_state(self, state: ViewState | None) -> None:
        if state is None or not self.is_mounted:
            return
        width = max(16, self.scrollable_content_region.width or self.size.width or 30)
        key = (id(state.latest_eval), len(state.history), state.progress, state.running_eval_n,
               width, state.goal_geomean)
        if key == self._shown:
            return
        tail_key = key[:2] + key[4:]
        if tail_key != self._tail_key and state.mode == "live" and self._tail_key is not None:
            # a new evaluation, live: shown whole (verdict, plot, table) when the last one has
            # been up TAIL_MIN_S; until then the panel stays as it is
            wait = self._tail_at + TAIL_MIN_S - time.monotonic()
            if wait > 0:
                if self._tail_timer is None:
                    self._tail_timer = self.set_timer(wait, self._tail_due)
                return
        self._shown = key
        console = self.app.console
        options = console.options.update_width(width)
        base = self._base = self.rich_style

        def strips(parts: list[RenderableType]) -> list[Strip]:
            return [Strip(segs).crop_extend(0, width, base).apply_style(base)
                    for segs in console.render_lines(Group(*parts), options, pad=False)]

        # each piece a Text that ends its last line (the Group would join end="" pieces)
        head: list[RenderableType] = [self._verdict(state.latest_eval, state)]
        bar = self._progress(state, width)
        if bar is not None:
            head.append(bar)
        # the plot and the table change with the evaluations, not with a running one's progress
        # (which a busy session moves several times a second): drawn again only then
        if tail_key != self._tail_key:
            self._tail_at = time.monotonic()
            tail: list[RenderableType] = []
            plot = self._plot(state, width)
            if plot is not None:
                tail += [Text(""), plot]
            table, flags = self._scenarios(state.latest_eval, state, width)
            if table is not None:
                tail += [Text(""), table]
            if flags is not None:
                tail += [Text(""), flags]
            self._tail_key, self._tail = tail_key, strips(tail) if tail else []
            tail_changed = True
        else:
            tail_changed = False
        head_lines = strips(head)
        same_height = len(head_lines) == self._head_height and not tail_changed
        self._head_height = len(head_lines)
        self._lines = head_lines + self._tail
        set_virtual_size(self, Size(width, len(self._lines)))
        top = self.scroll_offset.y
        if same_height and top < len(head_lines):
            # only the verdict and progress lines moved (a running evaluation): repaint those
            self.refresh(Region(0, 0, self.size.width, len(head_lines) - top))
        elif not same_height:
            self.refresh()

    def _tail_due(self) -> None:
        self._tail_timer = None
        self.watch_state(self.state)

    def on_resize(self) -> None:
        self._shown = self._tail_key = None
        self.watch_state(self.state)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._shown = self._tail_key = None
        if self.is_mounted:
            self.watch_state(self.state)

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.scrollable_content_region.width or self.size.width
        if 0 <= index < len(self._lines):
            line = self._lines[index]
            return line if line.cell_length == width else line.crop_extend(0, width, self._base)
        return Strip.blank(width, self._base)

    # -- pieces ---------------------------------------------------------------------------------

    def _progress(self, state: ViewState, width: int) -> Text | None:
        if state.progress is None:
            return None
        done, total, scen = state.progress
        n = f" #{state.running_eval_n}" if state.running_eval_n is not None else ""
        out = Text(f"evaluating{n}: {done}/{total} {clean_line(scen)}\n", self.part("note"),
                   no_wrap=True, overflow="ellipsis")
        cells = max(4, width - 7)
        filled = round(cells * done / total) if total else 0
        out.append("━" * filled, self.part("bar-done"))
        out.append("━" * (cells - filled), self.part("bar-todo"))
        out.append(f" {round(100 * done / total) if total else 0:3d}%", self.part("note"))
        return out

    def _verdict(self, rec: EvalRecord | None, state: ViewState) -> Text:
        out = Text()
        if rec is None:
            out.append("no evaluation yet", self.part("note"))
            return out
        part, word = verdict(rec)
        style = self.part(part)
        s = rec.summary
        n = f"#{rec.n} " if rec.n is not None else ""
        out.append(f"{n}{word}", style)
        if s.get("passed") is not None and s.get("total") is not None:
            out.append(f"  {s['passed']}/{s['total']}", style)
        g = rec.geomean
        out.append("\ngeomean ", self.part("note"))
        out.append(f"{g:.3f}×" if g is not None else "—", style)
        if state.goal_geomean is not None:
            out.append(f"  goal {state.goal_geomean:.2f}×", self.part("note"))
        facts = eval_facts(rec)
        if facts:
            out.append("\n" + "  ".join(facts), self.part("note"))
        return out

    def _plot(self, state: ViewState, width: int) -> Text | None:
        values = list(state.history)
        if not values:
            return None
        plot_w = max(4, width - 6)
        height = 3 if width < 40 else 4
        lines, kinds, lo, hi = braille_plot(values, plot_w, height, state.goal_geomean)
        out = Text()
        axis = self.part("axis")
        style_of = {"data": self.part("plot-data"), "goal": self.part("plot-goal"),
                    "both": self.part("plot-data"), "": axis}
        for i, (line, ks) in enumerate(zip(lines, kinds)):
            label = f"{hi:5.2f}" if i == 0 else (f"{lo:5.2f}" if i == len(lines) - 1 else "")
            out.append(f"{label:>5} ", axis)
            start = 0
            for x in range(1, len(line) + 1):  # one span per run of cells of the same kind
                if x == len(line) or ks[x] != ks[start]:
                    out.append(line[start:x], style_of[ks[start]])
                    start = x
            out.append("\n")
        out.append(f"{'':>5} geomean, {len(values)} eval{'s' if len(values) != 1 else ''}",
                   self.part("axis"))
        return out

    def _scenarios(self, rec: EvalRecord | None, state: ViewState, width: int):
        if rec is None:
            return None, None
        rows = self.reports.scenarios_for(rec.summary, rec.report, rec.n) if self.reports else []
        styles = {n: self.part(n) for n in _STYLES}
        compact = width < 48
        flags = Text()
        s = rec.summary
        for key in ("flags", "failing", "reasons"):
            v = s.get(key)
            if v:
                flags.append(f"{key}: ", self.part("section"))
                flags.append("; ".join(clean_line(x) for x in v[:6]) + "\n", self.part("flag"))
        if s.get("error"):
            flags.append("error: ", self.part("section"))
            flags.append(clean_line(s["error"]) + "\n", self.part("verdict-fail"))
        flags.rstrip()
        flags_out = flags if flags.plain else None
        if not rows:
            note = Text("scenarios: report not found", self.part("note")) if rec.report else None
            return note, flags_out
        table = scenario_table(rows, styles, state.goal_geomean, width=width,
                               limit=8 if compact else 16, compact=compact)
        table.end = "\n"
        return table, flags_out
