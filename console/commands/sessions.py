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

    table = Table(title=f"sessions under {root}", title_justify="left")
    for col in ("session", "task", "model", "started", "status", "events", "best"):
        table.add_column(col, justify="right" if col in ("events", "best") else "left")
    for i in infos:
        table.add_row(i.name, i.task or "?", i.model or "?", i.started_text, i.status,
                      str(i.events), f"{i.best_geomean:.3f}" if i.best_geomean else "-")
    Console().print(table)
    return 0
