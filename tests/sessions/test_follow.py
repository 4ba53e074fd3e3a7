"""The follower on a real file being appended by another thread, with inotify and polling."""
from __future__ import annotations

import json
import threading
import time

import pytest

from bench_sessions import FOLLOW_P50_LINE_S, FOLLOW_P99_TARGET_S, follow_latency
from budgets import within
from sessions.follow import LogFollower
from sessions.log import SessionWriter

MODES = [pytest.param(False, id="notify"), pytest.param(True, id="polling")]


def collect(follower: LogFollower, stop: threading.Event, sink: list):
    for batch in follower.follow(stop):
        sink.extend(batch)


def record_reads(follower: LogFollower, path) -> list[tuple[int, int]]:
    """(the file's size when a read began, the events it returned) for each of the follower's reads:
    what the follower saw, so that a test can wait for a read instead of sleeping."""
    reads: list[tuple[int, int]] = []
    original = follower.reader.read

    def read(*args, **kw):
        size = path.stat().st_size if path.exists() else -1
        result = original(*args, **kw)
        reads.append((size, len(result.events)))
        return result
    follower.reader.read = read
    return reads


def wait_for(pred, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.005)
    return False


@pytest.mark.parametrize("force_polling", MODES)
def test_a_line_appended_in_two_writes_appears_once_and_whole(tmp_path, force_polling):
    path = tmp_path / "events.jsonl"
    path.write_text(json.dumps({"v": 1, "seq": 0, "t": 1.0, "type": "session_start", "task": "t"}) + "\n")
    follower = LogFollower(path, force_polling=force_polling)
    reads = record_reads(follower, path)
    got: list[dict] = []
    stop = threading.Event()
    th = threading.Thread(target=collect, args=(follower, stop, got), daemon=True)
    th.start()
    try:
        assert wait_for(lambda: len(got) == 1)
        text = json.dumps({"v": 1, "seq": 1, "t": 2.0, "type": "assistant_text",
                           "text": "half of me, then the other half"}) + "\n"
        with open(path, "a") as f:
            f.write(text[:25])
            f.flush()
            half = path.stat().st_size
            # the follower wakes on this write (or its idle check) and reads the half line ...
            assert wait_for(lambda: any(size == half for size, _ in reads))
            assert [n for size, n in reads if size == half and n] == [] and len(got) == 1  # ... emitting nothing
            f.write(text[25:])
        assert wait_for(lambda: len(got) == 2)
        whole = len(reads)
        assert wait_for(lambda: len(reads) > whole + 1)  # it read again (its idle check) ...
        assert [n for _, n in reads[whole:]] == [0] * len(reads[whole:]) and len(got) == 2  # ... and found nothing new
        assert got[1]["text"] == "half of me, then the other half"
        assert not follower.malformed
    finally:
        stop.set()
        th.join(5)
    assert follower.mode == ("polling" if force_polling else "notify")


@pytest.mark.parametrize("force_polling", MODES)
def test_a_log_created_after_the_follower_is_followed_whole_and_in_order(tmp_path, force_polling):
    """Bursts and pauses into a file that does not exist when following starts (raises on a lost
    or reordered event); the latency budget is the bench test below."""
    figures = follow_latency(tmp_path / "events.jsonl", force_polling, n=60)
    assert figures["n"] == 60 and figures["mode"] == ("polling" if force_polling else "notify")


@pytest.mark.bench
@pytest.mark.parametrize("force_polling", MODES)
def test_follower_latency_p99_under_100ms(tmp_path, force_polling):
    figures = follow_latency(tmp_path / "events.jsonl", force_polling)
    print(f"\n{figures}")
    assert figures["p99_ms"] <= within(FOLLOW_P99_TARGET_S) * 1000, figures
    assert figures["p50_ms"] <= within(FOLLOW_P50_LINE_S) * 1000, figures  # a regression line


def test_follower_falls_back_to_polling_when_notifications_fail(tmp_path, monkeypatch):
    import watchfiles

    def broken_watch(*a, **k):
        raise OSError("inotify watch limit reached")
        yield  # pragma: no cover

    monkeypatch.setattr(watchfiles, "watch", broken_watch)
    path = tmp_path / "events.jsonl"
    follower = LogFollower(path, force_polling=False)
    got: list[dict] = []
    stop = threading.Event()
    th = threading.Thread(target=collect, args=(follower, stop, got), daemon=True)
    th.start()
    try:
        with SessionWriter(path) as w:
            w.append("session_start", task="t")
        assert wait_for(lambda: len(got) == 1)
    finally:
        stop.set()
        th.join(5)
    assert follower.mode == "polling"


def _line(seq: int, text: str = "") -> str:
    return json.dumps({"v": 1, "seq": seq, "t": 1.0 + seq, "type": "assistant_text", "text": text or f"e{seq}"}) + "\n"


class Followed:
    """A follower running in a thread, collecting events and notices."""

    def __init__(self, path, force_polling: bool) -> None:
        self.follower = LogFollower(path, force_polling=force_polling)
        self.got: list[dict] = []
        self.stop = threading.Event()
        self.th = threading.Thread(target=collect, args=(self.follower, self.stop, self.got), daemon=True)
        self.th.start()

    def texts(self) -> list[str]:
        return [e["text"] for e in self.got]

    def close(self) -> None:
        self.stop.set()
        self.th.join(5)


@pytest.mark.parametrize("force_polling", MODES)
def test_a_truncated_log_is_said_and_read_again_from_its_start(tmp_path, force_polling):
    path = tmp_path / "events.jsonl"
    path.write_text(_line(0) + _line(1) + _line(2))
    f = Followed(path, force_polling)
    try:
        assert wait_for(lambda: len(f.got) == 3)
        path.write_text(_line(0, "again"))  # truncated and rewritten shorter
        assert wait_for(lambda: f.texts()[-1:] == ["again"])
        (notice,) = f.follower.notices
        assert "was truncated" in notice and "reading it again from its start" in notice
        assert f.follower.reader.generation == 1
    finally:
        f.close()


@pytest.mark.parametrize("force_polling", MODES)
def test_a_log_renamed_under_its_writer_is_followed_where_it_went(tmp_path, force_polling):
    path = tmp_path / "events.jsonl"
    f = Followed(path, force_polling)
    try:
        with SessionWriter(path) as w:
            w.append("assistant_text", text="before")
            assert wait_for(lambda: f.texts() == ["before"])
            path.rename(tmp_path / "events.old.jsonl")
            w.append("assistant_text", text="after the rename")
            assert wait_for(lambda: f.texts() == ["before", "after the rename"])
        assert any("was moved or deleted" in n for n in f.follower.notices)
    finally:
        f.close()


@pytest.mark.parametrize("force_polling", MODES)
def test_a_log_replaced_by_another_file_is_said_and_the_new_one_read(tmp_path, force_polling):
    path = tmp_path / "events.jsonl"
    path.write_text(_line(0) + _line(1))
    f = Followed(path, force_polling)
    try:
        assert wait_for(lambda: len(f.got) == 2)
        new = tmp_path / "new.jsonl"
        new.write_text(_line(0, "new0") + _line(1, "new1") + _line(2, "new2"))
        new.replace(path)
        assert wait_for(lambda: f.texts()[-3:] == ["new0", "new1", "new2"])
        assert any("was replaced by another file" in n for n in f.follower.notices)
    finally:
        f.close()
