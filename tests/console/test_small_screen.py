"""The console on an 80x24 terminal over SSH: the transcript keeps most of the screen whatever is
open, the evaluator is a line (its panel opens over the transcript), the keys are an overlay,
the footer keeps the palette's key, the cursor row shows in a monochrome terminal, a replay shows
the session as it was at the playhead, and a search says how many matches and which one."""
from __future__ import annotations

import pytest
from rich.segment import Segment
from textual.filter import NoColor

from console.screens.keys import KeysScreen
from synthetic_session import write_synthetic_session
from console.widgets.dock import QuestionDock
from console.widgets.evalpanel import EvalLine, EvalPanel
from console_helpers import LiveSession, fixed_bank, make_app, screen_text, wait_for, wait_loaded

pytestmark = pytest.mark.anyio
SMALL = (80, 24)


def transcript_share(app) -> float:
    """The part of the terminal the transcript occupies and nothing covers."""
    t = app.screen.transcript
    covered = 0
    panel = app.screen.query_one(EvalPanel)
    if panel.display and panel.has_class("-over"):
        covered = panel.region.intersection(t.region).area
    return (t.region.area - covered) / (app.size.width * app.size.height)


async def test_the_transcript_keeps_sixty_percent_of_80x24_with_a_decision_point_open(deciding):
    app = make_app(deciding.paths, clock=lambda: deciding.last_t + 4)
    async with app.run_test(size=SMALL) as pilot:
        await wait_loaded(pilot)
        screen = app.screen
        assert screen.view_state.decision is not None
        dock = screen.query_one(QuestionDock)
        assert dock.display and dock.region.height <= 4
        assert transcript_share(app) >= 0.6
        screen.post_question("What does the profile say?", source="free")  # one waiting message
        await pilot.pause()
        assert dock.region.height <= 4 and transcript_share(app) >= 0.6
        await pilot.press("slash")  # and the search line
        await pilot.pause()
        assert transcript_share(app) >= 0.6


async def test_the_evaluator_is_one_line_at_80_columns_and_e_opens_it_over_the_transcript(deciding):
    app = make_app(deciding.paths, clock=lambda: deciding.last_t + 4)
    async with app.run_test(size=SMALL) as pilot:
        await wait_loaded(pilot)
        screen = app.screen
        line, panel, t = screen.query_one(EvalLine), screen.query_one(EvalPanel), screen.transcript
        latest = screen.view_state.latest_eval
        assert line.display and line.region.height == 1 and not panel.display
        assert f"#{latest.n} " in screen_text(app).splitlines()[1] and "e details" in screen_text(app)
        assert t.region.width == 80
        await pilot.press("e")
        await pilot.pause()
        assert panel.display and t.region.width == 80  # over the transcript, not beside it
        assert panel.region.intersection(t.region).area > 0
        assert "geomean" in panel.text and "b1-h16-s512-d64" in panel.text
        await pilot.press("escape")
        await pilot.pause()
        assert not panel.display


async def test_a_wide_terminal_shows_the_panel_beside_only_once_there_is_an_evaluation(tmp_path):
    s = LiveSession(tmp_path / "young", n_tool_calls=30, dp_every=0, human_every=0)
    s.write(6)  # the start and a few tool calls, no evaluation yet
    try:
        app = make_app(s.paths, clock=lambda: s.last_t + 4)
        async with app.run_test(size=(160, 48)) as pilot:
            await wait_loaded(pilot)
            screen = app.screen
            panel, line = screen.query_one(EvalPanel), screen.query_one(EvalLine)
            assert not panel.display and line.display and "no evaluation yet" in screen_text(app)
            assert screen.transcript.region.width == 160
            s.write()  # the rest, evaluations included
            await wait_for(pilot, lambda: panel.display)
            assert not line.display and screen.transcript.region.width < 110
    finally:
        s.close()


async def test_keys_are_an_overlay_and_the_footer_keeps_the_palette_key(deciding):
    app = make_app(deciding.paths, clock=lambda: deciding.last_t + 4)
    async with app.run_test(size=SMALL) as pilot:
        await wait_loaded(pilot)
        footer = screen_text(app).splitlines()[-1]
        assert "^p palette" in footer and "? keys" in footer and "^q quit" in footer
        width = app.screen.transcript.region.width
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, KeysScreen)
        shown = screen_text(app)
        assert "Send the decision point's question with that number" in shown and "1-9" in shown
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.transcript.region.width == width == 80


