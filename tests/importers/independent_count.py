"""An independent count of what a transcript holds, for checking the importers.

Deliberately simple and sharing nothing with sessions.importers: one direct pass over the raw
JSON lines, following the definitions in ../shared/data/transcripts/SOURCES.md.

Claude Code: a human-typed prompt is a `type:"user"` record that is not isMeta, not
isSidechain, not isCompactSummary, has no tool_result block, and whose text is none of: an
interrupt ("[Request interrupted by user…"), a <task-notification>, a <command-name> wrapper,
<local-command-stdout>, <bash-stdout>, "Caveat:". Slash commands, interrupts, `!` shell inputs
(<bash-input>) and AskUserQuestion answers are counted separately. One more rule SOURCES.md's
figures imply but its wording leaves out: when a slash command is queued, Claude Code logs a
queue-operation with the command, then one with its expanded body; a user record whose text is
that body is the expansion, not typing.

Codex: human messages are `event_msg` records with payload.type "user_message"; interrupts are
`event_msg/turn_aborted`; tool calls are response items whose type ends in "_call", tool
results those whose type ends in "_output", each counted once per call_id.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path


def _records(path: Path) -> list[dict]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line:
            out.append(json.loads(line))
    return out


def _user_text(content) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")


def count_claude_code(path: Path) -> Counter:
    c: Counter = Counter()
    records = _records(path)
    queued_bodies = set()
    previous_was_command = False
    for r in records:
        if r.get("type") == "queue-operation" and r.get("operation") == "enqueue":
            text = r.get("content") or ""
            if previous_was_command:
                queued_bodies.add(text.strip())
            previous_was_command = text.startswith("<command-message>") or text.startswith("<command-name>")
    ask_ids = set()
    seen_calls: set = set()
    seen_results: set = set()

    def count_message(rec_type: str, message: dict, where: str) -> None:
        content = message.get("content")
        if not isinstance(content, list):
            return
        for b in content:
            if not isinstance(b, dict):
                continue
            if rec_type == "assistant" and b.get("type") == "tool_use":
                key = b.get("id")
                if key == "REDACTED" or key not in seen_calls:
                    seen_calls.add(key)
                    c["tool_calls"] += 1
                    c[f"tool_calls_{where}"] += 1
                    if b.get("name") == "Bash":
                        c[f"bash_calls_{where}"] += 1
                    if b.get("name") == "AskUserQuestion":
                        ask_ids.add(key)
            if rec_type == "user" and b.get("type") == "tool_result":
                key = b.get("tool_use_id")
                if key == "REDACTED" or key not in seen_results:
                    seen_results.add(key)
                    c["tool_results"] += 1
                    c[f"tool_results_{where}"] += 1
                    if key in ask_ids:
                        c["ask_user_question"] += 1

    for r in records:
        kind = r.get("type")
        if kind == "progress" and (r.get("data") or {}).get("type") == "agent_progress":
            inner = r["data"].get("message") or {}
            count_message(inner.get("type"), inner.get("message") or {}, "subagent")
            continue
        if kind not in ("user", "assistant"):
            continue
        where = "subagent" if r.get("isSidechain") else "main"
        count_message(kind, r.get("message") or {}, where)
        if kind != "user" or r.get("isSidechain") or r.get("isMeta") or r.get("isCompactSummary"):
            continue
        content = r["message"].get("content")
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            continue
        text = _user_text(content).strip()
        if text.startswith("[Request interrupted by user"):
            c["interrupts"] += 1
        elif "<command-name>" in text:
            c["slash_commands"] += 1
        elif text.startswith("<bash-input>"):
            c["bash_inputs"] += 1
        elif text.startswith(("<task-notification>", "<local-command-stdout>", "<bash-stdout>", "Caveat:",
                              "<local-command-caveat>")):
            continue
        elif text in queued_bodies:
            c["queued_command_bodies"] += 1
        else:
            c["human"] += 1
    return c


def count_codex(path: Path) -> Counter:
    c: Counter = Counter()
    calls: set = set()
    outputs: set = set()
    for r in _records(path):
        p = r.get("payload") or {}
        if r.get("type") == "event_msg":
            if p.get("type") == "user_message":
                c["human"] += 1
            elif p.get("type") == "turn_aborted":
                c["interrupts"] += 1
        elif r.get("type") == "response_item":
            kind = p.get("type") or ""
            key = p.get("call_id") or p.get("id") or id(p)
            if kind.endswith("_call") and key not in calls:
                calls.add(key)
                c["tool_calls"] += 1
                if kind in ("function_call", "custom_tool_call"):
                    c["function_and_custom_calls"] += 1
            elif kind.endswith("_output") and key not in outputs:
                outputs.add(key)
                c["tool_results"] += 1
    return c
