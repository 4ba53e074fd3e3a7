"""Reading human messages with their context from sessions, steering logs and transcripts."""
from __future__ import annotations

import json

import pytest

from mine_sessions import Log
from questions.mine import MineError, mine, read_log, read_logs
from sessions.steering import steering_record


def test_context_written_by_the_runner_is_taken_as_is(tmp_path):
    log = Log()
    log.start()
    log.eval(1.1)
    dp = log.point("stall", "best geomean 1.1x not improved")
    log.human("Where does the time go? Profile it.", context={
        "decision_point": {"kind": "stall", "evidence": "best geomean 1.1x not improved", "seq": dp["seq"]},
        "eval": {"geomean": 1.1, "all_correct": True}})
    log.eval(1.4)
    read = read_log(log.write(tmp_path / "s"))
    (m,) = read.messages
    assert read.format == "session" and m.session == str((tmp_path / "s").resolve())
    assert m.decision_point["kind"] == "stall" and m.kinds == ("stall",)
    assert m.metrics == {"geomean": 1.1, "all_correct": True}
    assert m.outcome.before == 1.1 and m.outcome.after == 1.4 and m.outcome.improved
    assert m.task == "rmsnorm-cuda"


def test_logged_points_since_the_previous_message_are_the_open_ones(tmp_path):
    log = Log()
    log.start()
    log.point("start")
    log.human("What is the roofline for each scenario?")
    log.eval(1.0)
    log.point("stall")
    log.text("We're at the bandwidth limit.")
    log.point("limit_claim")
    log.human("Is that limit a property of the hardware or of your design?")
    msgs = read_log(log.write(tmp_path / "s")).messages
    assert msgs[0].kinds == ("start",)
    assert msgs[1].kinds == ("stall", "limit_claim") and msgs[1].decision_point["kind"] == "limit_claim"
    assert msgs[1].metrics["geomean"] == 1.0


def test_without_logged_points_the_detectors_find_them_without_look_ahead(tmp_path):
    log = Log()
    log.start()
    log.eval(1.0)
    log.eval(1.2)
    log.text("We are at the memory bandwidth limit, so no further gains are possible.")
    log.human("Is that limit a property of the hardware or of your design?")
    log.eval(1.3)
    log.text("That is as fast as it gets on this hardware; we're fundamentally limited by DRAM.")
    (m,) = read_log(log.write(tmp_path / "s")).messages
    assert "limit_claim" in m.kinds  # fired before the message
    assert m.outcome.before == 1.2 and m.outcome.after == 1.3


def test_interrupts_commands_and_empty_messages_are_counted_not_mined(tmp_path):
    log = Log()
    log.start()
    log.human("[Request interrupted by user]", kind="interrupt")
    log.human("/compact", kind="command")
    log.human("   ")
    log.human("why is s3 slow?")
    read = read_log(log.write(tmp_path / "s"))
    assert [m.text for m in read.messages] == ["why is s3 slow?"]
    assert read.skipped == {"interrupts": 1, "commands and shell inputs": 1, "empty": 1}


def test_a_steering_log_reads_what_followed_from_the_session_when_it_is_there(tmp_path):
    log = Log()
    log.start()
    log.eval(1.0)
    asked = log.human("Does the inner loop run on the tensor cores?",
                      context={"decision_point": {"kind": "stall", "evidence": "x", "seq": 1}})
    log.eval(1.6)
    root = log.write(tmp_path / "s")
    steering = tmp_path / "steering.jsonl"
    steering.write_text(json.dumps(steering_record(asked, session_dir=root, task="rmsnorm-cuda")) + "\n")
    read = read_log(steering)
    (m,) = read.messages
    # read from the session: the detectors' start point is open too, the runner's context says stall
    assert read.format == "steering" and m.kinds == ("start", "stall") and m.decision_point["kind"] == "stall"
    assert m.outcome.basis == "events" and m.outcome.after == 1.6 and m.origin == str(steering)
    # the same message through its session and through the steering log is mined once
    both = read_logs([steering, root])
    assert sum(len(r.messages) for r in both) == 1
    assert both[1].skipped == {"already read from another log": 1}


def test_a_steering_log_without_its_sessions_uses_the_metrics_later_messages_saw(tmp_path):
    recs = [
        {"t": 100.0, "session": "/gone/s1", "seq": 5, "text": "Is the win noise?", "source": "free",
         "decision_point": {"kind": "suspicious_win"}, "metrics": {"n": 1, "geomean": 1.3, "all_correct": True}},
        {"t": 400.0, "session": "/gone/s1", "seq": 9, "text": "commit and push", "source": "free",
         "metrics": {"n": 2, "geomean": 1.5, "all_correct": True}},
    ]
    path = tmp_path / "steering.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs) + '{"torn": \n')
    read = read_log(path)
    m = read.messages[0]
    assert m.outcome.basis == "steering_log" and m.outcome.before == 1.3 and m.outcome.after == 1.5
    assert m.outcome.minutes_to_gain == pytest.approx(5.0)
    assert read.notes and "malformed" in read.notes[0]


def test_a_missing_log_is_one_clear_error(tmp_path):
    with pytest.raises(Exception) as exc:
        mine([tmp_path / "nope.jsonl"])
    assert getattr(exc.value, "exit_code", None) == 2 and "nope.jsonl" in str(exc.value)


def test_a_file_of_no_known_format_is_one_clear_error(tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("just some notes\n")
    with pytest.raises(Exception) as exc:
        read_log(bad)
    assert getattr(exc.value, "exit_code", None) == 2
    assert MineError.exit_code == 2


def test_the_steering_log_the_inbox_writes_is_mined_with_its_session(tmp_path):
    """Messages delivered the way the runner delivers them: inbox -> human_message -> steering log."""
    from sessions.inbox import Inbox
    from sessions.layout import create_session
    from sessions.log import SessionWriter
    from sessions.steering import steering_log_path

    sp = create_session(path=tmp_path / "run")
    inbox = Inbox(sp.root)
    with SessionWriter(sp.events) as w:
        w.append("session_start", task="rmsnorm-cuda")
        w.append("eval_result", summary={"n": 1, "geomean": 1.05, "all_correct": True})
        dp = w.append("decision_point", kind="limit_claim", evidence="we're at the bandwidth limit")
        ctx = {"decision_point": {"kind": "limit_claim", "evidence": dp["evidence"], "seq": dp["seq"]},
               "eval": {"n": 1, "geomean": 1.05, "all_correct": True}}
        free = inbox.post("is that limit the hardware's or your design's?", context=ctx)
        bank = inbox.post("Is that limit a property of the hardware or of your design?", source="bank",
                          bank_id="limit-hw-or-design", context=ctx)
        for msg in inbox.pending():
            inbox.acknowledge(w, msg)
        w.append("eval_result", summary={"n": 2, "geomean": 1.32, "all_correct": True})
    steering = steering_log_path()
    assert steering.is_file() and free.id and bank.id
    from questions.loader import load_bank

    result = mine([steering, sp.root], bank=load_bank())
    assert len(result.messages) == 2 and result.reads[1].skipped == {"already read from another log": 2}
    (c,) = result.clusters
    assert c.match == "limit-hw-or-design" and c.stats["asked"] == 2 and c.stats["kinds"] == {"limit_claim": 2}
    assert c.stats["mean_gain"] == pytest.approx(1.32 / 1.05 - 1, abs=1e-3)
    assert {m.outcome.basis for m in c.members} == {"events"}
