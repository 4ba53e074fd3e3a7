"""Nothing a steerer or the API sends is lost silently: a garbled stream event is retried like a
dropped stream, a torn inbox line is reported and never swallows the next message, and a resumed
runner puts back into the steering log the messages a crash kept out of it."""
from __future__ import annotations

import json

from agent_helpers import events, make_runner, of_type, resume_runner
from fake_anthropic import Garble, Reply, text, tool


def test_one_malformed_stream_event_is_retried_not_fatal(fake, tmp_path):
    whole = Reply(text("Made it."), tool("bash", command="echo whole"))
    server = fake([Garble(Reply(text("a reply whose stream is garbled " * 4)), at=3), whole])
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=1)
    assert runner.run() == "max_turns"
    assert server.problems == [] and len(server.requests) == 2
    evs = events(tmp_path / "s")
    (retry,) = [e for e in evs if e["type"] == "error" and e.get("where") == "model"]
    assert not retry["fatal"] and "malformed stream event" in retry["message"]
    (call,) = of_type(evs, "tool_call")
    assert call["input"] == {"command": "echo whole"} and call["attempt"] == 2
    assert not of_type(evs, "session_end") or of_type(evs, "session_end")[-1]["reason"] == "max_turns"


def test_garbled_streams_every_time_give_up_after_the_retries_with_the_reason(fake, tmp_path):
    bad = Garble(Reply(text("never whole " * 4)), at=2)
    fake([bad] * 10)
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=1, max_retries=2)
    assert runner.run() == "error"
    fatal = [e for e in of_type(events(tmp_path / "s"), "error") if e.get("fatal")]
    assert fatal and "malformed stream event" in fatal[-1]["message"]


def test_a_torn_inbox_line_is_reported_and_the_next_message_arrives_whole(fake, tmp_path):
    from sessions.inbox import Inbox

    server = fake([Reply(tool("bash", command="true")), Reply(tool("bash", command="true"))])
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=2)
    inbox_path = tmp_path / "s" / "inbox.jsonl"
    # a console killed in the middle of its write
    inbox_path.write_bytes(b'{"type":"inbox","id":"mtorn","text":"half a quest')
    msg = Inbox(tmp_path / "s").post("What does the profile say?")
    assert runner.run() == "max_turns"
    evs = events(tmp_path / "s")
    (human,) = of_type(evs, "human_message")
    assert human["inbox_id"] == msg.id and human["text"] == "What does the profile say?"
    (note,) = [e for e in of_type(evs, "error") if e.get("where") == "inbox"]
    assert "inbox.jsonl:1" in note["message"] and not note["fatal"]
    assert "What does the profile say?" in server.requests[1].all_text()
    assert "half a quest" not in server.requests[1].all_text()


def test_resume_restores_steering_records_a_crash_kept_out_and_only_once(fake, tmp_path, monkeypatch):
    from sessions.inbox import Inbox
    from sessions.steering import steering_log_path

    fake([Reply(tool("bash", command="true"))] * 6)
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=1)
    inbox = Inbox(tmp_path / "s")
    first = inbox.post("Which layer have you not measured?")
    second = inbox.post("What is the roofline here?")
    assert runner.run() == "max_turns"
    runner.writer.close()
    log = steering_log_path()
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["inbox_id"] for r in records] == [first.id, second.id]
    # the crash: the session log has both acknowledgements, the steering log lost the second
    log.write_text(json.dumps(records[0]) + "\n")
    resumed = resume_runner(tmp_path / "s", max_turns=2)
    resumed.writer.close()
    again = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["inbox_id"] for r in again] == [first.id, second.id]
    assert again[1]["text"] == "What is the roofline here?" and again[1]["task"] == "attention-cpu"
    # resuming again adds nothing
    resume_runner(tmp_path / "s", max_turns=3).writer.close()
    assert log.read_text().count("\n") == 2
