"""Claude Code driven headless: `kernelseek run|steer TASK --agent claude-code`.

The runner starts `claude -p --input-format stream-json --output-format stream-json` in the
session's workspace, inside the sandbox (its tools run there too), and keeps it for the whole
session, writing user turns on its stdin. What it prints becomes our events as it comes
(`ClaudeCodeTranslator`, the importer's mapping). The rest of the session goes through three
doors the runner holds:

- the API proxy (`proxy.py`): Claude Code's only way to the model, with a session token in place
  of the key; it prices every request into a `usage` event (the limits count them);
- the bridge (`bridge.py`), called by Claude Code's hooks: PostToolUse delivers the steerer's
  messages at the next tool boundary (acknowledged in our log first, then handed over as the
  hook's additionalContext); Stop is the stop gate (an evaluation decides; a refused stop is
  blocked with the facts); and `ks-evaluate`, the agent's evaluate command;
- Claude Code's own interrupt control (a `control_request` on stdin) for the steerer's `!`.

The runner stays the authority: when a turn ends without the hook's verdict (the hook could
not run), it runs the gate itself and answers on stdin. `--resume` restarts Claude Code with
`--resume <its session id>`; acknowledged messages its transcript does not hold are handed over
again, so each arrives exactly once.
"""
from __future__ import annotations

import itertools
import json
import os
import queue
import secrets as secrets_mod
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

from agent.adapter import Agent, AgentError
from agent.claude_code.bridge import Bridge, evaluate_command, hook_command
from agent.claude_code import REPO
from agent.claude_code.install import claude_version, find_claude
from agent.claude_code.proxy import ApiProxy
from agent.conversation import human_text
from agent.prompt import task_prompt
from agent.tools import ToolInputError
from agent.shell import own_code_dirs
from evaluator.sandbox import Confinement, credential_paths, die_with_parent
from sessions.importers.claude_code import ClaudeCodeTranslator

AGENT_NAME = "claude-code"
TOOLS = ("Bash", "Read", "Edit", "Write", "Glob", "Grep")
STOP_HOOK_TIMEOUT_S = 86400  # the gate's evaluation may take minutes on a GPU
POST_HOOK_TIMEOUT_S = 60
KILL_GRACE_S = 2.0
CONTINUE = "[Runner] The session goes on; continue toward the goal."
UNFINISHED = "[not finished: the runner stopped (a crash or a kill) while this tool ran]"
STOPPED = "[not finished: the session was stopped while this tool ran]"

SYSTEM_APPEND = """\
You are working alone in this workspace on one kernel task for KernelSeek. The evaluator is the \
judge of correctness and speed; its numbers, not claims, decide whether the goal is met.

Evaluate with the shell command `ks-evaluate` (the task's candidate by default; `ks-evaluate FILE` \
for another file, `--quick` for the quick subset, `--only REGEX` for some scenarios). It prints a \
table of the scenarios and the goal verdict, and the session records it.

When you end your turn, KernelSeek evaluates the current candidate and checks the goal in code. If \
the goal is not met you are told what fails and the session goes on; if it is met the session ends.

A human steerer watches the session and may send you messages; they arrive marked \
[Message from the steerer]. When one asks for a measurement, make it and report the result."""


