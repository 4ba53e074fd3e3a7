"""Safety of display: escape sequences and markup in session text are shown, never interpreted."""
from __future__ import annotations

import pytest
from rich.console import Console
from rich.text import Text

from console.safe_text import clean, clean_line, safe_text
from console_helpers import make_app, screen_text, wait_loaded
from synthetic_session import T0
from console.store import FileEventStore
from sessions.layout import SessionPaths
from sessions.log import SessionWriter

NASTY = ("\x1b[2J\x1b[31mred\x1b[0m \x1b]0;pwned\x07 \x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\ "
         "\x9b31m c1-csi \x90dcs\x9c [bold red]markup[/] [link=http://x]l[/link] "
         "\u202eevil\u202c \u2066iso\u2069 zero\u200bwidth \x07bell \x08bs \x00nul \x7fdel")


@pytest.mark.parametrize("bad", ["\x1b", "\x9b", "\x90", "\x9c", "\x07", "\x00", "\x7f", "\x08",
                                 "\u202e", "\u202d", "\u2066", "\u2069", "\u200b", "\u200f",
                                 "\u061c", "\ufeff", "\u2028", "\ud800"])
def test_no_control_bidi_or_zero_width_character_survives(bad):
    out = clean(f"a{bad}b")
    assert bad not in out
    assert out.startswith("a") and out.endswith("b") and len(out) > 2  # shown, not dropped


def test_escape_sequences_read_as_text():
    out = clean(NASTY)
    assert "␛[2J" in out and "␛[31mred" in out and "␛]0;pwned␇" in out
    assert "⟨U+009B⟩31m" in out and "⟨U+202E⟩evil" in out
    assert all(not (0 <= ord(c) < 32 and c not in "\n") and not (0x7F <= ord(c) <= 0x9F) for c in out)


def test_markup_is_literal_text():
    t = safe_text("[bold red]markup[/] :smile:")
    assert t.plain == "[bold red]markup[/] :smile:"
    assert not t.spans
    console = Console(width=80, color_system=None, force_terminal=False, file=None)
    with console.capture() as cap:
        console.print(t)
    assert "[bold red]markup[/]" in cap.get()


def test_plain_text_passes_unchanged_and_lines_fold():
    assert clean("for (int i = 0; i < n; ++i) x[i] = 0;") == "for (int i = 0; i < n; ++i) x[i] = 0;"
    assert clean("a\tb\r\nc\rd") == "a   b\nc␍d"
    assert clean_line("a\n  b\n\nc") == "a b c"
    assert clean(None) == "" and clean(3) == "3"


def _write_nasty_session(root) -> SessionPaths:
    sp = SessionPaths(root)
    root.mkdir()
    sp.evals.mkdir()
    t = T0
    events = [
        ("session_start", {"task": f"task {NASTY}", "model": NASTY, "goal": {"min_geomean": 1.2}}),
        ("assistant_text", {"text": f"prose {NASTY}"}),
        ("tool_call", {"id": "c1", "name": f"run{NASTY}", "input": {"command": f"echo {NASTY}"}}),
        ("tool_result", {"id": "c1", "output": f"out {NASTY}", "is_error": False}),
        ("eval_result", {"summary": {"geomean": 1.01, "all_correct": True, "passed": 1, "total": 1,
                                     "flags": [NASTY], "reasons": [NASTY],
                                     "scenarios": [{"name": f"sc {NASTY}", "correct": True, "ratio": 1.01}]}}),
        ("decision_point", {"kind": "stall", "evidence": f"evidence {NASTY}",
                            "suggestions": [{"id": "x", "text": f"question {NASTY}"}]}),
        ("mystery_type", {"payload": NASTY}),
    ]
    with SessionWriter(sp.events) as w:
        for i, (kind, fields) in enumerate(events):
            w.write_event({"v": 1, "seq": i, "t": t + i, "type": kind, **fields})
    return sp


@pytest.mark.anyio
async def test_the_console_shows_hostile_text_literally(tmp_path):
    sp = _write_nasty_session(tmp_path / "nasty")
    app = make_app(sp, "live")
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_loaded(pilot)
        transcript = app.screen.transcript
        for r in range(transcript.row_count):  # expanded too: input, output, JSON of unknown types
            transcript.toggle_expand(r)
        await pilot.pause()
        lines = [transcript.render_line(y) for y in range(transcript.size.height)]
        shown = "\n".join(s.text for s in lines)
        for strip in lines:
            for seg in strip:
                assert "\x1b" not in seg.text and "\x9b" not in seg.text and "\u202e" not in seg.text
        assert "␛[2J" in shown and "[bold red]markup[/]" in shown and "⟨U+202E⟩evil" in shown
        screen = screen_text(app)  # the header, the evaluator panel and the dock as well
        assert "\x1b" not in screen and "\u202e" not in screen and "\x9b" not in screen
        assert screen.count("[bold red]markup[/]") >= 4 and "␛]0;pwned␇" in screen


def test_search_store_reads_escaped_text(tmp_path):
    sp = _write_nasty_session(tmp_path / "nasty")
    store = FileEventStore(sp.events)
    from console.store import IndexedLogReader

    r = IndexedLogReader(sp.events)
    r.read()
    store.add_spans(r.span_start, r.span_len)
    assert store.search("[bold red]markup", 0) == 0
    assert store.search("evidence", 0) == 5
    assert isinstance(safe_text(store.get(1)["text"]), Text)
