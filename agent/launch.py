"""Starting the runner as a detached child process (what `kernelseek steer` does).

The session directory is the whole interface between a console and a runner: the console
follows events.jsonl and writes inbox.jsonl. So the runner is started as its own process in its
own session (no controlling terminal, no SIGHUP when the console's terminal closes), with its
output going to `<session>/runner.log`; the console may quit and re-attach while it runs on.
To stop it, send SIGTERM (the session ends with reason `stopped`).
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from sessions.log import LogReader

RUNNER_LOG = "runner.log"


class LaunchError(Exception):
    exit_code = 1


def run_argv(task: str | None = None, *, session: str | os.PathLike | None = None,
             resume: str | os.PathLike | None = None, model: str | None = None, autopilot: bool = False,
             grace: float | None = None, max_turns: int | None = None, max_cost: float | None = None,
             max_hours: float | None = None, config: str | os.PathLike | None = None,
             sessions_dir: str | os.PathLike | None = None, python: str | None = None,
             agent: str | None = None, unsafe_no_sandbox: bool = False) -> list[str]:
    """The command line of `kernelseek run` for these settings."""
    argv = [python or sys.executable, "-m", "console", "run", "--quiet"]
    if agent is not None and resume is None:  # a resumed session goes on with its own agent
        argv += ["--agent", agent]
    if unsafe_no_sandbox:
        argv.append("--unsafe-no-sandbox")
    if resume is not None:
        argv += ["--resume", str(resume)]
    else:
        if task is None or session is None:
            raise ValueError("a new run needs a task and a session directory")
        argv += [str(task), "--session", str(session)]
    for flag, value in (("--model", model), ("--max-turns", max_turns), ("--max-cost", max_cost),
                        ("--max-hours", max_hours), ("--config", config), ("--sessions-dir", sessions_dir)):
        if value is not None:
            argv += [flag, str(value)]
    if autopilot:
        argv.append("--autopilot")
        if grace is not None:
            argv += ["--grace", str(grace)]
    return argv


def spawn_runner(argv: list[str], session_dir: str | os.PathLike, *, env: dict | None = None) -> subprocess.Popen:
    """Start the runner detached; its stdout and stderr go to <session>/runner.log."""
    session = Path(session_dir)
    session.mkdir(parents=True, exist_ok=True)
    log = open(session / RUNNER_LOG, "ab")
    try:
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True, close_fds=True, env=env)
    finally:
        log.close()


def wait_until_running(session_dir: str | os.PathLike, proc: subprocess.Popen, *, timeout_s: float = 60.0,
                       after_seq: int = -1) -> dict:
    """Block until the runner has written its session_start (or session_resume after
    `after_seq`); the event. If the runner exits first, LaunchError with its last words."""
    reader = LogReader(Path(session_dir) / "events.jsonl")  # reads only what is new each poll
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for ev in reader.read().events:
            if ev.get("type") in ("session_start", "session_resume") and ev.get("seq", -1) > after_seq:
                return ev
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    tail = ""
    try:
        tail = (Path(session_dir) / RUNNER_LOG).read_text(errors="replace").strip().splitlines()[-1]
    except (OSError, IndexError):
        pass
    if proc.poll() is None:
        raise LaunchError(f"the runner did not start within {timeout_s:g} s" + (f": {tail}" if tail else ""))
    raise LaunchError(tail or f"the runner exited with status {proc.returncode}")
