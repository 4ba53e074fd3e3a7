"""The conversation with the model, folded from the session's events.

The log is the one source of truth, so the messages sent to the model are a function of the
events: `Conversation.add(event)` is a reducer, fed live by the runner as it writes each event
and fed the whole log by `--resume`. Both paths build the same messages by construction.

What becomes what:

- `session_start.prompt` -> the system prompt and the first user message (the task prompt);
- `thinking`, `assistant_text`, `tool_call` of one (turn, attempt) -> one assistant message,
  committed by the `usage` event of that (turn, attempt) (a retried attempt replaces the
  blocks of a failed one; a turn cut by a crash before its usage is dropped and asked again);
- `tool_result` -> a tool_result block (results come first in their user message);
- `human_message` -> a text block `[Message from the steerer] ...`;
- `stop_check.feedback` -> the stop gate's answer; `runner_note.text` -> a note from the runner;
- `compaction` -> from then on, requests shorten old tool outputs (see `compact`).

`request()` adds the prompt-cache breakpoints: the last tool, the system prompt, and the ends
of the last two user messages (four, the API's limit), so each request reads the previous
one's prefix from the cache.
"""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field

from agent.control import parse_control, render_goal

CACHE = {"type": "ephemeral"}
CHARS_PER_TOKEN = 3.2  # conservative for code and logs: overestimates tokens a little

# compaction levels: how hard old content is shortened
_TOOL_RESULT_KEEP = {1: 1500, 2: 500, 3: 200}
_TOOL_INPUT_KEEP = {1: 600, 2: 300, 3: 120}
_ASSISTANT_TEXT_KEEP = {1: None, 2: 1500, 3: 500}


def human_text(ev: dict) -> str:
    """How a human_message event reads to the model."""
    control = parse_control(ev.get("text") or "")
    body = control.text.strip()
    lines = []
    if ev.get("kind") == "interrupt":
        lines.append("[The steerer interrupted you" + _CANCELLED.get(ev.get("cancelled"), "") + "]")
    else:
        lines.append("[Message from the steerer]")
    if control.goal is not None and ev.get("goal"):
        lines.append(f"The goal is now: {render_goal(ev['goal'])}.")
    if body:
        lines.append(body)
    return "\n".join(lines)


_CANCELLED = {"tool": ": the running tool was stopped", "reply": ": your reply was cut off",
              "evaluation": ": the running evaluation was stopped"}


