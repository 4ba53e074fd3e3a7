"""The inbox: posted messages survive a killed reader and are delivered exactly once."""
from __future__ import annotations

import collections
import signal
import subprocess
import sys
import time

from sessions.inbox import Inbox
from sessions.log import SessionWriter, read_events


def test_post_pending_acknowledge_and_restart(tmp_path):
    inbox = Inbox(tmp_path)
    a = inbox.post("Is that win noise?", source="bank", bank_id="noise-1", decision_point=7,
                   context={"decision_point": {"kind": "suspicious_win"}})
    b = inbox.post("stop and profile", kind="interrupt")
    assert [m.id for m in inbox.pending()] == [a.id, b.id]
    with SessionWriter(tmp_path / "events.jsonl") as w:
        ev = inbox.acknowledge(w, a)
    assert ev["type"] == "human_message" and ev["inbox_id"] == a.id
    assert ev["bank_id"] == "noise-1" and ev["decision_point"] == 7 and ev["source"] == "bank"
    assert ev["context"]["decision_point"]["kind"] == "suspicious_win"
    assert [m.id for m in inbox.pending()] == [b.id]
    # a restarted runner reads what was delivered back from the log
    again = Inbox(tmp_path)
    assert [m.id for m in again.pending()] == [b.id]
    assert again.pending()[0].kind == "interrupt"