class ClaudeCodeAgent(Agent):
    name = AGENT_NAME

    def __init__(self, *, config, client, secrets: list[str]) -> None:
        self.config = config
        self.claude = find_claude(config.claude_code_path)  # missing: one line, before any session
        self.version = claude_version(self.claude)
        self.upstream = str(client.base_url)
        self.api_key = client.api_key
        self.auth_token = client.auth_token
        self.token = "ks-session-" + secrets_mod.token_urlsafe(24)
        self.host = None
        self.session_id: str | None = None
        self.translator = ClaudeCodeTranslator(usage=False, own_interrupts=True)
        self._outbox: list[dict] = []  # acknowledged human_message events not yet handed over
        self._olock = threading.Lock()
        self._wlock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._lines: queue.Queue = queue.Queue()
        self._rundir: Path | None = None
        self._bridge: Bridge | None = None
        self._proxy: ApiProxy | None = None
        self._turns = 0
        self._message_ids: set[str] = set()
        self._open_calls: dict[str, str] = {}  # tool id -> name, called and not yet answered
        self._interrupted_calls: set[str] = set()
        self._answered: set[str] = set()  # tool ids with a result in our log
        self._eval_seq: dict[str, int] = {}  # Bash call id -> the eval_result its ks-evaluate wrote
        self._goal_met = False
        self._interrupting = False
        self._requests = itertools.count(1)
        self._stderr_path: Path | None = None
        self._first_prompt = ""

    # -- where things live -----------------------------------------------------------------------

    @property
    def state_dir(self) -> Path:
        """Claude Code's own files in the session: its config (transcripts) and a home."""
        return self.host.paths.root / "claude-code"

    def transcript(self) -> Path | None:
        if not self.session_id:
            return None
        found = sorted((self.state_dir / "config" / "projects").glob(f"*/{self.session_id}.jsonl"))
        return found[0] if found else None

    # -- the five verbs --------------------------------------------------------------------------

    def start(self, host) -> dict:
        self.host = host
        host.redact.add(self.token)
        self.session_id = str(uuid.uuid4())
        task = host.task
        prompt = task_prompt(task, candidate_name=host.candidate.name,
                             header_text=task.header.read_text(errors="replace"), goal=host.goal,
                             evaluate="`ks-evaluate`", quick="ks-evaluate --quick")
        self._first_prompt = prompt
        return {"agent": AGENT_NAME, "agent_version": self.version, "model": self.config.model,
                "session_id": self.session_id, "prompt": {"system": SYSTEM_APPEND, "task": prompt},
                "tools": list(TOOLS)}

    def resume(self, host, events: list[dict]) -> dict:
        self.host = host
        host.redact.add(self.token)
        start = next(e for e in events if e.get("type") == "session_start")
        self.session_id = start.get("session_id")
        if not self.session_id:
            raise AgentError(f"{host.paths.root}: its session_start names no Claude Code session id")
        held = self._transcript_text()
        lost = [e for e in events if e.get("type") == "human_message" and e.get("inbox_id")
                and human_text(e) not in held]
        answered = {e.get("id") for e in events if e.get("type") == "tool_result"}
        self._open_calls = {str(e["id"]): str(e.get("name")) for e in events
                            if e.get("type") == "tool_call" and e.get("id") not in answered}
        with self._olock:
            self._outbox.extend(lost)
        return {"model": self.config.model, "agent_version": self.version, "session_id": self.session_id,
                "redelivered": [e.get("inbox_id") for e in lost]}

    def deliver(self, messages: list[dict]) -> None:
        with self._olock:
            self._outbox.extend(messages)

    def interrupt(self) -> None:
        if self._proc is None or self._proc.poll() is not None:
            return
        self._interrupting = True
        self._interrupted_calls.update(self._open_calls)
        self.host.cancelled = "tool" if self._open_calls else "reply"
        self._write({"type": "control_request", "request_id": f"ks-interrupt-{next(self._requests)}",
                     "request": {"subtype": "interrupt"}})

    def observe(self, ev: dict) -> None:
        # the turn of a reply's blocks (a usage event names the turn its request starts, ahead)
        if ev.get("type") in ("assistant_text", "thinking", "tool_call") and isinstance(ev.get("turn"), int):
            self._turns = max(self._turns, ev["turn"])
        elif ev.get("type") == "tool_result":
            self._answered.add(str(ev.get("id")))

    @property
    def turns(self) -> int:
        return self._turns

    def events(self) -> str:
        host = self.host
        self._open_doors()
        self._answer_open_calls(UNFINISHED)  # calls the log left open when the runner died
        if host.resumed:
            host.boundary()  # messages typed while nothing ran
            first = self._take_outbox(CONTINUE.replace("The session goes on", "The runner restarted"))
        else:
            first = self._first_prompt
        self._launch(resume=host.resumed)
        self._send(first)
        return self._pump()

    def close(self) -> None:
        if self.host is not None:
            self._answer_open_calls(STOPPED)
        proc = self._proc
        if proc is not None and proc.poll() is None:
            try:
                proc.stdin.close()
            except OSError:
                pass
            _kill_group(proc, KILL_GRACE_S)
        for door in (self._bridge, self._proxy):
            if door is not None:
                door.stop()
        if self._rundir is not None:
            shutil.rmtree(self._rundir, ignore_errors=True)

    # -- starting Claude Code --------------------------------------------------------------------

    def _open_doors(self) -> None:
        host = self.host
        # sockets want short paths (108 bytes): a private directory in the runtime dir, not the session's
        base = os.environ.get("XDG_RUNTIME_DIR") if os.path.isdir(os.environ.get("XDG_RUNTIME_DIR") or "") else None
        self._rundir = Path(tempfile.mkdtemp(prefix="ks-cc-", dir=base))
        bridge_sock, api_sock = self._rundir / "bridge.sock", self._rundir / "api.sock"
        self._bridge = Bridge(bridge_sock, self._answer).start()
        self._proxy = ApiProxy(api_sock, upstream=self.upstream, token=self.token, api_key=self.api_key,
                               auth_token=self.auth_token, on_usage=self._usage).start()
        hook = hook_command(bridge_sock)
        settings = {"hooks": {
            "PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": hook,
                                                        "timeout": POST_HOOK_TIMEOUT_S}]}],
            "Stop": [{"hooks": [{"type": "command", "command": hook, "timeout": STOP_HOOK_TIMEOUT_S}]}]}}
        (self._rundir / "settings.json").write_text(json.dumps(settings, indent=1))
        bin_dir = self._rundir / "bin"
        bin_dir.mkdir()
        script = bin_dir / "ks-evaluate"
        script.write_text("#!/bin/sh\n" + evaluate_command(bridge_sock) + ' "$@"\n')
        script.chmod(0o755)
        for d in (self.state_dir / "config", self.state_dir / "home"):
            d.mkdir(parents=True, exist_ok=True)
        host.paths.root.joinpath("claude-code").chmod(0o700)

    def claude_argv(self, resume: bool) -> list[str]:
        argv = [str(self.claude), "-p", "--input-format", "stream-json", "--output-format", "stream-json",
                "--verbose", "--model", self.config.model, "--settings", str(self._rundir / "settings.json"),
                "--setting-sources", "", "--tools", ",".join(TOOLS), "--allowedTools", ",".join(TOOLS),
                "--append-system-prompt", SYSTEM_APPEND]
        return argv + (["--resume", self.session_id] if resume else ["--session-id", self.session_id])

    def _launch(self, resume: bool) -> None:
        host = self.host
        inner = [sys.executable, "-m", "agent.claude_code.inside", "--api-socket", str(self._rundir / "api.sock"),
                 "--", *self.claude_argv(resume)]
        sandbox = host.sandbox
        if sandbox.confines:
            argv = sandbox.wrap(inner, Confinement(
                writable=(host.paths.workspace, self.state_dir),
                readable=(self._rundir, host.task.dir, *own_code_dirs()),
                hidden=tuple(credential_paths()), network=False, chdir=host.paths.workspace))
        else:
            argv = inner
        env = dict(host.tool_env)
        env.update({
            "HOME": str(self.state_dir / "home"), "CLAUDE_CONFIG_DIR": str(self.state_dir / "config"),
            "ANTHROPIC_API_KEY": self.token, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1", "DISABLE_TELEMETRY": "1",
            "PATH": f"{self._rundir / 'bin'}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}",
            "PYTHONPATH": str(REPO)})
        self._stderr_path = self.state_dir / "stderr.log"
        with open(self._stderr_path, "ab") as err:
            self._proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                          cwd=str(host.paths.workspace), env=env, start_new_session=True,
                                          preexec_fn=die_with_parent)
        threading.Thread(target=self._read, args=(self._proc.stdout,), name="claude-code-out", daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            self._lines.put(line)
        self._lines.put(None)

    def _write(self, obj: dict) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            return
        with self._wlock:
            try:
                proc.stdin.write(json.dumps(obj).encode() + b"\n")
                proc.stdin.flush()
            except (OSError, ValueError):
                pass  # it is gone: the pump sees the end of its output

    def _send(self, text: str) -> None:
        self._write({"type": "user", "message": {"role": "user", "content": text}})

    # -- the live loop ---------------------------------------------------------------------------

    def _pump(self) -> str:
        """Claude Code's output into events until the session ends. The limits are checked where
        the native loop checks them, before a request: at the tool boundary (the PostToolUse hook
        stops Claude Code) and at a turn's end."""
        host = self.host
        while True:
            if host.stop_reason:
                return host.stop_reason
            try:
                line = self._lines.get(timeout=0.1)
            except queue.Empty:
                continue
            if line is None:
                return self._gone()
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if not isinstance(rec, dict):
                continue
            kind = rec.get("type")
            if kind == "result":
                for ev in self.translator.flush():
                    self._emit(ev)
                end = self._turn_end(rec)
                if end:
                    return end
                continue
            if kind == "assistant" and not rec.get("parent_tool_use_id"):
                mid = (rec.get("message") or {}).get("id")
                if isinstance(mid, str) and mid not in self._message_ids:
                    self._message_ids.add(mid)
                    self._turns += 1
            for ev in self.translator.feed(rec, t=time.time()):
                self._emit(ev)

    def _answer_open_calls(self, why: str) -> None:
        """A result in our log for every call that will never get one from Claude Code."""
        for call_id, name in list(self._open_calls.items()):
            self.host.emit("tool_result", id=call_id, name=name, output=why, is_error=True, interrupted=True,
                           duration_s=0.0)
        self._open_calls.clear()

    def _emit(self, ev: dict) -> None:
        fields = {k: v for k, v in ev.items() if k not in ("v", "seq", "t", "type")}
        kind = ev["type"]
        if kind in ("assistant_text", "thinking", "tool_call") and not fields.get("sidechain"):
            fields["turn"] = self._turns
        if kind == "tool_call":
            self._open_calls[str(fields.get("id"))] = str(fields.get("name"))
        elif kind == "tool_result":
            call = str(fields.get("id"))
            if call in self._answered:
                return  # answered already (the runner closed it when it stopped or restarted)
            self._open_calls.pop(call, None)
            if call in self._interrupted_calls:
                fields["interrupted"] = True
            if call in self._eval_seq:
                fields["eval_seq"] = self._eval_seq.pop(call)
        self.host.emit(kind, **fields)

    def _turn_end(self, rec: dict) -> str | None:
        """Claude Code finished a turn (its `result`): the session ends, or a next turn starts."""
        host = self.host
        if self._goal_met:
            return "goal_met"
        end = host.limit_reached()
        if end:
            return end
        if self._interrupting:
            self._interrupting = False
            self._interrupted_calls.clear()
            host.boundary()  # the interrupt's own message, acknowledged with what it stopped
            self._send(self._take_outbox(CONTINUE))
            return None
        if rec.get("is_error"):
            detail = rec.get("result") or rec.get("subtype") or "error"
            host.emit("error", message=f"Claude Code ended its turn with an error: {detail}", where="agent",
                      fatal=True, status=rec.get("api_error_status"))
            return "error"
        # the Stop hook did not decide (it could not run): the gate runs here, as in _stop
        verdict = host.stop_gate()
        if verdict.end:
            return "goal_met"
        host.boundary()
        self._send("\n\n".join(t for t in (verdict.feedback, self._take_outbox("")) if t) or CONTINUE)
        return None

    def _gone(self) -> str:
        """Claude Code's output ended: it exited."""
        code = self._proc.wait() if self._proc is not None else None
        if self._goal_met:
            return "goal_met"
        if self.host.stop_reason:
            return self.host.stop_reason
        tail = ""
        try:
            tail = self._stderr_path.read_text(errors="replace").strip().splitlines()[-1][:300]
        except (OSError, IndexError, AttributeError):
            pass
        self.host.emit("error", message=f"Claude Code exited (status {code})" + (f": {tail}" if tail else ""),
                       where="agent", fatal=True)
        return "error"

    # -- what the runner hears from inside -------------------------------------------------------

    def _answer(self, request: dict) -> dict:
        verb = request.get("verb")
        if verb == "evaluate":
            return self._evaluate(request.get("args") or {})
        if verb == "hook":
            data = request.get("input") or {}
            event = data.get("hook_event_name")
            if event == "PostToolUse":
                return self._tool_boundary()
            if event == "Stop":
                return self._stop(data)
        return {"stdout": "", "exit": 0}

    def _evaluate(self, args: dict) -> dict:
        calls = [c for c, name in self._open_calls.items() if name == "Bash"]
        call_id = calls[-1] if calls else None
        try:
            outcome = self.host.evaluate({k: v for k, v in args.items() if v}, call_id=call_id)
        except ToolInputError as exc:
            return {"stdout": f"ks-evaluate: {exc}", "exit": 2}
        if call_id and outcome.extra and "eval_seq" in outcome.extra:
            self._eval_seq[call_id] = outcome.extra["eval_seq"]
        return {"stdout": outcome.output, "exit": 1 if outcome.is_error else 0}

    def _tool_boundary(self) -> dict:
        host = self.host
        end = host.limit_reached()
        if end:
            return {"stdout": json.dumps({"continue": False, "stopReason": f"KernelSeek: {end}"}), "exit": 0}
        host.boundary()
        text = self._take_outbox("")
        if not text:
            return {"stdout": "", "exit": 0}
        return {"stdout": json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse",
                                                             "additionalContext": text}}), "exit": 0}

    def _stop(self, data: dict) -> dict:
        """The stop gate, as the native loop runs it: judge first (a message the steerer wrote
        keeps the session going even when the goal is met), then hand over what waits."""
        host = self.host
        if self._goal_met or host.limit_reached() or self._interrupting:
            return {"stdout": "", "exit": 0}  # let it stop: the turn's end is handled in the pump
        verdict = host.stop_gate()
        if verdict.end:
            self._goal_met = True
            return {"stdout": "", "exit": 0}
        if verdict.interrupted:
            return {"stdout": "", "exit": 0}
        host.boundary()
        text = "\n\n".join(t for t in (verdict.feedback, self._take_outbox("")) if t) or CONTINUE
        return {"stdout": json.dumps({"decision": "block", "reason": text}), "exit": 0}

    def _take_outbox(self, default: str) -> str:
        with self._olock:
            messages, self._outbox = self._outbox, []
        return "\n\n".join(human_text(m) for m in messages) if messages else default

    def _usage(self, u: dict) -> None:
        self.host.usage(model=u.get("model") or self.config.model, input_tokens=u["input_tokens"],
                        output_tokens=u["output_tokens"], cache_read_tokens=u["cache_read_tokens"],
                        cache_write_tokens=u["cache_write_tokens"], request_id=u.get("request_id"),
                        message_id=u.get("message_id"), turn=self._turns + 1)

    def _transcript_text(self) -> str:
        path = self.transcript()
        try:
            return path.read_text(errors="replace") if path else ""
        except OSError:
            return ""


def _kill_group(proc: subprocess.Popen, grace_s: float) -> None:
    for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            break
        try:
            proc.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue
