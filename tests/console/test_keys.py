"""Every key binding of the console, pressed through the Pilot on the real app."""
from __future__ import annotations

import json

import pytest
from textual.widgets import Input, OptionList

from console.palette import screen_commands
from console.screens.ask import AskScreen
from console.screens.bank_browser import BankBrowser
from console.screens.session import COMMON_BINDINGS, LiveScreen, ReplayScreen
from synthetic_session import T0, synthetic_events, write_events
from console.widgets.dock import QuestionDock
from console.widgets.evalpanel import EvalPanel
from console.widgets.transcript import Transcript
from console_helpers import make_app, screen_text, wait_for, wait_loaded
from sessions.layout import SessionPaths

pytestmark = pytest.mark.anyio
SIZE = (120, 40)
NINE = [{"id": f"q{i}", "text": f"Question number {i}: what does the profile say?"} for i in range(1, 10)]


@pytest.fixture
def nine(tmp_path) -> SessionPaths:
    """A stopped session ending on an open decision point with nine suggested questions."""
    sp = SessionPaths(tmp_path / "nine")
    sp.evals.mkdir(parents=True)
    events = list(synthetic_events(25, dp_every=0, end=False))
    events.append({"v": 1, "seq": len(events), "t": events[-1]["t"] + 1, "type": "decision_point",
                   "kind": "limit_claim", "evidence": "the agent says bandwidth is saturated",
                   "about_seq": len(events) - 2, "suggestions": NINE})
    write_events(sp.events, events)
    return sp


def inbox_lines(sp: SessionPaths) -> list[dict]:
    if not sp.inbox.exists():
        return []
    return [json.loads(line) for line in sp.inbox.read_text().splitlines() if line.strip()]


# -- live: steering --------------------------------------------------------------------------


async def test_each_digit_sends_its_question_with_its_context(nine):
    app = make_app(nine)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        dp = app.screen.view_state.decision
        assert dp is not None and len(app.screen.suggestions) == 9
        for n in range(1, 10):
            await pilot.press(str(n))
            await pilot.pause()
            msg = inbox_lines(nine)[-1]
            assert len(inbox_lines(nine)) == n
            assert msg["text"] == NINE[n - 1]["text"] and msg["source"] == "bank"
            assert msg["bank_id"] == f"q{n}" and msg["decision_point"] == dp.seq
            ctx = msg["context"]
            assert ctx["decision_point"]["kind"] == "limit_claim" and ctx["bank_id"] == f"q{n}"
            assert ctx["eval"]["geomean"] == app.screen.view_state.latest_eval.summary["geomean"]
        assert "waiting for the runner" in screen_text(app)


async def test_digit_without_such_a_question_sends_nothing(small_session):
    app = make_app(small_session)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        assert len(app.screen.suggestions) == 4
        await pilot.press("9")
        await pilot.pause()
        assert inbox_lines(small_session) == []


async def test_q_asks_a_free_form_question(small_session):
    app = make_app(small_session)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        dp = app.screen.view_state.decision
        await pilot.press("q")
        assert isinstance(app.screen, AskScreen)
        await pilot.press(*"why is b4 slow?")
        await pilot.press("enter")
        await pilot.pause()
        [msg] = inbox_lines(small_session)
        assert msg["text"] == "why is b4 slow?" and msg["source"] == "free" and msg["bank_id"] is None
        assert msg["decision_point"] == dp.seq and msg["context"]["decision_point"]["seq"] == dp.seq
        await pilot.press("q", "x", "escape")  # escape cancels: nothing more is sent
        await pilot.pause()
        assert len(inbox_lines(small_session)) == 1 and not isinstance(app.screen, AskScreen)


