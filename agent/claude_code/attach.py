"""Attach mode: KernelSeek on a Claude Code session the user runs in their own terminal.

    kernelseek attach claude-code [TRANSCRIPT | --latest] [--task TASK] [--gate]

The user's Claude Code (their TUI, their key) is left as it is. KernelSeek follows its transcript
under `~/.claude/projects/` live (the importer's mapping, record by record) into a KernelSeek
session — a new one, or the one it made before for the same Claude Code session — and, while it
runs, installs hooks in that project's `.claude/settings.local.json` (Claude Code reloads it
live): PostToolUse and UserPromptSubmit hand the steerer's messages over at the next tool
boundary or prompt, Stop hands them over at the turn's end and, with `--gate`, refuses the stop
until the evaluator says the task's goal is met. The hooks ask this process through a unix
socket; when it is gone they do nothing. On exit the hooks are removed and the settings file is
left byte for byte as it was (or, if the user edited it meanwhile, with only KernelSeek's entries
taken out).

The console attaches to the KernelSeek session as to any live one. What attach mode cannot do:
stop a running tool (`!` is delivered at the next boundary instead), or confine the user's agent.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import threading
import time
from pathlib import Path

from agent.adapter import Agent
from agent.claude_code.bridge import Bridge, evaluate_command, hook_command
from agent.claude_code.settings import SettingsHooks
from agent.conversation import human_text
from agent.control import render_goal
from sessions.importers.claude_code import ClaudeCodeTranslator
from sessions.layout import first_event, sessions_root

AGENT_NAME = "claude-code"
HOOK_EVENTS = ("PostToolUse", "UserPromptSubmit", "Stop")
POLL_S = 0.2
STATE = "attach.json"


class AttachError(Exception):
    exit_code = 2


def claude_config_dir() -> Path:
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude").expanduser()


def project_key(cwd: Path) -> str:
    """How Claude Code names a project's transcript folder: the path with every other character as '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(cwd))


def find_transcript(given: str | None, *, latest: bool, cwd: Path, config_dir: Path | None = None) -> Path:
    """The transcript to follow: the one given, the newest of all (`latest`), or the newest of
    the current directory's project."""
    config_dir = config_dir or claude_config_dir()
    if given:
        p = Path(given).expanduser()
        if not p.is_file():
            raise AttachError(f"{p}: no such transcript")
        return p
    where = config_dir / "projects" if latest else config_dir / "projects" / project_key(cwd.resolve())
    pattern = "*/*.jsonl" if latest else "*.jsonl"
    found = sorted(where.glob(pattern), key=lambda p: p.stat().st_mtime) if where.is_dir() else []
    if not found:
        what = "any project" if latest else f"{cwd} (try --latest, or name the transcript)"
        raise AttachError(f"no Claude Code transcript under {where} for {what}")
    return found[-1]


def transcript_facts(path: Path) -> dict:
    """The session id, working directory and version a transcript's records carry."""
    facts: dict = {}
    try:
        with open(path, "rb") as f:
            for line in f:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if isinstance(rec, dict) and isinstance(rec.get("sessionId"), str) and rec.get("cwd"):
                    return {"session_id": rec["sessionId"], "cwd": rec["cwd"], "version": rec.get("version")}
    except OSError as exc:
        raise AttachError(f"{path}: cannot read it ({exc.strerror})") from None
    return facts


def find_attached_session(session_id: str, sessions_dir: str | os.PathLike | None = None) -> Path | None:
    """The KernelSeek session an earlier attach made for this Claude Code session, if any."""
    root = sessions_root(sessions_dir)
    if not root.is_dir():
        return None
    for d in sorted(root.iterdir(), key=lambda p: p.name, reverse=True):
        first = first_event(d / "events.jsonl")
        if first.get("recorded_by") == "kernelseek attach" and first.get("session_id") == session_id:
            return d
    return None


