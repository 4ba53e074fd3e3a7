"""The bundled Claude Code example (console/examples/attention-cpu-claude-code), and the console
showing a Claude Code session exactly as it shows a native one.

The example was recorded the way the native one was (tools/record_example.py, `record --agent
claude-code`): the same scripted story, told with Claude Code's tools, through the real Claude
Code CLI driven by `kernelseek run --agent claude-code`, the real runner and evaluator, with
autopilot questions at its decision points.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agent_helpers import REPO

sys.path.insert(0, str(REPO / "tests" / "console"))

from console_helpers import make_app, screen_text, wait_loaded  # noqa: E402
from sessions.inbox import Inbox  # noqa: E402
from sessions.layout import SessionPaths  # noqa: E402
from sessions.log import read_events  # noqa: E402

EXAMPLES = REPO / "console" / "examples"
CC = EXAMPLES / "attention-cpu-claude-code"
NATIVE = EXAMPLES / "attention-cpu"


def _log(path: Path) -> list[dict]:
    result = read_events(path / "events.jsonl")
    assert not result.malformed and not result.torn_tail
    return result.events


def of(events, kind):
    return [e for e in events if e["type"] == kind]


def test_it_says_how_it_was_made_and_ends_with_the_goal_met():
    log = _log(CC)
    start = log[0]
    assert start["agent"] == "claude-code" and start["agent_version"] and start["session_id"]
    assert "Claude Code" in start["note"] and "scripted model" in start["note"]
    assert start["sandboxed"] is True and start["recorded_by"] == "kernelseek run"
    assert [e["seq"] for e in log] == list(range(len(log)))
    assert log[-1]["type"] == "session_end" and log[-1]["reason"] == "goal_met"
    final = of(log, "stop_check")[-1]
    assert final["goal_met"] is True and final["summary"]["geomean"] >= start["goal"]["min_geomean"]
    assert {e["name"] for e in of(log, "tool_call")} == {"Read", "Bash", "Edit", "Write"}


def test_its_decision_points_questions_and_reports_hold_as_the_native_ones_do():
    from evaluator import evaluate_isolated
    from questions import load_bank
    from questions.detectors import detect

    log = _log(CC)
    logged = [(e["kind"], e["about_seq"]) for e in of(log, "decision_point")]
    assert [(dp.kind, dp.about_seq) for dp in detect(log)] == logged
    assert {"start", "suspicious_win", "correctness_break", "completion_claim"} <= {k for k, _ in logged}
    bank, posted = load_bank(), {m.id: m for m in Inbox(CC).messages()}
    humans = of(log, "human_message")
    assert len(humans) >= 4
    for h in humans:
        assert h["source"] == "autopilot" and bank.get(h["bank_id"]).text == h["text"]
        assert posted[h["inbox_id"]].text == h["text"]
    for ev in of(log, "eval_result"):
        report = json.loads((CC / ev["report"]).read_text())
        assert report["geomean"] == pytest.approx(ev["summary"]["geomean"], abs=1e-3)
    report = evaluate_isolated("attention-cpu", CC / "workspace" / "candidate.c", timing=False, seed=7)
    assert report.all_correct and report.passed == report.total == 8


def _model(path: Path):
    from console.model import SessionModel
    from console.store import MemoryEventStore

    events = _log(path)
    model = SessionModel(MemoryEventStore(events))
    model.add(events)
    return model, events


def test_the_console_folds_it_into_the_same_rows_as_a_native_session():
    from console.model import DECISION, EVAL, HUMAN, STOP, TOOL
    from console.render import expanded_body

    shapes = {}
    for name, path in (("native", NATIVE), ("claude-code", CC)):
        model, events = _model(path)
        kinds = {r.kind for r in model.rows}
        tools = [r for r in model.rows if r.kind == TOOL]
        assert all(r.status in ("ok", "error") and r.ei2 >= 0 for r in tools), name  # every call answered
        edits = [r for r in tools if model.store.get(r.ei)["name"] in ("edit_file", "Edit")]
        for r in edits:  # an edit expands as a diff of the kernel
            body = expanded_body(r, model, {}, None, 2.0)
            diff = "".join(getattr(p, "plain", "") for p in body.renderables)
            assert any(line.startswith("+") for line in diff.splitlines()), name
        # every evaluation the agent asked for is an evaluator row tied to its tool call
        calls = {e["id"] for e in of(events, "tool_call")}
        asked = [e for e in of(events, "eval_start") if e.get("purpose") != "stop_check"]
        assert asked and all(e["call_id"] in calls for e in asked), name
        assert len(model.evals) == len([e for e in of(events, "eval_result") if not e.get("interrupted")])
        state = model.state_at()
        shapes[name] = (kinds >= {TOOL, EVAL, DECISION, HUMAN, STOP}, len(edits) >= 3, state.best_geomean is not None,
                        state.end_reason, state.unsandboxed)
    assert shapes["claude-code"] == shapes["native"] == (True, True, True, "goal_met", False)


@pytest.mark.anyio
async def test_it_replays_in_the_console_like_the_native_example():
    app = make_app(SessionPaths(CC), mode="replay")
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        await pilot.pause()
        screen = app.screen
        # the session as it was at its first event (a replay shows nothing after the playhead)
        assert screen.position == 0 and "session attention-cpu" in screen_text(app)
        assert "evaluation #" not in screen_text(app)
        for _ in range(6):
            await pilot.press("d")
        await pilot.pause()
        assert screen.view_state.decision is not None and screen.position > 0
        await pilot.press("end")
        await pilot.pause()
        shown = screen_text(app)
        assert "claude-code" in shown and "goal_met" in shown
        assert screen.view_state.latest_eval is not None and screen.view_state.best_geomean >= 2.0
