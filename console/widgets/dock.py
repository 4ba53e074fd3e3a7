"""The question dock: the open decision point, its evidence, and the bank's top questions 1-9.

Live, one key sends a question; the dock also lists messages sent and not yet delivered (from
any console: it reads the session's inbox). In replay it shows what the steerer actually sent at
that decision point. It hides itself when there is nothing to show. On a short terminal (fewer
than `COMPACT_BELOW` rows) it is at most four lines: the decision point, then three questions
(the footer and `?` carry the keys); `b` browses the rest.
"""
from __future__ import annotations

import time

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from console.model import ViewState
from console.safe_text import clean_line
from console.widgets.lines import PartStyles

_STYLES = ("title", "kind", "evidence", "number", "question", "hint", "sent", "waiting",
           "answered", "readonly")
COMPACT_BELOW = 30  # terminal rows
# the dock flapping (what it has to show coming and going again and again in a flood of decision
# points) shows or hides at most every MIN_TOGGLE_S and hides only after MIN_TOGGLE_S with
# nothing to show: each toggle is a layout of the whole screen (time a key waits), and nobody
# reads a dock that blinks. Outside a flood, or dismissed by the steerer, it shows and hides at once.
FLAP_TOGGLES, FLAP_WINDOW_S, MIN_TOGGLE_S = 3, 6.0, 3.0


