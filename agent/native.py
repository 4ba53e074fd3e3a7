"""The native agent: KernelSeek's own loop on the Anthropic Messages API, with five tools.

One turn: at the turn boundary the host delivers the inbox (each message acknowledged in the
log first) and checks the limits; the conversation goes to the model, streamed; its blocks are
written as they complete; its tool calls run one after another; a reply that calls no tool is
the model ending its turn, and the host's stop gate decides whether the session ends. The
conversation is folded from the events (`observe`), so the log and the messages never disagree.
"""
from __future__ import annotations

import json
import time
import traceback

from agent.adapter import Agent
from agent.config import AgentConfig
from agent.conversation import CACHE, Conversation
from agent.model import ModelClient, TurnResult
from agent.prompt import SYSTEM_PROMPT, task_prompt
from agent.shell import run_shell
from agent.tools import TOOL_SPECS, ToolInputError, ToolOutcome, edit_file, read_file, write_file

AGENT_NAME = "kernelseek"
RESTARTED_TOOL = ("[not finished: the runner stopped (a crash or a kill) while this tool ran; "
                  "its result is lost. Run it again if you need it.]")
NOT_RUN = "[not run: the steerer interrupted before this tool call started]"
CUT_CALL = "[not run: this tool call was cut off at the output limit (max_tokens); send it again, shorter]"


class _Deltas:
    """Coalesces streamed text into `assistant_delta` events, flushed on a clock."""

    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s
        self.buf: dict[tuple[int, str], str] = {}
        self.last = time.monotonic()

    def add(self, index: int, text: str, kind: str) -> None:
        self.buf[(index, kind)] = self.buf.get((index, kind), "") + text

    def take(self, force: bool = False, index: int | None = None) -> list[tuple[int, str, str]]:
        now = time.monotonic()
        if not force and now - self.last < self.interval_s:
            return []
        self.last = now
        keys = [k for k in self.buf if index is None or k[0] == index]
        return [(i, kind, self.buf.pop((i, kind))) for i, kind in keys]


