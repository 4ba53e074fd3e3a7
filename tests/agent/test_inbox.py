"""The inbox: messages at the next turn boundary, exactly once; interrupts at once; autopilot."""
from __future__ import annotations

import os
import threading
import time
import uuid

from agent_helpers import events, make_runner, of_type, processes_with, resume_runner, run_in_thread, wait_for_event
from fake_anthropic import Reply, text, tool
from sessions.inbox import Inbox


def test_a_message_written_mid_run_reaches_the_very_next_request_exactly_once(fake, tmp_path):
    question = "What fraction of the measured peak does gqa4_d64_0 reach?"
    server = fake([Reply(tool("bash", command="sleep 0.6")), Reply(tool("bash", command="true")),
                   Reply(tool("bash", command="true"))])
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=3)
    thread, box = run_in_thread(runner)
    wait_for_event(tmp_path / "s", lambda e: e["type"] == "tool_call")
    posted = Inbox(tmp_path / "s").post(question, source="bank", bank_id="peak-fraction")
    thread.join(30)
    assert box["reason"] == "max_turns"
    assert [r.count(question) for r in server.requests] == [0, 1, 1]  # once, and never again
    assert server.requests[1].user_texts() == [f"[Message from the steerer]\n{question}"]
    evs = events(tmp_path / "s")
    (ack,) = of_type(evs, "human_message")
    assert ack["inbox_id"] == posted.id and ack["source"] == "bank" and ack["bank_id"] == "peak-fraction"
    # acknowledged after the tool's result, and durably logged before the request went out
    result = of_type(evs, "tool_result")[0]
    assert result["seq"] < ack["seq"] and ack["t"] <= server.requests[1].t
    assert ack["context"].get("decision_point", {}).get("kind") == "start"
    assert Inbox(tmp_path / "s").pending() == []


def test_an_interrupt_cancels_a_running_tool_within_two_seconds(fake, tmp_path):
    marker = f"ks-{uuid.uuid4().hex[:10]}"
    server = fake([Reply(tool("bash", command=f"sleep 600; echo {marker}")), Reply(tool("bash", command="true"))])
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=2)
    thread, box = run_in_thread(runner)
    wait_for_event(tmp_path / "s", lambda e: e["type"] == "tool_call")
    deadline = time.monotonic() + 30
    while not processes_with(marker) and time.monotonic() < deadline:  # the command is running
        time.sleep(0.02)
    t0 = time.monotonic()
    Inbox(tmp_path / "s").post("Stop: measure the seed first.", kind="interrupt")
    result = wait_for_event(tmp_path / "s", lambda e: e["type"] == "tool_result", timeout=10)
    assert time.monotonic() - t0 < 2.0
    thread.join(30)
    assert result["interrupted"] is True and "interrupted by the steerer" in result["output"]
    assert not processes_with(marker)  # the whole process group is gone
    evs = events(tmp_path / "s")
    (ack,) = of_type(evs, "human_message")
    assert ack["kind"] == "interrupt" and ack["cancelled"] == "tool"
    texts = server.requests[1].user_texts()
    assert texts == ["[The steerer interrupted you: the running tool was stopped]\nStop: measure the seed first."]
    assert server.requests[1].tool_results()[of_type(evs, "tool_call")[0]["id"]]["text"] == result["output"]


def test_an_interrupt_while_the_model_streams_cuts_the_reply(fake, tmp_path):
    long = " ".join(f"w{i}" for i in range(400))
    server = fake([Reply(text(long), tool("bash", command="echo never"), chunk=8, delay=0.02),
                   Reply(tool("bash", command="true"))])
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=2)
    thread, box = run_in_thread(runner)
    wait_for_event(tmp_path / "s", lambda e: e["type"] == "assistant_delta")
    Inbox(tmp_path / "s").post("Wait.", kind="interrupt")
    thread.join(30)
    evs = events(tmp_path / "s")
    (cut,) = of_type(evs, "assistant_text")
    assert cut["interrupted"] is True and 0 < len(cut["text"]) < len(long)
    assert not [e for e in of_type(evs, "tool_call") if e["input"].get("command") == "echo never"]
    sent = server.requests[1].messages
    assert sent[-2] == {"role": "assistant", "content": [{"type": "text", "text": cut["text"]}]}
    assert sent[-1]["content"][-1]["text"] == "[The steerer interrupted you: your reply was cut off]\nWait."


