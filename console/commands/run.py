"""`kernelseek run`: the agent on a task, headless, one line per event."""
from __future__ import annotations

import argparse

from console.commands import add_sessions_dir, not_yet

HELP = "run the agent on a task headless, printing one line per event"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("task", metavar="TASK", nargs="?", help="task name or folder (omit with --resume)")
    p.add_argument("--session", metavar="DIR", help="session directory to create")
    p.add_argument("--resume", metavar="SESSION", help="rebuild the conversation from SESSION's log and carry on")
    p.add_argument("--model", metavar="M", help="model (default: $KERNELSEEK_MODEL or the config default)")
    p.add_argument("--autopilot", action="store_true", help="send the top bank question at each decision point")
    p.add_argument("--grace", metavar="SECONDS", type=float, default=0.0,
                   help="with --autopilot, wait this long for a human to answer first")
    p.add_argument("--max-turns", metavar="N", type=int, help="end the session after N model turns")
    p.add_argument("--max-cost", metavar="USD", type=float, help="end the session past this cost")
    p.add_argument("--max-hours", metavar="H", type=float, help="end the session past this many hours")
    add_sessions_dir(p)


def run(args: argparse.Namespace) -> int:
    return not_yet("run", 5)
