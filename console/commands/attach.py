"""`kernelseek console`: attach the console to a running or finished session."""
from __future__ import annotations

import argparse

from console.commands import add_sessions_dir, not_yet

HELP = "attach the console to a running or finished session"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("session", metavar="SESSION", help="session directory or name under the sessions dir")
    add_sessions_dir(p)


def run(args: argparse.Namespace) -> int:
    return not_yet("console", 6)