class AttachedClaudeCode(Agent):
    """The user's own Claude Code session, seen through its transcript and its hooks."""

    name = AGENT_NAME

    def __init__(self, transcript: Path, *, gate: bool) -> None:
        self.transcript = transcript
        self.facts = transcript_facts(transcript)
        if not self.facts:
            raise AttachError(f"{transcript}: no Claude Code session in it yet (no record with a session id)")
        self.project = Path(self.facts["cwd"])
        self.gate = gate
        self.host = None
        self.translator = ClaudeCodeTranslator(human_source="free")
        self._outbox: list[dict] = []
        self._olock = threading.Lock()
        self._flock = threading.Lock()
        self._offset = 0
        self._turns = 0
        self._intro_sent = False
        self._rundir: Path | None = None
        self._bridge: Bridge | None = None
        self.hooks: SettingsHooks | None = None

    # -- the five verbs --------------------------------------------------------------------------

    def start(self, host) -> dict:
        self.host = host
        return {"agent": AGENT_NAME, "agent_version": self.facts.get("version"), "mode": "attach",
                "session_id": self.facts["session_id"], "transcript": str(self.transcript), "gate": self.gate}

    def resume(self, host, events: list[dict]) -> dict:
        self.host = host
        state = self._state()
        if state.get("transcript") == str(self.transcript):
            self._offset = int(state.get("offset") or 0)
            self._intro_sent = bool(state.get("intro_sent"))
        self._turns = sum(1 for e in events if e.get("type") == "usage")
        return {"mode": "attach", "transcript": str(self.transcript), "gate": self.gate}

    def deliver(self, messages: list[dict]) -> None:
        with self._olock:
            self._outbox.extend(messages)

    def interrupt(self) -> None:
        """The user's own Claude Code cannot be stopped from here: the interrupt's message is
        handed over at its next tool boundary."""

    @property
    def turns(self) -> int:
        return self._turns

    def events(self) -> str:
        host = self.host
        base = os.environ.get("XDG_RUNTIME_DIR") if os.path.isdir(os.environ.get("XDG_RUNTIME_DIR") or "") else None
        self._rundir = Path(tempfile.mkdtemp(prefix="ks-attach-", dir=base))
        sock = self._rundir / "bridge.sock"
        self._bridge = Bridge(sock, self._answer).start()
        timeouts = {"PostToolUse": 60, "UserPromptSubmit": 60}
        timeouts["Stop"] = 86400 if self.gate else 60
        self.hooks = SettingsHooks(self.project, hook_command(sock), timeouts=timeouts)
        self.hooks.install()
        host.emit("runner_note", text=f"[KernelSeek] attached to Claude Code session {self.facts['session_id']}: "
                                      f"hooks installed in {self.hooks.path}")
        while True:
            self._follow()
            end = host.limit_reached()
            if end:
                return end
            time.sleep(POLL_S)

    def close(self) -> None:
        if self.hooks is not None:
            self.hooks.remove()
        if self._bridge is not None:
            self._bridge.stop()
        if self._rundir is not None:
            shutil.rmtree(self._rundir, ignore_errors=True)
        if self.host is not None:
            self._follow()
            for ev in self.translator.flush():
                self._emit(ev)
            self._save_state()

    # -- following the transcript ----------------------------------------------------------------

    def _follow(self) -> None:
        """Whatever whole lines the transcript gained, into events (the loop and the hooks both
        call this: one at a time, so no line is read twice)."""
        with self._flock:
            try:
                with open(self.transcript, "rb") as f:
                    f.seek(self._offset)
                    data = f.read()
            except OSError:
                return
            end = data.rfind(b"\n")
            if end < 0:
                return  # nothing whole yet
            self._offset += end + 1
            for line in data[:end].split(b"\n"):
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if isinstance(rec, dict):
                    for ev in self.translator.feed(rec):
                        self._emit(ev)
            self._save_state()

    def _emit(self, ev: dict) -> None:
        if ev["type"] == "usage":
            self._turns += 1
            u = {k: ev.get(k) or 0 for k in ("input_tokens", "output_tokens", "cache_read_tokens",
                                             "cache_write_tokens")}
            self.host.usage(model=ev.get("model") or "unknown", **u)
            return
        self.host.emit(ev["type"], **{k: v for k, v in ev.items() if k not in ("v", "seq", "t", "type")})

    def _state(self) -> dict:
        try:
            return json.loads((self.host.paths.root / STATE).read_text())
        except (OSError, ValueError):
            return {}

    def _save_state(self) -> None:
        tmp = self.host.paths.root / (STATE + ".tmp")
        tmp.write_text(json.dumps({"transcript": str(self.transcript), "offset": self._offset,
                                   "intro_sent": self._intro_sent}))
        os.replace(tmp, self.host.paths.root / STATE)

    # -- the hooks -------------------------------------------------------------------------------

    def _answer(self, request: dict) -> dict:
        host = self.host
        if request.get("verb") == "evaluate":
            from agent.tools import ToolInputError

            args = {k: v for k, v in (request.get("args") or {}).items() if v}
            try:
                outcome = host.evaluate(args)
            except ToolInputError as exc:
                return {"stdout": f"ks-evaluate: {exc}", "exit": 2}
            return {"stdout": outcome.output, "exit": 1 if outcome.is_error else 0}
        data = request.get("input") or {}
        if data.get("session_id") and data["session_id"] != self.facts["session_id"]:
            return {"stdout": "", "exit": 0}  # another Claude Code session in the same project
        event = data.get("hook_event_name")
        self._follow()  # what happened up to this hook is in the log before its answer
        host.boundary()
        text = self._take()
        if event in ("PostToolUse", "UserPromptSubmit"):
            if not text:
                return {"stdout": "", "exit": 0}
            return {"stdout": json.dumps({"hookSpecificOutput": {"hookEventName": event,
                                                                 "additionalContext": text}}), "exit": 0}
        if event == "Stop":
            if not text and self.gate and host.evals is not None:
                verdict = host.stop_gate()
                text = None if verdict.end or verdict.interrupted else verdict.feedback
            if text:
                return {"stdout": json.dumps({"decision": "block", "reason": text}), "exit": 0}
        return {"stdout": "", "exit": 0}

    def _take(self) -> str:
        with self._olock:
            messages, self._outbox = self._outbox, []
        parts = [human_text(m) for m in messages]
        if parts and not self._intro_sent and self.host.task is not None:
            self._intro_sent = True
            intro = self.intro()
            self.host.emit("runner_note", text=intro)
            parts.insert(0, intro)
        return "\n\n".join(parts)

    def intro(self) -> str:
        """What the agent is told once, with the first message: the task, the goal, how to evaluate."""
        host = self.host
        cmd = evaluate_command(self._rundir / "bridge.sock").replace("exec ", "")
        return (f"[KernelSeek] A steerer is attached to this session through KernelSeek, on the task "
                f"{host.task.name}: {render_goal(host.goal)}. The candidate is {host.candidate}. Evaluate it "
                f"with the task's evaluator (the session records it): `{cmd} [FILE] [--quick]`.")


def attach_transcript(transcript: Path, *, task_name: str | None, gate: bool, candidate: str | None,
                      config, secrets: list[str], sessions_dir: str | None, session_dir: str | None,
                      on_event=None):
    """The session host for an attach (new, or the one made before for this Claude Code session)."""
    from agent.host import SessionHost

    if gate and not task_name:
        raise AttachError("--gate needs --task: the stop gate judges against a task's goal")
    task = None
    if task_name:
        from evaluator.task import load_task
        from kernels import TASKS_DIR

        task = load_task(task_name, TASKS_DIR)
    agent = AttachedClaudeCode(transcript, gate=gate)
    existing = session_dir or find_attached_session(agent.facts["session_id"], sessions_dir)
    cand = None
    if task is not None:
        from agent.facts import candidate_name

        cand = (agent.project / (candidate or candidate_name(task))).resolve()
    return SessionHost.attached(existing, agent=agent, task=task, config=config, secrets=secrets,
                                workspace=agent.project, candidate=cand, title=None, sessions_dir=sessions_dir,
                                on_event=on_event)
