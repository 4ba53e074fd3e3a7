"""The agent runner: the loop that drives one session from its first request to session_end.

One turn: deliver the inbox (acknowledging each message in the log first), check the limits,
send the conversation, stream the reply into the log, run its tool calls; when the reply calls
no tool, the stop gate decides from an evaluation whether the session ends. Every event goes
through `emit`, which redacts secrets, appends to the log, folds the event into the
conversation (so the log and the messages can never disagree), feeds the detectors, and tells
the caller (the headless printer).

Threads: the runner's own (everything that writes the conversation), the inbox watcher (turns
an `interrupt` line into `cancel.set()` at once), the model stream's reader, an evaluation's
worker. Events from them are serialised by one re-entrant lock.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import threading
import time
import traceback
from dataclasses import replace
from pathlib import Path
from typing import Callable

from agent.autopilot import Autopilot, Detection
from agent.config import AgentConfig, cost_usd
from agent.control import parse_control, raise_goal
from agent.conversation import CACHE, Conversation
from agent.evaluation import Evaluations, file_sha256
from agent.facts import candidate_name, device_name, task_arch, task_capabilities
from agent.gate import judge, met_but_written_feedback, unmet_feedback
from agent.launchers.place import runner_place
from agent.model import ModelClient, ModelError, TurnResult
from agent.prompt import SYSTEM_PROMPT, goal_dict, task_prompt
from agent.secrets import Redactor, scrubbed_env
from agent.shell import Sandbox, run_shell
from agent.tools import TOOL_SPECS, ToolInputError, ToolOutcome, edit_file, read_file, workspace_path, write_file
from agent.watch import InboxWatcher
from evaluator.errors import DeviceUnavailable, EvaluatorError
from sessions.inbox import Inbox
from sessions.layout import SessionPaths, create_session, require_private, resolve_session
from sessions.log import SessionError, SessionWriter, read_events

AGENT_NAME = "kernelseek"
RESTARTED_TOOL = ("[not finished: the runner stopped (a crash or a kill) while this tool ran; "
                  "its result is lost. Run it again if you need it.]")
NOT_RUN = "[not run: the steerer interrupted before this tool call started]"
CUT_CALL = "[not run: this tool call was cut off at the output limit (max_tokens); send it again, shorter]"


class _AckWriter:
    """Lets `Inbox.acknowledge` write through the runner's `emit` (one path for every event)."""

    def __init__(self, emit: Callable[..., dict]) -> None:
        self._emit = emit

    def append(self, type: str, /, **fields) -> dict:
        return self._emit(type, **fields)


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