class QuestionDock(PartStyles, Widget):
    PART_PREFIX = "dock"
    COMPONENT_CLASSES = {f"dock--{n}" for n in _STYLES}

    state: reactive[ViewState | None] = reactive(None, always_update=True)
    suggestions: reactive[tuple] = reactive(())  # ((bank id, text), ...) ranked, at most 9
    _lines = 0
    _rendered_key: tuple | None = None
    _rendered: Text
    _flips: list[float] = []  # when what there is to show flipped, lately
    _wanted = True  # what there was to show at the last look
    _toggled_at: float | None = None
    _toggle_timer = None
    _hide_wanted_at: float | None = None
    _update_pending = False

    def _toggle_due(self) -> None:
        self._toggle_timer = None
        self._update_display()

    @property
    def compact(self) -> bool:
        return (self.app.size.height if self.app else 24) < COMPACT_BELOW

    def _posted(self, s: ViewState) -> tuple:
        return s.posted[-(1 if self.compact else 3):]

    def _posted_lines(self, out: Text, s: ViewState, width: int) -> None:
        for p in self._posted(s):
            src = p.source + (f" {clean_line(p.bank_id)}" if p.bank_id else "")
            who = "" if p.mine else " (another console)"
            head = f" → sent [{src}]{who} "
            tail = "  ⧗ waiting for the runner" if width >= 70 else "  ⧗ waiting"
            out.append(head, self.part("sent"))
            out.append(_cut(clean_line(p.text), width - len(head) - len(tail)), self.part("question"))
            out.append(tail + "\n", self.part("waiting"))

    def max_questions(self) -> int:
        height = self.app.size.height if self.app else 24
        if height < COMPACT_BELOW:  # the decision point's line and three questions
            s = self.state
            answered = s is not None and s.answer is not None
            return (2 if answered else 3) - min(1, len(self._posted(s))) if s else 3
        return 9 if height >= 36 else 5

    def watch_state(self, state: ViewState | None) -> None:
        self._update_soon()

    def watch_suggestions(self) -> None:
        self._update_soon()

    def _update_soon(self) -> None:
        """The state and its suggestions arrive one after the other: look at both once settled
        (else the height flips between them, and each flip re-lays the screen out)."""
        if not self._update_pending:
            self._update_pending = True
            self.call_later(self._update_now)

    def _update_now(self) -> None:
        self._update_pending = False
        self._update_display()

    def at_once(self) -> None:
        """The steerer acted on the dock (dismissed its point): show or hide now, flapping or not."""
        self._flips = []
        self._update_display()

    def _update_display(self) -> None:
        s = self.state
        show = bool(s and (s.decision is not None or s.posted))
        now = time.monotonic()
        if show != self._wanted:  # what there is to show flipped (a flood flips it many times a second)
            self._wanted = show
            self._flips = [t for t in self._flips if now - t < FLAP_WINDOW_S] + [now]
        if show or not self.display:
            self._hide_wanted_at = None  # a hide waits for nothing to show all along
        if show != self.display:
            # showing or hiding re-lays the whole screen out: while what there is to show
            # flaps, the dock toggles at most every MIN_TOGGLE_S, and hides only once it has had
            # nothing to show for that long (so in a flood it stays, showing the latest point)
            flapping = sum(1 for t in self._flips if now - t < FLAP_WINDOW_S) >= FLAP_TOGGLES
            if flapping:
                due = (self._toggled_at or 0.0) + MIN_TOGGLE_S
                if not show:
                    if self._hide_wanted_at is None:
                        self._hide_wanted_at = now
                    due = max(due, self._hide_wanted_at + MIN_TOGGLE_S)
                if due > now:
                    if self._toggle_timer is None:
                        self._toggle_timer = self.set_timer(due - now, self._toggle_due)
                    return
            self._toggled_at = now
            self._hide_wanted_at = None
            self.display = show
        if not show:
            return
        # a layout pass (re-rendering the whole screen) only when the dock's height changes
        lines = self.render().plain.count("\n") + 1
        if lines != self._lines:
            self._lines = lines
            self.refresh(layout=True)
        else:
            self.refresh()

    def render(self) -> Text:
        key = (id(self.state), self.suggestions, self.content_size.width, self.app.size.height)
        if key != self._rendered_key:
            self._rendered_key, self._rendered = key, self._render_text()
        return self._rendered

    def _render_text(self) -> Text:
        s = self.state
        out = Text(end="", no_wrap=True, overflow="ellipsis")
        if s is None:
            return out
        width = max(20, self.content_size.width)
        d = s.decision
        if d is not None:
            out.append(f" ◆ {d.kind.replace('_', ' ').upper()} ", self.part("kind"))
            out.append(" ")
            evidence = clean_line(d.evidence)
            out.append(_cut(evidence, width - len(d.kind) - 6), self.part("evidence"))
            out.append("\n")
        self._posted_lines(out, s, width)
        if d is not None:
            shown = self.suggestions[:self.max_questions()]
            if s.answer is not None:
                # what was sent, then the suggestions as they were (greyed, the one sent ticked)
                a = s.answer
                src = f"{a.source}{' ' + clean_line(a.bank_id) if a.bank_id else ''}"
                out.append(f" ✉ answered ({src}): ", self.part("answered"))
                out.append(_cut(clean_line(a.text), width - len(src) - 16), self.part("question"))
                out.append("\n")
                for i, (bank_id, text) in enumerate(shown, 1):
                    sent = (a.bank_id is not None and bank_id == a.bank_id) or text == a.text
                    out.append(f" {'✓' if sent else i} ", self.part("answered" if sent else "hint"))
                    out.append(" " + _cut(clean_line(text), width - 4) + "\n", self.part("hint"))
            else:
                for i, (_, text) in enumerate(shown, 1):
                    out.append(f" {i} ", self.part("number"))
                    out.append(" " + _cut(clean_line(text), width - 4) + "\n", self.part("question"))
                if self.compact:
                    pass  # the footer and `?` carry the keys
                elif s.mode == "live":
                    keys = f"1-{len(shown)} send · " if len(shown) > 1 else ("1 sends · " if shown else "")
                    out.append(f" {keys}q ask your own · ! interrupt · b bank · x dismiss\n", self.part("hint"))
                else:
                    out.append(" replay: read-only · b browse the bank\n", self.part("readonly"))
        out.rstrip()
        if d is not None:
            # the same height answered or not, so stepping onto the answer moves nothing else
            n_q = len(self.suggestions[:self.max_questions()])
            height = 1 + len(self._posted(s)) + n_q + (1 if s.answer is not None and self.compact else 0)
            if not self.compact:
                height = 2 + len(self._posted(s)) + n_q
            out.append("\n" * max(0, height - 1 - out.plain.count("\n")))
        return out


def _cut(text: str, room: int) -> str:
    room = max(1, room)
    return text if len(text) <= room else text[:room - 1] + "…"
