"""The loop on the real SDK against the fake Messages API: tools, streaming, retries, errors."""
from __future__ import annotations

import json
import re

from agent_helpers import make_runner, of_type, events, strip_cache
from fake_anthropic import Drop, Error, Reply, Stall, by_step, text, thinking, tool


def _task_facts(req) -> tuple[str, str]:
    """The candidate file and the entry symbol, as the task prompt states them."""
    prompt = req.first_user_text
    return (re.search(r"Your candidate is `([^`]+)`", prompt).group(1),
            re.search(r"exporting `(\w+)`", prompt).group(1))


FLAGS = "// kernelseek-flags: -fassociative-math -fno-signed-zeros -fno-trapping-math"

# a scripted model that works from the task prompt: reads the candidate, looks for the entry,
# edits the source (a flags line), evaluates, then checks the workspace
kernel_agent = by_step(
    lambda req: Reply(text(f"I'll read {_task_facts(req)[0]} first."), tool("read_file", path=_task_facts(req)[0])),
    lambda req: Reply(tool("bash", command="grep -n '{1}' {0} && ls".format(*_task_facts(req)))),
    lambda req: Reply(text("Letting the compiler reassociate the reductions."),
                      tool("edit_file", path=_task_facts(req)[0], old_string="#include <math.h>",
                           new_string=f"{FLAGS}\n#include <math.h>")),
    Reply(tool("evaluate", quick=True)),
    lambda req: Reply(tool("bash", command=f"grep -c kernelseek-flags {_task_facts(req)[0]}")),
    then=Reply(tool("bash", command="true")),
)


def test_full_tool_loop_on_attention_cpu(fake, tmp_path):
    server = fake(handler=kernel_agent)
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=5)
    assert runner.run() == "max_turns"
    assert server.problems == []
    evs = events(tmp_path / "s")
    calls = of_type(evs, "tool_call")
    assert [c["name"] for c in calls] == ["read_file", "bash", "edit_file", "evaluate", "bash"]
    results = {r["id"]: r for r in of_type(evs, "tool_result")}
    # what the log says a tool returned is exactly what the model received next
    for i, call in enumerate(calls[:-1]):
        sent = server.requests[i + 1].tool_results()[call["id"]]
        assert sent["text"] == results[call["id"]]["output"]
        assert sent["is_error"] is False
    assert "ks_attention" in results[calls[0]["id"]]["output"]
    workspace = tmp_path / "s" / "workspace"
    source = (workspace / "candidate.c").read_text()
    assert "// kernelseek-flags: -fassociative-math -fno-signed-zeros -fno-trapping-math\n#include <math.h>" in source
    # the evaluation: events, the report file, the compact table for the agent
    assert len(of_type(evs, "eval_start")) == 1 and of_type(evs, "eval_progress")
    (result,) = of_type(evs, "eval_result")
    s = result["summary"]
    assert s["passed"] == s["total"] == 3 and s["all_correct"] and s["quick"]
    assert s["best_geomean"] == s["geomean"]
    report = json.loads((tmp_path / "s" / result["report"]).read_text())
    assert report["schema"] == "kernelseek.eval/1" and result["report"] == "evals/0001.json"
    table = results[calls[3]["id"]]["output"]
    assert "passed 3/3" in table and "geomean" in table and "gqa4_d64_0" in table
    # usage and cost, one per turn
    usage = of_type(evs, "usage")
    assert [u["turn"] for u in usage] == [1, 2, 3, 4, 5]
    assert all(u["cost_usd"] > 0 for u in usage)
    assert usage[-1]["total_cost_usd"] == round(sum(u["cost_usd"] for u in usage), 6)
    # the task prompt: the interface, the scenarios, the goal; nothing about how to optimise
    first = server.requests[0]
    assert "typedef struct" in first.first_user_text and "AttentionParams" in first.first_user_text
    assert "mqa_d96_decode" in first.first_user_text and ">= 2x" in first.first_user_text
    assert "optimi" not in (first.first_user_text + first.system_text).lower()
    assert first.tool_names == ["bash", "read_file", "write_file", "edit_file", "evaluate"]
    # prompt caching: system, tools and the conversation's tail carry breakpoints
    last = server.requests[-1].body
    assert last["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert last["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert last["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    start = evs[0]
    assert start["type"] == "session_start" and start["agent"] == "kernelseek" and start["arch"] == "cpu"
    assert start["task"] == "attention-cpu" and start["goal"]["min_geomean"] == 2.0
    assert of_type(evs, "session_end")[-1]["reason"] == "max_turns"


def test_text_streams_into_the_log_as_it_arrives(fake, tmp_path):
    words = " ".join(f"word{i}" for i in range(120))
    server = fake([Reply(text(words), tool("bash", command="true"), chunk=12, delay=0.03)])
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=1)
    assert runner.run() == "max_turns"
    evs = events(tmp_path / "s")
    deltas = [e for e in evs if e["type"] == "assistant_delta"]
    chunks = -(-len(words) // 12)
    assert 3 <= len(deltas) < chunks  # coalesced, and more than one
    assert "".join(d["text"] for d in deltas) == words
    (whole,) = of_type(evs, "assistant_text")
    assert whole["text"] == words and whole["seq"] > deltas[-1]["seq"]
    # progress within a second of the request, and never a second without news
    assert deltas[0]["t"] - server.requests[0].t < 1.0
    assert max(b["t"] - a["t"] for a, b in zip(deltas, deltas[1:])) < 1.0


def test_thinking_blocks_go_back_with_their_signature(fake, tmp_path):
    server = fake([Reply(thinking("the seed is scalar", "sig-123"), text("Checking."), tool("bash", command="true")),
                   Reply(tool("bash", command="true"))])
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=2)
    assert runner.run() == "max_turns"
    assert server.problems == []
    (th,) = of_type(events(tmp_path / "s"), "thinking")
    assert th["text"] == "the seed is scalar" and th["signature"] == "sig-123"
    sent = server.requests[1].messages[1]["content"]
    assert sent[0] == {"type": "thinking", "thinking": "the seed is scalar", "signature": "sig-123"}


def test_overload_errors_and_dropped_streams_are_retried(fake, tmp_path):
    long = Reply(text("a reply that will be cut " * 8), tool("bash", command="echo partial"))
    server = fake([Error(529), Error(500), Error(429, retry_after=0.01), Drop(long, after=6),
                   Drop(long, after=6, mode="eof"), Error(529, in_stream=True),
                   Reply(text("Made it."), tool("bash", command="echo whole"))])
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=1)
    assert runner.run() == "max_turns"
    assert server.problems == [] and len(server.requests) == 7
    evs = events(tmp_path / "s")
    retries = [e for e in evs if e["type"] == "error" and e.get("where") == "model"]
    assert [r["attempt"] for r in retries] == [1, 2, 3, 4, 5, 6]
    assert not any(r["fatal"] for r in retries)
    assert [r["status"] for r in retries][:3] == [529, 500, 429]
    # one committed turn; text from the cut attempts is superseded, not sent back
    (usage,) = of_type(evs, "usage")
    assert usage["attempt"] == 7
    (call,) = of_type(evs, "tool_call")
    assert call["input"] == {"command": "echo whole"} and call["attempt"] == 7
    from agent.conversation import Conversation

    conv = Conversation()
    for ev in evs:
        conv.add(ev)
    assert [b.get("text") for b in conv.messages[1]["content"] if b["type"] == "text"] == ["Made it."]


