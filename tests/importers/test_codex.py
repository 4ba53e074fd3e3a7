"""The Codex rollout importer on small rollouts written here, one behaviour each."""
from __future__ import annotations

import json

from sessions.importers import load_transcript

T = "2026-06-22T12:11:{:02d}.000Z"


def r(sec, kind, **payload):
    return {"timestamp": T.format(sec), "type": kind, "payload": payload}


META = r(0, "session_meta", id="019e-abc", cwd="/w", originator="codex-tui", cli_version="0.141.0",
         source="cli", model_provider="openai", git={"branch": "main"})
CTX = r(1, "turn_context", turn_id="t1", cwd="/w", model="gpt-5.5")


def user(sec, text):
    """What Codex writes for one typed message: the model-facing copy and the UI event."""
    return [r(sec, "response_item", type="message", role="user", content=[{"type": "input_text", "text": text}]),
            r(sec, "event_msg", type="user_message", message=text, images=[], local_images=[])]


def write(tmp_path, records, raw_lines=()):
    p = tmp_path / "rollout.jsonl"
    p.write_text("\n".join([json.dumps(x) for x in records] + list(raw_lines)) + "\n")
    return p


def test_a_turn_becomes_our_events(tmp_path):
    recs = [
        META, CTX,
        r(1, "response_item", type="message", role="user",
          content=[{"type": "input_text", "text": "# AGENTS.md instructions for /w\n<INSTRUCTIONS>…"}]),
        *user(2, "make the softmax faster"),
        r(3, "response_item", type="reasoning", summary=[{"type": "summary_text", "text": "Profile first."}]),
        r(3, "response_item", type="reasoning", summary=[], encrypted_content="gAAA"),
        r(4, "event_msg", type="agent_message", message="I'll profile it."),
        r(4, "response_item", type="message", role="assistant", phase="commentary",
          content=[{"type": "output_text", "text": "I'll profile it."}]),
        r(5, "response_item", type="function_call", name="exec_command", call_id="call_1",
          arguments=json.dumps({"cmd": "make bench", "workdir": "/w"})),
        r(6, "response_item", type="function_call_output", call_id="call_1",
          output="Chunk ID: 1\nWall time: 1.5 seconds\nProcess exited with code 2\nOutput:\nmake: *** error"),
        r(6, "event_msg", type="token_count", info={
            "total_token_usage": {"input_tokens": 100, "cached_input_tokens": 40, "output_tokens": 9, "total_tokens": 109},
            "last_token_usage": {"input_tokens": 100, "cached_input_tokens": 40, "output_tokens": 9, "total_tokens": 109}}),
        r(6, "event_msg", type="token_count", info={
            "total_token_usage": {"input_tokens": 100, "cached_input_tokens": 40, "output_tokens": 9, "total_tokens": 109},
            "last_token_usage": {}}),
        r(7, "event_msg", type="task_complete", turn_id="t1"),
    ]
    events, stats = load_transcript(write(tmp_path, recs))
    kinds = [e["type"] for e in events]
    assert kinds == ["session_start", "human_message", "thinking", "assistant_text", "tool_call", "tool_result",
                     "usage", "session_end"]
    start = events[0]
    assert (start["agent"], start["model"], start["task"], start["recorded_by"], start["session_id"]) == \
        ("codex", "gpt-5.5", "make the softmax faster", "codex-tui 0.141.0", "019e-abc")
    call, res = events[4], events[5]
    assert call["name"] == "exec_command" and call["input"]["cmd"] == "make bench"
    assert res["id"] == "call_1" and res["is_error"] is True and res["duration_s"] == 1.5
    assert events[6]["input_tokens"] == 60 and events[6]["cache_read_tokens"] == 40
    assert stats.skipped["event_msg:agent_message"] == 1 and stats.skipped["reasoning_without_text"] == 1
    assert stats.skipped["token_count_repeated"] == 1


def test_user_messages_are_not_doubled_and_interrupts_are_kept(tmp_path):
    recs = [META, CTX, *user(2, "go"), r(3, "event_msg", type="turn_aborted", reason="interrupted"),
            *user(4, "no, do the other thing"), r(5, "event_msg", type="turn_aborted", reason="replaced")]
    events, stats = load_transcript(write(tmp_path, recs))
    humans = [(e["kind"], e["text"]) for e in events if e["type"] == "human_message"]
    assert humans == [("message", "go"), ("interrupt", "[turn interrupted by user]"),
                      ("message", "no, do the other thing")]
    assert any(e["type"] == "error" and "replaced" in e["message"] for e in events)
    assert stats.human == {"message": 2, "interrupt": 1}