async def test_b_opens_the_bank_browser_that_searches_filters_and_sends(small_session):
    app = make_app(small_session)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        kind = app.screen.view_state.decision.kind
        await pilot.press("b")
        browser = app.screen
        assert isinstance(browser, BankBrowser)
        assert all(kind in e.triggers for e in browser.shown)  # filtered to the open decision's kind
        await pilot.press("ctrl+t")  # next trigger
        assert browser._value("#bank-trigger") != kind
        for _ in range(8):  # back round to "any trigger"
            if browser._value("#bank-trigger") is None:
                break
            await pilot.press("ctrl+t")
        assert len(browser.shown) == len(browser.entries) == 6
        await pilot.press("ctrl+l")  # first layer
        layer = browser._value("#bank-layer")
        assert layer and all(layer in e.layers for e in browser.shown)
        await pilot.press("ctrl+l", "ctrl+l", "ctrl+l", "ctrl+l", "ctrl+l")  # five layers
        assert browser._value("#bank-layer") is None
        await pilot.press(*"cold L2")
        await pilot.pause()
        assert [e.id for e in browser.shown] == ["verify-win"]
        await pilot.press("backspace", "backspace", "backspace", "backspace", "backspace", "backspace",
                          "backspace", *"scenario")
        await pilot.pause()
        assert len(browser.shown) == 2
        await pilot.press("down")
        assert browser.query_one(OptionList).highlighted == 1
        await pilot.press("up", "enter")
        await pilot.pause()
        [msg] = inbox_lines(small_session)
        assert msg["source"] == "bank" and msg["bank_id"] == browser.shown[0].id
        await pilot.press("b", "escape")
        assert not isinstance(app.screen, BankBrowser) and len(inbox_lines(small_session)) == 1


async def test_x_dismisses_the_decision_point(small_session):
    app = make_app(small_session)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        dock = app.screen.query_one(QuestionDock)
        assert dock.display and app.screen.view_state.decision is not None
        await pilot.press("x")
        await pilot.pause()
        assert app.screen.view_state.decision is None and not dock.display
        await pilot.press("1")
        assert inbox_lines(small_session) == []


# -- navigation (live and replay share these) -------------------------------------------------


async def test_d_and_h_jump_between_decision_points_and_human_messages(session):
    app = make_app(session, "replay")
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        screen, t = app.screen, app.screen.transcript
        dps, humans = screen.model.decision_rows, screen.model.human_rows
        assert len(dps) >= 2 and humans
        await pilot.press("d")
        assert t.cursor == dps[0] and screen.view_state.decision.row == dps[0]
        await pilot.press("d")
        assert t.cursor == dps[1]
        await pilot.press("D")
        assert t.cursor == dps[0]
        await pilot.press("h")
        assert t.cursor == humans[0] and screen.view_state.answer is not None
        await pilot.press("H")
        assert t.cursor == humans[0]  # none before it: stays
        await pilot.press("end", "D")
        assert t.cursor == dps[-1]


async def test_slash_searches_and_n_N_move_between_matches(session):
    app = make_app(session, "replay")
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        screen, t = app.screen, app.screen.transcript
        box = screen.query_one("#search", Input)
        bar = screen.query_one("#searchbar")
        assert not bar.display
        await pilot.press("slash")
        assert bar.display and box.has_focus
        await pilot.press(*"perf stat", "enter")
        await wait_for(pilot, lambda: not screen._search_counting)
        first = t.cursor
        assert t.has_focus and t.search == "perf stat"
        assert "perf stat" in screen.model.rows[first].title
        # the count, and where the cursor is among the matches, stay on the search line
        matches = [r for r, row in enumerate(screen.model.rows) if "perf stat" in row.title]
        status = str(screen.query_one("#search-status").render())
        assert status.startswith(f"match 1 of {len(matches)}"), status
        await pilot.press("n")
        second = t.cursor
        assert second > first and "perf stat" in screen.model.rows[second].title
        assert screen.search_status().startswith(f"match 2 of {len(matches)}")
        await pilot.press("N")
        assert t.cursor == first
        shown = [t.render_line(y).text for y in range(t.size.height)]
        assert any("perf stat" in line for line in shown)
        await pilot.press("escape")
        assert t.search == "" and not bar.display


