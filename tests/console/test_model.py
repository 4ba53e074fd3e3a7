"""The view-model: what the fold of a session's events makes of them."""
from __future__ import annotations

from console.model import DECISION, EVAL, HUMAN, OTHER, START, STREAM, TEXT, TOOL, SessionModel, tool_summary
from console.store import MemoryEventStore
from sessions.digest import goal_geomean
from synthetic_session import event as ev, synthetic_events


def fold(events) -> SessionModel:
    events = list(events)
    store = MemoryEventStore(events)
    model = SessionModel(store)
    model.add(events)
    return model


def test_a_tool_call_and_its_result_are_one_row():
    m = fold([ev(0, "session_start", task="t", goal={"min_geomean": 1.1}),
              ev(1, "tool_call", id="a", name="run", input={"command": "make -j2"}),
              ev(2, "assistant_text", text="meanwhile"),
              ev(3, "tool_result", id="a", output="ok", is_error=True, duration_s=1.234)])
    assert [r.kind for r in m.rows] == [START, TOOL, TEXT]
    tool = m.rows[1]
    assert tool.title == "run make -j2" and tool.status == "error" and tool.note == "1.23s"
    assert tool.ei2 == 3 and m.event_row[3] == 1
    assert goal_geomean(m.start["goal"]) == 1.1


def test_an_evaluation_folds_start_progress_and_result_into_one_row():
    m = fold([ev(0, "eval_start", n=1, scenarios=4),
              ev(1, "eval_progress", done=2, total=4, scenario="big"),
              ev(2, "usage", input_tokens=10, output_tokens=5, total_cost_usd=0.5),
              ev(3, "eval_result", n=1, report="evals/0001.json",
                 summary={"geomean": 1.05, "all_correct": True, "passed": 4, "total": 4})])
    assert [r.kind for r in m.rows] == [EVAL]
    row = m.rows[0]
    assert row.status == "pass" and "4/4 correct" in row.title and "1.050×" in row.title
    running = m.state_at(1)
    assert running.progress == (2, 4, "big") and running.latest_eval is None
    done = m.state_at(3)
    assert done.progress is None and done.latest_eval.geomean == 1.05
    assert done.tokens_in == 10 and done.cost == 0.5
    assert m.state_at(1).tokens_in == 0


def test_state_as_of_an_event_bisects_history():
    events = list(synthetic_events(60, eval_every=10))
    m = fold(events)
    evals = [i for i, e in enumerate(events) if e["type"] == "eval_result"]
    assert len(m.evals) == len(evals) == 6
    mid = evals[2]
    s = m.state_at(mid)
    assert len(s.history) == 3 and s.latest_eval.ei == mid
    assert m.state_at(mid - 1).latest_eval.ei == evals[1]
    # the header's best is the best as of then, not the session's best
    assert s.best_geomean == m.evals[2].best
    assert m.state_at(None).latest_eval.ei == evals[-1]


def test_decision_points_open_until_answered_superseded_or_dismissed():
    m = fold([ev(0, "decision_point", kind="stall", evidence="no gain in 9 evals",
                 suggestions=[{"id": "a", "text": "Ask A?"}, {"id": "b", "text": "Ask B?"}]),
              ev(1, "tool_call", id="x", name="run", input={}),
              ev(2, "human_message", text="Ask A?", source="bank", bank_id="a", decision_point=0,
                 inbox_id="m1"),
              ev(3, "tool_call", id="y", name="run", input={}),
              ev(4, "decision_point", kind="limit_claim", evidence="bandwidth is saturated")])
    assert m.state_at(1).decision.kind == "stall" and m.state_at(1).answer is None
    at_answer = m.state_at(2)
    assert at_answer.decision.kind == "stall" and at_answer.answer.bank_id == "a"
    assert m.state_at(3).decision is None  # answered, and the reader moved on
    assert m.state_at(4).decision.kind == "limit_claim"
    assert m.state_at(4, dismissed={4}).decision is None
    assert m.delivered == {"m1": 2}
    assert m.decisions[0].answers == [0]
    assert [m.rows[r].kind for r in m.decision_rows] == [DECISION, DECISION]
    assert [m.rows[r].kind for r in m.human_rows] == [HUMAN]


def test_a_session_that_ended_leaves_no_decision_open():
    m = fold([ev(0, "decision_point", kind="stall", evidence="e"), ev(1, "session_end", reason="stopped")])
    assert m.state_at(0).decision is not None
    assert m.state_at(1).decision is None and m.state_at(1).end_reason == "stopped"


