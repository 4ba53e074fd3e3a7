"""`kernelseek console`: attach the console to a running or finished session."""
from __future__ import annotations

import argparse

from console.commands import add_sessions_dir

HELP = "attach the console to a running or finished session"
DESCRIPTION = """Attach the console to a session and follow its log live (several consoles may
follow one session). Questions you send go to the session's inbox and are delivered by its runner
at the agent's next turn; the transcript shows them once delivered."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("session", metavar="SESSION", help="session directory or name under the sessions dir")
    add_sessions_dir(p)


def run(args: argparse.Namespace) -> int:
    from sessions.layout import resolve_session

    paths = resolve_session(args.session, args.sessions_dir)
    from console.app import ConsoleApp

    ConsoleApp(paths, mode="live").run()
    return 0