async def test_e_hides_and_shows_the_evaluator_panel(session):
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        panel = app.screen.query_one(EvalPanel)
        width = app.screen.transcript.size.width
        await pilot.press("e")
        await pilot.pause()
        assert not panel.display and app.screen.transcript.size.width > width
        await pilot.press("e")
        assert panel.display


async def test_enter_expands_and_collapses_the_cursor_row(session):
    app = make_app(session, "replay")
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        t = app.screen.transcript
        tool = next(i for i, r in enumerate(app.screen.model.rows) if r.title.startswith("edit_file"))
        t.set_cursor(tool)
        lines = t.line_count
        await pilot.press("enter")
        await pilot.pause()
        assert t.line_count > lines + 3 and tool in t.expanded
        shown = "\n".join(t.render_line(y).text for y in range(t.size.height))
        assert "input" in shown and "output" in shown and ("+" in shown or "(no change)" in shown)
        await pilot.press("enter")
        assert t.line_count == lines


async def test_cursor_keys_move_and_end_follows_the_tail(session):
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        t: Transcript = app.screen.transcript
        last = t.row_count - 1
        assert t.cursor == last and t.follow  # live: it opens on the tail
        await pilot.press("up")
        assert t.cursor == last - 1 and not t.follow
        await pilot.press("k", "k")
        assert t.cursor == last - 3
        await pilot.press("down", "j")
        assert t.cursor == last - 1
        await pilot.press("pageup")
        assert t.cursor < last - 5
        page_from = t.cursor
        await pilot.press("pagedown")
        assert t.cursor > page_from
        await pilot.press("home")
        assert t.cursor == 0 and t.scroll_offset.y == 0
        await pilot.press("G")
        assert t.cursor == last and t.follow and t.scroll_offset.y == t.max_scroll_y
        await pilot.press("g")
        assert t.cursor == 0
        await pilot.press("end")
        assert t.cursor == last and t.follow
        await pilot.press("ctrl+b")
        assert t.cursor < last
        await pilot.press("ctrl+f")
        assert t.cursor == last


async def test_ctrl_p_palette_lists_every_action_and_ctrl_q_quits(session):
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        commands = screen_commands(app.screen)
        actions = [c.action for c in commands]
        described = {b.action for b in [*LiveScreen.BINDINGS, *Transcript.BINDINGS] if b.description and not b.system}
        assert described <= set(actions)
        assert {b.action for b in ReplayScreen.BINDINGS if b not in COMMON_BINDINGS} & set(actions) == {"bank"}
        # each action once, by what it does (not by its footer label), with all its keys
        assert len(actions) == len(set(actions)) and len({c.title for c in commands}) == len(commands)
        by_action = {c.action: c for c in commands}
        assert by_action["jump('decision', 1)"].title == "Next decision point" and by_action["jump('decision', 1)"].keys == "d"
        assert by_action["send(1)"].keys == "1-9" and not any(c.action == "send(2)" for c in commands)
        assert by_action["cursor(1)"].keys == "↓, j"
        # nothing of Textual's scrolling defaults, and quit once (Textual's own system command)
        assert not any(c.action.startswith("scroll_") for c in commands) and "quit" not in actions
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert app.screen.__class__.__name__ == "CommandPalette"
        await pilot.press(*"previous decision")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, LiveScreen)
        assert app.screen.transcript.cursor in app.screen.model.decision_rows
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0 and not app.is_running


# -- replay ---------------------------------------------------------------------------------------


async def test_space_plays_and_pauses_the_replay(session):
    app = make_app(session, "replay", speed=500)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        screen = app.screen
        assert screen.position == screen.model.pos_of_row(0) and not screen.playing
        await pilot.press("space")
        assert screen.playing
        start = screen.position
        await wait_for(pilot, lambda: screen.position > start + 5, timeout=5)
        await pilot.press("space")
        assert not screen.playing
        stopped_at = screen.position
        await pilot.pause(0.2)
        assert screen.position == stopped_at
        assert screen.transcript.cursor == screen.model.row_at(stopped_at)


