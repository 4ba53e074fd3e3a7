"""Claude Code session JSONL (~/.claude/projects/<project>/<session>.jsonl) into our events.

A Claude Code file is a forest, not a list: every conversation record names its parent
(`parentUuid`), a streamed assistant reply is split into one record per content block, parallel
tool calls fork the chain, sidechains (subagents of old versions) are separate roots, and a
compaction starts a new root (`logicalParentUuid` links it back). We order records parent-first,
and among the records whose parent is already placed, by timestamp then line: that is the
order the conversation happened in, even where the file was appended out of order.

Every `type: "user"` record is one of: tool results, a human prompt, or something the harness
wrote in the user's name (skill expansions `isMeta`, system reminders, hook output, slash
command echoes, `!` shell output, task notifications, compaction summaries). Only the human
ones become `human_message` events; `via` says how they arrived when it is not a typed prompt.
The rules are listed in docs/importers.md; each skipped record is counted in the stats.
"""
from __future__ import annotations

import heapq
import json
import re
from pathlib import Path

from sessions.importers.common import (AGENT_CLAUDE_CODE, EventList, ImportResult, ImportStats, Line,
                                       finish, parse_time, read_json_lines, short_task)

# records that carry no conversation content: counted, never turned into events
# stream-json output (claude -p --output-format stream-json) around the conversation's records
STREAM_TYPES = frozenset({"result", "control_request", "control_response", "control_cancel_request",
                          "stream_event", "keep_alive", "rate_limit_event"})
METADATA_TYPES = frozenset({
    "summary", "file-history-snapshot", "queue-operation", "ai-title", "custom-title", "mode",
    "permission-mode", "last-prompt", "pr-link", "tag", "agent-name", "agent-color", "agent-setting",
})
CHAIN_TYPES = frozenset({"user", "assistant", "system", "attachment", "progress"})
TASK_TOOLS = frozenset({"Task", "Agent"})

INTERRUPT_PREFIX = "[Request interrupted by user"
REJECTED_PREFIX = "The user doesn't want to proceed with this tool use."
USER_SAID = "the user said:\n"
_TAG_RE = {name: re.compile(rf"<{name}>(.*?)</{name}>", re.S)
           for name in ("command-name", "command-args", "command-message", "bash-input")}
_SYSTEM_REMINDER_RE = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)
_ASK_ANSWER_RE = re.compile(r'"((?:[^"\\]|\\.)*)"="((?:[^"\\]|\\.)*)"')

# (prefix, skip reason) for user text the harness wrote in the user's name
HARNESS_PREFIXES = (
    ("<task-notification>", "task_notification"),
    ("<local-command-stdout>", "command_output"),
    ("<local-command-stderr>", "command_output"),
    ("<bash-stdout>", "command_output"),
    ("<bash-stderr>", "command_output"),
    ("<local-command-caveat>", "caveat"),
    ("Caveat:", "caveat"),
    ("<user-prompt-submit-hook>", "hook_output"),
    ("<session-start-hook>", "hook_output"),
    ("Stop hook feedback:", "hook_output"),  # a Stop hook's reason, fed back to the model
)


def _tag(name: str, text: str) -> str | None:
    m = _TAG_RE[name].search(text)
    return m.group(1).strip() if m else None


def _unquote(s: str) -> str:
    """A JSON-escaped string's text (as the harness quoted it), or the string as it is."""
    try:
        return json.loads(f'"{s}"')
    except ValueError:
        return s


def _message(rec: dict) -> dict:
    msg = rec.get("message")
    return msg if isinstance(msg, dict) else {}


