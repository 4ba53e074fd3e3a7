"""`kernelseek stop`: end a session cleanly, wherever its runner runs.

First through the session: a stop line in its inbox, which the runner's watcher obeys on
whichever node it runs (the session ends `stopped`, its session_end carrying the line's id).
Only when the runner does not answer within --timeout is it ended the hard way by its launcher
(SIGTERM to a local pid, `scancel` for a Slurm job). A Slurm job still queued is cancelled at
once (there is no runner to ask yet), and a job whose runner has ended its session but lingers
is cancelled after a short grace.
"""
from __future__ import annotations

import argparse
import sys

from console.commands import add_sessions_dir

HELP = "stop the agent of a running session"
LINGER_S = 10.0  # a batch job may take a moment to exit after its runner's session_end


class StopError(Exception):
    exit_code = 2


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("session", metavar="SESSION", help="session directory or name under the sessions dir")
    p.add_argument("--timeout", metavar="S", type=float, default=30.0,
                   help="how long the runner has to end the session before its launcher ends it (default 30)")
    add_sessions_dir(p)


def _wait(check, timeout: float) -> bool:
    import time

    deadline = time.monotonic() + timeout
    while True:
        if check():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)


def run(args: argparse.Namespace) -> int:
    from agent.launch import LaunchError
    from agent.launchers import handle_for
    from sessions.digest import DigestReader
    from sessions.inbox import Inbox
    from sessions.layout import read_launch, resolve_session

    paths = resolve_session(args.session, args.sessions_dir)
    reader = DigestReader(paths.root)
    reader.refresh()
    d = reader.digest
    handle = handle_for(paths, d, read_launch(paths))
    alive = handle.poll() if handle is not None else None
    runner_here = alive if alive is not None else paths.is_running()
    if d.ended is not None and not runner_here:
        raise StopError(f"{paths.root} is not running (it ended: {d.ended})")
    if d.started is None or d.ended is not None:
        # a job still queued (or one whose runner already ended the session): nothing to ask
        if handle is None or not runner_here:
            raise StopError(f"{paths.root} is not running")
        print(handle.cancel())
        return 0
    if not runner_here and alive is not None:
        raise StopError(f"{paths.root} is not running (its runner is gone without session_end: "
                        f"`kernelseek run --resume {paths.root}` carries it on)")
    if not runner_here:
        raise StopError(f"{paths.root} is not running")

    def ended() -> bool:
        reader.refresh()
        return reader.digest.ended is not None

    Inbox(paths.root).request_stop()
    if _wait(ended, args.timeout):
        if handle is not None and getattr(handle, "job_id", None) and not _wait(lambda: handle.poll() is False, LINGER_S):
            print(handle.cancel() + " (its runner had ended the session)", file=sys.stderr)
        print(f"stopped: {reader.digest.ended}")
        return 0
    if handle is None:
        print(f"the runner has not stopped within {args.timeout:g} s", file=sys.stderr)
        return 1
    try:
        did = handle.cancel()
    except LaunchError as exc:
        print(f"the runner has not stopped within {args.timeout:g} s; {exc}", file=sys.stderr)
        return 1
    print(f"the runner did not answer the stop request within {args.timeout:g} s: {did}", file=sys.stderr)
    if _wait(ended, 10.0):
        print(f"stopped: {reader.digest.ended}")
        return 0
    print("the runner was ended without writing session_end (`kernelseek sessions` shows why)", file=sys.stderr)
    return 1
