"""One detection path: replaying any log shows, and d/D steps through, exactly the decision points
`kernelseek detect` prints for it. One Pilot test per kind of log: a Claude Code transcript, a
Codex rollout (both shared real transcripts), a session made by `kernelseek import`, and a
session our runner wrote (the bundled example, which carries its own points).
"""
from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from console.app import ConsoleApp
from console.cli import main as kernelseek
from console_helpers import fixed_bank, wait_loaded
from sessions.layout import SessionPaths

ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPTS = ROOT.parent / "shared" / "data" / "transcripts"
CLAUDE = TRANSCRIPTS / "claude-code" / "vsla-cuda-gpu-benchmark-steering.jsonl"
CODEX = TRANSCRIPTS / "codex" / "agentv-eval-results-layout-design.jsonl"
EXAMPLE = ROOT / "console" / "examples" / "attention-cpu"
needs_transcripts = pytest.mark.skipif(not CLAUDE.is_file() or not CODEX.is_file(),
                                       reason=f"the shared transcripts are not at {TRANSCRIPTS}")


def detect_json(source: Path) -> list[dict]:
    out = io.StringIO()
    with redirect_stdout(out):
        assert kernelseek(["detect", str(source), "--json"]) == 0
    return json.loads(out.getvalue())["decision_points"]


def key(d: dict) -> tuple:
    return d["kind"], d["about_seq"], d.get("count", 1)


async def step_through(app, expected: list[dict]) -> int:
    """From the top, d visits every point in order and no other; D walks them back. Returns how
    many of the events on screen the console derived (points it made for a log that had none)."""
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        screen = app.screen
        model = screen.model
        shown = [(r.kind, r.about_seq, r.count) for r in model.decisions]
        assert shown == [key(d) for d in expected]  # the same points, in the same order, grown the same
        seen = []
        for _ in range(len(expected) + 1):
            before = screen.transcript.cursor
            await pilot.press("d")
            await pilot.pause()
            row = model.rows[screen.transcript.cursor]
            if screen.transcript.cursor == before or row.kind != "decision":
                break
            rec = model.decisions[row.ref]
            seen.append((rec.kind, rec.about_seq, rec.count))
        # the first point (start) sits on row 0, where a replay opens: d goes on from there
        assert [s for s in shown if s not in seen] in ([], shown[:1])
        assert seen == [s for s in shown if s in seen] and len(seen) >= len(shown) - 1
        back = []
        for _ in range(len(expected) + 1):
            before = screen.transcript.cursor
            await pilot.press("D")
            await pilot.pause()
            if screen.transcript.cursor == before:
                break
            row = model.rows[screen.transcript.cursor]
            rec = model.decisions[row.ref]
            back.append((rec.kind, rec.about_seq, rec.count))
        assert back == list(reversed(shown))[1:]  # from the last one back to the first
        return sum(1 for i in range(len(model)) if model.store.get(i).get("derived"))


@needs_transcripts
@pytest.mark.anyio
async def test_a_claude_code_transcript_replays_with_the_points_detect_prints():
    expected = detect_json(CLAUDE)
    assert len(expected) >= 10 and {"agent_question", "risky_action", "suspicious_win"} <= {d["kind"] for d in expected}
    derived = await step_through(ConsoleApp.for_transcript(CLAUDE, bank=fixed_bank(), clock=lambda: 0.0), expected)
    assert derived >= len(expected)  # made here (points and their updates): the transcript had none


@needs_transcripts
@pytest.mark.anyio
async def test_a_codex_rollout_replays_with_the_points_detect_prints():
    expected = detect_json(CODEX)
    assert len(expected) >= 3
    await step_through(ConsoleApp.for_transcript(CODEX, bank=fixed_bank(), clock=lambda: 0.0), expected)


@needs_transcripts
@pytest.mark.anyio
async def test_an_imported_session_replays_with_the_points_detect_prints(tmp_path):
    target = tmp_path / "imported"
    assert kernelseek(["import", "claude-code", str(CLAUDE), "--out", str(target)]) == 0
    expected = detect_json(target)
    assert key(expected[1]) == key(detect_json(CLAUDE)[1])  # importing changes nothing detect sees
    app = ConsoleApp(SessionPaths(target), mode="replay", bank=fixed_bank(), clock=lambda: 0.0)
    await step_through(app, expected)


@pytest.mark.anyio
async def test_a_session_our_runner_wrote_shows_its_own_points_which_detect_finds_again():
    expected = detect_json(EXAMPLE)
    logged = [json.loads(line) for line in (EXAMPLE / "events.jsonl").read_text().splitlines()]
    logged = [e for e in logged if e["type"] == "decision_point"]
    assert [(e["kind"], e["about_seq"]) for e in logged] == [(d["kind"], d["about_seq"]) for d in expected]
    app = ConsoleApp(SessionPaths(EXAMPLE), mode="replay", bank=fixed_bank(), clock=lambda: 0.0)
    assert await step_through(app, expected) == 0  # the runner's own points, none made up


@pytest.mark.anyio
async def test_a_transcript_followed_live_gains_its_points_as_it_grows(tmp_path):
    """The points come with the events as a log is followed (incrementally), not after the fact:
    a session imported without points and appended to while the console follows it."""
    import asyncio

    from sessions.log import SessionWriter

    paths = SessionPaths(tmp_path / "s")
    paths.root.mkdir()
    w = SessionWriter(paths.events, fsync_types=frozenset())
    w.append("session_start", task="k", agent="codex", **{"import": {"format": "codex"}})
    w.append("human_message", text="make it fast", source="imported", kind="message")
    app = ConsoleApp(paths, mode="live", bank=fixed_bank(), clock=lambda: 0.0, force_polling=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        model = app.screen.model
        assert [d.kind for d in model.decisions] == ["start"]
        w.append("tool_call", id="c1", name="exec_command", input={"cmd": "make"})
        w.append("tool_result", id="c1", output="ok")
        w.append("assistant_text", text="Built. Which variant should I keep, A or B?")
        w.append("human_message", text="B", source="imported", kind="message")
        for _ in range(100):
            await pilot.pause(0.05)
            if len(model.decisions) == 2:
                break
        assert [d.kind for d in model.decisions] == ["start", "agent_question"]
        q = model.decisions[1]
        human = model.humans[-1]
        assert q.ei < human.ei  # the question is shown before the answer it got
        await asyncio.sleep(0)
    w.close()
