"""Following a live session: a real file appended by a real writer while the console watches."""
from __future__ import annotations

import json
import time

import pytest

from budgets import within
from synthetic_session import T0
from console_helpers import fixed_clock, make_app, screen_text, wait_for, wait_loaded
from sessions.inbox import Inbox

pytestmark = pytest.mark.anyio
SIZE = (120, 36)


async def test_new_events_appear_and_the_tail_is_followed(live):
    app = make_app(live.paths, clock=lambda: live.last_t + 5)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        screen, t = app.screen, app.screen.transcript
        assert screen.view_state.status == "running" and "● running" in screen_text(app)
        rows = t.row_count
        live.append_more(40)
        await wait_for(pilot, lambda: t.row_count > rows + 5)
        await wait_for(pilot, lambda: len(screen.model) == live.writer.next_seq)
        assert t.follow and t.cursor == t.row_count - 1
        assert t.scroll_offset.y == t.max_scroll_y


async def test_reading_away_counts_new_rows_until_end(live):
    app = make_app(live.paths, clock=lambda: live.last_t + 5)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        t = app.screen.transcript
        await pilot.press("up", "up", "up")
        cursor, top = t.cursor, t.scroll_offset.y
        assert not t.follow
        live.append_more(30)
        await wait_for(pilot, lambda: t.new_rows > 0)
        assert t.cursor == cursor and t.scroll_offset.y == top  # the reader's place is kept
        marker = t.render_line(t.scrollable_content_region.height - 1).text
        assert f"{t.new_rows} new row" in marker and "End to follow" in marker
        await pilot.press("end")
        assert t.follow and t.new_rows == 0 and t.cursor == t.row_count - 1
        assert "new row" not in t.render_line(t.scrollable_content_region.height - 1).text


async def test_a_sent_question_is_shown_waiting_then_delivered(live):
    app = make_app(live.paths, clock=lambda: live.last_t + 5)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        screen = app.screen
        dp = screen.view_state.decision
        assert dp is not None
        await pilot.press("1")
        await pilot.pause()
        assert [p.text for p in screen.view_state.posted] == [screen.suggestions[0][1]]
        assert "waiting for the runner" in screen_text(app)
        [event] = live.acknowledge_all()  # the runner delivers it at its next turn boundary
        assert event["decision_point"] == dp.seq and event["context"]["eval"] is not None
        await wait_for(pilot, lambda: not screen.view_state.posted)
        assert screen.view_state.answer is not None and screen.view_state.answer.inbox_id == event["inbox_id"]
        await wait_for(pilot, lambda: "waiting for the runner" not in screen_text(app))
        assert any("delivered ✓" in n.message for n in app._notifications)
        text = screen_text(app)
        assert "✉ answered (bank " in text  # the dock says how it was answered
        assert "YOU · bank" in text  # and the message stands out in the transcript
        live.append_more(3)
        await wait_for(pilot, lambda: screen.view_state.decision is None)  # answered: the dock closes


async def test_messages_from_another_console_show_in_the_dock(live):
    app = make_app(live.paths, clock=lambda: live.last_t + 5)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        Inbox(live.paths.root).post("Is that win noise?", source="free")
        await wait_for(pilot, lambda: bool(app.screen.view_state.posted), timeout=5)
        assert "(another console)" in screen_text(app)


