"""`kernelseek stop`: end a running session cleanly (its runner writes session_end)."""
from __future__ import annotations

import argparse
import sys

from console.commands import add_sessions_dir

HELP = "stop the agent of a running session"


class StopError(Exception):
    exit_code = 2


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("session", metavar="SESSION", help="session directory or name under the sessions dir")
    p.add_argument("--timeout", metavar="S", type=float, default=30.0,
                   help="how long to wait for the runner to end the session (default 30)")
    add_sessions_dir(p)


def run(args: argparse.Namespace) -> int:
    import os
    import signal
    import time

    from sessions.layout import resolve_session
    from sessions.log import lock_holder_pid, read_events

    paths = resolve_session(args.session, args.sessions_dir)
    if not paths.is_running():
        raise StopError(f"{paths.root} is not running")
    pid = lock_holder_pid(paths.lock)
    if pid is None:
        raise StopError(f"{paths.lock}: cannot tell which process runs the session")
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        raise StopError(f"the runner (pid {pid}) is gone already") from None
    except PermissionError:
        raise StopError(f"not allowed to signal the runner (pid {pid})") from None
    deadline = time.monotonic() + args.timeout
    while time.monotonic() < deadline and paths.is_running():
        time.sleep(0.1)
    ends = [e for e in read_events(paths.events).events if e.get("type") == "session_end"]
    if paths.is_running():
        print(f"the runner (pid {pid}) has not stopped within {args.timeout:g} s", file=sys.stderr)
        return 1
    print(f"stopped: {ends[-1].get('reason') if ends else 'the runner exited'}")
    return 0
