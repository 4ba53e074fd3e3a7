"""What makes opening a long log and following a flood cheap, held to doing the same as the slow
way: slices read through the reader's kept buffer, tool rows titled when read, the footer and
the scrollbar redrawn only when what they show changes, no restyle on focus."""
from __future__ import annotations

import json
import random
from math import ceil
from types import SimpleNamespace

import pytest
from textual.scrollbar import ScrollBarRender

from console.model import SessionModel, ToolCallRow, tool_call_title
from console.store import IndexedLogReader, MemoryEventStore
from console.widgets.footer import Footer
from console.widgets.lines import bar_thumb
from console_helpers import make_app, screen_text, wait_for, wait_loaded
from synthetic_session import synthetic_events, write_events, write_synthetic_session

pytestmark = pytest.mark.anyio


def _read_in_slices(path, max_bytes: int) -> tuple[list[dict], list[int], list[int], int]:
    reader = IndexedLogReader(path, hold=True)
    events, reads = [], 0
    while True:
        got = reader.read(max_bytes=max_bytes)
        reads += 1
        if not got.events and not got.malformed:
            break
        events += got.events
    reader.close()
    return events, list(reader.span_start), list(reader.span_len), reads


def test_slices_read_through_the_kept_buffer_are_the_whole_read(tmp_path):
    """Slices cut anywhere (lines longer than a slice, a torn last line, a file ending within a
    slice) give the events and spans one whole read gives; the torn line waits for its end."""
    path = tmp_path / "events.jsonl"
    events = list(synthetic_events(80, output_bytes=(2000, 20000)))
    events.insert(40, {"v": 1, "seq": 0, "t": events[40]["t"], "type": "runner_note", "text": "x" * 30_000})
    for i, e in enumerate(events):  # (a line longer than most slices, in order)
        e["seq"] = i
    write_events(path, events)
    whole = IndexedLogReader(path)
    expected = (whole.read().events, list(whole.span_start), list(whole.span_len))
    for max_bytes in (4_000, 9_999, 64 << 10, 4 << 20):
        got, starts, lens, reads = _read_in_slices(path, max_bytes)
        assert (got, starts, lens) == expected, max_bytes
        assert max_bytes >= 4 << 20 or reads > 3
    with open(path, "a") as f:  # a torn last line: not an event until it is whole
        f.write('{"v":1,"seq":99999,"t":2.0,"type":"assistant_te')
    reader = IndexedLogReader(path, hold=True)
    while reader.read(max_bytes=9_999).events:
        pass
    assert len(reader.span_start) == len(events) and not reader.malformed
    with open(path, "a") as f:
        f.write('xt","text":"done"}\n')
    assert [e["text"] for e in reader.read(max_bytes=9_999).events] == ["done"]
    reader.close()


class CountingStore(MemoryEventStore):
    def __init__(self, events) -> None:
        super().__init__(events)
        self.gets = 0

    def get(self, index: int) -> dict:
        self.gets += 1
        return super().get(index)


def test_a_tool_row_is_titled_when_read_and_says_what_the_fold_said():
    events = list(synthetic_events(200))
    store = CountingStore(events)
    model = SessionModel(store)
    model.add(events)
    tools = [r for r in model.rows if isinstance(r, ToolCallRow)]
    assert len(tools) == 200 and store.gets == 0  # the fold read no event back
    calls = [e for e in events if e["type"] == "tool_call"]
    assert [r.title for r in tools] == [tool_call_title(e) for e in calls]
    assert store.gets == 200
    assert [r.title for r in tools[:5]] and store.gets == 200  # made once
    assert tool_call_title({"name": "bash\x1b[2J", "input": {"command": "ls\n-la"}}) == "bash␛[2J ls -la"


def test_the_scrollbar_is_redrawn_exactly_when_textual_would_draw_it_differently():
    """`update_bar` skips a redraw when `bar_thumb` is unchanged: the thumb it computes must be
    all that Textual's own drawing depends on."""
    rng = random.Random(5)

    def drawn(size, virtual, window, position):
        w = ceil(window if window < virtual else 0)
        segs = ScrollBarRender.render_bar(size=size, virtual_size=ceil(virtual), window_size=w,
                                          position=position, vertical=True).segments
        return [(s.text, s.style) for s in segs]

    seen: dict[tuple, list] = {}
    for _ in range(3000):
        size = rng.choice((5, 17, 40))
        virtual = rng.choice((size, size + 3, 400, 50_000, rng.randint(1, 100_000)))
        window = size
        position = int(rng.uniform(0, max(0, virtual - window)) * 8) / 8
        bar = SimpleNamespace(size=SimpleNamespace(height=size), window_virtual_size=virtual,
                              window_size=window, position=position)
        key = (size, bar_thumb(bar))
        out = drawn(size, virtual, window, position)
        if key in seen:
            assert seen[key] == out, key
        seen[key] = out
    assert len(seen) > 100


async def test_the_footer_is_built_once_on_open_and_again_when_its_keys_change(tmp_path):
    sp = write_synthetic_session(tmp_path / "s", 30)
    builds = []
    original = Footer.compose

    def compose(self):
        builds.append(1)
        return original(self)

    Footer.compose = compose
    try:
        app = make_app(sp, "replay")
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_loaded(pilot)
            await pilot.pause(0.3)
            first = len(builds)
            assert first <= 2 and "expand" in screen_text(app).splitlines()[-1]  # (the empty one, then the keys)
            await pilot.press("slash")  # the search box's keys: the transcript's go
            await wait_for(pilot, lambda: "expand" not in screen_text(app).splitlines()[-1])
            await pilot.press("escape", "escape")
            await wait_for(pilot, lambda: "expand" in screen_text(app).splitlines()[-1])
            assert len(builds) <= first + 2
    finally:
        Footer.compose = original


async def test_nothing_styles_the_transcript_by_focus(tmp_path):
    """The transcript skips Textual's restyle on focus: hold the stylesheet to that."""
    sp = write_synthetic_session(tmp_path / "s", 5)
    app = make_app(sp, "replay")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(pilot)
        names = {"Transcript", "#transcript", "ScrollView", "ScrollableContainer", "Widget", "*"}
        for rule in app.stylesheet.rules:
            if rule.pseudo_classes & {"focus", "focus-within", "blur"}:
                for selector in rule.selector_set:
                    last = selector.selectors[-1]
                    assert last.name not in names and f"#{last.name}" not in names, selector.css