def test_results_are_deduplicated_by_call_id_and_every_tool_kind_maps(tmp_path):
    recs = [
        META, CTX, *user(1, "patch it"),
        r(2, "response_item", type="custom_tool_call", call_id="c1", name="apply_patch",
          input="*** Begin Patch\n*** End Patch"),
        r(3, "response_item", type="custom_tool_call_output", call_id="c1", output="Exit code: 0\nOutput:\nDone"),
        r(3, "response_item", type="custom_tool_call_output", call_id="c1", output="Exit code: 0\nOutput:\nDone"),
        r(4, "response_item", type="local_shell_call", call_id="c2", status="completed",
          action={"type": "exec", "command": ["bash", "-lc", "ls"]}),
        r(5, "response_item", type="function_call_output", call_id="c2",
          output=json.dumps({"output": "a\nb\n", "metadata": {"exit_code": 0, "duration_seconds": 0.2}})),
        r(6, "response_item", type="tool_search_call", call_id="c3", arguments={"query": "browser"}),
        r(6, "response_item", type="tool_search_output", call_id="c3", tools=[{"name": "mcp__browser"}]),
        r(7, "response_item", type="web_search_call", status="completed", action={"type": "search", "query": "x"}),
        r(8, "response_item", type="function_call", call_id="REDACTED", name="exec_command", arguments="{}"),
        r(9, "response_item", type="function_call_output", call_id="REDACTED", output="ok"),
    ]
    events, stats = load_transcript(write(tmp_path, recs))
    calls = [(e["id"], e["name"]) for e in events if e["type"] == "tool_call"]
    assert calls == [("c1", "apply_patch"), ("c2", "local_shell"), ("c3", "tool_search"),
                     ("web_search_call-1", "web_search"), ("redacted-1", "exec_command")]
    results = {e["id"]: e for e in events if e["type"] == "tool_result"}
    assert list(results) == ["c1", "c2", "c3", "redacted-1"]
    assert results["c2"]["output"] == "a\nb\n" and results["c2"]["duration_s"] == 0.2
    assert results["c3"]["output"] == "tools found: mcp__browser"
    assert events[0]["task"] == "patch it"
    assert stats.skipped["duplicate_tool_result"] == 1


def test_resumes_compaction_malformed_and_unknown_records(tmp_path):
    recs = [META, CTX, *user(1, "hello"), META, r(2, "compacted", message="", replacement_history=[{}, {}]),
            r(2, "event_msg", type="context_compacted"), r(3, "event_msg", type="brand_new_event"),
            r(3, "hologram", x=1), *user(4, "after")]
    events, stats = load_transcript(write(tmp_path, recs, raw_lines=["{not json"]))
    assert [e["type"] for e in events if e["type"] != "usage"][1:-1] == ["human_message", "compaction", "human_message"]
    assert stats.skipped["session_meta_repeated"] == 1
    assert stats.unknown == {"event_msg/brand_new_event": 1, "hologram": 1}
    assert [m.line for m in stats.malformed] == [len(recs) + 1]


def test_legacy_rollouts_without_payload_wrapping(tmp_path):
    lines = [
        {"id": "abc", "timestamp": "2025-05-01T10:00:00.000Z", "instructions": "be brief"},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>x"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix the build"}]},
        {"type": "function_call", "name": "shell", "call_id": "c9", "arguments": json.dumps({"command": ["make"]})},
        {"type": "function_call_output", "call_id": "c9", "output": json.dumps({"output": "ok", "metadata": {"exit_code": 0}})},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Fixed."}]},
    ]
    p = tmp_path / "rollout-legacy.jsonl"
    p.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    events, stats = load_transcript(p)
    assert stats.format == "codex"
    assert [(e["type"], e.get("text") or e.get("output") or e.get("name")) for e in events[1:-1]] == [
        ("human_message", "fix the build"), ("tool_call", "shell"), ("tool_result", "ok"), ("assistant_text", "Fixed.")]
