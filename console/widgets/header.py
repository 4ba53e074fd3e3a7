"""The header line: task, model, status, elapsed, tokens and cost, best geomean against the goal.

Pieces are dropped, least important first, until the line fits the width (80 columns keeps the
task, the status, the elapsed time and the best geomean against the goal).
"""
from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from console.model import ViewState
from console.render import elapsed_text
from console.safe_text import clean_line
from console.widgets.lines import PartStyles

STATUS_ICON = {"running": "●", "waiting": "◌", "stopped": "■", "lost": "■", "ended": "■", "replay": "▶",
               "loading": "…"}
STATUS_PART = {"lost": "stopped"}  # a runner gone without session_end looks like one stopped


def tokens_text(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.2f}M"
    if n >= 10_000:
        return f"{n / 1000:.0f}k"
    if n >= 1000:
        return f"{n / 1000:.1f}k"
    return str(n)


class HeaderBar(PartStyles, Widget):
    PART_PREFIX = "header"
    COMPONENT_CLASSES = {
        "header--task", "header--model", "header--sep", "header--status-running",
        "header--status-waiting", "header--status-stopped", "header--status-ended",
        "header--status-replay", "header--status-loading", "header--dim", "header--goal-met",
        "header--goal-missed",
    }

    state: reactive[ViewState | None] = reactive(None, always_update=True)

    def render(self) -> Text:
        s = self.state
        width = self.size.width or 80
        if s is None:
            return Text(" loading…", end="")
        pieces: list[tuple[int, Text]] = []  # (priority: lower is dropped first, text)
        pieces.append((9, Text(clean_line(s.task or "?"), self.part("task"), end="")))
        if s.model_name:
            pieces.append((1, Text(clean_line(s.model_name), self.part("model"), end="")))
        status = s.status
        label = status
        if s.end_reason and status != "replay":
            status, label = "ended", f"ended: {s.end_reason}"
        pieces.append((8, Text(f"{STATUS_ICON.get(status, '·')} {label}",
                               self.part(f"status-{STATUS_PART.get(status, status)}"), end="")))
        if s.unsandboxed:  # the agent's commands could read this machine: never dropped for room
            pieces.append((10, Text("⚠ unsandboxed", self.part("goal-missed"), end="")))
        if s.started is not None and s.now is not None:
            pieces.append((6, Text(f"◷ {elapsed_text(s.now - s.started)}", self.part("dim"), end="")))
        if s.tokens_in or s.tokens_out:
            pieces.append((3, Text(f"{tokens_text(s.tokens_in + s.tokens_out)} tok", self.part("dim"), end="")))
        if s.cost:
            pieces.append((4, Text(f"${s.cost:.2f}", self.part("dim"), end="")))
        best = "—" if s.best_geomean is None else f"{s.best_geomean:.3f}×"
        goal = "" if s.goal_geomean is None else f" / goal {s.goal_geomean:.2f}×"
        met = s.best_geomean is not None and s.goal_geomean is not None and s.best_geomean >= s.goal_geomean
        pieces.append((7, Text(f"best {best}{goal}", self.part("goal-met" if met else "goal-missed"), end="")))
        sep = Text(" · ", self.part("sep"), end="")
        order = list(range(len(pieces)))
        while True:
            line = Text(" ", end="")
            line = line + sep.join(pieces[i][1] for i in order)
            if line.cell_len <= width or len(order) <= 1:
                break
            drop = min(order, key=lambda i: pieces[i][0])
            order.remove(drop)
        line.truncate(width, overflow="ellipsis")
        return line