def test_posts_from_several_processes_stay_whole(tmp_path):
    code = ("import sys\nfrom sessions.inbox import Inbox\n"
            "ib = Inbox(sys.argv[1])\n"
            "for i in range(200): ib.post(sys.argv[2] + str(i) + 'x' * 500)\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path), tag]) for tag in "ab"]
    for p in procs:
        assert p.wait(60) == 0
    inbox = Inbox(tmp_path)
    msgs = inbox.messages()
    assert len(msgs) == 400 and not inbox.malformed
    assert len({m.id for m in msgs}) == 400


RUNNER = """
import sys, time
from sessions.inbox import Inbox
from sessions.log import SessionWriter
session, total = sys.argv[1], int(sys.argv[2])
w = SessionWriter(session + "/events.jsonl")
inbox = Inbox(session)
delivered = len(inbox.delivered_ids())
print("started", delivered, flush=True)
while delivered < total:
    for msg in inbox.pending():
        inbox.acknowledge(w, msg)
        delivered += 1
        print("ack", msg.id, flush=True)
        time.sleep(0.01)
    time.sleep(0.005)
"""


def test_messages_survive_a_killed_reader_and_are_delivered_exactly_once(tmp_path):
    total = 60
    inbox = Inbox(tmp_path)
    posted = [inbox.post(f"question {i}").id for i in range(20)]
    runner = subprocess.Popen([sys.executable, "-c", RUNNER, str(tmp_path), str(total)],
                              stdout=subprocess.PIPE, text=True)
    assert runner.stdout.readline().startswith("started 0")
    acks = 0
    while acks < 8:
        if runner.stdout.readline().startswith("ack"):
            acks += 1
    runner.send_signal(signal.SIGKILL)  # mid-delivery
    runner.wait()
    posted += [inbox.post(f"question {i}").id for i in range(20, 40)]  # typed while it was down
    runner = subprocess.Popen([sys.executable, "-c", RUNNER, str(tmp_path), str(total)],
                              stdout=subprocess.PIPE, text=True)
    first = runner.stdout.readline()
    assert first.startswith("started") and int(first.split()[1]) >= 8
    for i in range(40, total):
        posted.append(inbox.post(f"question {i}").id)
        time.sleep(0.003)
    assert runner.wait(60) == 0
    acked = [e["inbox_id"] for e in read_events(tmp_path / "events.jsonl").events
             if e["type"] == "human_message"]
    counts = collections.Counter(acked)
    assert set(counts) == set(posted)
    assert max(counts.values()) == 1, "a message was delivered twice"
    assert acked == posted  # and in the order they were typed
    assert Inbox(tmp_path).pending() == []


def test_every_delivered_message_reaches_the_steering_log(tmp_path, monkeypatch):
    import json

    log = tmp_path / "steering.jsonl"
    monkeypatch.setenv("KERNELSEEK_STEERING_LOG", str(log))
    session = tmp_path / "s"
    inbox = Inbox(session)
    ctx = {"decision_point": {"kind": "stall", "seq": 40, "evidence": "best 1.12 for 6 evals"},
           "eval": {"geomean": 1.12, "all_correct": True}}
    msg = inbox.post("What does the profiler say the kernel waits on?", source="bank",
                     bank_id="core-stall-3", decision_point=40, context=ctx)
    with SessionWriter(session / "events.jsonl") as w:
        w.append("session_start", task="attention-cpu")
        inbox.acknowledge(w, msg)
    rows = [json.loads(x) for x in log.read_text().splitlines()]
    assert len(rows) == 1
    row = rows[0]
    assert row["task"] == "attention-cpu" and row["bank_id"] == "core-stall-3"
    assert row["decision_point"]["kind"] == "stall" and row["metrics"]["geomean"] == 1.12
    assert row["session"] == str(session.resolve()) and row["inbox_id"] == msg.id
    monkeypatch.setenv("KERNELSEEK_STEERING_LOG", "off")
    m2 = inbox.post("again?")
    with SessionWriter(session / "events.jsonl") as w:
        inbox.acknowledge(w, m2)
    assert len(log.read_text().splitlines()) == 1


def test_a_torn_last_line_never_merges_with_the_next_message(tmp_path):
    """A console cut off mid-write leaves half a line; the next post starts a line of its own,
    the next message arrives whole, and the fragment is reported with its line number."""
    (tmp_path / "inbox.jsonl").write_bytes(b'{"type":"inbox","id":"m0","text":"ok"}\n'
                                           b'{"type":"inbox","id":"mtorn","text":"half a qu')
    inbox = Inbox(tmp_path)
    msg = inbox.post("What is the roofline?")
    assert [m.text for m in inbox.pending()] == ["ok", "What is the roofline?"]
    assert [m.id for m in inbox.pending()][1] == msg.id
    (bad,) = inbox.take_malformed()
    assert bad.line == 2 and "not JSON" in bad.reason
    assert inbox.take_malformed() == []  # reported once


def test_a_line_that_is_json_but_no_message_is_reported_not_delivered(tmp_path):
    (tmp_path / "inbox.jsonl").write_text('{"type":"inbox","note":"no id or text"}\n')
    inbox = Inbox(tmp_path)
    msg = inbox.post("still here")
    assert [m.id for m in inbox.pending()] == [msg.id]
    (bad,) = inbox.take_malformed()
    assert bad.line == 1 and "not an inbox message" in bad.reason


def test_restoring_the_steering_log_from_a_session_is_idempotent(tmp_path):
    import json

    from sessions.steering import append_steering, restore_steering, steering_record

    log = tmp_path / "steering.jsonl"
    inbox = Inbox(tmp_path / "s")
    a, b = inbox.post("first?"), inbox.post("second?")
    with SessionWriter(tmp_path / "s" / "events.jsonl") as w:
        w.append("session_start", task="softmax-cpu")
        ev_a = w.append("human_message", text=a.text, inbox_id=a.id, source="free")
        w.append("human_message", text=b.text, inbox_id=b.id, source="free")
    append_steering(steering_record(ev_a, session_dir=tmp_path / "s", task="softmax-cpu"), log)
    log.write_bytes(log.read_bytes() + b'{"v":1,"session":"torn')  # and a torn record after it
    evs = read_events(tmp_path / "s" / "events.jsonl").events
    assert restore_steering(evs, session_dir=tmp_path / "s", task="softmax-cpu", path=log) == 1
    assert restore_steering(evs, session_dir=tmp_path / "s", task="softmax-cpu", path=log) == 0
    lines = log.read_text().splitlines()
    assert len(lines) == 3 and lines[1] == '{"v":1,"session":"torn'
    assert json.loads(lines[2])["inbox_id"] == b.id
