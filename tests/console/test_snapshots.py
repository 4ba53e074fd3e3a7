"""What the steerer sees, pinned: the live screen, a decision point with its dock, the bank browser
and replay, each at 80x24 and 160x48. Logs are synthetic with fixed timestamps and the clock is
injected, so nothing here depends on when the tests run. Update with --snapshot-update after
looking at the new pictures (snapshot_report.html)."""
from __future__ import annotations

import pytest

from synthetic_session import write_synthetic_session
from console_helpers import LiveSession, make_app, wait_loaded

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")]


def _quiet_inputs(pilot) -> None:
    from textual.widgets import Input

    for box in pilot.app.screen.query(Input):
        box.cursor_blink = False


@pytest.fixture
def running(tmp_path):
    """A running session (the writer holds the lock) in the middle of an evaluation."""
    s = LiveSession(tmp_path / "running", n_tool_calls=58, dp_every=0, human_every=0)
    s.write()
    from synthetic_session import synthetic_events

    # the next evaluation, up to its second progress step
    for ev in synthetic_events(70, dp_every=0, human_every=0, end=False):
        if ev["seq"] < s.writer.next_seq:
            continue
        s.write_event(ev)
        if ev["type"] == "eval_progress" and ev["done"] == 4:
            break
    yield s
    s.close()


@pytest.mark.parametrize("size", SIZES)
def test_live_screen(snap_compare, running, size):
    app = make_app(running.paths, clock=lambda: running.last_t + 4)
    assert snap_compare(app, terminal_size=size, run_before=wait_loaded)


@pytest.mark.parametrize("size", SIZES)
def test_decision_point_with_its_dock(snap_compare, deciding, size):
    app = make_app(deciding.paths, clock=lambda: deciding.last_t + 4)
    assert snap_compare(app, terminal_size=size, run_before=wait_loaded)


@pytest.mark.parametrize("size", SIZES)
def test_bank_browser(snap_compare, deciding, size):
    app = make_app(deciding.paths, clock=lambda: deciding.last_t + 4)

    async def open_bank(pilot):
        await wait_loaded(pilot)
        await pilot.press("b")
        await pilot.pause()
        _quiet_inputs(pilot)
        await pilot.press(*"measure")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=open_bank)


@pytest.mark.parametrize("size", SIZES)
def test_replay_at_a_decision_point(snap_compare, tmp_path, size):
    sp = write_synthetic_session(tmp_path / "replayed", 140)
    app = make_app(sp, "replay")

    async def to_second_decision(pilot):
        await wait_loaded(pilot)
        await pilot.press("d", "d", "down")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=to_second_decision)


def test_replay_with_an_edit_expanded_as_a_diff(snap_compare, tmp_path):
    sp = write_synthetic_session(tmp_path / "replayed", 40)
    app = make_app(sp, "replay")

    async def expand_an_edit(pilot):
        await wait_loaded(pilot)
        screen = pilot.app.screen
        edit = next(i for i, r in enumerate(screen.model.rows)
                    if r.title.startswith("edit_file") and i > 6)
        for _ in range(edit):
            await pilot.press("down")
        await pilot.press("enter")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(160, 48), run_before=expand_an_edit)
