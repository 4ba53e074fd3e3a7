"""The session host: everything about a live session that does not depend on which agent runs it.

It owns the session directory: the one way events are written (`emit`: redact secrets, append
to the log, tell the agent and the detectors and the printer), the inbox and its exactly-once
delivery (acknowledged in the log before the agent gets a message), the limits, the stop gate
(an evaluation decides, never the model's word), evaluations, the sandbox and the scrubbed
environment the agent's tools get, and creating or resuming a session. The agent (an
`agent.adapter.Agent`: the native loop, Claude Code) is driven through five verbs.

Threads: the agent's own (`events()`), the inbox watcher (turns an `interrupt` line into
`cancel.set()` and `agent.interrupt()` at once), and whatever the agent runs (a model stream's
reader, an evaluation's worker, Claude Code's hook server). Events from all of them are
serialised by one re-entrant lock.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import threading
import time
import traceback
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from agent.adapter import Agent
from agent.autopilot import Autopilot, Detection
from agent.config import AgentConfig, cost_usd
from agent.control import parse_control, raise_goal
from agent.evaluation import Evaluations, file_sha256
from agent.facts import candidate_name, device_name, task_arch, task_capabilities
from agent.gate import judge, met_but_written_feedback, undecided, undecided_feedback, unmet_feedback
from agent.launchers.place import runner_place
from agent.model import ModelError
from agent.prompt import goal_dict
from agent.secrets import Redactor, scrubbed_env
from agent.shell import sandbox_note
from agent.tools import ToolInputError, ToolOutcome, workspace_path
from agent.watch import InboxWatcher
from evaluator.errors import DeviceUnavailable, EvaluatorError
from evaluator.sandbox import Sandbox, find_sandbox
from kernels import TASKS_DIR
from sessions.inbox import Inbox
from sessions.layout import SessionPaths, create_session, first_event, require_private, resolve_session
from sessions.log import SessionError, SessionWriter, read_events
from sessions.steering import restore_steering


class _AckWriter:
    """Lets `Inbox.acknowledge` write through the host's `emit` (one path for every event)."""

    def __init__(self, emit: Callable[..., dict]) -> None:
        self._emit = emit

    def append(self, type: str, /, **fields) -> dict:
        return self._emit(type, **fields)


@dataclass
class GateVerdict:
    """What the stop gate decided when the agent ended its turn."""

    end: bool  # the goal is met and nobody wrote: the session ends
    feedback: str | None = None  # what the model is told when the stop is refused
    interrupted: bool = False  # the steerer interrupted the gate's evaluation