def test_a_stalled_stream_is_retried_after_the_read_timeout(fake, tmp_path):
    server = fake([Stall(5.0), Reply(tool("bash", command="true"))])
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=1, request_timeout_s=0.5)
    assert runner.run() == "max_turns"
    assert len(server.requests) == 2


def test_a_request_the_api_rejects_ends_the_session_with_one_clear_error(fake, tmp_path):
    fake([Error(400, message="messages: text content blocks must be non-empty")])
    runner = make_runner("attention-cpu", tmp_path / "s")
    assert runner.run() == "error"
    evs = events(tmp_path / "s")
    (fatal,) = [e for e in evs if e["type"] == "error" and e.get("fatal")]
    assert "400" in fatal["message"] and "non-empty" in fatal["message"]
    assert of_type(evs, "session_end")[-1]["reason"] == "error"


def test_the_conversation_rebuilt_from_the_log_is_what_was_sent(fake, tmp_path):
    server = fake(handler=kernel_agent)
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=3)
    runner.run()
    from agent.conversation import Conversation

    conv = Conversation()
    for ev in events(tmp_path / "s"):
        conv.add(ev)
    sent = strip_cache(server.requests[-1].messages)
    assert strip_cache(conv.messages)[: len(sent)] == sent
    assert conv.system == server.requests[0].system_text


def test_a_tool_call_cut_at_max_tokens_is_not_run(fake, tmp_path):
    server = fake([Reply(text("Writing the kernel."), tool("bash", command="echo first"),
                         tool("write_file", path="candidate.c", content="int half"), stop_reason="max_tokens"),
                   Reply(tool("bash", command="true"))])
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=2)
    runner.run()
    assert server.problems == []
    assert "int half" not in (tmp_path / "s" / "workspace" / "candidate.c").read_text()
    first, cut = server.requests[1].tool_results().values()
    assert first["text"] == "first\n" and cut["is_error"] and "cut off at the output limit" in cut["text"]