def test_autopilot_asks_a_bank_question_at_a_planted_stall(fake, tmp_path):
    def model(req):
        n = req.step
        return Reply(tool("bash", command=f"echo step {n}"))

    server = fake(handler=model)
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=6, autopilot=True, grace_s=0.0,
                         detectors={"stall_tool_calls": 4, "stall_before_first_eval": True,
                                    "kinds": ["stall"]})
    assert runner.run() == "max_turns"
    evs = events(tmp_path / "s")
    (stall,) = [e for e in of_type(evs, "decision_point") if e["kind"] == "stall"]
    assert stall["suggestions"]
    (auto,) = [e for e in of_type(evs, "human_message") if e["source"] == "autopilot"]
    assert auto["decision_point"] == stall["seq"] and auto["seq"] > stall["seq"]
    assert auto["bank_id"] == stall["suggestions"][0]["id"]
    assert auto["text"] == stall["suggestions"][0]["text"]
    assert auto["context"]["decision_point"]["kind"] == "stall"
    # it went the inbox's way and reached the next request once
    assert any(line for line in (tmp_path / "s" / "inbox.jsonl").read_text().splitlines() if auto["inbox_id"] in line)
    nxt = next(r for r in server.requests if r.t >= auto["t"])
    assert nxt.count(auto["text"]) == 1 and server.requests[-1].count(auto["text"]) == 1


def test_autopilot_leaves_the_question_to_a_human_who_writes_within_the_grace(fake, tmp_path):
    holder = {}

    def model(req):
        if req.step == 3:  # this reply's 4th tool call plants the stall; the human writes while it runs
            threading.Timer(0.2, holder["runner"].inbox.post, args=("Which scenario is slowest?",)).start()
            return Reply(tool("bash", command="sleep 0.8"))
        return Reply(tool("bash", command="true"))

    fake(handler=model)
    # the grace (0.3 s) runs out while the 4th tool runs: without the human, autopilot would ask next
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=6, autopilot=True, grace_s=0.3,
                         detectors={"stall_tool_calls": 4, "stall_before_first_eval": True, "kinds": ["stall"]})
    holder["runner"] = runner
    runner.run()
    evs = events(tmp_path / "s")
    (stall,) = of_type(evs, "decision_point")
    (human,) = of_type(evs, "human_message")
    assert human["source"] == "free" and human["posted_t"] > stall["t"]



def test_an_interrupt_cancels_a_running_evaluation(fake, tmp_path):
    server = fake([Reply(tool("evaluate")), Reply(tool("bash", command="true"))])
    # the full scenario set with a long timing budget: many seconds unless cancelled
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=2, eval_time_budget_s=5.0, eval_min_pairs=50)
    thread, box = run_in_thread(runner)
    wait_for_event(tmp_path / "s", lambda e: e["type"] == "eval_progress" and e.get("phase") == "timing", timeout=60)
    t0 = time.monotonic()
    Inbox(tmp_path / "s").post("Hold on.", kind="interrupt")
    result = wait_for_event(tmp_path / "s", lambda e: e["type"] == "tool_result", timeout=10)
    assert time.monotonic() - t0 < 2.0
    thread.join(30)
    assert result["interrupted"] is True and "interrupted" in result["output"]
    (ev,) = of_type(events(tmp_path / "s"), "eval_result")
    assert ev["interrupted"] is True and not ev.get("report")
    assert not _evaluator_children()
    assert len(server.requests) == 2


def _evaluator_children() -> list[int]:
    me, found = os.getpid(), []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == me and b"evaluator" in cmd:
            found.append(int(pid))
    return found


def test_an_interrupt_delivered_before_a_restart_does_not_fire_again(fake, tmp_path):
    fake([Reply(tool("bash", command="sleep 30")), Reply(tool("bash", command="true"))])
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=2)
    thread, _ = run_in_thread(runner)
    wait_for_event(tmp_path / "s", lambda e: e["type"] == "tool_call")
    Inbox(tmp_path / "s").post("Stop that.", kind="interrupt")
    thread.join(30)
    fake([Reply(tool("bash", command="sleep 0.5; echo fine")), Reply(tool("bash", command="true"))])
    thread, box = run_in_thread(resume_runner(tmp_path / "s", max_turns=4))
    thread.join(30)
    assert box.get("reason") == "max_turns"
    results = of_type(events(tmp_path / "s"), "tool_result")
    assert results[0]["interrupted"] is True
    assert results[2]["output"] == "fine\n" and results[2]["interrupted"] is False
    assert len(of_type(events(tmp_path / "s"), "human_message")) == 1