async def test_status_is_running_waiting_then_lost(live):
    now = [live.last_t + 5]
    app = make_app(live.paths, clock=lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        screen = app.screen
        assert screen.view_state.status == "running"
        assert screen.view_state.now - screen.view_state.started == pytest.approx(live.last_t + 5 - T0)
        now[0] += 300
        await wait_for(pilot, lambda: screen.view_state.status == "waiting", timeout=5)
        live.close()
        await wait_for(pilot, lambda: screen.view_state.status == "lost", timeout=5)  # as the fleet says
        assert "■ lost" in screen_text(app)


async def _keys_while_streaming(live) -> float:
    """Press keys while 2,000 events a second stream in; returns the slowest key's time."""
    app = make_app(live.paths, clock=fixed_clock())
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        t = app.screen.transcript
        worst = 0.0
        for i in range(10):
            live.append_more(200)
            before = t.cursor
            start = time.perf_counter()
            await pilot.press("up" if i % 2 else "down")
            worst = max(worst, time.perf_counter() - start)
            assert t.cursor != before or t.cursor in (0, t.row_count - 1)  # the key was handled
            await pilot.pause(0.1)
        await wait_for(pilot, lambda: len(app.screen.model) == live.writer.next_seq)
        # all shown: at the next sync (a flood's come twice a second)
        await wait_for(pilot, lambda: t.row_count == len(app.screen.model.rows), timeout=2.0)
    return worst


async def test_keys_are_answered_while_a_fast_log_streams_in(live):
    """A smaller cousin of the benchmark: 2,000 events/s while keys are pressed; all shown."""
    await _keys_while_streaming(live)


@pytest.mark.bench
async def test_keys_stay_prompt_while_a_fast_log_streams_in(live):
    worst = await _keys_while_streaming(live)
    assert worst < within(0.5), f"a key took {worst:.3f}s"


async def test_a_malformed_line_is_skipped_and_the_rest_still_shown(live):
    app = make_app(live.paths)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        n = len(app.screen.model)
        with open(live.paths.events, "a") as f:
            f.write("{not json\n")
        live.append_more(5)
        await wait_for(pilot, lambda: len(app.screen.model) == n + 5)
        assert json.loads(live.paths.events.read_text().splitlines()[-1])["seq"] == live.writer.next_seq - 1


async def test_a_followed_log_without_its_own_decision_points_gets_them_as_it_grows(tmp_path):
    """An imported session being followed: the points the detectors find come with the new
    events (console.decisions on the live path), the same as in a replay of it."""
    from sessions.layout import SessionPaths
    from sessions.log import SessionWriter

    sp = SessionPaths(tmp_path / "imported")
    sp.root.mkdir()
    with SessionWriter(sp.events, fsync_types=frozenset()) as w:
        app = make_app(sp)
        async with app.run_test(size=SIZE) as pilot:
            await wait_loaded(pilot)
            screen = app.screen
            assert len(screen.model) == 0
            w.append("session_start", task="attention-cpu", goal={"min_geomean": 1.5},
                     **{"import": {"format": "claude-code", "source": "x.jsonl"}})
            w.append("assistant_text", text="I think the kernel is done: it beats the seed on every scenario.")
            await wait_for(pilot, lambda: len(screen.model.decisions) >= 1)
            kinds = [d.kind for d in screen.model.decisions]
            assert "start" in kinds
            assert all(screen.model.store.get(d.ei).get("derived") for d in screen.model.decisions)


async def test_a_flood_of_evaluations_redraws_the_panel_at_most_twice_a_second_and_ends_on_the_last(live):
    """Evaluations finishing many times a second (a flood) do not redraw the panel's plot and
    table at each one (a redraw is time a key waits), yet the panel never stays on a stale
    evaluation: the last one is shown whole (verdict and plot agree) within half a second."""
    from console.widgets.evalpanel import EvalPanel

    app = make_app(live.paths, clock=lambda: live.last_t + 5)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_loaded(pilot)
        screen = app.screen
        panel = screen.query_one(EvalPanel)
        drawn: list[int] = []  # the history length each drawn plot had
        plot = panel._plot
        panel._plot = lambda state, width: drawn.append(len(state.history)) or plot(state, width)
        evals_before = len(screen.model.evals)
        start = time.monotonic()
        while time.monotonic() - start < 1.5:  # ~an evaluation every 40 events: 20+ of them
            live.append_more(40)
            await pilot.pause(0.05)
        await wait_for(pilot, lambda: len(screen.model) == live.writer.next_seq)
        elapsed = time.monotonic() - start
        flood = len(screen.model.evals) - evals_before
        assert flood >= 15
        assert len(drawn) <= elapsed / 0.5 + 2, (len(drawn), flood)
        last = screen.model.evals[-1]
        await wait_for(pilot, lambda: drawn and drawn[-1] == len(screen.model.evals), timeout=2.0)
        assert panel.text.startswith(f"#{last.n} ")
        assert f"{len(screen.model.evals)} evals" in panel.text  # the plot's caption: the same one
