"""Starting the runner as a detached child process (what `kernelseek steer` does).

The session directory is the whole interface between a console and a runner: the console
follows events.jsonl and writes inbox.jsonl. So the runner is started as its own process in its
own session (no controlling terminal, no SIGHUP when the console's terminal closes), with its
output going to `<session>/runner.log`; the console may quit and re-attach while it runs on.
To stop it, post a stop request to its inbox (`kernelseek stop`), or send SIGTERM (the session
ends with reason `stopped`). agent/launchers builds the local and Slurm launchers on these.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
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
             group: str | None = None, agent: str | None = None, unsafe_no_sandbox: bool = False,
             gpu: str | None = None) -> list[str]:
    """The command line of `kernelseek run` for these settings."""
    # `--on local`: this command is the runner itself, wherever a launcher started it
    argv = [python or sys.executable, "-m", "console", "run", "--quiet", "--on", "local"]
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
                        ("--max-hours", max_hours), ("--config", config), ("--sessions-dir", sessions_dir),
                        ("--group", group), ("--gpu", gpu)):
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


def wait_until_running(session_dir: str | os.PathLike, proc: subprocess.Popen | None = None, *,
                       timeout_s: float | None = 60.0, after_seq: int = -1,
                       alive: Callable[[], bool | None] | None = None, alive_every_s: float = 1.0) -> dict:
    """Block until the runner has written its session_start (or session_resume after
    `after_seq`); the event. If the runner exits first, LaunchError with its last words.

    `proc` is a runner started here; for one started elsewhere (a batch job) give `alive`, asked
    every `alive_every_s` (False: it is gone), and `timeout_s=None` to wait while it is queued."""
    reader = LogReader(Path(session_dir) / "events.jsonl")  # reads only what is new each poll
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    next_ask = 0.0
    gone = False
    while deadline is None or time.monotonic() < deadline:
        for ev in reader.read().events:
            if ev.get("type") in ("session_start", "session_resume") and ev.get("seq", -1) > after_seq:
                return ev
        if proc is not None and proc.poll() is not None:
            gone = True
            break
        if alive is not None and time.monotonic() >= next_ask:
            next_ask = time.monotonic() + alive_every_s
            if alive() is False:
                gone = True
                break
        time.sleep(0.05)
    for ev in reader.read().events:  # it may have started and ended between two polls
        if ev.get("type") in ("session_start", "session_resume") and ev.get("seq", -1) > after_seq:
            return ev
    tail = ""
    try:
        tail = (Path(session_dir) / RUNNER_LOG).read_text(errors="replace").strip().splitlines()[-1]
    except (OSError, IndexError):
        pass
    if not gone:
        raise LaunchError(f"the runner did not start within {timeout_s:g} s" + (f": {tail}" if tail else ""))
    if proc is not None:
        raise LaunchError(tail or f"the runner exited with status {proc.returncode}")
    raise LaunchError(tail or "the runner's job ended before the session started")