class SessionHost:
    def __init__(self, *, paths: SessionPaths, writer: SessionWriter, task, config: AgentConfig, agent: Agent,
                 secrets: list[str], sandbox: Sandbox | None = None,
                 on_event: Callable[[dict], None] | None = None, workspace: Path | None = None,
                 candidate: Path | None = None) -> None:
        """`task` may be None only for an attached session without one (no evaluations, no gate);
        `workspace` is where the agent works (default: the session's own workspace/)."""
        self.paths = paths
        self.writer = writer
        self.task = task
        self.config = config
        self.agent = agent
        self.on_event = on_event
        self.secrets = list(secrets)
        self.redact = Redactor(secrets)
        self.tool_env = scrubbed_env(os.environ, secrets)
        self.sandbox = sandbox if sandbox is not None else find_sandbox(config.sandbox)
        self.workspace = Path(workspace) if workspace is not None else paths.workspace
        self.inbox = Inbox(paths.root)
        self.detection = Detection(config.detectors)
        self.autopilot = Autopilot(self.detection, config.grace_s) if config.autopilot else None
        if task is not None:
            self.candidate = Path(candidate) if candidate is not None else self.workspace / candidate_name(task)
            self.goal = goal_dict(task.goal)
            self.arch = task_arch(task)
            self.capabilities = task_capabilities(task)
            self.evals = Evaluations(task, paths, self.emit, options=config.eval_options(),
                                     gate_quick=config.gate_quick, env=self.tool_env, workspace=self.workspace)
        else:
            self.candidate, self.goal, self.arch, self.capabilities, self.evals = None, {}, None, [], None
        self.cancel = threading.Event()  # set by an interrupt or a stop; polled by tools and streams
        self.cancelled: str | None = None  # what the last interrupt stopped: tool | reply | evaluation
        self.stop_reason: str | None = None
        self.stop_fields: dict = {}  # session_end's by / detail / inbox_id for a stop
        self.resumed = False
        self.total_cost = 0.0
        self.total_tokens = 0
        self._lock = threading.RLock()
        self._ilock = threading.Lock()
        self._pending_interrupts: set[str] = set()
        self._delivered: set[str] = set()
        self._ack_writer = _AckWriter(self.emit)
        self._run_started = time.time()
        self._prior_active_s = 0.0
        self._last_dp: dict | None = None
        self._printer_broken = False

    # -- creating and resuming -------------------------------------------------------------------

    @classmethod
    def create(cls, task_name: str, *, agent: Agent, config: AgentConfig, secrets: list[str],
               sandbox: Sandbox | None = None, session_dir: str | os.PathLike | None = None,
               sessions_dir: str | os.PathLike | None = None,
               on_event: Callable[[dict], None] | None = None, group: str | None = None) -> "SessionHost":
        from evaluator.task import load_task

        task = load_task(task_name, TASKS_DIR)
        paths = create_session(sessions_dir, task=task.name, path=session_dir, group=group)
        require_private(paths, group=group)  # the inbox is a door into an agent that runs commands
        writer = SessionWriter(paths.events, lock_path=paths.lock)
        try:
            host = cls(paths=paths, writer=writer, task=task, config=config, agent=agent, secrets=secrets,
                       sandbox=sandbox, on_event=on_event)
            host._start()
        except BaseException:
            writer.close()
            raise
        return host

    @classmethod
    def resume(cls, session: str | os.PathLike, *, agent: Agent, config: AgentConfig, secrets: list[str],
               sandbox: Sandbox | None = None, sessions_dir: str | os.PathLike | None = None,
               on_event: Callable[[dict], None] | None = None, group: str | None = None) -> "SessionHost":
        from evaluator.task import load_task

        paths = resolve_session(session, sessions_dir)
        require_private(paths, group=group)
        writer = SessionWriter(paths.events, lock_path=paths.lock)  # mends a torn last line
        try:
            events = read_events(paths.events).events
            start = next((e for e in events if e.get("type") == "session_start"), None)
            if start is None or not (start.get("prompt") or {}).get("task"):
                raise SessionError(f"{paths.root}: not a session this runner wrote (no session_start prompt)")
            task = load_task(start.get("task_dir") or start["task"], TASKS_DIR)
            host = cls(paths=paths, writer=writer, task=task, config=config, agent=agent, secrets=secrets,
                       sandbox=sandbox, on_event=on_event)
            host._replay(events)
            host._restore_steering(events)
            ended = next((e.get("reason") for e in reversed(events) if e.get("type") == "session_end"), None)
            host.resumed = True
            fields = agent.resume(host, events)
            host.emit("session_resume", from_seq=events[-1]["seq"] if events else None, pid=os.getpid(),
                      host=socket.gethostname(), place=runner_place(), voided_stops=host.inbox.void_stops(),
                      previous_end=ended, sandbox=sandbox_note(host.sandbox), sandboxed=host.sandbox.confines,
                      **fields)
        except BaseException:
            writer.close()
            raise
        return host

    @classmethod
    def attached(cls, session_dir: str | os.PathLike | None, *, agent: Agent, task, config: AgentConfig,
                 secrets: list[str], workspace: Path, candidate: Path | None = None, title: str | None = None,
                 sessions_dir: str | os.PathLike | None = None,
                 on_event: Callable[[dict], None] | None = None) -> "SessionHost":
        """A session for an agent the user runs themselves (attach mode): a new one, or the given
        one to go on with. Nothing is copied into the user's workspace, and nothing is confined:
        the user's agent runs as they started it, which session_start says."""
        existing = session_dir is not None and (Path(session_dir) / "events.jsonl").is_file() \
            and (Path(session_dir) / "events.jsonl").stat().st_size > 0
        paths = SessionPaths(Path(session_dir)) if existing else create_session(
            sessions_dir, task=task.name if task is not None else "claude-code", path=session_dir)
        writer = SessionWriter(paths.events, lock_path=paths.lock)
        sandbox = Sandbox("none", "unsandboxed: the user's own agent, attached (KernelSeek confines nothing)")
        try:
            host = cls(paths=paths, writer=writer, task=task, config=config, agent=agent, secrets=secrets,
                       sandbox=sandbox, on_event=on_event, workspace=workspace, candidate=candidate)
            if existing:
                events = read_events(paths.events).events
                host._replay(events)
                host._restore_steering(events)
                host.resumed = True
                host.emit("session_resume", from_seq=events[-1]["seq"] if events else None, pid=os.getpid(),
                          previous_end=next((e.get("reason") for e in reversed(events)
                                             if e.get("type") == "session_end"), None),
                          **agent.resume(host, events))
            else:
                fields = agent.start(host)
                facts = {} if task is None else {
                    "goal": host.goal, "device": device_name(task), "arch": host.arch,
                    "capabilities": host.capabilities, "candidate": os.path.relpath(host.candidate, workspace),
                    "task_dir": str(task.dir)}
                host.emit("session_start", task=task.name if task is not None else (title or "claude-code"),
                          host=socket.gethostname(), workspace=str(workspace), config=config.public(),
                          sandbox=sandbox.note, sandboxed=False, pid=os.getpid(), place=runner_place(),
                          recorded_by="kernelseek attach",
                          **facts, **fields)
        except BaseException:
            writer.close()
            raise
        return host

    def _start(self) -> None:
        shutil.copyfile(self.task.seed, self.candidate)
        shutil.copyfile(self.task.header, self.paths.workspace / self.task.header.name)
        fields = self.agent.start(self)
        self.emit("session_start", task=self.task.name, goal=self.goal, host=socket.gethostname(),
                  device=device_name(self.task), arch=self.arch, capabilities=self.capabilities,
                  workspace=str(self.paths.workspace), candidate=self.candidate.name, task_dir=str(self.task.dir),
                  config=self.config.public(), sandbox=sandbox_note(self.sandbox),
                  sandboxed=self.sandbox.confines, pid=os.getpid(), place=runner_place(),
                  recorded_by="kernelseek run",
                  **fields, **({"note": self.config.note} if self.config.note else {}))
        if self.detection.problem:
            self.emit("error", message=self.detection.problem, where="detection", fatal=False)
        if self.config.autopilot and not self.detection.on:
            self.emit("error", message="autopilot is off: it needs the detectors and the bank", where="autopilot",
                      fatal=False)

    def _restore_steering(self, events: list[dict]) -> None:
        """Messages acknowledged just before a crash may be missing from the steering log (the
        session log is written first): put them back, once."""
        try:
            start = next((e for e in events if e.get("type") == "session_start"), {})
            restore_steering(events, session_dir=self.paths.root, task=start.get("task"))
        except OSError:
            pass  # best effort, as when they were first written

    def _replay(self, events: list[dict]) -> None:
        """Rebuild the host's state (and, through `observe`, the agent's) from the log."""
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
            self.agent.observe(ev)
            self._track(ev)
            if kind == "eval_result" and not ev.get("interrupted") and self.evals is not None:
                self.evals.note_result(ev)
        if segment_start is not None and last_t is not None:
            self._prior_active_s += max(0.0, last_t - segment_start)
        self.detection.replay(events)

    # -- the one way events are written ----------------------------------------------------------

    def emit(self, type: str, **fields) -> dict:
        with self._lock:
            ev = self.writer.append(type, **self.redact(fields))
            self.agent.observe(ev)
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

    def usage(self, *, model: str, input_tokens: int, output_tokens: int, cache_read_tokens: int = 0,
              cache_write_tokens: int = 0, **extra) -> dict:
        """A `usage` event for one billed model request, priced by the config's table, with the
        session's running totals."""
        price, family = replace(self.config, model=model).price()
        cost = cost_usd(price, input_tokens=input_tokens, output_tokens=output_tokens,
                        cache_write_tokens=cache_write_tokens, cache_read_tokens=cache_read_tokens)
        return self.emit("usage", input_tokens=input_tokens, output_tokens=output_tokens,
                         cache_read_tokens=cache_read_tokens, cache_write_tokens=cache_write_tokens,
                         cost_usd=round(cost, 6), total_cost_usd=round(self.total_cost + cost, 6),
                         total_tokens=self.total_tokens + input_tokens + output_tokens + cache_write_tokens
                         + cache_read_tokens, model=model, price_family=family, **extra)

    # -- interrupts and stops --------------------------------------------------------------------

    def _on_interrupt(self, msg_id: str) -> None:
        with self._ilock:
            if msg_id in self._delivered:
                return
            self._pending_interrupts.add(msg_id)
            self.cancel.set()
        try:
            self.agent.interrupt()
        except Exception as exc:  # noqa: BLE001 - logged; the cancel event still stops our tools
            self.emit("error", message=f"interrupt failed: {type(exc).__name__}: {exc}", where="agent", fatal=False)

    def request_stop(self, reason: str = "stopped", *, by: str | None = None, detail: str | None = None,
                     inbox_id: str | None = None) -> None:
        """End the session at once (SIGTERM, Ctrl-C, a stop line in the inbox): the running tool is
        killed. `by`, `detail` and `inbox_id` go into session_end (the first stop's)."""
        if self.stop_reason is None:
            self.stop_fields = {k: v for k, v in (("by", by), ("detail", detail), ("inbox_id", inbox_id)) if v}
        self.stop_reason = self.stop_reason or reason
        self.cancel.set()
        try:
            self.agent.interrupt()
        except Exception:  # noqa: BLE001 - stopping goes on regardless
            pass

    def _on_stop_request(self, msg_id: str, author: str | None) -> None:
        """The inbox watcher saw a stop line (`kernelseek stop`, from any node sharing the session)."""
        if msg_id not in self.inbox.delivered_ids():
            self.request_stop("stopped", by="stop_request", inbox_id=msg_id,
                              detail=f"stop requested by {author or 'the steerer'}")

    # -- running ---------------------------------------------------------------------------------

    def run(self) -> str:
        """Drive the session to its end; returns the session_end reason."""
        with self._ilock:  # interrupts delivered before a restart are not news
            self._delivered.update(self.inbox.delivered_ids())
        watcher = InboxWatcher(self.paths.inbox, self._on_interrupt, on_stop=self._on_stop_request).start()
        reason, detail = "error", None
        try:
            reason = self.agent.events()
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
                self.agent.close()
            finally:
                try:
                    self._end(reason, detail)
                finally:
                    self.writer.close()
        return reason

    def _end(self, reason: str, detail: str | None) -> None:
        latest = self.evals.latest.get("summary") if self.evals and self.evals.latest else None
        stop = self.stop_fields if reason == self.stop_reason else {}
        self.emit("session_end", reason=reason, detail=detail or stop.get("detail") or self.limit_detail(reason),
                  **{k: v for k, v in stop.items() if k != "detail"}, summary={
            "best_geomean": self.evals.best_geomean if self.evals else None, "last_eval": latest,
            "turns": self.agent.turns,
            "cost_usd": round(self.total_cost, 6), "goal": self.goal})

    # -- limits ----------------------------------------------------------------------------------

    def active_hours(self) -> float:
        return (self._prior_active_s + time.time() - self._run_started) / 3600.0

    def limit_reached(self) -> str | None:
        """The limit the session has reached (or a stop was asked for), else None."""
        if self.stop_reason:
            return self.stop_reason
        c = self.config
        if c.max_turns is not None and self.agent.turns >= c.max_turns:
            return "max_turns"
        if c.max_cost is not None and self.total_cost >= c.max_cost:
            return "max_cost"
        if c.max_hours is not None and self.active_hours() >= c.max_hours:
            return "max_hours"
        return None

    def limit_detail(self, reason: str) -> str | None:
        c = self.config
        return {
            "max_turns": f"{self.agent.turns} turns (limit {c.max_turns})",
            "max_cost": f"${self.total_cost:.4f} spent (limit ${c.max_cost})",
            "max_hours": f"{self.active_hours():.2f} h active (limit {c.max_hours} h)",
        }.get(reason)

    # -- the inbox -------------------------------------------------------------------------------

    def boundary(self) -> list[dict]:
        """A point where the agent can take messages: the autopilot may post its question, then
        every pending inbox line is acknowledged (a fsynced human_message: the commit point) and
        handed to the agent (`deliver`). Returns the acknowledged events."""
        with self._lock:
            self._autopilot_boundary()
            acked = self._acknowledge_pending()
            if acked:
                self.agent.deliver(acked)
            return acked

    def _acknowledge_pending(self) -> list[dict]:
        acked = []
        pending = self.inbox.pending()
        for bad in self.inbox.take_malformed():  # e.g. a console cut off mid-write: said, skipped
            self.emit("error", message=f"inbox line skipped, not a whole message: {bad}", where="inbox",
                      fatal=False)
        for msg in pending:
            extra: dict = {}
            control = parse_control(msg.text)
            if control.goal is not None:
                new_goal = raise_goal(self.goal, control.goal)
                extra["goal"] = new_goal
                extra["goal_changed"] = new_goal != self.goal
            if control.problems:
                extra["control_problems"] = control.problems
            if msg.kind == "interrupt":
                extra["cancelled"] = self.cancelled
            if not msg.context:
                extra["context"] = self.message_context()
            with self._ilock:
                self._delivered.add(msg.id)
            acked.append(self.inbox.acknowledge(self._ack_writer, msg, **extra))
        with self._ilock:
            self._pending_interrupts.difference_update(self.inbox.delivered_ids())
            if not self._pending_interrupts and not self.stop_reason:
                self.cancel.clear()
                self.cancelled = None
        return acked

    def message_context(self) -> dict:
        ctx: dict = {}
        if self._last_dp is not None:
            ctx["decision_point"] = {"kind": self._last_dp.get("kind"), "evidence": self._last_dp.get("evidence"),
                                     "seq": self._last_dp.get("seq")}
        if self.evals is not None and self.evals.latest is not None:
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
        if self.evals is not None and self.evals.latest is not None:
            context["eval"] = self.evals.latest.get("summary")
        self.inbox.post(q["text"], source="autopilot", bank_id=q["bank_id"], decision_point=q["decision_point"],
                        context=context, author="autopilot")

    # -- evaluations -----------------------------------------------------------------------------

    def evaluate(self, inp: dict, call_id: str | None = None) -> ToolOutcome:
        """The agent asked for an evaluation (`file`, `quick`, `only` as the evaluate tool takes them)."""
        if self.evals is None:
            raise ToolInputError("this session has no task to evaluate against (attach with --task TASK)")
        target = workspace_path(self.workspace, inp["file"]) if inp.get("file") else self.candidate
        if not target.is_file():
            raise ToolInputError(f"{os.path.relpath(target, self.workspace)}: no such file")
        only = inp.get("only") if isinstance(inp.get("only"), str) and inp.get("only") else None
        quick = bool(inp.get("quick"))
        try:  # a bad `only` regex, or one that matches no scenario
            outcome = self.evals.run(target, quick=quick, only=only, cancel=self.cancel, call_id=call_id)
        except EvaluatorError as exc:
            raise ToolInputError(str(exc)) from None
        if outcome.interrupted:
            self.cancelled = "evaluation"
        extra = {"eval_seq": outcome.event["seq"]} if outcome.event else None
        return ToolOutcome(outcome.text, is_error=outcome.report is None, interrupted=outcome.interrupted,
                           extra=extra)

    # -- the stop gate ---------------------------------------------------------------------------

    def stop_gate(self) -> GateVerdict:
        """The agent ended its turn: evaluate the candidate and decide from the numbers. Writes the
        `stop_check`; the verdict says whether the session ends, or what the model is told."""
        if self.evals is None:
            return GateVerdict(False)
        if not self.candidate.is_file():
            feedback = (f"[Stop check] The candidate file {self.candidate.name} is missing from the "
                        "workspace; the goal cannot be checked. Restore it and continue.")
            self.emit("stop_check", goal_met=False, reasons=[f"the candidate {self.candidate.name} is missing"],
                      blocked=True, goal=self.goal, feedback=feedback)
            return GateVerdict(False, feedback)
        quick = self.config.gate_quick
        sha = file_sha256(self.candidate)
        hit = self.evals.cached(sha, quick, None)
        reused = hit is not None
        if hit is None:
            outcome = self.evals.run(self.candidate, quick=quick, cancel=self.cancel, purpose="stop_check")
            if outcome.interrupted:
                self.cancelled = "evaluation"
                return GateVerdict(False, interrupted=True)
            if outcome.report is None:
                if isinstance(outcome.exception, DeviceUnavailable):
                    raise outcome.exception  # no evaluation can ever succeed here: end the session
                reason = outcome.error or "the evaluation failed"
                feedback = (f"[Stop check] The runner could not evaluate the candidate: {reason}. "
                            "The session continues.")
                self.emit("stop_check", goal_met=False, reasons=[reason], blocked=True, goal=self.goal,
                          feedback=feedback)
                return GateVerdict(False, feedback)
            report, ev = outcome.report, outcome.event
        else:
            report, ev = hit
        met, reasons = judge(report, self.goal)
        measured = 1
        if undecided(met, reasons):  # contended, or intervals straddling the goal: measure once more
            outcome = self.evals.remeasure(self.candidate, quick=quick, cancel=self.cancel)
            if outcome.interrupted:
                self.cancelled = "evaluation"
                return GateVerdict(False, interrupted=True)
            if outcome.report is not None:
                report, ev, reused, measured = outcome.report, outcome.event, False, 2
                met, reasons = judge(report, self.goal)
        humans = self.inbox.pending()
        s = ev.get("summary") or {}
        if met and not humans:
            self.emit("stop_check", goal_met=True, reasons=[], blocked=False, eval_seq=ev.get("seq"),
                      summary=s, goal=self.goal, reused=reused, measured=measured)
            return GateVerdict(True)
        if met:
            feedback = met_but_written_feedback(self.goal, s)
        elif undecided(met, reasons):
            feedback = undecided_feedback(self.candidate.name, report, self.goal, reasons, ev, measured=measured,
                                          best=self.evals.best_geomean)
        else:
            feedback = unmet_feedback(self.candidate.name, report, self.goal, reasons, ev, reused=reused,
                                      best=self.evals.best_geomean)
        self.emit("stop_check", goal_met=met, reasons=reasons, blocked=True, eval_seq=ev.get("seq"), summary=s,
                  goal=self.goal, reused=reused, feedback=feedback, pending_messages=len(humans), measured=measured,
                  undecided=undecided(met, reasons))
        return GateVerdict(False, feedback)


def session_agent(session: str | os.PathLike, sessions_dir: str | os.PathLike | None = None) -> str | None:
    """The agent a session was started with (its session_start says), or None."""
    return first_event(resolve_session(session, sessions_dir).events).get("agent")


def install_signal_handlers(host: SessionHost, reason: str = "stopped") -> None:
    """SIGTERM and a first Ctrl-C end the session cleanly (session_end `reason`); a second
    Ctrl-C raises as usual. SIGHUP is ignored: a closed terminal must not end a session."""
    def stop(signum, _frame):
        if host.stop_reason and signum == signal.SIGINT:
            raise KeyboardInterrupt
        host.request_stop(reason, by="signal", detail=signal.Signals(signum).name)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


def config_for_resume(config: AgentConfig, session_events_path: Path, model_given: bool) -> AgentConfig:
    """On resume, keep the session's model unless one was asked for explicitly."""
    if model_given:
        return config
    model = first_event(session_events_path).get("model")
    return replace(config, model=model) if model else config
