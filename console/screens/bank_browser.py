"""The bank browser: every question of the bank, searched as you type, filtered by trigger
(decision-point kind) and layer. Enter sends the highlighted question (live) and closes.

Opened at a decision point, the trigger filter starts on that point's kind; the title always says
which filters are on, and when they hide every match of the search it says how many match without
them and how to clear them (^t steps the trigger, ^r clears both)."""
from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Select, Static
from textual.widgets.option_list import Option

from console.bank import BankEntry, filter_entries
from console.safe_text import clean_line
from sessions.events import DECISION_KINDS

ALL = "all"


class BankBrowser(ModalScreen[BankEntry | None]):
    """Returns the chosen entry, or None."""

    COMPONENT_CLASSES = {"bank--hidden"}
    BINDINGS = [
        Binding("escape", "cancel", "Close"),
        Binding("down", "list_down", "Next", show=False),
        Binding("up", "list_up", "Previous", show=False),
        Binding("ctrl+t", "cycle('trigger')", "Trigger"),
        Binding("ctrl+l", "cycle('layer')", "Layer"),
        Binding("ctrl+r", "clear_filters", "Clear filters"),
    ]

    def __init__(self, entries: list[BankEntry], *, trigger: str | None = None,
                 readonly: bool = False, error: str | None = None) -> None:
        super().__init__()
        self.entries = entries
        self.readonly = readonly
        self.error = error
        self._trigger = trigger if trigger in DECISION_KINDS else None
        self._preset = self._trigger  # the open decision point's kind, when the browser opened
        self.layer_names = sorted({layer for e in entries for layer in e.layers})
        self.shown: list[BankEntry] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="bank-box"):
            yield Static(self._title(), id="bank-title")
            yield Input(placeholder="search: words in any order", id="bank-search")
            with Horizontal(id="bank-filters"):
                trigger = {"value": self._trigger} if self._trigger else {}
                yield Select([(k.replace("_", " "), k) for k in DECISION_KINDS],
                             prompt="any trigger", id="bank-trigger", compact=True, **trigger)
                yield Select([(layer.replace("_", " "), layer) for layer in self.layer_names],
                             prompt="any layer", id="bank-layer", compact=True)
            yield OptionList(id="bank-list")
            hint = "enter " + ("close (replay is read-only)" if self.readonly else "send") + \
                " · ↑↓ choose · ^t trigger · ^l layer · ^r clear filters · esc close"
            yield Static(Text(hint, end=""), id="bank-hint")

    def _title(self) -> Text:
        if self.error:
            return Text(self.error, end="")
        return Text(f"Question bank · {len(self.entries)} questions", end="")

    def on_mount(self) -> None:
        self.refilter()
        self.query_one("#bank-search", Input).focus()

    def _value(self, select_id: str) -> str | None:
        v = self.query_one(select_id, Select).value
        return v if isinstance(v, str) else None

    def refilter(self) -> None:
        query = self.query_one("#bank-search", Input).value
        self.shown = filter_entries(self.entries, query, self._value("#bank-trigger"),
                                    self._value("#bank-layer"))
        options = self.query_one("#bank-list", OptionList)
        options.clear_options()
        options.add_options([Option(self._prompt(e), id=f"q{i}") for i, e in enumerate(self.shown)])
        if self.shown:
            options.highlighted = 0
        self.query_one("#bank-title", Static).update(self._title() if self.error else self._status(query))

    def _status(self, query: str) -> Text:
        """How many are shown of how many, which filters are on, and (when they hide every match
        of the search) how many match without them and how to clear them."""
        trigger, layer = self._value("#bank-trigger"), self._value("#bank-layer")
        out = Text(f"Question bank · {len(self.shown)} of {len(self.entries)} questions", end="")
        filters = []
        if trigger:
            why = " (the open decision point's)" if trigger == self._preset else ""
            filters.append(f"trigger {trigger.replace('_', ' ')}{why}")
        if layer:
            filters.append(f"layer {layer.replace('_', ' ')}")
        if filters:
            out.append(" · only " + ", ".join(filters))
        if not self.shown and filters:
            unfiltered = len(filter_entries(self.entries, query))
            out.append(f" · {unfiltered} match without {'it' if len(filters) == 1 else 'them'}: ^r clears",
                       self.get_component_rich_style("bank--hidden", partial=True))
        return out

    def action_clear_filters(self) -> None:
        for select_id in ("#bank-trigger", "#bank-layer"):
            self.query_one(select_id, Select).clear()

    def _prompt(self, e: BankEntry) -> Text:
        t = Text(end="")
        t.append(clean_line(e.text))
        t.append("\n")
        t.append(f"{clean_line(e.id)} · {', '.join(e.layers)} · {', '.join(e.triggers)}",
                 "dim")
        return t

    @on(Input.Changed, "#bank-search")
    @on(Select.Changed)
    def _changed(self) -> None:
        self.refilter()

    @on(Input.Submitted, "#bank-search")
    def _submitted(self) -> None:
        self._choose(self.query_one("#bank-list", OptionList).highlighted)

    @on(OptionList.OptionSelected, "#bank-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self._choose(event.option_index)

    def _choose(self, index: int | None) -> None:
        if index is None or not (0 <= index < len(self.shown)):
            self.app.bell()
            return
        self.dismiss(self.shown[index])

    def action_list_down(self) -> None:
        self.query_one("#bank-list", OptionList).action_cursor_down()

    def action_list_up(self) -> None:
        self.query_one("#bank-list", OptionList).action_cursor_up()

    def action_cycle(self, which: str) -> None:
        """Step a filter to its next value (keyboard users need not open the dropdown)."""
        if which == "trigger":
            select, values = self.query_one("#bank-trigger", Select), list(DECISION_KINDS)
        else:
            select, values = self.query_one("#bank-layer", Select), self.layer_names
        cur = select.value if isinstance(select.value, str) else None
        seq = [None, *values]
        nxt = seq[(seq.index(cur) + 1) % len(seq)] if cur in seq else values[0] if values else None
        if nxt is None:
            select.clear()
        else:
            select.value = nxt

    def action_cancel(self) -> None:
        self.dismiss(None)