def _text_of(content) -> str:
    """The text of a message's content: a string, or text blocks joined ([image] for images)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return "" if content is None else str(content)
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict):
            kind = block.get("type")
            if kind == "text":
                parts.append(block.get("text") or "")
            elif kind == "image":
                parts.append("[image]")
            elif kind == "tool_reference":
                parts.append(f"[tool {block.get('tool_name', '?')}]")
            elif "text" in block:
                parts.append(str(block.get("text") or ""))
            elif "content" in block:
                parts.append(_text_of(block.get("content")))
    return "\n".join(p for p in parts if p)


class _Graph:
    """Conversation records keyed by uuid, ordered parent-first then by time."""

    def __init__(self, stats: ImportStats) -> None:
        self.stats = stats
        self.nodes: dict[str, tuple[int, dict]] = {}
        self.parents: dict[str, str | None] = {}
        self.last_uid: str | None = None

    def add(self, line: Line) -> None:
        rec = line.record
        uid = rec.get("uuid")
        if not isinstance(uid, str) or not uid:
            # no uuid (not seen in practice): hang it after the record before it in the file
            uid = f"line-{line.no}"
            parent = self.last_uid
        else:
            parent = rec.get("parentUuid")
            if uid in self.nodes:
                self.stats.skip("duplicate_uuid")
                return
        self.nodes[uid] = (line.no, rec)
        self.parents[uid] = parent if isinstance(parent, str) else None
        self.last_uid = uid

    def threaded(self) -> list[tuple[int, dict]]:
        children: dict[str | None, list[str]] = {}
        for uid, (_, rec) in self.nodes.items():
            parent = self.parents[uid]
            if parent not in self.nodes:
                logical = rec.get("logicalParentUuid")  # a compaction links back this way
                parent = logical if logical in self.nodes else None
            children.setdefault(parent, []).append(uid)
        times: dict[str, float] = {}

        def key(uid: str, inherited: float) -> tuple[float, int, str]:
            no, rec = self.nodes[uid]
            t = parse_time(rec.get("timestamp"))
            t = inherited if t is None else t
            times[uid] = t
            return (t, no, uid)

        heap = [key(uid, 0.0) for uid in children.get(None, [])]
        heapq.heapify(heap)
        out: list[tuple[int, dict]] = []
        while heap:
            _, _, uid = heapq.heappop(heap)
            out.append(self.nodes[uid])
            for child in children.get(uid, ()):
                heapq.heappush(heap, key(child, times[uid]))
        if len(out) < len(self.nodes):  # a parentUuid cycle: place the rest in file order
            placed = {id(rec) for _, rec in out}
            rest = sorted((v for v in self.nodes.values() if id(v[1]) not in placed), key=lambda v: v[0])
            self.stats.note(f"{len(rest)} records in a parentUuid cycle were placed in file order")
            out.extend(rest)
        return out


class ClaudeCodeTranslator:
    """Claude Code records into our events: the mapping the importer, the live Claude Code
    agent (its stream-json output) and attach mode (a transcript followed live) share.

    `feed(record)` takes one record in the order it arrives and returns the events it made; the
    importer instead scans a whole file first and feeds the records threaded (`run`). Options for
    the live uses: `usage=False` when usage is counted elsewhere (the driven agent's API proxy
    sees every request exactly); `own_interrupts=True` when KernelSeek itself interrupted (its
    log already holds the steerer's interrupt, so Claude Code's echo of it is not a second one);
    `human_source` for prompts a person typed into Claude Code (attach mode: "free")."""

    def __init__(self, path: Path | None = None, stats: ImportStats | None = None, *, usage: bool = True,
                 own_interrupts: bool = False, human_source: str = "imported") -> None:
        self.path = path or Path("claude-code")
        self.stats = stats or ImportStats(format=AGENT_CLAUDE_CODE, source=str(self.path))
        self.ev = EventList(self.stats)
        self.want_usage = usage
        self.own_interrupts = own_interrupts
        self.human_source = human_source
        self.live = False  # fed record by record: no scan of the whole file ahead
        self._pending_usage: tuple | None = None  # live: (message id, record, t) until the message ends
        self._feed_no = 0
        self.calls: dict[str, dict] = {}  # our tool id -> tool_call event
        self.pending_redacted: dict[str, list[str]] = {}  # agent id ("" main) -> unanswered redacted calls
        self.results_seen: set[str] = set()
        self.ask_calls: dict[str, dict] = {}  # AskUserQuestion tool id -> input
        self.task_prompts: dict[str, str] = {}  # Task prompt -> tool id (to link sidechains)
        self.sidechain_agent: dict[str, str] = {}  # sidechain record uuid -> its agent id
        self.agent_parent_tool: dict[str, str] = {}  # agent id -> the Task call that started it
        self.progress_seen: set[str] = set()  # uuids of subagent messages already imported
        self.usage_last_line: dict[str, int] = {}  # message id -> line of its last record
        self.usage_done: set[str] = set()
        self.command_bodies: set[str] = set()
        self.meta_texts: set[str] = set()
        self.models: list[str] = []
        self.first_prompt: str | None = None
        self.title: str | None = None
        self.summaries: dict[str, str] = {}  # leafUuid -> summary
        self.uuids: set = set()
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.version: str | None = None
        self.git_branch: str | None = None
        self.only_sidechains = False
        self.compaction_open: dict | None = None
        self.redacted_n = 0
        self._has_main = False
        self._last_enqueued_command = False

    # ---- the pass over metadata ---------------------------------------------------------
    def scan(self, lines: list[Line]) -> _Graph:
        graph = _Graph(self.stats)
        self._has_main = False
        for line in lines:
            if self._note(line) == "chain":
                graph.add(line)
        self.only_sidechains = not self._has_main
        return graph

    def _note(self, line: Line) -> str:
        """What a record says about the whole session (ids, titles, command bodies, where usage
        ends), before any events; returns chain | meta | stream | unknown."""
        rec = line.record
        kind = rec.get("type")
        self.stats.records[str(kind)] += 1
        if kind in CHAIN_TYPES:
            self.uuids.add(rec.get("uuid"))
            if kind in ("user", "assistant") and not rec.get("isSidechain"):
                self._has_main = True
            if self.session_id is None and isinstance(rec.get("sessionId") or rec.get("session_id"), str):
                self.session_id = rec.get("sessionId") or rec.get("session_id")
                self.cwd = rec.get("cwd")
                self.version = rec.get("version")
                self.git_branch = rec.get("gitBranch")
            if kind == "assistant":
                msg = _message(rec)
                mid = msg.get("id")
                if isinstance(mid, str) and isinstance(msg.get("usage"), dict):
                    self.usage_last_line[mid] = line.no
            elif kind == "user" and rec.get("isMeta"):
                text = _text_of(_message(rec).get("content"))
                if text:
                    self.meta_texts.add(text.strip())
            return "chain"
        if kind in METADATA_TYPES:
            self.stats.skip(f"metadata:{kind}")
            if kind == "summary" and isinstance(rec.get("summary"), str):
                self.summaries[str(rec.get("leafUuid"))] = rec["summary"]
            elif kind in ("ai-title", "custom-title"):
                title = rec.get("aiTitle") or rec.get("customTitle") or rec.get("title")
                if isinstance(title, str) and title.strip():
                    self.title = title.strip()  # the newest wins
            elif kind == "queue-operation" and rec.get("operation") == "enqueue":
                # a queued slash command is logged as its name, then its expanded body; the
                # body later reaches the transcript as an ordinary user record
                content = rec.get("content")
                if isinstance(content, str):
                    if self._last_enqueued_command and not content.startswith("<"):
                        self.command_bodies.add(content.strip())
                    self._last_enqueued_command = "<command-name>" in content
            return "meta"
        if kind in STREAM_TYPES:  # Claude Code's stream-json protocol, not the conversation
            self.stats.skip(f"stream:{kind}")
            return "stream"
        self.stats.unknown[str(kind)] += 1
        return "unknown"

    # ---- live: one record at a time -----------------------------------------------------------
    def feed(self, record: dict, t: float | None = None) -> list[dict]:
        """One record as it arrives; the events it makes (in order). `t` stands in for records
        that carry no timestamp (stream-json assistant records)."""
        self.live = True
        self._feed_no += 1
        if t is not None and record.get("timestamp") is None:
            record = {**record, "timestamp": t}
        n = len(self.ev.events)
        mid = _message(record).get("id") if record.get("type") == "assistant" else None
        if self._pending_usage is not None and mid != self._pending_usage[0]:
            self.flush()
        if self._note(Line(self._feed_no, record)) == "chain":
            self._dispatch(self._feed_no, record)
        return self.ev.events[n:]

    def flush(self) -> list[dict]:
        """Live: the usage of a reply whose records have all come (at the end of a turn)."""
        n = len(self.ev.events)
        if self._pending_usage is not None:
            _, rec, t = self._pending_usage
            self._pending_usage = None
            self._usage(rec, t)
        return self.ev.events[n:]

    # ---- records --------------------------------------------------------------------------
    def run(self, lines: list[Line]) -> None:
        graph = self.scan(lines)
        for line_no, rec in graph.threaded():
            self._dispatch(line_no, rec)

    def _dispatch(self, line_no: int, rec: dict) -> None:
        kind = rec.get("type")
        try:
            if kind == "assistant":
                self.assistant(line_no, rec, self._scope(rec))
            elif kind == "user":
                self.user(line_no, rec, self._scope(rec))
            elif kind == "system":
                self.system(rec)
            elif kind == "progress":
                self.progress(line_no, rec)
            elif kind == "attachment":
                self.attachment(rec)
            else:
                self.stats.skip(f"record:{kind}")
        except (AttributeError, TypeError, KeyError, ValueError) as exc:
            # a record of an unexpected shape: counted and skipped, the rest still imported
            self.stats.skip("unexpected_shape")
            self.stats.note(f"line {line_no}: {kind} record of unexpected shape ({type(exc).__name__}: {exc})")

    def _scope(self, rec: dict) -> dict:
        """The fields that mark a sidechain record's events as a subagent's ({} for the main thread)."""
        parent = rec.get("parent_tool_use_id")  # stream-json: a subagent's records name their Task call
        if isinstance(parent, str) and parent:
            return {"sidechain": True, "agent_id": parent, "parent_tool_id": parent}
        if not rec.get("isSidechain") or self.only_sidechains:
            return {}
        uid = rec.get("uuid")
        agent = rec.get("agentId") or self.sidechain_agent.get(rec.get("parentUuid")) \
            or "sidechain-" + str(uid)[:8]
        if uid:
            self.sidechain_agent[uid] = agent
        out = {"sidechain": True, "agent_id": agent}
        if agent in self.agent_parent_tool:
            out["parent_tool_id"] = self.agent_parent_tool[agent]
        return out

    def assistant(self, line_no: int, rec: dict, scope: dict, t: float | None = None) -> None:
        msg = _message(rec)
        t = parse_time(rec.get("timestamp")) if t is None else t
        model = msg.get("model")
        if isinstance(model, str) and model and model != "<synthetic>" and not scope:
            if not self.models or self.models[-1] != model:
                self.models.append(model)
        content = msg.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        block_id = msg.get("id")
        for block in content or []:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text":
                text = block.get("text") or ""
                if not text.strip():
                    self.stats.skip("empty_text")
                elif rec.get("isApiErrorMessage") or (model == "<synthetic>" and text.startswith("API Error")):
                    self.ev.add("error", t, message=text, where="api", fatal=False, **scope)
                else:
                    self.ev.add("assistant_text", t, text=text, block=block_id, **scope)
            elif kind in ("thinking", "redacted_thinking"):
                text = block.get("thinking") or ""
                if kind == "redacted_thinking" or not text:
                    self.ev.add("thinking", t, text="", redacted=True, block=block_id, **scope)
                else:
                    self.ev.add("thinking", t, text=text, block=block_id, **scope)
            elif kind in ("tool_use", "server_tool_use"):
                self.tool_call(t, block, scope, rec)
            elif isinstance(kind, str) and kind.endswith("_tool_result"):  # server tool results
                self.tool_result(t, block, scope, rec)
            else:
                self.stats.skip(f"assistant_block:{kind}")
        mid = msg.get("id")
        if not isinstance(mid, str) or scope or mid in self.usage_done or not self.want_usage:
            return
        if self.live:  # its last record is known once another record comes (or the turn ends)
            if isinstance(msg.get("usage"), dict):
                self._pending_usage = (mid, rec, t)
        elif self.usage_last_line.get(mid) == line_no:
            self._usage(rec, t)

    def _usage(self, rec: dict, t: float | None) -> None:
        msg = _message(rec)
        self.usage_done.add(msg.get("id"))
        u = msg.get("usage") or {}
        self.ev.add("usage", t, input_tokens=int(u.get("input_tokens") or 0),
                    output_tokens=int(u.get("output_tokens") or 0),
                    cache_read_tokens=int(u.get("cache_read_input_tokens") or 0),
                    cache_write_tokens=int(u.get("cache_creation_input_tokens") or 0),
                    model=msg.get("model"))

    def tool_call(self, t: float | None, block: dict, scope: dict, rec: dict) -> None:
        raw_id = block.get("id")
        name = str(block.get("name") or "?")
        tool_input = block.get("input")
        if not isinstance(tool_input, dict):
            tool_input = {"input": tool_input}
        if isinstance(raw_id, str) and raw_id and raw_id != "REDACTED":
            if raw_id in self.calls:  # the same reply logged twice (e.g. across a resume)
                self.stats.skip("duplicate_tool_call")
                return
            tool_id = raw_id
        else:  # redacted (Entire) or missing: a unique id, answered by the next redacted result
            self.redacted_n += 1
            tool_id = f"redacted-{self.redacted_n}"
            self.pending_redacted.setdefault(scope.get("agent_id", ""), []).append(tool_id)
        ev = self.ev.add("tool_call", t, id=tool_id, name=name, input=tool_input, **scope)
        self.calls[tool_id] = ev
        if name == "AskUserQuestion":
            self.ask_calls[tool_id] = tool_input
        if name in TASK_TOOLS and isinstance(tool_input.get("prompt"), str):
            self.task_prompts[tool_input["prompt"].strip()] = tool_id

    def _result_id(self, raw_id, scope: dict) -> str | None:
        """Our id for a result's call; None for a second result of one call."""
        if isinstance(raw_id, str) and raw_id and raw_id != "REDACTED":
            return None if raw_id in self.results_seen else raw_id
        # a redacted id: the oldest call of the same agent whose id was redacted too
        queue = self.pending_redacted.get(scope.get("agent_id", ""))
        if queue:
            return queue.pop(0)
        self.redacted_n += 1
        return f"redacted-{self.redacted_n}"

    def tool_result(self, t: float | None, block: dict, scope: dict, rec: dict) -> dict | None:
        tool_id = self._result_id(block.get("tool_use_id"), scope)
        if tool_id is None:
            self.stats.skip("duplicate_tool_result")
            return None
        self.results_seen.add(tool_id)
        call = self.calls.get(tool_id)
        output = _text_of(block.get("content"))
        fields = {"id": tool_id, "output": output, "is_error": bool(block.get("is_error"))}
        if call is not None:
            fields["name"] = call["name"]
        else:
            self.stats.note("some tool results answer calls that are not in the transcript")
        extra = rec.get("toolUseResult", rec.get("tool_use_result"))
        if isinstance(extra, dict):
            if extra.get("interrupted"):
                fields["interrupted"] = True
            dur = extra.get("durationMs") or extra.get("totalDurationMs")
            if isinstance(dur, (int, float)):
                fields["duration_s"] = round(dur / 1000.0, 3)
        return self.ev.add("tool_result", t, **fields, **scope)

    def user(self, line_no: int, rec: dict, scope: dict, t: float | None = None) -> None:
        msg = _message(rec)
        t = parse_time(rec.get("timestamp")) if t is None else t
        content = msg.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": _text_of(content)}]
        results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        texts = [b for b in blocks if not (isinstance(b, dict) and b.get("type") == "tool_result")]
        for block in results:
            ev = self.tool_result(t, block, scope, rec)
            if ev is not None and not scope:
                self._human_in_result(t, ev, rec)
        text = _text_of(texts).strip() if texts else ""
        if not text:
            return
        if scope:
            # inside a subagent, "user" text is the parent agent's prompt (or harness text)
            parent_tool = self.task_prompts.get(text)
            if parent_tool and "parent_tool_id" not in scope:
                self.agent_parent_tool.setdefault(scope["agent_id"], parent_tool)
            self.stats.skip("subagent_prompt")
            return
        self.human_text(t, text, rec, with_results=bool(results))

    def human_text(self, t: float | None, text: str, rec: dict, with_results: bool = False) -> None:
        if rec.get("isCompactSummary"):
            self.compaction(t, text=text)
            return
        if rec.get("isMeta"):
            self.stats.skip("meta")
            return
        if rec.get("isVisibleInTranscriptOnly"):
            self.stats.skip("transcript_only")
            return
        if text.startswith(INTERRUPT_PREFIX):
            if self.own_interrupts:  # KernelSeek sent it: its log holds the steerer's interrupt
                self.stats.skip("own_interrupt")
                return
            self.ev.add("human_message", t, text=text, source=self.human_source, kind="interrupt")
            return
        for prefix, reason in HARNESS_PREFIXES:
            if text.startswith(prefix):
                self.stats.skip(reason)
                return
        name = _tag("command-name", text)
        if name is not None and ("<command-message>" in text or text.lstrip().startswith("<command-name>")):
            args = _tag("command-args", text) or ""
            fields = {"source": "imported", "via": "slash_command", "command": name}
            if args:
                self.ev.add("human_message", t, text=args, kind="message", **fields)
                self.first_prompt = self.first_prompt or args
            else:
                self.ev.add("human_message", t, text=name, kind="command", **fields)
            return
        bash = _tag("bash-input", text)
        if bash is not None:
            self.ev.add("human_message", t, text=bash, source="imported", kind="command", via="bash_input")
            return
        stripped = _SYSTEM_REMINDER_RE.sub("", text).strip()
        if not stripped:
            self.stats.skip("system_reminder")
            return
        if stripped in self.command_bodies or stripped in self.meta_texts:
            self.stats.skip("command_body")
            return
        fields = {"source": self.human_source, "kind": "message"}
        if with_results:
            fields["via"] = "mid_turn"  # typed while tools ran; delivered with their results
        self.ev.add("human_message", t, text=stripped, **fields)
        if self.first_prompt is None:
            self.first_prompt = stripped

    def _human_in_result(self, t: float | None, result: dict, rec: dict) -> None:
        """AskUserQuestion answers and the words a user typed when rejecting a tool call."""
        output = result.get("output") or ""
        tool_id = result.get("id")
        if tool_id in self.ask_calls:
            answers = None
            extra = rec.get("toolUseResult", rec.get("tool_use_result"))
            if isinstance(extra, dict) and isinstance(extra.get("answers"), dict):
                answers = {str(k): str(v) for k, v in extra["answers"].items()}
            elif "User has answered your question" in output:
                answers = {_unquote(q): _unquote(a) for q, a in _ASK_ANSWER_RE.findall(output)}
            if answers:
                text = "\n".join(answers.values()) if len(answers) == 1 else \
                    "\n".join(f"{q} -> {a}" for q, a in answers.items())
                self.ev.add("human_message", t, text=text, source="imported", kind="message",
                            via="ask_user_question", answers=answers, tool_id=tool_id)
                return
            said = output.split(USER_SAID, 1)[1].strip() if USER_SAID in output else ""
            self.ev.add("human_message", t, text=said.splitlines()[0] if said else "(no answer)",
                        source="imported", kind="message", via="ask_user_question", tool_id=tool_id,
                        declined=True)
            return
        if output.startswith(REJECTED_PREFIX) and USER_SAID in output:
            said = output.split(USER_SAID, 1)[1].strip()
            if said:
                self.ev.add("human_message", t, text=said, source="imported", kind="message",
                            via="tool_rejection", tool_id=tool_id)

    def compaction(self, t: float | None, text: str = "", **meta) -> None:
        if text and self.compaction_open is not None:
            self.compaction_open["text"] = text
            self.compaction_open = None
            return
        ev = self.ev.add("compaction", t, text=text, **{k: v for k, v in meta.items() if v is not None})
        self.compaction_open = ev if not text else None

    def system(self, rec: dict) -> None:
        t = parse_time(rec.get("timestamp"))
        sub = rec.get("subtype")
        if sub == "compact_boundary":
            meta = rec.get("compactMetadata") or {}
            self.compaction(t, trigger=meta.get("trigger"), pre_tokens=meta.get("preTokens"))
            return
        if sub == "api_error" or rec.get("level") == "error":
            err = rec.get("error") or {}
            message = (err.get("message") if isinstance(err, dict) else None) or rec.get("content") \
                or (json.dumps(err)[:300] if err else "API error")
            detail = {k: rec[k] for k in ("retryAttempt", "maxRetries", "retryInMs") if k in rec}
            self.ev.add("error", t, message=str(message), where="api", fatal=False, detail=detail or None)
            return
        self.stats.skip(f"system:{sub or rec.get('level') or '?'}")

    def progress(self, line_no: int, rec: dict) -> None:
        data = rec.get("data") or {}
        if data.get("type") != "agent_progress" or not isinstance(data.get("message"), dict):
            self.stats.skip(f"progress:{data.get('type')}")
            return
        inner = data["message"]
        agent = str(data.get("agentId") or "agent")
        scope = {"sidechain": True, "agent_id": agent}
        if isinstance(rec.get("parentToolUseID"), str):
            scope["parent_tool_id"] = rec["parentToolUseID"]
        t = parse_time(inner.get("timestamp")) or parse_time(rec.get("timestamp"))
        kind = inner.get("type")
        uid = inner.get("uuid")
        if uid:
            if uid in self.progress_seen:
                self.stats.skip("duplicate_subagent_message")
                return
            self.progress_seen.add(uid)
        if kind == "assistant":
            self.assistant(line_no, inner, scope, t)
        elif kind == "user":
            self.user(line_no, inner, scope, t)
        else:
            self.stats.skip(f"agent_progress:{kind}")

    def attachment(self, rec: dict) -> None:
        att = rec.get("attachment") or {}
        kind = att.get("type")
        t = parse_time(rec.get("timestamp"))
        if kind == "queued_command" and isinstance(att.get("prompt"), str) and att["prompt"].strip():
            # a prompt typed while the agent was busy, delivered between tool calls
            self.ev.add("human_message", t, text=att["prompt"].strip(), source=self.human_source,
                        kind="message", via="queued")
            return
        self.stats.skip(f"attachment:{kind}")

    # ---- the session --------------------------------------------------------------------------
    def task(self) -> str:
        for leaf, summary in self.summaries.items():
            if leaf in self.uuids:  # a summary of this conversation, not of an earlier one
                return summary
        if self.title:
            return self.title
        if self.first_prompt:
            return short_task(self.first_prompt)
        return self.path.stem