def test_streamed_text_becomes_the_final_block():
    m = fold([ev(0, "assistant_delta", block="b1", text="Hello "),
              ev(1, "assistant_delta", block="b1", text="wor"),
              ev(2, "tool_call", id="x", name="run", input={}),
              ev(3, "assistant_text", block="b1", text="Hello world, whole.")])
    assert m.rows[0].kind == TEXT and m.rows[0].title == "Hello world, whole." and m.rows[0].ei2 == 3
    assert m.content_event(m.rows[0])["seq"] == 3
    m2 = fold([ev(0, "assistant_delta", block="b1", text="Hel"), ev(1, "assistant_delta", block="b1", text="lo there")])
    assert m2.rows[0].kind == STREAM and m2.rows[0].title == "Hello there"


def test_unknown_types_are_kept_as_generic_rows():
    m = fold([ev(0, "telemetry", gpu_temp=71, note="hot")])
    assert m.rows[0].kind == OTHER and "telemetry" in m.rows[0].title and "71" in m.rows[0].title


def test_navigation_between_rows_and_positions():
    events = list(synthetic_events(130))
    m = fold(events)
    for r in (0, 5, len(m.rows) - 1):
        pos = m.pos_of_row(r)
        assert m.row_at(pos) == r
    rows = m.decision_rows
    assert m.next_row_of(rows, -1, 1) == rows[0]
    assert m.next_row_of(rows, rows[0], 1) == (rows[1] if len(rows) > 1 else None)
    assert m.next_row_of(rows, rows[0], -1) is None
    assert m.next_row_of(rows, len(m.rows), -1) == rows[-1]


def test_posted_messages_are_matched_with_their_delivery():
    class Msg:
        def __init__(self, id, text):
            self.id, self.text, self.t, self.source, self.bank_id, self.decision_point = id, text, 1.0, "free", None, None

    m = fold([ev(0, "session_start", task="t")])
    m.note_posted([Msg("m1", "why?"), Msg("m2", "how?")], mine={"m1"})
    assert [p.inbox_id for p in m.pending()] == ["m1", "m2"] and m.posted["m1"].mine
    store = m.store
    e = ev(1, "human_message", text="why?", inbox_id="m1", source="free")
    store.extend([e])
    m.add([e])
    assert [p.inbox_id for p in m.pending()] == ["m2"]
    assert m.posted["m1"].delivered_seq == 1
    assert [p.inbox_id for p in m.state_at(None).posted] == ["m2"]


def test_tool_summaries_name_what_the_call_does():
    assert tool_summary("edit_file", {"path": "k.c", "old_str": "a\nb", "new_str": "c"}) == "edit_file k.c  (-2 +1 lines)"
    assert tool_summary("Bash", {"command": "ls\n-la"}) == "Bash ls -la"
    assert tool_summary("evaluate", {}) == "evaluate"
    assert tool_summary("x", {"weird": [1, 2]}) == 'x {"weird": [1, 2]}'


def test_a_retried_request_leaves_its_first_attempt_superseded():
    m = fold([ev(0, "assistant_delta", block=0, turn=3, attempt=1, text="Let me"),
              ev(1, "error", message="overloaded", where="model", fatal=False),
              ev(2, "assistant_delta", block=0, turn=3, attempt=2, text="I will"),
              ev(3, "assistant_text", block=0, turn=3, attempt=2, text="I will profile first."),
              ev(4, "tool_call", id="a", name="run", input={"command": "perf"}, block=1, turn=3, attempt=2),
              ev(5, "usage", input_tokens=1, output_tokens=1, turn=3, attempt=2),
              ev(6, "assistant_delta", block=0, turn=4, attempt=1, text="Next")])
    kinds = [(r.kind, r.title, r.superseded) for r in m.rows]
    assert kinds[0] == (STREAM, "Let me", True)  # the failed attempt's stream, never finished
    assert kinds[2] == (TEXT, "I will profile first.", False)
    assert kinds[3][0] == TOOL and not kinds[3][2]
    assert kinds[4] == (STREAM, "Next", False)  # block 0 of the next turn is a new stream


def test_resume_and_runner_notes_read_as_such():
    m = fold([ev(0, "session_start", task="t"), ev(1, "session_resume", model="m", previous_end="stopped"),
              ev(2, "runner_note", text="[Runner] The session goes on; continue toward the goal.")])
    assert m.rows[0].title.startswith("session t") and m.rows[1].title.startswith("session resumed · m")
    assert m.rows[2].kind == OTHER and m.rows[2].title.startswith("[Runner] The session goes on")


def test_an_interrupted_stop_check_evaluation_says_so():
    m = fold([ev(0, "eval_start", purpose="stop_check", scenarios=8),
              ev(1, "eval_progress", done=1, total=8),
              ev(2, "eval_result", n=4, summary={"interrupted": True, "quick": True, "best_geomean": 1.06})])
    row = m.rows[0]
    assert row.title == "evaluation #4 (stop check): interrupted" and row.status == "interrupted"
    state = m.state_at(2)
    assert state.latest_eval is None and state.history == () and state.progress is None
    assert m.eval_rows[row.ref].summary["interrupted"]
