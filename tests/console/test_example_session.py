"""The bundled example session that `kernelseek start` replays without an API key.

It was recorded by tools/record_example.py: a scripted model driving the real runner and the
real evaluator on attention-cpu. These tests hold it to that: a well-formed log that says how it
was made, decision points the detectors still find when run again, questions that exist in the
bank, real reports, a final kernel that the evaluator passes today, and a console that replays it.
"""
from __future__ import annotations

import json

import pytest

from console.commands.start import EXAMPLE
from console_helpers import make_app, screen_text, wait_loaded
from sessions.inbox import Inbox
from sessions.layout import SessionPaths
from sessions.log import read_events


@pytest.fixture(scope="module")
def log():
    result = read_events(EXAMPLE / "events.jsonl")
    assert not result.malformed and not result.torn_tail
    return result.events


def of(events, kind):
    return [e for e in events if e["type"] == kind]


def test_it_says_how_it_was_made_and_ends_with_the_goal_met(log):
    start = log[0]
    assert start["type"] == "session_start" and start["task"] == "attention-cpu"
    assert start["agent"] == "kernelseek" and start["model"] == "scripted-demo"
    assert "scripted model" in start["note"] and "real runner and evaluator" in start["note"]
    assert [e["seq"] for e in log] == list(range(len(log)))
    (end,) = of(log, "session_end")
    assert end["reason"] == "goal_met" and log[-1] is end
    final = of(log, "stop_check")[-1]
    assert final["goal_met"] is True and final["summary"]["geomean"] >= start["goal"]["min_geomean"]


def test_decision_points_are_what_the_detectors_find_again(log):
    from questions.detectors import detect

    logged = [(e["kind"], e["about_seq"]) for e in of(log, "decision_point")]
    assert {"start", "suspicious_win", "correctness_break", "regression", "limit_claim",
            "completion_claim"} <= {k for k, _ in logged}
    again = [(dp.kind, dp.about_seq) for dp in detect(log)]
    assert again == logged


def test_every_question_came_from_the_bank_through_the_inbox(log):
    from questions import load_bank

    bank = load_bank()
    humans = of(log, "human_message")
    assert len(humans) >= 6
    posted = {m.id: m for m in Inbox(EXAMPLE).messages()}
    for h in humans:
        assert h["source"] == "autopilot" and bank.get(h["bank_id"]).text == h["text"]
        assert h["inbox_id"] in posted and posted[h["inbox_id"]].text == h["text"]
        assert h["context"]["decision_point"]["kind"]  # logged with its context


def test_reports_are_real_and_the_final_kernel_passes_the_evaluator_today(log):
    from evaluator import evaluate_isolated

    for ev in of(log, "eval_result"):
        report = json.loads((EXAMPLE / ev["report"]).read_text())
        assert report["schema"] == "kernelseek.eval/1" and report["geomean"] == pytest.approx(
            ev["summary"]["geomean"], abs=1e-3)
    fails = [e for e in of(log, "eval_result") if not e["summary"]["all_correct"]]
    assert fails and all(s.startswith(("gqa", "mqa")) for e in fails for s in e["summary"]["failing"])
    report = evaluate_isolated("attention-cpu", EXAMPLE / "workspace" / "candidate.c", timing=False, seed=7)
    assert report.all_correct and report.passed == report.total == 8


@pytest.mark.anyio
async def test_it_replays_in_the_console_from_the_first_event():
    app = make_app(SessionPaths(EXAMPLE), mode="replay")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(pilot)
        await pilot.pause()
        screen = app.screen
        # the session as it was at its first event: its start, nothing after it
        assert screen.position == 0 and "session attention-cpu" in screen_text(app)
        assert "START" not in screen_text(app) and "evaluation #1" not in screen_text(app)
        await pilot.press("d")
        await pilot.pause()
        assert screen.view_state.decision is not None
        for _ in range(8):
            await pilot.press("d")
        await pilot.pause()
        assert screen.position > 0 and "COMPLETION CLAIM" in screen_text(app)
