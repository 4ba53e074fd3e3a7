"""The console's view-model: a pure fold of session events into what the screen shows.

`SessionModel.add(events)` folds events (in log order) into:

- transcript rows (`Row`): one per thing a reader follows — a block of assistant text, a tool call
  (its result folds into the call's row), an evaluation (start, progress and result fold into one
  row), a decision point, a human message, a stop check, an error, the start and the end. Usage
  and progress events make no row; events of unknown types get a generic row (never dropped);
- the evaluation history, decision points, human messages, usage totals and eval runs, each with
  the event index it happened at, so `state_at(pos)` answers "what did the session look like after
  event `pos`" by bisection (replay's evaluator panel and header) in O(log n).

It holds no event bodies: rows carry a cleaned one-line title and the event indices, and the
`EventStore` gives the full event back when a row is expanded (a tool call's title is made from
its event when first read: `ToolCallRow`). No Textual in here; tested alone.

The parts, lowest first: `titles` (an event's one-line text), `rows` (the transcript's rows and
their kinds), `records` (what is kept beside the rows), `fold` (how each event type folds in) and
`timeline` (`SessionModel`: the fold read at any event, `ViewState`).
"""
from console.model.fold import NO_ROW, ROW_HANDLERS, SessionFold
from console.model.records import DecisionRecord, EvalRecord, EvalRun, HumanRecord, Posted
from console.model.rows import (COMPACTION, DECISION, END, ERROR, EVAL, HUMAN, MULTILINE_CAP, OTHER, START,
                                STOP, STREAM, TEXT, THINKING, TOOL, Row, ToolCallRow)
from console.model.timeline import SessionModel, ViewState
from console.model.titles import TITLE_MAX, eval_note, tool_call_title, tool_summary

__all__ = [
    "COMPACTION", "DECISION", "END", "ERROR", "EVAL", "HUMAN", "MULTILINE_CAP", "NO_ROW", "OTHER",
    "ROW_HANDLERS", "START", "STOP", "STREAM", "TEXT", "THINKING", "TITLE_MAX", "TOOL", "DecisionRecord",
    "EvalRecord", "EvalRun", "HumanRecord", "Posted", "Row", "SessionFold", "SessionModel", "ToolCallRow",
    "ViewState", "eval_note", "tool_call_title", "tool_summary",
]