@dataclass
class Conversation:
    system: str = ""
    messages: list[dict] = field(default_factory=list)
    turns: int = 0  # committed assistant messages
    tool_names: dict[str, str] = field(default_factory=dict)  # tool_use id -> name
    open_tool_ids: list[str] = field(default_factory=list)  # calls of the last message not yet answered
    compaction_upto: int = 0
    compaction_level: int = 0
    _pending_key: tuple | None = None
    _pending: list[dict] = field(default_factory=list)

    # -- the reducer ---------------------------------------------------------------------------

    def add(self, ev: dict) -> None:
        kind = ev.get("type")
        if kind == "session_start":
            prompt = ev.get("prompt") or {}
            self.system = prompt.get("system", "")
            self.messages = [{"role": "user", "content": [{"type": "text", "text": prompt.get("task", "")}]}]
        elif kind in ("thinking", "assistant_text", "tool_call"):
            self._buffer(ev)
        elif kind == "usage":
            self._commit(ev)
        elif kind == "tool_result":
            if ev.get("id") in self.open_tool_ids:
                self.open_tool_ids.remove(ev["id"])
                block = {"type": "tool_result", "tool_use_id": ev["id"], "content": ev.get("output") or "(no output)"}
                if ev.get("is_error"):
                    block["is_error"] = True
                self._user(block)
        elif kind == "human_message":
            self._user({"type": "text", "text": human_text(ev)})
        elif kind == "stop_check" and ev.get("feedback"):
            self._user({"type": "text", "text": ev["feedback"]})
        elif kind == "runner_note" and ev.get("text"):
            self._user({"type": "text", "text": ev["text"]})
        elif kind == "session_resume":
            self._pending_key, self._pending = None, []  # a turn cut by the crash is asked again
        elif kind == "compaction":
            self.compaction_upto = int(ev.get("upto") or 0)
            self.compaction_level = int(ev.get("level") or 0)

    def _buffer(self, ev: dict) -> None:
        key = (ev.get("turn"), ev.get("attempt", 1))
        if key != self._pending_key:
            self._pending_key, self._pending = key, []
        kind = ev["type"]
        if kind == "thinking":
            if ev.get("redacted") and ev.get("data"):
                self._pending.append({"type": "redacted_thinking", "data": ev["data"]})
            elif ev.get("signature"):  # an unsigned (cut) thinking block cannot be sent back
                self._pending.append({"type": "thinking", "thinking": ev.get("text", ""), "signature": ev["signature"]})
        elif kind == "assistant_text":
            if ev.get("text"):
                self._pending.append({"type": "text", "text": ev["text"]})
        else:
            self._pending.append({"type": "tool_use", "id": ev["id"], "name": ev["name"],
                                  "input": ev.get("input") if isinstance(ev.get("input"), dict) else {}})
            self.tool_names[ev["id"]] = ev["name"]

    def _commit(self, ev: dict) -> None:
        if ev.get("turn") is None or ev.get("discarded"):
            return
        key = (ev.get("turn"), ev.get("attempt", 1))
        blocks = self._pending if key == self._pending_key else []
        self._pending_key, self._pending = None, []
        self.turns = max(self.turns, int(ev["turn"]))
        if not any(b["type"] in ("text", "tool_use") for b in blocks):
            return  # nothing to send back (an empty or thinking-only reply)
        self.messages.append({"role": "assistant", "content": blocks})
        self.open_tool_ids = [b["id"] for b in blocks if b["type"] == "tool_use"]

    def _user(self, block: dict) -> None:
        if not self.messages or self.messages[-1]["role"] != "user":
            self.messages.append({"role": "user", "content": []})
        content = self.messages[-1]["content"]
        if block["type"] == "tool_result":
            at = next((i for i, b in enumerate(content) if b.get("type") != "tool_result"), len(content))
            content.insert(at, block)
        else:
            content.append(block)

    # -- state questions the runner asks -------------------------------------------------------

    @property
    def awaiting_user(self) -> bool:
        """The last message is the model's: a user turn must follow before the next request."""
        return bool(self.messages) and self.messages[-1]["role"] == "assistant"

    def last_assistant(self) -> dict | None:
        for m in reversed(self.messages):
            if m["role"] == "assistant":
                return m
        return None

    def unanswered_tool_calls(self) -> list[dict]:
        last = self.last_assistant()
        if not last or not self.open_tool_ids:
            return []
        return [b for b in last["content"] if b.get("type") == "tool_use" and b["id"] in self.open_tool_ids]

    # -- requests ------------------------------------------------------------------------------

    def request_messages(self, protected_tools: tuple[str, ...] = ("evaluate",)) -> list[dict]:
        """The messages to send: compacted as the log says, with the cache breakpoints."""
        protected = {i for i, n in self.tool_names.items() if n in protected_tools}
        if self.compaction_level:
            msgs = compact(self.messages, self.compaction_upto, self.compaction_level, protected)
        else:
            msgs = copy.deepcopy(self.messages)
        user_ix = [i for i, m in enumerate(msgs) if m["role"] == "user"]
        for i in user_ix[-2:]:
            msgs[i]["content"][-1]["cache_control"] = dict(CACHE)
        return msgs

    def plan_compaction(self, budget_tokens: int, target_tokens: int, keep_recent: int,
                        overhead_chars: int, known_tokens: int = 0,
                        protected_tools: tuple[str, ...] = ("evaluate",)) -> tuple[int, int, int, int] | None:
        """When the next request is estimated above `budget_tokens` (or the last request's
        actual size, `known_tokens`, was), the (upto, level) that brings the estimate under
        `target_tokens`, or as low as it goes, with the estimates before and after. None when
        no compaction is needed."""
        protected = {i for i, n in self.tool_names.items() if n in protected_tools}
        current = (compact(self.messages, self.compaction_upto, self.compaction_level, protected)
                   if self.compaction_level else self.messages)
        before = max(estimate_tokens(current, overhead_chars), known_tokens)
        if before <= budget_tokens:
            return None
        best = None
        for keep in sorted({keep_recent, max(2, keep_recent // 2), 2}, reverse=True):
            upto = max(1, len(self.messages) - keep)
            for level in (1, 2, 3):
                after = estimate_tokens(compact(self.messages, upto, level, protected), overhead_chars)
                if best is None or after < best[3]:
                    best = (upto, level, before, after)
                if after <= target_tokens:
                    return best
        # nothing reaches the target: take the deepest cut, if it cuts at all
        return best if best is not None and best[3] < 0.9 * before else None


def estimate_tokens(messages: list[dict], overhead_chars: int = 0) -> int:
    chars = overhead_chars + len(json.dumps(messages, ensure_ascii=False))
    return int(chars / CHARS_PER_TOKEN)


def _shorten(text: str, keep: int, what: str) -> str:
    if len(text) <= keep + 200:
        return text
    head = keep // 2
    tail = keep - head
    return (f"{text[:head]}\n[... {len(text) - keep} characters of this old {what} shortened to save "
            f"context; the session log has it whole ...]\n{text[-tail:]}")


def compact(messages: list[dict], upto: int, level: int, protected_ids: set[str]) -> list[dict]:
    """A copy of `messages` with old content shortened: tool outputs (except protected tools,
    e.g. evaluation tables), long tool inputs (file contents written), at level 2 long
    assistant texts, at level 3 old thinking. Human messages and the runner's notes and stop
    gate answers (plain user text) are kept whole, and so is the first message (the task)."""
    out = copy.deepcopy(messages)
    for i, m in enumerate(out[:upto]):
        if i == 0:
            continue
        content = m["content"]
        if m["role"] == "user":
            for b in content:
                if b.get("type") == "tool_result" and b.get("tool_use_id") not in protected_ids \
                        and isinstance(b.get("content"), str):
                    b["content"] = _shorten(b["content"], _TOOL_RESULT_KEEP[level], "tool output")
            continue
        kept = []
        for b in content:
            if b["type"] == "tool_use":
                b["input"] = {k: (_shorten(v, _TOOL_INPUT_KEEP[level], "tool input") if isinstance(v, str) else v)
                              for k, v in b["input"].items()}
            elif b["type"] == "text" and _ASSISTANT_TEXT_KEEP[level]:
                b["text"] = _shorten(b["text"], _ASSISTANT_TEXT_KEEP[level], "reply")
            elif b["type"] in ("thinking", "redacted_thinking") and level >= 3:
                continue
            kept.append(b)
        m["content"] = kept
    return out