class NativeAgent(Agent):
    name = AGENT_NAME

    def __init__(self, model: ModelClient, config: AgentConfig) -> None:
        self.model = model
        self.config = config
        self.host = None
        self.conversation = Conversation()
        self._deltas = _Deltas(config.delta_interval_s)
        self._turn = 0  # the highest turn number in the log
        self._attempt = 1
        self._turn_in_flight = 0
        self._last_prompt_tokens = 0

    # -- the five verbs --------------------------------------------------------------------------

    def start(self, host) -> dict:
        self.host = host
        task = host.task
        header_text = task.header.read_text(errors="replace")
        prompt = {"system": SYSTEM_PROMPT,
                  "task": task_prompt(task, candidate_name=host.candidate.name, header_text=header_text,
                                      goal=host.goal)}
        return {"agent": AGENT_NAME, "model": self.config.model, "prompt": prompt}

    def resume(self, host, events: list[dict]) -> dict:
        self.host = host
        return {"model": self.config.model,
                "unanswered_tool_calls": [b["id"] for b in self.conversation.unanswered_tool_calls()]}

    def deliver(self, messages: list[dict]) -> None:
        """Nothing to do: the acknowledged events are folded into the conversation (`observe`)
        and go out with the next request."""

    def interrupt(self) -> None:
        """Nothing to do: the stream reader and the tools poll the host's cancel event."""

    def observe(self, ev: dict) -> None:
        self.conversation.add(ev)
        if isinstance(ev.get("turn"), int):
            self._turn = max(self._turn, ev["turn"])

    @property
    def turns(self) -> int:
        return self.conversation.turns

    def events(self) -> str:
        host = self.host
        if host.resumed:
            self._answer_unfinished(RESTARTED_TOOL)
            if self.conversation.awaiting_user and host.stop_gate().end:
                return "goal_met"
        while True:
            # limits first: a message acknowledged now must reach a request
            end = host.limit_reached()
            if end:
                return end
            host.boundary()
            if self.conversation.awaiting_user:
                host.emit("runner_note", text="[Runner] The session goes on; continue toward the goal.")
            result = self._model_turn()
            calls = [b for b in result.blocks if b["type"] == "tool_use"]
            if result.interrupted:
                self._answer_unfinished(NOT_RUN)
                continue
            if calls:
                # at max_tokens the last call may be cut mid-input (a half-written file): never run it
                cut = result.stop_reason == "max_tokens"
                self._run_tools(calls[:-1] if cut else calls)
                self._answer_unfinished(NOT_RUN if host.cancel.is_set() or not cut else CUT_CALL)
                continue
            if result.stop_reason == "max_tokens":
                host.emit("runner_note", text="[Runner] Your reply was cut off at the output limit "
                                              f"(max_tokens {self.config.max_tokens}). Continue.")
                continue
            if host.stop_gate().end:
                return "goal_met"

    # -- one model turn --------------------------------------------------------------------------

    def _request(self) -> dict:
        self._maybe_compact()
        tools = [dict(t) for t in TOOL_SPECS]
        tools[-1]["cache_control"] = dict(CACHE)
        req = {
            "model": self.config.model,
            "max_tokens": self.config.max_tokens,
            "system": [{"type": "text", "text": self.conversation.system, "cache_control": dict(CACHE)}],
            "tools": tools,
            "messages": self.conversation.request_messages(),
        }
        if self.config.thinking == "adaptive":
            req["thinking"] = {"type": "adaptive"}
        elif self.config.thinking != "off":
            req["thinking"] = {"type": "enabled", "budget_tokens": int(self.config.thinking)}
        return req

    def _maybe_compact(self) -> None:
        c = self.config
        overhead = len(self.conversation.system) + len(json.dumps(TOOL_SPECS))
        plan = self.conversation.plan_compaction(
            budget_tokens=int(c.compact_at * c.context_window), target_tokens=int(0.5 * c.context_window),
            keep_recent=c.keep_recent_messages, overhead_chars=overhead, known_tokens=self._last_prompt_tokens)
        if plan is not None:
            upto, level, before, after = plan
            self.host.emit("compaction", upto=upto, level=level, before_tokens=before, after_tokens=after,
                           context_window=c.context_window, trigger="auto", pre_tokens=before,
                           text=f"old tool outputs shortened in messages before #{upto} (level {level}): "
                                f"about {before:,} -> {after:,} tokens")
            self._last_prompt_tokens = 0

    def _model_turn(self) -> TurnResult:
        request = self._request()
        turn = self._turn + 1
        self._turn_in_flight = turn
        result = self.model.turn(request, self, self.host.cancel)
        self._flush_deltas(force=True)
        if result.interrupted:
            self.host.cancelled = "reply"
            for index, part in sorted(result.partial.items()):
                if part.get("type") == "text" and part.get("text"):
                    self.host.emit("assistant_text", text=part["text"], block=index, turn=turn,
                                   attempt=result.attempt, interrupted=True)
        if result.usage or result.blocks:
            u = result.usage
            inp, cw, cr = (int(u.get(k, 0)) for k in ("input_tokens", "cache_write_tokens", "cache_read_tokens"))
            self._last_prompt_tokens = inp + cw + cr
            self.host.usage(model=self.config.model, input_tokens=inp, output_tokens=int(u.get("output_tokens", 0)),
                            cache_read_tokens=cr, cache_write_tokens=cw, turn=turn, attempt=result.attempt,
                            stop_reason=result.stop_reason, request_id=result.request_id)
        self._turn = max(self._turn, turn)
        return result

    # TurnSink: called on the agent's thread while a turn streams
    def attempt(self, attempt: int) -> None:
        self._attempt = attempt
        self._deltas.buf.clear()

    def text_delta(self, index: int, text: str, kind: str) -> None:
        if kind == "text":  # thinking arrives whole: live views key streams by block and close them on text
            self._deltas.add(index, text, kind)

    def tick(self) -> None:
        self._flush_deltas()

    def block(self, index: int, block: dict) -> None:
        self._flush_deltas(force=True, index=index)
        turn, attempt, emit = self._turn_in_flight, self._attempt, self.host.emit
        kind = block["type"]
        if kind == "text":
            emit("assistant_text", text=block["text"], block=index, turn=turn, attempt=attempt)
        elif kind == "thinking":
            emit("thinking", text=block["thinking"], signature=block.get("signature"), block=index,
                 turn=turn, attempt=attempt)
        elif kind == "redacted_thinking":
            emit("thinking", text="", redacted=True, data=block["data"], block=index, turn=turn, attempt=attempt)
        elif kind == "tool_use":
            emit("tool_call", id=block["id"], name=block["name"], input=block["input"], block=index,
                 turn=turn, attempt=attempt)

    def retry(self, attempt: int, error: str, delay_s: float, status: int | None) -> None:
        self._flush_deltas(force=True)
        self.host.emit("error", message=f"model request failed ({error}); retrying in {delay_s:.1f} s",
                       where="model", fatal=False, attempt=attempt, status=status, retry_in_s=round(delay_s, 3),
                       turn=self._turn_in_flight)

    def _flush_deltas(self, force: bool = False, index: int | None = None) -> None:
        for i, kind, text in self._deltas.take(force, index):
            self.host.emit("assistant_delta", block=i, text=text, kind=kind, turn=self._turn_in_flight,
                           attempt=self._attempt)

    # -- tools -----------------------------------------------------------------------------------

    def _answer_unfinished(self, why: str) -> None:
        """Give every tool call of the last reply that has no result one (the API requires it)."""
        for call in self.conversation.unanswered_tool_calls():
            self.host.emit("tool_result", id=call["id"], name=call["name"], output=why, is_error=True,
                           interrupted=True, duration_s=0.0)

    def _run_tools(self, calls: list[dict]) -> None:
        host = self.host
        for call in calls:
            if host.cancel.is_set():
                break
            start = time.monotonic()
            try:
                outcome = self._tool(call)
            except ToolInputError as exc:
                outcome = ToolOutcome(f"error: {exc}", is_error=True)
            except OSError as exc:
                outcome = ToolOutcome(f"error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "),
                                      is_error=True)
            except Exception as exc:  # noqa: BLE001 - a tool bug must not end the session
                outcome = ToolOutcome(f"error: the tool failed: {type(exc).__name__}: {exc}", is_error=True)
                host.emit("error", message=f"tool {call['name']} failed: {type(exc).__name__}: {exc}",
                          where="tool", fatal=False, detail=traceback.format_exc()[-4000:])
            if outcome.interrupted and call["name"] != "evaluate":
                host.cancelled = "tool"
            host.emit("tool_result", id=call["id"], name=call["name"], output=outcome.output,
                      is_error=outcome.is_error, truncated=outcome.truncated, interrupted=outcome.interrupted,
                      duration_s=round(time.monotonic() - start, 3), **(outcome.extra or {}))

    def _tool(self, call: dict) -> ToolOutcome:
        host = self.host
        name, inp, ws = call["name"], call.get("input") or {}, host.paths.workspace
        if name == "bash":
            command = inp.get("command")
            if not isinstance(command, str) or not command.strip():
                raise ToolInputError("command: expected a non-empty string")
            timeout = inp.get("timeout_s")
            timeout = self.config.bash_timeout_s if not isinstance(timeout, (int, float)) or timeout <= 0 \
                else min(float(timeout), self.config.bash_max_timeout_s)
            r = run_shell(command, cwd=ws, env=host.tool_env, timeout_s=timeout, cancel=host.cancel,
                          cap_chars=self.config.output_cap_chars, sandbox=host.sandbox, readable=(host.task.dir,))
            return ToolOutcome(r.output, is_error=bool(r.exit_code) or r.timed_out, truncated=r.truncated,
                               interrupted=r.interrupted,
                               extra={"exit_code": r.exit_code, "timed_out": r.timed_out})
        if name == "read_file":
            return read_file(ws, inp, self.config.read_cap_chars)
        if name == "write_file":
            return write_file(ws, inp)
        if name == "edit_file":
            return edit_file(ws, inp)
        if name == "evaluate":
            return host.evaluate(inp, call_id=call["id"])
        raise ToolInputError(f"no tool named {name!r}; the tools are bash, read_file, write_file, edit_file, evaluate")
