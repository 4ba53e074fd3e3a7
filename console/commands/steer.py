"""`kernelseek steer`: start the agent runner and open the console on it."""
from __future__ import annotations

import argparse

from console.commands import add_sessions_dir, not_yet

HELP = "run the agent on a task and steer it in the console"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("task", metavar="TASK", help="task name or folder")
    p.add_argument("--session", metavar="DIR", help="session directory (default: a new one under the sessions dir)")
    p.add_argument("--model", metavar="M", help="model (default: $KERNELSEEK_MODEL or the config default)")
    p.add_argument("--autopilot", action="store_true", help="let the bank answer decision points the steerer leaves open")
    p.add_argument("--grace", metavar="SECONDS", type=float, default=30.0,
                   help="with --autopilot, how long the steerer has to answer first")
    p.add_argument("--max-turns", metavar="N", type=int)
    p.add_argument("--max-cost", metavar="USD", type=float)
    p.add_argument("--max-hours", metavar="H", type=float)
    add_sessions_dir(p)


def run(args: argparse.Namespace) -> int:
    return not_yet("steer", 6)
