"""Bad or moving logs are never silent: malformed lines are named, a file that is not a log is
refused with its reason, a followed log truncated or renamed is said and followed on, and a log
still being read says so while End, d and the timeline wait for the rest."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest

from console.source import Batch, MemorySource
from synthetic_session import synthetic_events, write_synthetic_session
from console_helpers import LiveSession, make_app, screen_text, wait_for, wait_loaded

pytestmark = pytest.mark.anyio


async def test_malformed_lines_are_named_with_their_line_numbers(tmp_path):
    sp = write_synthetic_session(tmp_path / "s", 20)
    lines = sp.events.read_bytes().split(b"\n")
    lines[2] = b'{"v": 1, "seq": 2, "type": "tool_call", "inp'  # cut short
    lines[6] = b"\x00\x01 not json at all"
    sp.events.write_bytes(b"\n".join(lines))
    app = make_app(sp, "replay")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(pilot)
        (notice,) = app.screen.notices
        assert "2 malformed lines skipped (lines 3, 7)" in notice and str(sp.events) in notice
        assert len(app.screen.model) == len(lines) - 1 - 2  # the rest is all there


def kernelseek(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "console", *args], capture_output=True, text=True,
                          timeout=60, cwd=cwd, env={**os.environ, "COLUMNS": "80"})


@pytest.mark.parametrize("command", ["replay", "console"])
def test_random_bytes_are_refused_with_the_reason(tmp_path, command):
    session = tmp_path / "s"
    session.mkdir()
    (session / "events.jsonl").write_bytes(os.urandom(4000) + b"\n" + os.urandom(4000))
    done = kernelseek(command, str(session))
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert "not a KernelSeek session log" in line and "events.jsonl" in line


def test_text_that_is_not_a_log_is_refused_and_a_file_of_bytes_too(tmp_path):
    session = tmp_path / "notes"
    session.mkdir()
    (session / "events.jsonl").write_text("These are my notes.\nNot a log at all.\n")
    done = kernelseek("replay", str(session))
    assert done.returncode == 2
    assert "none of its first 2 line(s) is an event (line 1: not JSON" in done.stderr
    blob = tmp_path / "blob.bin"
    blob.write_bytes(os.urandom(5000))
    done = kernelseek("replay", str(blob))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


def _truncate(paths) -> None:
    """Someone empties the log; the runner's next lines land in the empty file."""
    with open(paths.events, "r+b") as f:
        f.truncate(0)


def _rename(paths) -> None:
    """Someone moves the log away while its runner still appends to it."""
    paths.events.rename(paths.root / "events.moved.jsonl")


@pytest.mark.parametrize("move, said", [(_truncate, "was truncated"), (_rename, "was moved or deleted")],
                         ids=["truncated", "renamed"])
async def test_a_followed_log_truncated_or_renamed_is_said_and_followed_on(live, move, said):
    app = make_app(live.paths)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(pilot)
        screen = app.screen
        before = len(screen.model)
        move(live.paths)
        live.append_more(3)
        await wait_for(pilot, lambda: len(screen.model) == before + 3)
        assert any(said in n for n in screen.notices)
        assert any(said in str(n.message) for n in app._notifications)  # said on screen, not only kept
        assert len(list(screen.model.seqs)) == len(set(screen.model.seqs))  # nothing shown twice


class GatedSource(MemorySource):
    """A transcript read in slices that wait for the test: a 'large' log still being read."""

    def __init__(self, events: list[dict]) -> None:
        super().__init__(events, label="gated")
        self.gate = threading.Event()
        self.first = threading.Event()

    def backlog(self):
        step = 50
        for i in range(0, len(self._events), step):
            self._given = i + step
            yield Batch(self._events[i:i + step])
            self.first.set()
            deadline = time.monotonic() + 20
            while not self.gate.is_set() and time.monotonic() < deadline:
                time.sleep(0.02)  # a slow disk: nothing more yet (the console reads on)
                yield Batch([])


async def test_a_large_replay_says_it_is_reading_and_end_and_d_wait_for_it():
    events = list(synthetic_events(60, dp_every=25))
    source = GatedSource(events)
    app = make_app(source, "replay")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: source.first.is_set() and len(screen.model.rows) > 0)
        await pilot.pause(0.2)
        assert not screen.loaded
        assert "reading the log" in screen_text(app).splitlines()[0]
        await pilot.press("end")
        await wait_for(pilot, lambda: any("still reading the log" in str(n.message) for n in app._notifications))
        assert screen._when_loaded
        source.gate.set()
        await wait_loaded(pilot)
        await pilot.pause()
        t = screen.transcript
        assert t.cursor == len(screen.model.rows) - 1  # End went to the end of the whole log
        assert "reading the log" not in screen_text(app).splitlines()[0]
    # d: the first decision point lies beyond the first slice; d waits for it
    source = GatedSource(events)
    app = make_app(source, "replay")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: source.first.is_set() and len(screen.model.rows) > 0)
        assert not screen.model.decisions
        await pilot.press("d")
        source.gate.set()
        await wait_loaded(pilot)
        await pilot.pause()
        assert screen.transcript.cursor == screen.model.decisions[0].row


def test_a_session_log_with_only_a_long_first_line_is_not_refused(tmp_path):
    from sessions.log import not_a_log

    path = tmp_path / "events.jsonl"
    path.write_text(json.dumps({"v": 1, "seq": 0, "t": 1.0, "type": "tool_result", "output": "x" * 200_000}) + "\n")
    assert not_a_log(path) is None
    path.write_text("")
    assert not_a_log(path) is None  # empty: a session about to start


async def test_a_torn_inbox_line_is_said_in_the_console(tmp_path):
    s = LiveSession(tmp_path / "live", n_tool_calls=10, dp_every=0, human_every=0)
    s.write()
    try:
        (s.paths.root / "inbox.jsonl").write_bytes(b'{"type":"inbox","id":"m1","text":"half a ques')
        app = make_app(s.paths)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_loaded(pilot)
            screen = app.screen
            msg = screen.post_question("What does the profile say?", source="free")
            await wait_for(pilot, lambda: any("inbox.jsonl:1" in n for n in screen.notices), timeout=5)
            assert any("will not be delivered" in n for n in screen.notices)
            assert [p.inbox_id for p in screen.view_state.posted] == [msg.id]
    finally:
        s.close()