class Runner:
    def __init__(self, *, paths: SessionPaths, writer: SessionWriter, task, config: AgentConfig,
                 model: ModelClient, secrets: list[str], on_event: Callable[[dict], None] | None = None) -> None:
        self.paths = paths
        self.writer = writer
        self.task = task
        self.config = config
        self.model = model
        self.on_event = on_event
        self.redact = Redactor(secrets)
        self.tool_env = scrubbed_env(os.environ, secrets)
        self.sandbox = Sandbox(config.sandbox)
        self.candidate = paths.workspace / candidate_name(task)
        self.conversation = Conversation()
        self.inbox = Inbox(paths.root)
        self.goal = goal_dict(task.goal)
        self.arch = task_arch(task)
        self.capabilities = task_capabilities(task)
        self.detection = Detection(config.detectors)
        self.autopilot = Autopilot(self.detection, config.grace_s) if config.autopilot else None
        self.evals = Evaluations(task, paths, self.emit, options=config.eval_options(),
                                 gate_quick=config.gate_quick)
        self.cancel = threading.Event()  # set by an interrupt or a stop; polled by tools and the stream
        self._lock = threading.RLock()
        self._ilock = threading.Lock()
        self._pending_interrupts: set[str] = set()
        self._delivered: set[str] = set()
        self._cancelled: str | None = None  # what the last interrupt stopped: tool | reply | evaluation
        self._stop_reason: str | None = None
        self._stop_fields: dict = {}  # session_end's by / detail / inbox_id for a stop
        self._ack_writer = _AckWriter(self.emit)
        self._deltas = _Deltas(config.delta_interval_s)
        self._turn = 0  # the highest turn number in the log
        self._attempt = 1
        self._turn_in_flight = 0
        self.total_cost = 0.0
        self.total_tokens = 0
        self._last_prompt_tokens = 0
        self._run_started = time.time()
        self._prior_active_s = 0.0
        self._resumed = False
        self._last_dp: dict | None = None
        self._printer_broken = False

    # -- creating and resuming -------------------------------------------------------------------

    @classmethod
    def create(cls, task_name: str, *, config: AgentConfig, model: ModelClient, secrets: list[str],
               session_dir: str | os.PathLike | None = None, sessions_dir: str | os.PathLike | None = None,
               on_event: Callable[[dict], None] | None = None, group: str | None = None) -> "Runner":
        from evaluator.task import load_task

        task = load_task(task_name)
        paths = create_session(sessions_dir, task=task.name, path=session_dir, group=group)
        require_private(paths, group=group)
        writer = SessionWriter(paths.events, lock_path=paths.lock)
        try:
            runner = cls(paths=paths, writer=writer, task=task, config=config, model=model,
                         secrets=secrets, on_event=on_event)
            runner._start()
        except BaseException:
            writer.close()
            raise
        return runner

    @classmethod
    def resume(cls, session: str | os.PathLike, *, config: AgentConfig, model: ModelClient,
               secrets: list[str], sessions_dir: str | os.PathLike | None = None,
               on_event: Callable[[dict], None] | None = None, group: str | None = None) -> "Runner":
        from evaluator.task import load_task

        paths = resolve_session(session, sessions_dir)
        require_private(paths, group=group)
        writer = SessionWriter(paths.events, lock_path=paths.lock)  # mends a torn last line
        try:
            events = read_events(paths.events).events
            start = next((e for e in events if e.get("type") == "session_start"), None)
            if start is None or not (start.get("prompt") or {}).get("task"):
                raise SessionError(f"{paths.root}: not a session this runner wrote (no session_start prompt)")
            task = load_task(start.get("task_dir") or start["task"])
            runner = cls(paths=paths, writer=writer, task=task, config=config, model=model,
                         secrets=secrets, on_event=on_event)
            runner._replay(events)
            ended = next((e.get("reason") for e in reversed(events) if e.get("type") == "session_end"), None)
            runner._resumed = True
            runner.emit("session_resume", from_seq=events[-1]["seq"] if events else None, pid=os.getpid(),
                        host=socket.gethostname(), place=runner_place(), voided_stops=runner.inbox.void_stops(),
                        previous_end=ended, model=config.model,
                        unanswered_tool_calls=[b["id"] for b in runner.conversation.unanswered_tool_calls()])
        except BaseException:
            writer.close()
            raise
        return runner

    def _start(self) -> None:
        shutil.copyfile(self.task.seed, self.candidate)
        shutil.copyfile(self.task.header, self.paths.workspace / self.task.header.name)
        self.sandbox.probe(self.paths.workspace)
        header_text = self.task.header.read_text(errors="replace")
        prompt = {"system": SYSTEM_PROMPT,
                  "task": task_prompt(self.task, candidate_name=self.candidate.name, header_text=header_text,
                                      goal=self.goal)}
        device = device_name(self.task)
        self.emit("session_start", task=self.task.name, goal=self.goal, agent=AGENT_NAME,
                  model=self.config.model, host=socket.gethostname(), device=device, arch=self.arch,
                  capabilities=self.capabilities, workspace=str(self.paths.workspace),
                  candidate=self.candidate.name, task_dir=str(self.task.dir), config=self.config.public(),
                  prompt=prompt, sandbox=self.sandbox.note, pid=os.getpid(), place=runner_place(),
                  recorded_by="kernelseek run",
                  **({"note": self.config.note} if self.config.note else {}))
        if self.detection.problem:
            self.emit("error", message=self.detection.problem, where="detection", fatal=False)
        if self.config.autopilot and not self.detection.on:
            self.emit("error", message="autopilot is off: it needs the detectors and the bank", where="autopilot",
                      fatal=False)

    def _replay(self, events: list[dict]) -> None:
        """Rebuild the runner's state from the log (after a crash, or to continue an ended session)."""
        segment_start = None
        last_t = None
        for ev in events:
            kind = ev.get("type")
            t = ev.get("t")
            if kind in ("session_start", "session_resume"):
                if segment_start is not None and last_t is not None:
                    self._prior_active_s += max(0.0, last_t - segment_start)
                segment_start = t
            last_t = t if isinstance(t, (int, float)) else last_t
            self.conversation.add(ev)
            self._track(ev)
            if kind == "eval_result" and not ev.get("interrupted"):
                self.evals.note_result(ev)
        if segment_start is not None and last_t is not None:
            self._prior_active_s += max(0.0, last_t - segment_start)
        self.detection.replay(events)
        self.sandbox.probe(self.paths.workspace)

    # -- the one way events are written ----------------------------------------------------------

    def emit(self, type: str, **fields) -> dict:
        with self._lock:
            ev = self.writer.append(type, **self.redact(fields))
            self.conversation.add(ev)
            self._track(ev)
            self._tell(ev)
            for dp_fields in self.detection.feed(ev):
                dp = self.emit("decision_point", **dp_fields)
                if self.autopilot is not None:
                    self.autopilot.note(dp)
            if self.autopilot is not None and type == "human_message":
                self.autopilot.note(ev)
            return ev

    def _track(self, ev: dict) -> None:
        kind = ev.get("type")
        if isinstance(ev.get("turn"), int):
            self._turn = max(self._turn, ev["turn"])
        if kind == "usage":
            self.total_cost = float(ev.get("total_cost_usd") or self.total_cost)
            self.total_tokens = int(ev.get("total_tokens") or self.total_tokens)
        elif kind == "human_message":
            if isinstance(ev.get("goal"), dict):
                self.goal = dict(ev["goal"])
        elif kind == "decision_point":
            self._last_dp = ev

    def _tell(self, ev: dict) -> None:
        if self.on_event is None or self._printer_broken:
            return
        try:
            self.on_event(ev)
        except Exception:  # noqa: BLE001 - a closed terminal must not stop the session
            self._printer_broken = True

    # -- interrupts and stops --------------------------------------------------------------------

    def _on_interrupt(self, msg_id: str) -> None:
        with self._ilock:
            if msg_id in self._delivered:
                return
            self._pending_interrupts.add(msg_id)
            self.cancel.set()

    def request_stop(self, reason: str = "stopped", *, by: str | None = None, detail: str | None = None,
                     inbox_id: str | None = None) -> None:
        """End the session at once (SIGTERM, Ctrl-C, a stop line in the inbox): the running tool is
        killed. `by`, `detail` and `inbox_id` go into session_end (the first stop's)."""
        if self._stop_reason is None:
            self._stop_fields = {k: v for k, v in (("by", by), ("detail", detail), ("inbox_id", inbox_id)) if v}
        self._stop_reason = self._stop_reason or reason
        self.cancel.set()

    def _on_stop_request(self, msg_id: str, author: str | None) -> None:
        """The inbox watcher saw a stop line (`kernelseek stop`, from any node)."""
        if msg_id not in self.inbox.delivered_ids():
            self.request_stop("stopped", by="stop_request", inbox_id=msg_id,
                              detail=f"stop requested by {author or 'the steerer'}")

    # -- the loop --------------------------------------------------------------------------------

    def run(self) -> str:
        """Drive the session to its end; returns the session_end reason."""
        with self._ilock:  # interrupts delivered before a restart are not news
            self._delivered.update(self.inbox.delivered_ids())
        watcher = InboxWatcher(self.paths.inbox, self._on_interrupt, on_stop=self._on_stop_request).start()
        reason, detail = "error", None
        try:
            reason = self._loop()
        except KeyboardInterrupt:  # a second Ctrl-C: stop now, still with a session_end
            reason = "stopped"
        except ModelError as exc:
            detail = str(exc)
            self.emit("error", message=f"model request failed: {exc}", where="model", fatal=True,
                      status=exc.status)
        except Exception as exc:  # noqa: BLE001 - logged, never a silent death
            detail = f"{type(exc).__name__}: {exc}"
            self.emit("error", message=f"runner failed: {detail}", where="runner", fatal=True,
                      detail=traceback.format_exc()[-4000:])
        finally:
            watcher.stop()
            try:
                self._end(reason, detail)
            finally:
                self.writer.close()
        return reason

    def _end(self, reason: str, detail: str | None) -> None:
        latest = self.evals.latest.get("summary") if self.evals.latest else None
        stop = self._stop_fields if reason == self._stop_reason else {}
        self.emit("session_end", reason=reason, detail=detail or stop.get("detail") or self._limit_detail(reason),
                  **{k: v for k, v in stop.items() if k != "detail"}, summary={
            "best_geomean": self.evals.best_geomean, "last_eval": latest, "turns": self.conversation.turns,
            "cost_usd": round(self.total_cost, 6), "goal": self.goal})

    def _loop(self) -> str:
        if self._resumed:
            self._answer_unfinished(RESTARTED_TOOL)
            if self.conversation.awaiting_user and self._stop_gate():
                return "goal_met"
        while True:
            # limits first: a message acknowledged now must reach a request
            end = self._stop_reason or self._limit_reached()
            if end:
                return end
            self._autopilot_boundary()
            self._deliver_inbox()
            if self.conversation.awaiting_user:
                self.emit("runner_note", text="[Runner] The session goes on; continue toward the goal.")
            result = self._model_turn()
            calls = [b for b in result.blocks if b["type"] == "tool_use"]
            if result.interrupted:
                self._answer_unfinished(NOT_RUN)
                continue
            if calls:
                # at max_tokens the last call may be cut mid-input (a half-written file): never run it
                cut = result.stop_reason == "max_tokens"
                self._run_tools(calls[:-1] if cut else calls)
                self._answer_unfinished(NOT_RUN if self.cancel.is_set() or not cut else CUT_CALL)
                continue
            if result.stop_reason == "max_tokens":
                self.emit("runner_note", text="[Runner] Your reply was cut off at the output limit "
                                              f"(max_tokens {self.config.max_tokens}). Continue.")
                continue
            if self._stop_gate():
                return "goal_met"

    # -- limits ----------------------------------------------------------------------------------

    def active_hours(self) -> float:
        return (self._prior_active_s + time.time() - self._run_started) / 3600.0

    def _limit_reached(self) -> str | None:
        c = self.config
        if c.max_turns is not None and self.conversation.turns >= c.max_turns:
            return "max_turns"
        if c.max_cost is not None and self.total_cost >= c.max_cost:
            return "max_cost"
        if c.max_hours is not None and self.active_hours() >= c.max_hours:
            return "max_hours"
        return None

    def _limit_detail(self, reason: str) -> str | None:
        c = self.config
        return {
            "max_turns": f"{self.conversation.turns} turns (limit {c.max_turns})",
            "max_cost": f"${self.total_cost:.4f} spent (limit ${c.max_cost})",
            "max_hours": f"{self.active_hours():.2f} h active (limit {c.max_hours} h)",
        }.get(reason)

    # -- the inbox -------------------------------------------------------------------------------

    def _deliver_inbox(self) -> None:
        for msg in self.inbox.pending():
            extra: dict = {}
            control = parse_control(msg.text)
            if control.goal is not None:
                new_goal = raise_goal(self.goal, control.goal)
                extra["goal"] = new_goal
                extra["goal_changed"] = new_goal != self.goal
            if control.problems:
                extra["control_problems"] = control.problems
            if msg.kind == "interrupt":
                extra["cancelled"] = self._cancelled
            if not msg.context:
                extra["context"] = self._message_context()
            with self._ilock:
                self._delivered.add(msg.id)
            self.inbox.acknowledge(self._ack_writer, msg, **extra)
        with self._ilock:
            self._pending_interrupts.difference_update(self.inbox.delivered_ids())
            if not self._pending_interrupts and not self._stop_reason:
                self.cancel.clear()
                self._cancelled = None

    def _message_context(self) -> dict:
        ctx: dict = {}
        if self._last_dp is not None:
            ctx["decision_point"] = {"kind": self._last_dp.get("kind"), "evidence": self._last_dp.get("evidence"),
                                     "seq": self._last_dp.get("seq")}
        if self.evals.latest is not None:
            ctx["eval"] = self.evals.latest.get("summary")
        return ctx

    def _autopilot_boundary(self) -> None:
        if self.autopilot is None or self.autopilot.pending is None:
            return
        since = self.autopilot.pending.dp_t
        human = any(m.source != "autopilot" and m.t >= since for m in self.inbox.pending())
        q = self.autopilot.due(human_posted_since=human)
        if q is None:
            return
        context = {"decision_point": {"kind": q["kind"], "evidence": q["evidence"], "seq": q["decision_point"]}}
        if self.evals.latest is not None:
            context["eval"] = self.evals.latest.get("summary")
        self.inbox.post(q["text"], source="autopilot", bank_id=q["bank_id"], decision_point=q["decision_point"],
                        context=context, author="autopilot")

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
            self.emit("compaction", upto=upto, level=level, before_tokens=before, after_tokens=after,
                      context_window=c.context_window, trigger="auto", pre_tokens=before,
                      text=f"old tool outputs shortened in messages before #{upto} (level {level}): "
                           f"about {before:,} -> {after:,} tokens")
            self._last_prompt_tokens = 0

    def _model_turn(self) -> TurnResult:
        request = self._request()
        turn = self._turn + 1
        self._turn_in_flight = turn
        result = self.model.turn(request, self, self.cancel)
        self._flush_deltas(force=True)
        if result.interrupted:
            self._cancelled = "reply"
            for index, part in sorted(result.partial.items()):
                if part.get("type") == "text" and part.get("text"):
                    self.emit("assistant_text", text=part["text"], block=index, turn=turn,
                              attempt=result.attempt, interrupted=True)
        if result.usage or result.blocks:
            self._usage(result, turn)
        self._turn = max(self._turn, turn)
        return result

    def _usage(self, result: TurnResult, turn: int) -> None:
        u = result.usage
        price, family = self.config.price()
        inp, out = int(u.get("input_tokens", 0)), int(u.get("output_tokens", 0))
        cw, cr = int(u.get("cache_write_tokens", 0)), int(u.get("cache_read_tokens", 0))
        cost = cost_usd(price, input_tokens=inp, output_tokens=out, cache_write_tokens=cw, cache_read_tokens=cr)
        self._last_prompt_tokens = inp + cw + cr
        self.emit("usage", input_tokens=inp, output_tokens=out, cache_read_tokens=cr, cache_write_tokens=cw,
                  cost_usd=round(cost, 6), total_cost_usd=round(self.total_cost + cost, 6),
                  total_tokens=self.total_tokens + inp + out + cw + cr, model=self.config.model,
                  price_family=family, turn=turn, attempt=result.attempt, stop_reason=result.stop_reason,
                  request_id=result.request_id)

    # TurnSink: called on the runner's thread while a turn streams
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
        turn, attempt = self._turn_in_flight, self._attempt
        kind = block["type"]
        if kind == "text":
            self.emit("assistant_text", text=block["text"], block=index, turn=turn, attempt=attempt)
        elif kind == "thinking":
            self.emit("thinking", text=block["thinking"], signature=block.get("signature"), block=index,
                      turn=turn, attempt=attempt)
        elif kind == "redacted_thinking":
            self.emit("thinking", text="", redacted=True, data=block["data"], block=index, turn=turn,
                      attempt=attempt)
        elif kind == "tool_use":
            self.emit("tool_call", id=block["id"], name=block["name"], input=block["input"], block=index,
                      turn=turn, attempt=attempt)

    def retry(self, attempt: int, error: str, delay_s: float, status: int | None) -> None:
        self._flush_deltas(force=True)
        self.emit("error", message=f"model request failed ({error}); retrying in {delay_s:.1f} s",
                  where="model", fatal=False, attempt=attempt, status=status, retry_in_s=round(delay_s, 3),
                  turn=self._turn_in_flight)

    def _flush_deltas(self, force: bool = False, index: int | None = None) -> None:
        for i, kind, text in self._deltas.take(force, index):
            self.emit("assistant_delta", block=i, text=text, kind=kind, turn=self._turn_in_flight,
                      attempt=self._attempt)

    # -- tools -----------------------------------------------------------------------------------

    def _answer_unfinished(self, why: str) -> None:
        """Give every tool call of the last reply that has no result one (the API requires it)."""
        for call in self.conversation.unanswered_tool_calls():
            self.emit("tool_result", id=call["id"], name=call["name"], output=why, is_error=True,
                      interrupted=True, duration_s=0.0)

    def _run_tools(self, calls: list[dict]) -> None:
        for call in calls:
            if self.cancel.is_set():
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
                self.emit("error", message=f"tool {call['name']} failed: {type(exc).__name__}: {exc}",
                          where="tool", fatal=False, detail=traceback.format_exc()[-4000:])
            if outcome.interrupted:
                self._cancelled = "evaluation" if call["name"] == "evaluate" else "tool"
            self.emit("tool_result", id=call["id"], name=call["name"], output=outcome.output,
                      is_error=outcome.is_error, truncated=outcome.truncated, interrupted=outcome.interrupted,
                      duration_s=round(time.monotonic() - start, 3), **(outcome.extra or {}))

    def _tool(self, call: dict) -> ToolOutcome:
        name, inp, ws = call["name"], call.get("input") or {}, self.paths.workspace
        if name == "bash":
            command = inp.get("command")
            if not isinstance(command, str) or not command.strip():
                raise ToolInputError("command: expected a non-empty string")
            timeout = inp.get("timeout_s")
            timeout = self.config.bash_timeout_s if not isinstance(timeout, (int, float)) or timeout <= 0 \
                else min(float(timeout), self.config.bash_max_timeout_s)
            r = run_shell(command, cwd=ws, env=self.tool_env, timeout_s=timeout, cancel=self.cancel,
                          cap_chars=self.config.output_cap_chars, sandbox=self.sandbox)
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
            return self._evaluate_tool(call["id"], inp)
        raise ToolInputError(f"no tool named {name!r}; the tools are bash, read_file, write_file, edit_file, evaluate")

    def _evaluate_tool(self, call_id: str, inp: dict) -> ToolOutcome:
        target = workspace_path(self.paths.workspace, inp["file"]) if inp.get("file") else self.candidate
        if not target.is_file():
            raise ToolInputError(f"{os.path.relpath(target, self.paths.workspace)}: no such file")
        only = inp.get("only") if isinstance(inp.get("only"), str) and inp.get("only") else None
        quick = bool(inp.get("quick"))
        try:  # a bad `only` regex, or one that matches no scenario
            outcome = self.evals.run(target, quick=quick, only=only, cancel=self.cancel, call_id=call_id)
        except EvaluatorError as exc:
            raise ToolInputError(str(exc)) from None
        extra = {"eval_seq": outcome.event["seq"]} if outcome.event else None
        return ToolOutcome(outcome.text, is_error=outcome.report is None, interrupted=outcome.interrupted,
                           extra=extra)

    # -- the stop gate ---------------------------------------------------------------------------

    def _stop_gate(self) -> bool | None:
        """The model ended its turn: evaluate and decide. True: the goal is met and the session
        ends; False: the facts that fail went back to the model; None: interrupted."""
        if not self.candidate.is_file():
            self.emit("stop_check", goal_met=False, reasons=[f"the candidate {self.candidate.name} is missing"],
                      blocked=True, goal=self.goal,
                      feedback=f"[Stop check] The candidate file {self.candidate.name} is missing from the "
                               "workspace; the goal cannot be checked. Restore it and continue.")
            return False
        quick = self.config.gate_quick
        sha = file_sha256(self.candidate)
        hit = self.evals.cached(sha, quick, None)
        reused = hit is not None
        if hit is None:
            outcome = self.evals.run(self.candidate, quick=quick, cancel=self.cancel, purpose="stop_check")
            if outcome.interrupted:
                self._cancelled = "evaluation"
                return None
            if outcome.report is None:
                if isinstance(outcome.exception, DeviceUnavailable):
                    raise outcome.exception  # no evaluation can ever succeed here: end the session
                reason = outcome.error or "the evaluation failed"
                self.emit("stop_check", goal_met=False, reasons=[reason], blocked=True, goal=self.goal,
                          feedback=f"[Stop check] The runner could not evaluate the candidate: {reason}. "
                                   "The session continues.")
                return False
            report, ev = outcome.report, outcome.event
        else:
            report, ev = hit
        met, reasons = judge(report, self.goal)
        humans = self.inbox.pending()
        s = ev.get("summary") or {}
        if met and not humans:
            self.emit("stop_check", goal_met=True, reasons=[], blocked=False, eval_seq=ev.get("seq"),
                      summary=s, goal=self.goal, reused=reused)
            return True
        feedback = (met_but_written_feedback(self.goal, s) if met else
                    unmet_feedback(self.candidate.name, report, self.goal, reasons, ev, reused=reused,
                                   best=self.evals.best_geomean))
        self.emit("stop_check", goal_met=met, reasons=reasons, blocked=True, eval_seq=ev.get("seq"), summary=s,
                  goal=self.goal, reused=reused, feedback=feedback, pending_messages=len(humans))
        return False


def install_signal_handlers(runner: Runner) -> None:
    """SIGTERM and a first Ctrl-C end the session cleanly (session_end `stopped`); a second
    Ctrl-C raises as usual. SIGHUP is ignored: a closed terminal must not end a session."""
    def stop(signum, _frame):
        if runner._stop_reason and signum == signal.SIGINT:
            raise KeyboardInterrupt
        runner.request_stop("stopped", by="signal", detail=signal.Signals(signum).name)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


def config_for_resume(config: AgentConfig, session_events_path: Path, model_given: bool) -> AgentConfig:
    """On resume, keep the session's model unless one was asked for explicitly."""
    if model_given:
        return config
    try:
        with open(session_events_path, "rb") as f:
            first = json.loads(f.readline() or b"{}")
    except (OSError, ValueError):
        return config
    model = first.get("model") if isinstance(first, dict) else None
    return replace(config, model=model) if model else config
