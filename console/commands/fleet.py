"""`kernelseek fleet`: every session under the sessions directory, sorted by who needs you."""
from __future__ import annotations

import argparse

from console.commands import add_sessions_dir

HELP = "the fleet view: every session, grouped by whether it needs you"
DESCRIPTION = """One row per session under the sessions directory (default
$KERNELSEEK_HOME/sessions), grouped "needs you" (an open decision point or a
question from the agent), "running", "ended": task, where it runs (pid and
host, or Slurm job and node, GPUs), state, a geomean sparkline against the
goal, the last decision point, queued messages. enter opens a session (f or
esc comes back), 1-9 answer the focused session's decision point from the
bank, q asks your own question. Logs on a network file system are polled
(within a second)."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_sessions_dir(p)


def run(args: argparse.Namespace) -> int:
    from console.app import ConsoleApp
    from sessions.layout import sessions_root

    ConsoleApp.for_fleet(sessions_root(args.sessions_dir)).run()
    return 0
