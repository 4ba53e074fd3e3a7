"""The replay timeline: play state, speed, position, and a bar with decision points (◆) and
human messages (✉) marked along the session's events. A click seeks. On a short terminal it is
one line (the state, the times and the bar); while the log is still being read it says so, and
that seeking waits for the rest."""
from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from console.model import SessionModel, ViewState
from console.render import elapsed_text
from console.widgets.lines import PartStyles

_STYLES = ("state", "played", "unplayed", "head", "decision", "human", "note")


class Timeline(PartStyles, Widget):
    PART_PREFIX = "timeline"
    COMPONENT_CLASSES = {f"timeline--{n}" for n in _STYLES}

    class Seek(Message):
        """Seek to a fraction (0..1) of the session's events."""

        def __init__(self, fraction: float) -> None:
            self.fraction = fraction
            super().__init__()

    state: reactive[ViewState | None] = reactive(None, always_update=True)
    playing: reactive[bool] = reactive(False)
    speed: reactive[float] = reactive(1.0)

    def __init__(self, model: SessionModel, **kw) -> None:
        super().__init__(**kw)
        self.model = model

    def _bar_width(self) -> int:
        return max(10, (self.size.width or 80) - 2)

    def render(self) -> Text:
        s = self.state
        out = Text(end="", no_wrap=True)
        if s is None or s.total == 0:
            return Text(" reading the log…" if s is None or s.loading is not None else " no events", end="")
        one_line = self.size.height < 2
        icon = "▶" if self.playing else "‖"
        speed = f"{self.speed:g}×"
        start = self.model.times[0]
        end = self.model.times[s.total - 1]
        now = self.model.times[max(0, s.pos)]
        if one_line:
            out.append(f" {icon} {speed}", self.part("state"))
            out.append(f" {elapsed_text(now - start)}/{elapsed_text(end - start)} ", self.part("note"))
        else:
            out.append(f" {icon} {'playing' if self.playing else 'paused'} {speed}", self.part("state"))
            out.append(f"  {elapsed_text(now - start)} / {elapsed_text(end - start)}", self.part("note"))
            row = self.model.row_at(s.pos)
            out.append(f"  event {self.model.seqs[max(0, s.pos)]} · row {row + 1}/{len(self.model.rows)}",
                       self.part("note"))
            if s.loading is not None:
                out.append(f"  · reading the log {round(100 * s.loading)}%: seeking waits for it",
                           self.part("note"))
            out.append("\n ")
        if one_line and s.loading is not None:
            out.append(f"reading the log {round(100 * s.loading)}%…", self.part("note"))
            return out
        width = max(10, (self.size.width or 80) - out.cell_len - 1) if one_line else self._bar_width()
        self._bar_x, self._bar_w = (out.cell_len if one_line else 1), width
        total = s.total
        head = min(width - 1, int(max(0, s.pos) * width / total))
        marks: dict[int, str] = {}
        for ei in self.model.human_ei:
            marks[min(width - 1, ei * width // total)] = "human"
        for ei in self.model.decision_ei:
            marks[min(width - 1, ei * width // total)] = "decision"
        cells = []
        for x in range(width):
            if x == head:
                cells.append(("●", "head"))
            elif x in marks:
                cells.append(("◆" if marks[x] == "decision" else "✉", marks[x]))
            else:
                cells.append(("━", "played") if x < head else ("─", "unplayed"))
        start = 0
        for x in range(1, width + 1):  # one span per run of cells of the same kind
            if x == width or cells[x][1] != cells[start][1]:
                out.append("".join(c for c, _ in cells[start:x]), self.part(cells[start][1]))
                start = x
        return out

    _bar_x, _bar_w = 1, 10  # where the bar was drawn (for clicks)

    def on_click(self, event: events.Click) -> None:
        if event.y == self.size.height - 1 and event.x >= self._bar_x:
            x = event.x - self._bar_x
            self.post_message(self.Seek(max(0.0, min(1.0, x / self._bar_w))))

