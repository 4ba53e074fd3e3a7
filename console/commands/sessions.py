"""`kernelseek sessions`: list the sessions under the sessions directory."""
from __future__ import annotations

import argparse
import json
import sys

from console.commands import add_sessions_dir

HELP = "list recorded and running sessions"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_sessions_dir(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace) -> int:
    from sessions.layout import list_sessions, sessions_root

    root = sessions_root(args.sessions_dir)
    infos = list_sessions(root)
    if args.json:
        json.dump([i.to_dict() for i in infos], sys.stdout, indent=1)
        print()
        return 0
    if not infos:
        print(f"no sessions under {root}")
        return 0
    from rich.console import Console
    from rich.table import Table

    from rich.text import Text

    table = Table(title=f"sessions under {root}", title_justify="left")
    width = max(len(i.name) for i in infos)
    table.add_column("session", no_wrap=True, min_width=min(width, 40))
    show_task = any(not i.name.endswith(i.task or "?") for i in infos)  # names carry the task
    if show_task:
        table.add_column("task", no_wrap=True, overflow="ellipsis", ratio=1)
    table.add_column("status", no_wrap=True, min_width=min(16, max(len(i.status) for i in infos)))
    table.add_column("events", justify="right", no_wrap=True, min_width=6)
    table.add_column("best", justify="right", no_wrap=True, min_width=5)
    for i in infos:
        colour = "green" if i.status == "running" else "" if i.status.startswith("ended") else "yellow"
        table.add_row(Text(i.name), *([Text(i.task or "?")] if show_task else []), Text(i.status, style=colour),
                      str(i.events), f"{i.best_geomean:.3f}" if i.best_geomean else "-")
    Console().print(table)
    return 0
