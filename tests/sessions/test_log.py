"""The session log on real files: whole lines, torn tails, malformed lines, one writer."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from bench_sessions import READ_RATE_TARGET, log_round_trip
from budgets import at_least
from sessions.events import FSYNC_TYPES, validate_event
from sessions.log import LogReader, SessionLockedError, SessionWriter, read_events


def line(seq: int, type_: str = "tool_call", **fields) -> str:
    ev = {"v": 1, "seq": seq, "t": 1700000000.0 + seq, "type": type_, **fields}
    return json.dumps(ev) + "\n"


def test_writer_appends_whole_events_with_seq_and_time(tmp_path):
    path = tmp_path / "events.jsonl"
    with SessionWriter(path) as w:
        w.append("session_start", task="softmax-cpu", model="m")
        w.append("tool_call", id="t1", name="bash", input={"command": "ls\nrm -rf /"})
        w.append("assistant_text", text="multi\nline\ttext \u2603")
    raw = path.read_bytes()
    assert raw.count(b"\n") == 3  # newlines inside text are escaped, one event per line
    events = read_events(path).events
    assert [e["seq"] for e in events] == [0, 1, 2]
    assert events[1]["input"]["command"] == "ls\nrm -rf /"
    assert events[2]["text"].endswith("\u2603")
    assert all(not validate_event(e) for e in events)


def test_non_finite_numbers_are_written_as_valid_json(tmp_path):
    path = tmp_path / "events.jsonl"
    with SessionWriter(path) as w:
        w.append("eval_result", summary={"geomean": float("nan"), "min_ratio": float("inf")})
    raw = path.read_text()
    assert "NaN" not in raw and "Infinity" not in raw
    json.loads(raw, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    assert read_events(path).events[0]["summary"]["geomean"] == "nan"


def test_torn_last_line_is_left_for_the_next_read(tmp_path):
    path = tmp_path / "events.jsonl"
    full = line(2, "assistant_text", text="the third event")
    path.write_text(line(0) + line(1) + full[:17])
    reader = LogReader(path)
    first = reader.read()
    assert [e["seq"] for e in first.events] == [0, 1]
    assert first.torn_tail and not first.malformed
    with open(path, "a") as f:
        f.write(full[17:])
    second = reader.read()
    assert [e["seq"] for e in second.events] == [2]
    assert second.events[0]["text"] == "the third event"
    assert not second.torn_tail and not reader.malformed
    assert reader.read().events == []


def test_malformed_line_is_reported_with_its_number_and_nothing_after_is_lost(tmp_path):
    path = tmp_path / "events.jsonl"
    lines = [line(i) for i in range(4)]
    lines.insert(2, "{this is not json\n")
    lines.insert(4, "[1, 2, 3]\n")
    lines.insert(5, '{"no_type": true}\n')
    lines.insert(6, '{"type": "a"} {"type": "b"}\n')
    lines.append("\n")  # blank lines are harmless
    lines.append(line(4))
    path.write_text("".join(lines))
    result = read_events(path)
    assert [e["seq"] for e in result.events] == [0, 1, 2, 3, 4]
    assert [m.line for m in result.malformed] == [3, 5, 6, 7]
    assert "not JSON" in result.malformed[0].reason
    assert result.malformed[1].reason == "not a JSON object"
    assert result.malformed[2].reason == "no event type"
    assert str(path) in str(result.malformed[0]) and ":3:" in str(result.malformed[0])


def test_unknown_event_types_and_fields_are_kept(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text(line(0, "gpu_temperature", celsius=71, v2_field=[1, 2]))
    ev = read_events(path).events[0]
    assert ev["type"] == "gpu_temperature" and ev["celsius"] == 71 and ev["v2_field"] == [1, 2]
    assert validate_event(ev) == []


def test_reopened_writer_mends_a_torn_tail_and_continues_the_sequence(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text(line(0) + line(1) + '{"v":1,"seq":2,"t":1,"ty')
    with SessionWriter(path) as w:
        assert w.next_seq == 2
        w.append("error", message="runner restarted")
    result = read_events(path)
    assert [e["seq"] for e in result.events] == [0, 1, 2]
    assert result.events[-1]["message"] == "runner restarted"
    assert [m.line for m in result.malformed] == [3]  # the fragment is kept, reported, not merged


def test_durable_events_are_fsynced_and_others_are_not(tmp_path, monkeypatch):
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr("sessions.log.os.fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    with SessionWriter(tmp_path / "events.jsonl") as w:
        for kind in ("session_start", "tool_call", "assistant_text", "human_message",
                     "eval_result", "usage", "session_end"):
            before = len(synced)
            w.append(kind, text="x", summary={}, reason="r", task="t", id="1", name="n", input={})
            assert (len(synced) > before) == (kind in FSYNC_TYPES), kind
    assert FSYNC_TYPES == {"session_start", "human_message", "eval_result", "session_end"}


HOLDER = """
import sys, time
from sessions.log import SessionWriter
w = SessionWriter(sys.argv[1])
w.append("session_start", task="t")
print("ready", flush=True)
time.sleep(60)
"""


def test_a_second_process_cannot_write_the_same_session(tmp_path):
    path = tmp_path / "events.jsonl"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        second = subprocess.run(
            [sys.executable, "-c",
             "import sys\nfrom sessions.log import SessionWriter, SessionLockedError\n"
             "try:\n    SessionWriter(sys.argv[1])\nexcept SessionLockedError as e:\n"
             "    print(e); sys.exit(3)\n", str(path)],
            capture_output=True, text=True, timeout=30)
        assert second.returncode == 3
        assert "already being written by another process" in second.stdout
        assert f"pid {holder.pid}" in second.stdout
        with pytest.raises(SessionLockedError):
            SessionWriter(path)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    # the lock dies with its holder: a resumed runner can take over at once
    with SessionWriter(path) as w:
        assert w.next_seq == 1


def test_twenty_thousand_events_round_trip_whole_and_in_order(tmp_path):
    path = tmp_path / "events.jsonl"
    figures = log_round_trip(path, n=20_000, reads=1)  # raises on a lost, torn or reordered event
    events = read_events(path).events
    assert [e["seq"] for e in events] == list(range(20_000))
    assert events[123]["output"] == "ok " * 3 and events[-1]["id"] == "toolu_00019999"
    assert figures["events"] == 20_000


@pytest.mark.bench
def test_hundred_thousand_events_are_read_back_at_two_hundred_thousand_a_second(tmp_path):
    figures = log_round_trip(tmp_path / "events.jsonl", n=100_000)
    print(f"\n{figures}")
    assert figures["read_per_s"] >= at_least(READ_RATE_TARGET), figures


def test_reading_in_slices_returns_whole_lines_and_loses_nothing(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text("".join(line(i, "assistant_text", text="x" * (i * 37 % 300)) for i in range(200)))
    reader = LogReader(path)
    got, calls = [], 0
    while True:
        batch = reader.read(max_bytes=1000)
        calls += 1
        if not batch.events:
            break
        got.extend(batch.events)
    assert [e["seq"] for e in got] == list(range(200)) and calls > 10
    path.write_text(line(0, "assistant_text", text="y" * 5000))  # one line longer than a slice
    big = LogReader(path).read(max_bytes=100)
    assert len(big.events) == 1 and not big.torn_tail


def test_the_lock_file_names_its_holder(tmp_path):
    from sessions.log import lock_holder_pid

    path = tmp_path / "events.jsonl"
    assert lock_holder_pid(tmp_path / "writer.lock") is None
    with SessionWriter(path) as w:
        assert lock_holder_pid(w.lock_path) == os.getpid()
    (tmp_path / "writer.lock").write_text("garbage")
    assert lock_holder_pid(tmp_path / "writer.lock") is None


WRITER = """
import sys, time
from sessions.log import SessionWriter, SessionLockedError
try:
    w = SessionWriter(sys.argv[1])