async def test_the_cursor_row_is_marked_and_reversed_even_without_colour(deciding, monkeypatch):
    app = make_app(deciding.paths, clock=lambda: deciding.last_t + 4)
    async with app.run_test(size=SMALL) as pilot:
        await wait_loaded(pilot)
        await pilot.press("up", "up", "up")
        await pilot.pause()
        t = app.screen.transcript
        plain = NoColor()
        lines = []
        for y in range(t.size.height):
            segments = plain.apply(list(t.render_line(y)), None)
            lines.append((Segment.get_line_length(segments), segments))
        marked = [y for y, (_, segs) in enumerate(lines) if "".join(s.text for s in segs).startswith("▶")]
        assert len(marked) == 1
        y = marked[0]
        assert t.row_at_line(t.scroll_offset.y + y) == t.cursor
        cursor_segs = [s for s in lines[y][1] if s.text.strip()]
        assert cursor_segs and all(s.style and s.style.reverse for s in cursor_segs)
        others = [s for yy, (_, segs) in enumerate(lines) if yy != y and t.row_at_line(t.scroll_offset.y + yy) != t.cursor
                  for s in segs if s.text.strip()]
        assert others and not any(s.style and s.style.reverse for s in others)


async def test_a_replay_shows_the_session_as_it_was_at_the_playhead(tmp_path):
    sp = write_synthetic_session(tmp_path / "r", 40, dp_every=15)
    app = make_app(sp, "replay")
    async with app.run_test(size=SMALL) as pilot:
        await wait_loaded(pilot)
        screen, t = app.screen, app.screen.transcript
        text = screen_text(app)
        assert "evaluation #" not in text and "no evaluation yet" in text and "more rows after" in text
        assert t.line_count == t._heights[0]
        await pilot.press("d")
        await pilot.pause()
        cursor = t.cursor
        assert screen.model.rows[cursor].kind == "decision"
        # the playhead stays in view when the dock opens under it (the transcript got shorter)
        lines = screen_text(app).splitlines()
        assert any(line.startswith("▶◆") for line in lines) and any("more rows after" in line for line in lines)
        # nothing after the playhead is drawn, and the evaluator says what it said then
        assert t.line_count == t._ends[cursor]
        shown_evals = [e for e in screen.model.evals if e.row <= cursor]
        latest = screen.view_state.latest_eval
        assert latest is (shown_evals[-1] if shown_evals else None)
        later = next(e for e in screen.model.evals if e.row > cursor)
        assert f"evaluation #{later.n}:" not in screen_text(app)
        # a tool row whose result comes after the replay position shows as still running
        call = next(r for r, row in enumerate(screen.model.rows) if row.kind == "tool" and row.ei2 > row.ei + 1
                    and r > cursor)
        row = screen.model.rows[call]
        screen.set_position(row.ei)
        await pilot.pause()
        assert t.cursor == call
        line = t.render_line(t.row_start(call) - t.scroll_offset.y).text
        assert line.rstrip().endswith("…") and "✓" not in line
        screen.set_position(row.ei2)
        await pilot.pause()
        line = t.render_line(t.row_start(call) - t.scroll_offset.y).text
        assert line.rstrip()[-1] in "✓✗"


async def test_search_says_how_many_and_which_and_leaves_the_footer(tmp_path):
    sp = write_synthetic_session(tmp_path / "r", 60)
    app = make_app(sp, "replay")
    async with app.run_test(size=SMALL) as pilot:
        await wait_loaded(pilot)
        screen, t = app.screen, app.screen.transcript
        await pilot.press("slash", *"perf stat", "enter")
        await wait_for(pilot, lambda: not screen._search_counting)
        expected = sum(1 for row in screen.model.rows if "perf stat" in row.title)
        lines = screen_text(app).splitlines()
        assert f"match 1 of {expected}" in lines[-2] and "^p palette" in lines[-1]
        # the match is highlighted on the cursor row (underlined: visible without colour too)
        y = t.row_start(t.cursor) - t.scroll_offset.y
        segs = [s for s in t.render_line(y) if "perf stat" in s.text.lower()]
        assert segs and all(s.style.underline for s in segs)
        await pilot.press("slash", *"no such words", "enter")  # the last query is selected: replaced
        await wait_for(pilot, lambda: not screen._search_counting)
        assert "no match for 'no such words'" in screen_text(app).splitlines()[-2]


async def test_the_bank_browser_says_when_the_preset_trigger_hides_every_match(deciding):
    from textual.widgets import Select

    app = make_app(deciding.paths, clock=lambda: deciding.last_t + 4, bank=fixed_bank())
    async with app.run_test(size=SMALL) as pilot:
        await wait_loaded(pilot)
        kind = app.screen.view_state.decision.kind
        await pilot.press("b")
        await pilot.pause()
        browser = app.screen
        assert browser.query_one("#bank-trigger", Select).value == kind
        await pilot.press(*"launch overhead")  # a question whose triggers do not include this kind
        await pilot.pause()
        title = str(browser.query_one("#bank-title").render())
        assert "0 of 6" in title and f"trigger {kind.replace('_', ' ')}" in title
        assert "1 match without it: ^r clears" in title
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert len(browser.shown) == 1 and "only" not in str(browser.query_one("#bank-title").render())
