"""One definition of a session's best geomean and state, read the same by every viewer.

The session built here is one where the old rules disagreed: an evaluation whose summary does not
say whether it was correct, a quick one in a session whose stop gate judges the full sweep, one
restricted to a subset (`only`), an interrupted one and one with an error. The console header,
`kernelseek sessions`, the fleet row and the runner's own bookkeeping must all show one number.
"""
from __future__ import annotations

import json

import pytest

from sessions.digest import (DigestReader, RunnerView, SessionDigest, counted_geomean, digest_events,
                             session_state)
from sessions.log import SessionWriter
from synthetic_session import event as ev

FULL = {"quick": False}


def disagreeing_session() -> list[dict]:
    return [
        ev(0, "session_start", task="attention-cpu", goal={"min_geomean": 2.0}, agent="kernelseek",
           config={"gate_quick": False, "autopilot": False}, pid=4242, host="node-a"),
        ev(1, "eval_result", summary={"geomean": 1.4, "all_correct": True, **FULL}),  # counts
        ev(2, "eval_result", summary={"geomean": 9.0, **FULL}),  # correctness unknown: the old Summary took it
        ev(3, "eval_result", summary={"geomean": 5.0, "all_correct": True, "quick": True}),  # not the gate's scope
        ev(4, "eval_result", summary={"geomean": 6.0, "all_correct": True, "only": "gqa", **FULL}),  # a subset
        ev(5, "eval_result", summary={"geomean": 7.0, "all_correct": False, "best_geomean": 7.0, **FULL}),
        ev(6, "eval_result", summary={"interrupted": True, "best_geomean": 8.0}, interrupted=True),
        ev(7, "eval_result", summary={"geomean": 4.0, "all_correct": True, "error": "timed out", **FULL}),
        ev(8, "eval_result", summary={"geomean": 1.6, "all_correct": True, **FULL}),  # counts: the best
    ]


def test_only_whole_correct_evaluations_of_the_gates_scope_count():
    assert counted_geomean({"summary": {"geomean": 1.5, "all_correct": True}}) == 1.5
    assert counted_geomean({"summary": {"geomean": 1.5}}) is None
    assert counted_geomean({"summary": {"geomean": 1.5}, "inferred": True}) == 1.5  # a foreign log's claim
    assert counted_geomean({"summary": {"geomean": 1.5, "all_correct": False}, "inferred": True}) is None
    assert counted_geomean({"summary": {"geomean": 1.5, "all_correct": True, "quick": True}}) is None
    assert counted_geomean({"summary": {"geomean": 1.5, "all_correct": True, "quick": True}}, gate_quick=True) == 1.5
    assert counted_geomean({"summary": {"geomean": 1.5, "all_correct": True}}, gate_quick=True) is None
    assert counted_geomean({"summary": {"geomean": 1.5, "all_correct": True, "only": "x"}}) is None
    assert counted_geomean({"geomean": 1.5, "all_correct": True}) == 1.5  # a bare summary (the runner's)


def test_every_viewer_shows_one_best_geomean_for_a_session_where_the_old_rules_disagreed(tmp_path, monkeypatch):
    from agent.evaluation import Evaluations
    from sessions.layout import SessionPaths
    from console.commands import sessions as sessions_cmd
    from console.model import SessionModel
    from console.sessions_view import session_row

    events = disagreeing_session()
    root = tmp_path / "sessions"
    sp = root / "s1"
    sp.mkdir(parents=True)
    with SessionWriter(sp / "events.jsonl") as w:
        for e in events:
            w.write_event(e)

    digest = DigestReader(sp)
    digest.refresh()
    assert digest.digest.best_geomean == 1.6

    model = SessionModel()  # the console header's source
    model.store.extend(events)
    model.add(events)
    assert model.state_at().best_geomean == 1.6

    runner_side = Evaluations(task=None, paths=SessionPaths(sp), emit=None, gate_quick=False)
    for e in events:
        runner_side.note_result(e)
    assert runner_side.best_geomean == 1.6

    assert session_row("s1", str(sp), digest.digest).best == 1.6

    args = type("A", (), {"sessions_dir": str(root), "json": True})()
    import io
    import sys

    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert sessions_cmd.run(args) == 0
    (row,) = json.loads(out.getvalue())
    assert row["best"] == 1.6 and row["goal"] == 2.0 and row["where"] == "pid 4242 on node-a"


