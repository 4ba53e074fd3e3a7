"""Codex CLI / Desktop rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl) into our events.

A rollout is a flat, time-ordered list of `{timestamp, type, payload}` records:

- `session_meta` (written again on every resume: the first one counts, the rest are counted),
- `turn_context` (per turn: the model, cwd, policies),
- `response_item` (what went to and came from the model: messages, reasoning, tool calls and
  their outputs; the user's own words are copied here too, wrapped with instructions),
- `event_msg` (what the UI showed: user_message, agent_message, token_count, turn_aborted, and
  echoes of tool runs),
- `compacted` (the history was replaced by a summary).

Human messages come from `event_msg/user_message` only, so the `response_item` copies do not
double them (a rollout without any user_message events falls back to the response items).
Assistant text comes from `response_item` messages (the `agent_message` echoes are skipped, with
the same fallback). Tool results are deduplicated by call_id. Rollouts written before the
payload wrapping (bare response items after a header line) are read too.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from sessions.importers.common import (AGENT_CODEX, EventList, ImportResult, ImportStats, Line, finish,
                                       parse_time, read_json_lines, short_task)

CALL_TYPES = frozenset({"function_call", "custom_tool_call", "local_shell_call", "tool_search_call",
                        "web_search_call", "mcp_tool_call"})
OUTPUT_TYPES = frozenset({"function_call_output", "custom_tool_call_output", "local_shell_call_output",
                          "tool_search_output", "mcp_tool_call_output"})
# event_msg kinds that repeat what response items already say, or only drive the UI
ECHO_EVENTS = frozenset({
    "agent_message", "agent_reasoning", "agent_reasoning_raw_content", "agent_reasoning_section_break",
    "task_started", "task_complete", "context_compacted", "exec_command_begin", "exec_command_end",
    "exec_command_output_delta", "patch_apply_begin", "patch_apply_end", "mcp_tool_call_begin",
    "mcp_tool_call_end", "web_search_begin", "web_search_end", "turn_diff", "plan_update",
    "get_history_entry_response", "mcp_list_tools_response", "list_custom_prompts_response",
    "background_event", "shutdown_complete", "entered_review_mode", "exited_review_mode",
    "view_image_tool_call", "item_completed", "item_started", "user_message_delta", "turn_started",
    "turn_complete", "session_configured", "raw_response_item", "deprecation_notice",
    "collab_agent_spawn_end", "collab_agent_spawn_begin",
})
# text the CLI puts in the user's role that the user did not type
_INJECTED_USER_PREFIXES = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions",
                           "<permissions instructions>", "<turn_aborted>", "<user_shell_command>",
                           "<collaboration_mode>", "<model_switch>", "<subagent_notification>")
_EXIT_RE = re.compile(r"(?:Process exited with code|Exit code:)\s*(-?\d+)")
_WALL_RE = re.compile(r"Wall time:\s*([0-9.]+)\s*seconds")


def _content_text(content) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return "" if content is None else json.dumps(content, ensure_ascii=False)
    parts = []
    for item in content:
        if isinstance(item, dict):
            kind = item.get("type")
            if "text" in item:
                parts.append(str(item.get("text") or ""))
            elif kind in ("input_image", "image"):
                parts.append("[image]")
        elif isinstance(item, str):
            parts.append(item)
    return "\n".join(p for p in parts if p)


def _output_text(payload: dict) -> tuple[str, bool, float | None]:
    """A tool output as text, whether it failed, and its wall time when stated."""
    out = payload.get("output")
    is_error = False
    if payload.get("type") == "tool_search_output":
        names = []
        for tool in payload.get("tools") or []:
            if isinstance(tool, dict):
                names.append(str(tool.get("name")))
        return ("tools found: " + ", ".join(names)) if names else "no tools found", False, None
    if isinstance(out, dict):  # {"content": ..., "success": bool} in some versions
        if out.get("success") is False:
            is_error = True
        out = out.get("content", out.get("output", json.dumps(out, ensure_ascii=False)))
    if isinstance(out, str) and out.startswith("{") and '"output"' in out[:40]:
        try:  # older exec output: {"output": "...", "metadata": {"exit_code": 1, "duration_seconds": ...}}
            data = json.loads(out)
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("output"), str):
            meta = data.get("metadata") or {}
            code = meta.get("exit_code")
            dur = meta.get("duration_seconds")
            return data["output"], bool(code) or is_error, float(dur) if isinstance(dur, (int, float)) else None
    text = _content_text(out)
    m = _EXIT_RE.search(text[:400])
    if m and int(m.group(1)) != 0:
        is_error = True
    w = _WALL_RE.search(text[:400])
    return text, is_error, float(w.group(1)) if w else None


class _Importer:
    def __init__(self, path: Path, stats: ImportStats) -> None:
        self.path = path
        self.stats = stats
        self.ev = EventList(stats)
        self.meta: dict | None = None
        self.models: list[str] = []
        self.calls: dict[str, dict] = {}
        self.results_seen: set[str] = set()
        self.pending_redacted: list[str] = []
        self.redacted_n = 0
        self.synthetic_n = 0
        self.first_prompt: str | None = None
        self.last_total_tokens = None
        self.use_user_items = False
        self.use_agent_messages = False

    def run(self, lines: list[Line]) -> None:
        # which copy of the user's words and of the agent's text to use
        has_user_events = has_assistant_items = False
        for line in lines:
            rec = line.record
            p = rec.get("payload") if isinstance(rec.get("payload"), dict) else rec
            if rec.get("type") == "event_msg" and p.get("type") == "user_message":
                has_user_events = True
            elif p.get("type") == "message" and p.get("role") == "assistant":
                has_assistant_items = True
        self.use_user_items = not has_user_events
        self.use_agent_messages = not has_assistant_items
        for line in lines:
            try:
                self.record(line)
            except (AttributeError, TypeError, KeyError, ValueError) as exc:
                self.stats.skip("unexpected_shape")
                self.stats.note(f"line {line.no}: record of unexpected shape ({type(exc).__name__}: {exc})")

    def record(self, line: Line) -> None:
        rec = line.record
        kind = rec.get("type")
        payload = rec.get("payload")
        t = parse_time(rec.get("timestamp"))
        if kind is None and "instructions" in rec and "id" in rec:  # legacy header
            self.stats.records["legacy_header"] += 1
            self.session_meta(rec, t)
            return
        if "payload" not in rec and kind in CALL_TYPES | OUTPUT_TYPES | {"message", "reasoning"}:
            payload, kind = rec, "response_item"  # legacy bare response item
        elif rec.get("record_type") == "state":
            self.stats.records["legacy_state"] += 1
            self.stats.skip("legacy_state")
            return
        if not isinstance(payload, dict):
            self.stats.records[str(kind)] += 1
            self.stats.unknown[str(kind)] += 1
            return
        sub = payload.get("type")
        self.stats.records[f"{kind}/{sub}" if kind in ("response_item", "event_msg") else str(kind)] += 1
        if kind == "session_meta":
            self.session_meta(payload, t)
        elif kind == "turn_context":
            model = payload.get("model")
            if isinstance(model, str) and model and (not self.models or self.models[-1] != model):
                self.models.append(model)
            self.stats.skip("turn_context")
        elif kind == "response_item":
            self.response_item(payload, t)
        elif kind == "event_msg":
            self.event_msg(payload, t)
        elif kind == "compacted":
            history = payload.get("replacement_history")
            self.ev.add("compaction", t, text=str(payload.get("message") or ""),
                        replaced_items=len(history) if isinstance(history, list) else None)
        else:
            self.stats.unknown[str(kind)] += 1

    def session_meta(self, payload: dict, t: float | None) -> None:
        if self.meta is None:
            self.meta = payload
            self.stats.skip("session_meta")
        else:
            self.stats.skip("session_meta_repeated")
            if payload.get("id") and payload.get("id") != self.meta.get("id"):
                self.stats.note(f"session_meta with another id ({payload.get('id')}) at a resume")

    def response_item(self, p: dict, t: float | None) -> None:
        sub = p.get("type")
        if sub == "message":
            role = p.get("role")
            text = _content_text(p.get("content"))
            if role == "assistant":
                if text.strip():
                    fields = {"phase": p["phase"]} if isinstance(p.get("phase"), str) else {}
                    self.ev.add("assistant_text", t, text=text, block=p.get("id"), **fields)
                else:
                    self.stats.skip("empty_text")
            elif role == "user" and self.use_user_items and text.strip() \
                    and not text.lstrip().startswith(_INJECTED_USER_PREFIXES):
                self.human(t, text.strip())
            else:
                self.stats.skip(f"message:{role}")
        elif sub == "reasoning":
            parts = [s.get("text", "") for s in p.get("summary") or [] if isinstance(s, dict)]
            parts += [c.get("text", "") for c in p.get("content") or [] if isinstance(c, dict)]
            text = "\n\n".join(x for x in parts if x)
            if text.strip():
                self.ev.add("thinking", t, text=text)
            else:
                self.stats.skip("reasoning_without_text")  # encrypted only
        elif sub in CALL_TYPES:
            self.tool_call(p, t)
        elif sub in OUTPUT_TYPES:
            self.tool_result(p, t)
        else:
            self.stats.unknown[f"response_item/{sub}"] += 1

    def tool_call(self, p: dict, t: float | None) -> None:
        sub = p["type"]
        raw_id = p.get("call_id") or p.get("id")
        if sub == "function_call":
            name = str(p.get("name") or "?")
            if p.get("namespace"):
                name = f"{p['namespace']}.{name}"
            args = p.get("arguments")
            try:
                tool_input = json.loads(args) if isinstance(args, str) else args
            except ValueError:
                tool_input = {"arguments": args}
        elif sub == "custom_tool_call":
            name, tool_input = str(p.get("name") or "?"), {"input": p.get("input")}
        elif sub == "local_shell_call":
            name, tool_input = "local_shell", p.get("action") or {}
        elif sub == "tool_search_call":
            name, tool_input = "tool_search", p.get("arguments") or {}
        elif sub == "web_search_call":
            name, tool_input = "web_search", p.get("action") or {}
        else:
            name, tool_input = str(p.get("name") or sub), p.get("arguments") or p.get("input") or {}
        if not isinstance(tool_input, dict):
            tool_input = {"input": tool_input}
        if isinstance(raw_id, str) and raw_id and raw_id != "REDACTED" and raw_id not in self.calls:
            tool_id = raw_id
        elif raw_id == "REDACTED":
            self.redacted_n += 1
            tool_id = f"redacted-{self.redacted_n}"
            self.pending_redacted.append(tool_id)
        else:
            self.synthetic_n += 1
            tool_id = f"{sub}-{self.synthetic_n}"
            if raw_id:
                self.stats.note(f"call_id {raw_id} used by two calls; the second was renamed {tool_id}")
        fields = {"status": p["status"]} if sub == "web_search_call" and p.get("status") else {}
        self.calls[tool_id] = self.ev.add("tool_call", t, id=tool_id, name=name, input=tool_input, **fields)

    def tool_result(self, p: dict, t: float | None) -> None:
        raw_id = p.get("call_id")
        if raw_id == "REDACTED" or not raw_id:
            tool_id = self.pending_redacted.pop(0) if self.pending_redacted else None
            if tool_id is None:
                self.synthetic_n += 1
                tool_id = f"orphan-{self.synthetic_n}"
        else:
            tool_id = raw_id
        if tool_id in self.results_seen:
            self.stats.skip("duplicate_tool_result")
            return
        self.results_seen.add(tool_id)
        output, is_error, wall = _output_text(p)
        fields: dict = {"id": tool_id, "output": output, "is_error": is_error}
        call = self.calls.get(tool_id)
        if call is not None:
            fields["name"] = call["name"]
        else:
            self.stats.note("some tool outputs answer calls that are not in the rollout")
        if wall is not None:
            fields["duration_s"] = wall
        self.ev.add("tool_result", t, **fields)

    def human(self, t: float | None, text: str, **extra) -> None:
        self.ev.add("human_message", t, text=text, source="imported", kind="message", **extra)
        if self.first_prompt is None:
            self.first_prompt = text

    def event_msg(self, p: dict, t: float | None) -> None:
        sub = p.get("type")
        if sub == "user_message":
            text = str(p.get("message") or "").strip()
            images = len(p.get("images") or []) + len(p.get("local_images") or [])
            if text or images:
                self.human(t, text or "[image]", **({"images": images} if images else {}))
            else:
                self.stats.skip("empty_user_message")
        elif sub == "turn_aborted":
            reason = str(p.get("reason") or "interrupted")
            if reason == "interrupted":
                self.ev.add("human_message", t, text="[turn interrupted by user]", source="imported",
                            kind="interrupt", reason=reason)
            else:
                self.ev.add("error", t, message=f"turn aborted: {reason}", where="turn", fatal=False)
        elif sub == "token_count":
            info = p.get("info")
            if not isinstance(info, dict):
                self.stats.skip("token_count_without_usage")
                return
            total = info.get("total_token_usage") or {}
            last = info.get("last_token_usage") or {}
            if total.get("total_tokens") == self.last_total_tokens:
                self.stats.skip("token_count_repeated")
                return
            self.last_total_tokens = total.get("total_tokens")
            self.ev.add("usage", t, input_tokens=int(last.get("input_tokens") or 0)
                        - int(last.get("cached_input_tokens") or 0),
                        cache_read_tokens=int(last.get("cached_input_tokens") or 0),
                        output_tokens=int(last.get("output_tokens") or 0),
                        total_tokens=int(total.get("total_tokens") or 0),
                        model=self.models[-1] if self.models else None)
        elif sub in ("error", "stream_error"):
            self.ev.add("error", t, message=str(p.get("message") or sub), where="codex",
                        fatal=sub == "error")
        elif sub == "agent_message" and self.use_agent_messages:
            text = str(p.get("message") or "")
            if text.strip():
                self.ev.add("assistant_text", t, text=text)
        elif sub in ECHO_EVENTS:
            self.stats.skip(f"event_msg:{sub}")
        else:
            self.stats.unknown[f"event_msg/{sub}"] += 1

    def task(self) -> str:
        if self.first_prompt:
            return short_task(self.first_prompt)
        return self.path.stem


def import_codex(path: str | Path) -> ImportResult:
    p = Path(path)
    stats = ImportStats(format=AGENT_CODEX, source=str(p))
    lines = read_json_lines(p, stats)
    imp = _Importer(p, stats)
    imp.run(lines)
    meta = imp.meta or {}
    version = meta.get("cli_version")
    originator = meta.get("originator") or "codex"
    git = meta.get("git") if isinstance(meta.get("git"), dict) else {}
    events = finish(imp.ev, stats, agent=AGENT_CODEX, model=imp.models[0] if imp.models else meta.get("model"),
                    task=imp.task(), source=str(p),
                    start_fields={
                        "recorded_by": f"{originator} {version}" if version else originator,
                        "workspace": meta.get("cwd"), "session_id": meta.get("id"),
                        "git_branch": git.get("branch"),
                        "models": list(dict.fromkeys(imp.models)) if len(set(imp.models)) > 1 else None,
                    })
    return ImportResult(events, stats)