async def test_plus_and_minus_change_the_speed(session):
    app = make_app(session, "replay")
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        screen = app.screen
        assert screen.speed == 1.0
        await pilot.press("plus")
        assert screen.speed == 2.0
        await pilot.press("equals_sign", "plus")
        assert screen.speed == 10.0
        await pilot.press("minus")
        assert screen.speed == 5.0
        assert "5×" in screen_text(app)


async def test_arrows_seek_along_the_timeline(session):
    app = make_app(session, "replay")
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        screen = app.screen
        n = len(screen.model)
        start = screen.position
        await pilot.press("shift+right")
        assert screen.position == start + round(0.1 * n)
        at = screen.position
        await pilot.press("right")
        assert screen.position == at + round(0.01 * n)
        await pilot.press("left")
        assert screen.position == at
        await pilot.press("shift+left")
        assert screen.position == start
        # the panel and header show the state as of the cursor
        assert screen.view_state.pos == screen.position
        assert screen.transcript.cursor == screen.model.row_at(screen.position)


async def test_clicking_the_timeline_seeks(session):
    app = make_app(session, "replay")
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        screen = app.screen
        timeline = screen.query_one("#timeline")
        await pilot.click(timeline, offset=(1 + timeline._bar_width() // 2, 1))
        await pilot.pause()
        assert abs(screen.position - len(screen.model) // 2) < len(screen.model) * 0.02


async def test_replay_is_read_only(session):
    app = make_app(session, "replay")
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        await pilot.press("d")
        assert app.screen.view_state.decision is not None
        await pilot.press("1", "q")
        await pilot.pause()
        assert isinstance(app.screen, ReplayScreen)  # q opens nothing in replay
        await pilot.press("b")
        assert isinstance(app.screen, BankBrowser) and app.screen.readonly
        await pilot.press("enter")
        await pilot.pause()
        assert not session.inbox.exists()
        assert "read-only" in screen_text(app)


async def test_moving_the_cursor_in_replay_moves_the_state_shown(session):
    app = make_app(session, "replay")
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        screen = app.screen
        assert screen.view_state.latest_eval is None
        first_eval = screen.model.evals[0].row
        for _ in range(first_eval):
            await pilot.press("down")
        assert screen.view_state.latest_eval is screen.model.evals[0]
        await pilot.press("up")
        assert screen.view_state.latest_eval is None
        assert screen.view_state.now == screen.model.times[screen.position]


async def test_clicking_a_row_selects_it_and_a_second_click_expands_it(session):
    app = make_app(session, "replay")
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        t = app.screen.transcript
        await pilot.press("end")  # the whole session on screen (a replay shows it as of the cursor)
        await pilot.pause()
        r = t.row_at_line(t.scroll_offset.y + 4)
        await pilot.click(t, offset=(5, 4))
        assert t.cursor == r
        await pilot.pause()  # the rows after the playhead are gone; the row stays in view
        y = t.row_start(r) - t.scroll_offset.y
        assert 0 <= y < t.size.height
        await pilot.click(t, offset=(5, y))
        assert r in t.expanded


def test_t0_is_fixed():
    assert T0 == 1764441600.0  # snapshots depend on it


async def test_exclamation_mark_interrupts_with_a_question(small_session):
    app = make_app(small_session)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        await pilot.press("exclamation_mark")
        assert isinstance(app.screen, AskScreen) and app.screen.interrupt
        await pilot.press(*"stop: what does ncu say?", "enter")
        await pilot.pause()
        [msg] = inbox_lines(small_session)
        assert msg["kind"] == "interrupt" and msg["source"] == "free"


async def test_resizing_keeps_the_cursor_row_in_view(session):
    app = make_app(session, "replay")
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_loaded(pilot)
        t = app.screen.transcript
        await pilot.press("d", "d")
        row = t.cursor
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.pause()
        assert t.cursor == row
        top = t.scroll_offset.y
        assert top <= t.row_start(row) < top + t.scrollable_content_region.height
        assert all(t.render_line(y).cell_length == t.scrollable_content_region.width
                   for y in range(t.scrollable_content_region.height))
