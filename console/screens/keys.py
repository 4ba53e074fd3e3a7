"""The keys, over the session (`?`): every action with its keys, in a box that leaves the
transcript as it was. Esc, `?` or `q` closes it."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from console.palette import Command


class KeysScreen(ModalScreen[None]):
    COMPONENT_CLASSES = {"keys--key"}
    BINDINGS = [
        Binding("escape,question_mark,q", "dismiss", "close", show=False),
    ]

    def __init__(self, commands: list[Command], title: str = "Keys") -> None:
        super().__init__()
        self.commands = commands
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical(id="keys-box"):
            yield Static(Text(self.title_text, end=""), id="keys-title")
            with VerticalScroll(id="keys-list"):
                yield Static(id="keys-table")
            yield Static(Text("esc close · ctrl+p finds any action by name", end=""), id="keys-hint")

    def on_mount(self) -> None:
        self.query_one("#keys-table", Static).update(self._table())

    def _table(self) -> Text:
        width = max((len(c.keys) for c in self.commands), default=4)
        width = min(width, 14)
        out = Text(end="")
        for i, c in enumerate(self.commands):
            if i:
                out.append("\n")
            out.append(f"{c.keys:>{width}}", self.get_component_rich_style("keys--key", partial=True))
            out.append(f"  {c.title}")
        return out

    def action_dismiss(self) -> None:
        self.dismiss(None)
