"""The question dock: the open decision point, its evidence, and the bank's top questions 1-9.

Live, one key sends a question; the dock also lists messages sent and not yet delivered (from
any console: it reads the session's inbox). In replay it shows what the steerer actually sent at
that decision point. It hides itself when there is nothing to show.
"""
from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from console.model import ViewState
from console.safe_text import clean_line

_STYLES = ("title", "kind", "evidence", "number", "question", "hint", "sent", "waiting",
           "answered", "readonly")


class QuestionDock(Widget):
    COMPONENT_CLASSES = {f"dock--{n}" for n in _STYLES}

    state: reactive[ViewState | None] = reactive(None, always_update=True)
    suggestions: reactive[tuple] = reactive(())  # ((bank id, text), ...) ranked, at most 9

    def _s(self, name: str) -> Style:
        return self.get_component_rich_style(f"dock--{name}", partial=True)

    def max_questions(self) -> int:
        height = self.app.size.height if self.app else 24
        return 9 if height >= 36 else (5 if height >= 26 else 4)

    def watch_state(self, state: ViewState | None) -> None:
        self._update_display()

    def watch_suggestions(self) -> None:
        self._update_display()

    def _update_display(self) -> None:
        s = self.state
        self.display = bool(s and (s.decision is not None or s.posted))
        self.refresh(layout=True)

    def render(self) -> Text:
        s = self.state
        out = Text(end="", no_wrap=True, overflow="ellipsis")
        if s is None:
            return out
        width = max(20, self.content_size.width)
        d = s.decision
        if d is not None:
            out.append(f" ◆ {d.kind.replace('_', ' ').upper()} ", self._s("kind"))
            out.append(" ")
            evidence = clean_line(d.evidence)
            out.append(_cut(evidence, width - len(d.kind) - 6), self._s("evidence"))
            out.append("\n")
            if s.answer is not None:
                a = s.answer
                src = f"{a.source}{' ' + clean_line(a.bank_id) if a.bank_id else ''}"
                out.append(f" ✉ answered ({src}): ", self._s("answered"))
                out.append(_cut(clean_line(a.text), width - len(src) - 16), self._s("question"))
                out.append("\n")
            else:
                for i, (_, text) in enumerate(self.suggestions[:self.max_questions()], 1):
                    out.append(f" {i} ", self._s("number"))
                    out.append(" " + _cut(clean_line(text), width - 4) + "\n", self._s("question"))
                if s.mode == "live":
                    out.append(" 1-9 send · q ask your own · b bank · x dismiss\n", self._s("hint"))
                else:
                    out.append(" replay: read-only · b browse the bank\n", self._s("readonly"))
        for p in s.posted[-3:]:
            src = p.source + (f" {clean_line(p.bank_id)}" if p.bank_id else "")
            who = "" if p.mine else " (another console)"
            out.append(f" → sent [{src}]{who} ", self._s("sent"))
            out.append(_cut(clean_line(p.text), max(10, width - 60 - len(src))), self._s("question"))
            out.append("  ⧗ waiting for the runner to deliver it\n", self._s("waiting"))
        out.rstrip()
        return out


def _cut(text: str, room: int) -> str:
    room = max(1, room)
    return text if len(text) <= room else text[:room - 1] + "…"
