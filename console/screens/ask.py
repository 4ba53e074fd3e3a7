"""The free-form question: one line to the agent, with the decision point it answers shown."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from console.model import DecisionRecord
from console.safe_text import clean_line


class AskScreen(ModalScreen[str | None]):
    """Returns the text to send, or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, decision: DecisionRecord | None, initial: str = "", *,
                 interrupt: bool = False) -> None:
        super().__init__()
        self.decision = decision
        self.initial = initial
        self.interrupt = interrupt

    def compose(self) -> ComposeResult:
        with Vertical(id="ask-box"):
            about = Text(end="")
            if self.decision is not None:
                about.append(f"◆ {self.decision.kind.replace('_', ' ')}: ")
                about.append(clean_line(self.decision.evidence)[:300])
            else:
                about.append("No decision point is open: the question goes with the latest evaluation.")
            if self.interrupt:
                about.append("\nInterrupt: the running tool or reply is stopped and this is delivered at once.")
            yield Static(about, id="ask-about")
            yield Input(self.initial, placeholder="a short question that asks for a measurement",
                        id="ask-input")
            yield Static(Text("enter send · esc cancel"), id="ask-hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        self.dismiss(text or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
