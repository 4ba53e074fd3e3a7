"""`kernelseek console` and `kernelseek replay` from the command line, and replaying a foreign
transcript through the importers."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from console.app import ConsoleApp
from console_helpers import fixed_bank, wait_loaded
from console.store import searchable
from sessions.events import EVENT_TYPES

TRANSCRIPT = Path(__file__).resolve().parents[3] / "shared" / "data" / "transcripts" / "claude-code" / \
    "vsla-cuda-toolkit-setup.jsonl"


def ks(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "console", *args], capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize("cmd", [["console", "/no/such/session"], ["replay", "/no/such/session"],
                                 ["console", "no-such-name"]])
def test_a_missing_session_is_one_line_and_exit_2(cmd, tmp_path):
    r = ks(*cmd, "--sessions-dir", str(tmp_path))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "error" in r.stderr and "Traceback" not in r.stderr


def test_replay_rejects_a_bad_speed(session):
    r = ks("replay", str(session.root), "--speed", "0")
    assert r.returncode == 2 and "--speed must be positive" in r.stderr


def test_a_directory_that_is_not_a_session(tmp_path):
    r = ks("console", str(tmp_path))
    assert r.returncode == 2 and "not a session" in r.stderr


@pytest.mark.anyio
@pytest.mark.skipif(not TRANSCRIPT.exists(), reason="the shared transcripts are not here")
async def test_a_claude_code_transcript_replays():
    pytest.importorskip("sessions.importers")
    app = ConsoleApp.for_transcript(TRANSCRIPT, bank=fixed_bank(), clock=lambda: 0.0)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(pilot)
        screen = app.screen
        assert screen.mode == "replay" and len(screen.model) > 10 and screen.model.rows
        kinds = {r.kind for r in screen.model.rows}
        assert "tool" in kinds and "human" in kinds  # the user's prompts are human messages
        await pilot.press("h")
        assert screen.model.rows[screen.transcript.cursor].kind == "human"
        await pilot.press("slash", *"nvcc", "enter")
        row = screen.model.rows[screen.transcript.cursor]
        found = searchable(screen.model.store.get(row.ei))
        if row.ei2 >= 0:
            found += searchable(screen.model.store.get(row.ei2))
        assert "nvcc" in found


@pytest.mark.anyio
async def test_live_ranking_from_the_real_bank_when_a_decision_point_has_no_suggestions(tmp_path):
    pytest.importorskip("questions")
    from synthetic_session import synthetic_events, write_events
    from sessions.layout import SessionPaths

    sp = SessionPaths(tmp_path / "bare")
    events = list(synthetic_events(8, dp_every=0, end=False))
    events.append({"v": 1, "seq": len(events), "t": events[-1]["t"] + 1, "type": "decision_point",
                   "kind": "limit_claim", "evidence": "memory bandwidth is saturated"})
    write_events(sp.events, events)
    app = ConsoleApp(sp, mode="live", clock=lambda: 0.0)  # the real bank, ranked live
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        suggestions = app.screen.suggestions
        assert 1 <= len(suggestions) <= 9
        entries = {e.id: e for e in app.screen.bank.load()}
        assert all("limit_claim" in entries[i].triggers for i, _ in suggestions)
        await pilot.press("b")
        assert app.screen.shown[0].id == suggestions[0][0]  # the browser lists the ranked first


def test_every_event_type_makes_a_row_or_folds_into_one():
    from console.model import NO_ROW, ROW_HANDLERS, SessionModel

    assert set(EVENT_TYPES) <= set(ROW_HANDLERS) | NO_ROW | {"eval_progress"}
    assert SessionModel  # imported for the handler table


ALL_TRANSCRIPTS = sorted(TRANSCRIPT.parent.parent.glob("*/*.jsonl")) if TRANSCRIPT.exists() else []


@pytest.mark.anyio
@pytest.mark.skipif(not ALL_TRANSCRIPTS, reason="the shared transcripts are not here")
@pytest.mark.parametrize("path", ALL_TRANSCRIPTS, ids=[p.stem for p in ALL_TRANSCRIPTS])
async def test_every_shared_transcript_replays(path):
    from sessions.importers import load_transcript

    result = load_transcript(path)
    app = ConsoleApp.for_transcript(path, bank=fixed_bank(), clock=lambda: 0.0)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        screen = app.screen
        derived = sum(1 for i in range(len(screen.model)) if screen.model.store.get(i).get("derived"))
        assert len(screen.model) - derived == len(result.events)  # every imported event is in the replay
        humans = [e for e in result.events if e["type"] == "human_message"]
        assert len(screen.model.humans) == len(humans)
        await pilot.press("end")
        await pilot.pause()
        assert screen.position == len(screen.model) - 1
        await pilot.press("home", "h")
        await pilot.pause()
        if humans:
            assert screen.model.rows[screen.transcript.cursor].kind == "human"