except SessionLockedError as e:
    print("refused", e, flush=True)
    sys.exit(3)
print("writing", flush=True)
for i in range(int(sys.argv[2])):
    w.append("runner_note", text=sys.argv[3] + str(i))
    time.sleep(0.001)
w.close()
"""


def test_deleting_the_lock_file_does_not_let_a_second_writer_in(tmp_path):
    """The adversary: a user (or a script) removes writer.lock while a runner writes, then starts
    another runner on the same session. The second must be refused: no seq written twice."""
    path = tmp_path / "events.jsonl"
    first = subprocess.Popen([sys.executable, "-c", WRITER, str(path), "400", "a"], stdout=subprocess.PIPE,
                             text=True)
    try:
        assert first.stdout.readline().strip() == "writing"
        (tmp_path / "writer.lock").unlink()
        second = subprocess.run([sys.executable, "-c", WRITER, str(path), "400", "b"], capture_output=True,
                                text=True, timeout=30)
        assert second.returncode == 3, second.stdout + second.stderr
        assert "already being written by another process" in second.stdout
    finally:
        assert first.wait(60) == 0
    read = read_events(path)
    seqs = [e["seq"] for e in read.events]
    assert len(seqs) == len(set(seqs)) == 400 and not read.malformed
    assert all(e["text"].startswith("a") for e in read.events)


def test_a_running_session_still_shows_as_running_without_its_lock_file(tmp_path):
    from sessions.layout import SessionPaths

    sp = SessionPaths(tmp_path)
    with SessionWriter(sp.events, lock_path=sp.lock):
        sp.lock.unlink()
        assert sp.is_running()
    assert not sp.is_running()