def test_the_digest_reads_a_log_at_the_speed_of_reading_it_and_agrees_with_a_full_parse(tmp_path):
    from synthetic_session import write_synthetic_session

    sp = write_synthetic_session(tmp_path / "s", 300, dp_every=40, human_every=80, end=False)
    fast = DigestReader(sp.root)
    fast.refresh()
    slow = digest_events(json.loads(line) for line in sp.events.read_text().splitlines())
    for name in ("task", "best_geomean", "events", "last_seq", "last_t", "evals", "human_messages",
                 "input_tokens", "output_tokens", "cost_usd", "ended"):
        assert getattr(fast.digest, name) == getattr(slow, name), name
    assert fast.digest.history == slow.history
    assert (fast.digest.decision is None) == (slow.decision is None)
    # appended events are folded incrementally
    before = fast.digest.events
    with SessionWriter(sp.events) as w:
        w.append("session_end", reason="stopped", by="stop_request", inbox_id="m1")
    assert fast.refresh() and fast.digest.events == before + 1
    assert fast.digest.ended == "stopped" and fast.digest.end_by == "stop_request" and "m1" in fast.digest.delivered


def test_an_open_decision_point_or_a_question_from_the_agent_needs_you_until_answered():
    d = SessionDigest()
    d.add(ev(0, "session_start", task="t"))
    d.add(ev(1, "decision_point", kind="stall", evidence="flat", suggestions=[{"id": "a", "text": "Why?"}]))
    assert d.needs_you and d.decision.kind == "stall" and d.needs_since == 1001.0
    d.add(ev(1, "decision_point", kind="loop", evidence="again"))  # another alarm: the same wait
    assert d.decision.kind == "loop" and d.needs_since == 1001.0
    d.add(ev(2, "human_message", text="Why?", decision_point=1, inbox_id="m1", source="bank"))
    assert not d.needs_you and d.needs_since is None and d.by_source == {"bank": 1}
    d.add(ev(3, "assistant_text", text="Should I try the tiled version or the vectorised one?"))
    assert d.question is None  # not yet: the turn may go on
    d.add(ev(4, "stop_check", goal_met=False, blocked=True))
    assert d.needs_you and d.question.startswith("Should I")
    d.add(ev(5, "human_message", text="tiled", source="free"))
    assert not d.needs_you
    d.add(ev(6, "tool_call", id="q1", name="AskUserQuestion",
             input={"questions": [{"question": "Which layout?", "options": []}]}))
    assert d.question == "Which layout?"
    d.add(ev(7, "tool_result", id="q1", output="row-major"))
    assert d.question is None
    d.add(ev(8, "decision_point", kind="loop", evidence="again"))
    d.add(ev(9, "session_end", reason="max_turns"))
    assert not d.needs_you  # over: nobody can answer it now


@pytest.mark.parametrize("end, view, lock, word", [
    (None, None, True, "running"),
    (None, None, False, "lost"),
    ({"reason": "goal_met"}, None, False, "ended"),
    ({"reason": "stopped", "by": "stop_request", "detail": "stop requested by ann"}, None, False, "stopped"),
    # the runner saw SIGTERM; the scheduler knows it was the time limit
    ({"reason": "stopped", "by": "signal", "detail": "SIGTERM"},
     RunnerView("slurm", "job 9 on n1", False, "9", "TIMEOUT", "TimeLimit"), False, "timeout"),
    # a clean stop through the inbox whose job was then cancelled stays "stopped"
    ({"reason": "stopped", "by": "stop_request"},
     RunnerView("slurm", "job 9 on n1", False, "9", "CANCELLED", None), False, "stopped"),
    (None, RunnerView("slurm", "job 9 on n1", False, "9", "NODE_FAIL", "NodeDown"), False, "node_fail"),
    (None, RunnerView("slurm", "job 9 on n1", False, "9", "COMPLETED", None, exit_code="0:0"), False, "lost"),
    (None, RunnerView("slurm", "job 9", True, "9", "RUNNING", None), False, "running"),
    (None, RunnerView("local", "pid 7 on elsewhere", None), True, "running"),
])
def test_state_from_the_log_and_the_scheduler(end, view, lock, word):
    d = SessionDigest()
    d.add(ev(0, "session_start", task="t"))
    if end:
        d.add(ev(1, "session_end", **end))
    state = session_state(d, view, lock_held=lock)
    assert state.word == word
    if view is not None and view.state in ("TIMEOUT", "NODE_FAIL"):
        assert view.state in state.reason  # the scheduler's reason is shown


def test_a_queued_job_is_queued_and_one_cancelled_before_it_started_says_so():
    d = SessionDigest()
    assert session_state(d, RunnerView("slurm", "job 5", True, "5", "PENDING", "Resources")).word == "queued"
    gone = session_state(d, RunnerView("slurm", "job 5", False, "5", "CANCELLED", None))
    assert gone.word == "cancelled" and "CANCELLED" in gone.reason
