"""`kernelseek sessions`: list the sessions under the sessions directory, and the bundled example.

The example (a session recorded by KernelSeek's own tools, shipped with it) is always listed, last
and marked, with its path: a new user without an API key has something to replay, detect, mine.
"""
from __future__ import annotations

import argparse
import json
import sys

from console.commands import add_sessions_dir

HELP = "list recorded and running sessions (and the bundled example)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_sessions_dir(p)
    p.add_argument("--json", action="store_true",
                   help="print a JSON list (the bundled example has \"example\": true)")


def shown_path(path: str) -> str:
    """A path as a user types it: relative to the working directory when under it."""
    import os

    rel = os.path.relpath(path)
    return rel if not rel.startswith("..") else path


def run(args: argparse.Namespace) -> int:
    from console.commands.start import EXAMPLE
    from sessions.layout import SessionPaths, list_sessions, session_info, sessions_root

    root = sessions_root(args.sessions_dir)
    infos = list_sessions(root)
    example = session_info(SessionPaths(EXAMPLE)) if (EXAMPLE / "events.jsonl").is_file() else None
    if args.json:
        rows = [i.to_dict() for i in infos]
        if example is not None:
            rows.append({**example.to_dict(), "example": True})
        json.dump(rows, sys.stdout, indent=1)
        print()
        return 0
    if not infos:
        print(f"no sessions under {root} yet")
    if infos:
        from rich.console import Console

        Console().print(_table(infos, f"sessions under {root}"))
    if example is not None:
        where = shown_path(example.path)
        print(f"\nthe bundled example ({example.task}, {example.events} events, {example.status}):\n"
              f"  {where}\n"
              f"  kernelseek replay {where}\n"
              f"  kernelseek detect {where}")
    return 0


def _table(infos, title: str):
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title, title_justify="left")
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
    return table
