"""The fleet view, driven by the Pilot on real session directories (synthetic logs written by the
real writer; a running session's writer holds its lock, as a runner's does)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from console.app import ConsoleApp
from synthetic_session import T0, synthetic_events, write_synthetic_session
from console_helpers import LiveSession, fixed_bank, fixed_clock, screen_text, wait_for
from sessions.digest import RunnerView

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")]

# where the runners run, as a launcher would say (no scheduler is asked in these tests)
PLACES = {
    "attn-a": RunnerView("slurm", "job 812_0 on gpu-a1", True, "812_0", "RUNNING", node="gpu-a1", gpus="0"),
    "attn-b": RunnerView("slurm", "job 812_1 on gpu-a1", True, "812_1", "RUNNING", node="gpu-a1", gpus="1"),
    "softmax-c": RunnerView("slurm", "job 812_2 on gpu-a2", True, "812_2", "RUNNING", node="gpu-a2", gpus="0"),
    "attn-timeout": RunnerView("slurm", "job 790 on gpu-a3", False, "790", "TIMEOUT", "TimeLimit", "gpu-a3",
                               exit_code="0:9"),
}


def views(entries):
    return [PLACES.get(sp.name) for sp, _, _ in entries]


class Fleet:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.live: dict[str, LiveSession] = {}

    def running(self, name: str, **kw) -> LiveSession:
        s = LiveSession(self.root / name, **kw)
        s.write()
        self.live[name] = s
        return s

    def close(self) -> None:
        for s in self.live.values():
            s.close()


@pytest.fixture
def fleet(tmp_path, monkeypatch):
    """Six sessions: two need the steerer, one works, three are over (one by the scheduler)."""
    monkeypatch.chdir(tmp_path)  # the header shows the root as given: keep it short and fixed
    root = Path("sessions")
    root.mkdir()
    f = Fleet(root)
    f.running("attn-a", n_tool_calls=60, dp_every=30, human_every=0)  # ends on an open decision point
    f.running("attn-b", n_tool_calls=30, dp_every=15, human_every=0, seed=3)
    f.running("softmax-c", n_tool_calls=44, dp_every=0, human_every=0, task="softmax-cpu")
    write_synthetic_session(root / "attn-done", 50, seed=5)
    write_synthetic_session(root / "attn-timeout", 24, seed=6, end=False)
    write_synthetic_session(root / "attn-lost", 12, seed=9, end=False)
    yield f
    f.close()


def make_fleet_app(root, **kw) -> ConsoleApp:
    kw.setdefault("clock", fixed_clock(T0 + 400))
    return ConsoleApp.for_fleet(root, bank=fixed_bank(), fleet_views=views, **kw)


async def loaded(pilot) -> None:
    await wait_for(pilot, lambda: getattr(pilot.app.screen, "loaded", False))
    await wait_for(pilot, lambda: any(r.where.startswith("job") for r in pilot.app.screen.rows.values()))
    await pilot.pause(0.1)


@pytest.mark.parametrize("size", SIZES)
def test_fleet_view(snap_compare, fleet, size):
    assert snap_compare(make_fleet_app(fleet.root), terminal_size=size, run_before=loaded)


@pytest.mark.anyio
async def test_sessions_are_grouped_by_who_needs_you(fleet):
    app = make_fleet_app(fleet.root)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        screen = app.screen
        groups = [(r.name, r.group, r.state) for r in screen.table.rows]
        # the one waiting longest first
        assert groups[:2] == [("attn-b", "needs you", "running"), ("attn-a", "needs you", "running")]
        assert groups[2] == ("softmax-c", "running", "running")
        ended = {name: state for name, group, state in groups[3:] if group == "ended"}
        assert ended == {"attn-done": "ended", "attn-timeout": "timeout", "attn-lost": "lost"}
        text = screen_text(app)
        assert "needs you (2)" in text and "running (1)" in text and "ended (3)" in text
        assert "job 812_0 on gpu-a1 gpu 0" in text and "TIMEOUT" in text
        assert "◆ 2 need you" in text


@pytest.mark.anyio
async def test_one_key_answers_the_focused_sessions_decision_point_exactly_once(fleet):
    app = make_fleet_app(fleet.root)
    s = fleet.live["attn-a"]
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        screen = app.screen
        await pilot.press("down")
        row = screen.table.current
        assert row.name == "attn-a" and row.decision is not None
        await pilot.press("2")
        await pilot.press("2")  # refused: it was answered from here and waits for the runner
        lines = [json.loads(x) for x in (s.paths.root / "inbox.jsonl").read_text().splitlines()]
        assert len(lines) == 1
        msg = lines[0]
        offered = row.decision.suggestions[1]
        assert (msg["text"], msg["bank_id"], msg["source"]) == (offered["text"], offered["id"], "bank")
        assert msg["decision_point"] == row.decision.seq
        assert msg["context"]["decision_point"]["kind"] == row.decision.kind
        assert msg["context"]["seen_seq"] == row.last_seq
        assert [r.name for r in screen.table.rows if r.group == "needs you"] == ["attn-b"]  # answered
        await wait_for(pilot, lambda: screen.rows["attn-a"].undelivered == 1)
        s.acknowledge_all()  # the runner takes it
        await wait_for(pilot, lambda: screen.rows["attn-a"].undelivered == 0 and screen.rows["attn-a"].group == "running")
        assert "attn-a" not in screen.sent


@pytest.mark.anyio
async def test_enter_opens_the_session_and_f_comes_back(fleet):
    from console.screens.fleet import FleetScreen
    from console.screens.session import LiveScreen

    app = make_fleet_app(fleet.root)
    async with app.run_test(size=(120, 30)) as pilot:
        await loaded(pilot)
        fleet_screen = app.screen
        await pilot.press("down")
        assert fleet_screen.table.current.name == "attn-a"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.loaded)
        assert app.screen.source.paths.name == "attn-a"
        await pilot.press("f")
        await pilot.pause()
        assert app.screen is fleet_screen and isinstance(app.screen, FleetScreen)
        assert fleet_screen.table.current.name == "attn-a"


@pytest.mark.anyio
async def test_from_a_session_f_opens_the_fleet_beside_it_and_escape_returns(fleet):
    from console.screens.fleet import FleetScreen
    from console_helpers import make_app

    app = make_app(fleet.live["softmax-c"].paths, fleet_views=views)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: app.screen.loaded)
        session_screen = app.screen
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen) and app.screen.loaded)
        assert len(app.screen.rows) == 6
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is session_screen


@pytest.mark.anyio
async def test_a_notification_when_another_session_starts_needing_you(fleet):
    app = make_fleet_app(fleet.root)
    s = fleet.live["softmax-c"]
    async with app.run_test(size=(120, 30)) as pilot:
        await loaded(pilot)
        screen = app.screen
        assert not app._notifications
        seq = s.writer.next_seq
        s.writer.append("decision_point", kind="stall", evidence="best geomean flat over 3 evaluations",
                        suggestions=[{"id": "profile-first", "text": "What does a profile say?"}])
        await wait_for(pilot, lambda: screen.rows["softmax-c"].group == "needs you", timeout=5)
        await wait_for(pilot, lambda: any("softmax-c needs you: stall" in n.message for n in app._notifications),
                       timeout=5)
        assert screen.rows["softmax-c"].decision.seq == seq


@pytest.mark.anyio
async def test_q_asks_a_question_of_your_own(fleet):
    app = make_fleet_app(fleet.root)
    async with app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot)
        await pilot.press("down", "down", "q")  # softmax-c: running, nothing open
        await pilot.pause()
        await pilot.press(*"which scenario is slowest?", "enter")
        await pilot.pause()
    (line,) = (fleet.root / "softmax-c" / "inbox.jsonl").read_text().splitlines()
    msg = json.loads(line)
    assert msg["text"] == "which scenario is slowest?" and msg["source"] == "free" and msg["decision_point"] is None


@pytest.mark.anyio
async def test_a_hundred_sessions_all_show(tmp_path):
    root = tmp_path / "sessions"
    for i in range(100):
        write_synthetic_session(root / f"s{i:03d}", 20 + i % 7, seed=i, end=i % 3 == 0, dp_every=8)
    app = make_fleet_app(root)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: app.screen.loaded, timeout=20)
        assert len(app.screen.table.rows) == 100
        assert sum(r.group == "ended" for r in app.screen.table.rows) == 100  # no runner holds any of them