def import_claude_code(path: str | Path, extra_files: list[Path] | None = None) -> ImportResult:
    """Import one Claude Code session file (and the subagent files next to it, if any)."""
    p = Path(path)
    stats = ImportStats(format=AGENT_CLAUDE_CODE, source=str(p))
    lines = read_json_lines(p, stats)
    sub_files = list(extra_files) if extra_files is not None else sorted(
        (p.parent / p.stem / "subagents").glob("agent-*.jsonl"))
    for extra in sub_files:
        sub_stats = ImportStats(format=AGENT_CLAUDE_CODE, source=str(extra))
        sub_lines = read_json_lines(extra, sub_stats)
        base = 10_000_000 * (1 + sub_files.index(extra))  # keep line numbers apart from the main file's
        lines.extend(Line(base + ln.no, ln.record) for ln in sub_lines)
        stats.malformed.extend(sub_stats.malformed)
        stats.note(f"subagent file {extra.name}: {len(sub_lines)} records")
    imp = ClaudeCodeTranslator(p, stats)
    imp.run(lines)
    model = imp.models[0] if imp.models else None
    events = finish(imp.ev, stats, agent=AGENT_CLAUDE_CODE, model=model, task=imp.task(), source=str(p),
                    start_fields={
                        "recorded_by": f"claude-code {imp.version}" if imp.version else "claude-code",
                        "workspace": imp.cwd, "session_id": imp.session_id, "title": imp.title,
                        "git_branch": imp.git_branch,
                        "models": list(dict.fromkeys(imp.models)) if len(set(imp.models)) > 1 else None,
                    })
    return ImportResult(events, stats)
