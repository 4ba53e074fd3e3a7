"""The transcript's rows: one per thing a reader follows (a block of assistant text, a tool call
with its result, an evaluation from start to verdict, a decision point, a human message...).

A row holds no event body: a cleaned one-line title and the indices of its events in the
`EventStore`, which gives the full event back when the row is expanded.
"""
from __future__ import annotations

from dataclasses import dataclass

from console.model.titles import tool_call_title
from console.store import EventStore

# Row kinds
START, TEXT, THINKING, TOOL, EVAL, DECISION, HUMAN, STOP, ERROR, END, OTHER, STREAM, COMPACTION = (
    "start", "text", "thinking", "tool", "eval", "decision", "human", "stop", "error", "end",
    "other", "stream", "compaction")

# Kinds whose collapsed form wraps over a few lines (the rest are one line).
MULTILINE_CAP = {TEXT: 3, STREAM: 3, HUMAN: 3, DECISION: 3}


@dataclass(slots=True)


class Row:
    kind: str
    ei: int  # index (in the store) of the event that opened the row
    seq: int
    t: float
    title: str = ""  # cleaned, one line, at most TITLE_MAX characters
    text_len: int = 0  # length of the whole cleaned one-line text (for the collapsed height)
    ei2: int = -1  # the event that completed the row: tool result, eval result, final text block
    status: str = ""  # tool: "" (running) | ok | error; eval: running | pass | fail | goal
    note: str = ""  # right-hand note: duration, progress, verdict
    ref: int = -1  # index into evals / decisions / humans for those kinds
    version: int = 0  # bumped whenever the row changes (renders are cached by it)
    sub: bool = False  # from a subagent's thread (a sidechain of an imported transcript)
    superseded: bool = False  # from a model request that failed and was retried


_ROW_TITLE = Row.title  # the slot itself (ToolCallRow's property reads and sets it)


class ToolCallRow(Row):
    """A tool call's row. Its title (the tool and the one argument that says what it does) is
    made from the call's event the first time it is read, not when the log is folded: a long log
    has tens of thousands of calls and a screen shows a few dozen (making them all was a quarter
    of an open's fold)."""

    __slots__ = ("_store",)

    @property
    def title(self) -> str:
        title = _ROW_TITLE.__get__(self, Row)
        if title is None:
            title = tool_call_title(self._store.get(self.ei))
            _ROW_TITLE.__set__(self, title)
        return title

    @title.setter
    def title(self, value: str) -> None:
        _ROW_TITLE.__set__(self, value)

    @classmethod
    def lazy(cls, ei: int, seq: int, t: float, store: EventStore) -> ToolCallRow:
        """The row of the tool call at event `ei`, its title left to be made from `store`."""
        row = cls(TOOL, ei, seq, t, None)
        row._store = store
        return row
