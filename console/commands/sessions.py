"""`kernelseek sessions`: every session under the sessions directory, where it runs and its state.

One row per session: where its runner runs (a pid on a host, or a Slurm job and its node), its
state as the log and the scheduler both see it (a job that ended without session_end shows
Slurm's reason), best geomean against the goal, time since its last event, an open decision
point or question from the agent, and messages the runner has not taken yet.
"""
from __future__ import annotations

import argparse
import json
import sys

from console.commands import add_sessions_dir

HELP = "list sessions: where each runs, its state, best geomean, what needs you"

STATE_STYLE = {"running": "green", "queued": "cyan", "starting": "cyan", "ended": "", "stopped": "yellow"}


def _short(reason: str, limit: int = 40) -> str:
    """The first clause of a reason, for a narrow terminal (--json and 120 columns have it all)."""
    first = reason.split(";")[0].split(" (")[0].strip()
    return first if len(first) <= limit else first[: limit - 1] + "…"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_sessions_dir(p)
    p.add_argument("--json", action="store_true", help="machine-readable output (one object per session)")


def run(args: argparse.Namespace) -> int:
    import time

    from console.fleet_watch import FleetWatch
    from console.sessions_view import NEEDS, ago, best_text, decision_text, sort_rows
    from sessions.layout import sessions_root

    root = sessions_root(args.sessions_dir)
    watch = FleetWatch(root)
    watch.rescan()
    watch.refresh(max_bytes=None)
    watch.refresh_views()
    rows = sort_rows(watch.rows())
    if args.json:
        json.dump([r.to_dict() for r in rows], sys.stdout, indent=1, default=str)
        print()
        return 0
    if not rows:
        print(f"no sessions under {root}")
        return 0
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    now = time.time()
    console = Console(highlight=False)
    wide = console.width >= 120
    show_task = any(r.task and not r.name.endswith(r.task) and r.task not in r.name for r in rows)
    table = Table(title=f"sessions under {root}", title_justify="left", expand=True, pad_edge=False)
    table.add_column("session", no_wrap=True, overflow="ellipsis", ratio=3, min_width=14)
    if show_task:
        table.add_column("task", no_wrap=True, overflow="ellipsis", ratio=1, min_width=8)
    table.add_column("where", no_wrap=True, overflow="ellipsis", ratio=2, min_width=10)
    table.add_column("state", overflow="fold", ratio=3 if wide else 2, min_width=9)
    table.add_column("best/goal", justify="right", no_wrap=True, min_width=9)
    table.add_column("last", justify="right", no_wrap=True, min_width=4)
    table.add_column("needs you", overflow="fold", ratio=3 if wide else 2, min_width=10)
    if any(r.undelivered for r in rows):
        table.add_column("inbox", justify="right", no_wrap=True, min_width=5)
    name_max = max(len(r.name) for r in rows) if wide else max(14, console.width // 4 - 2)
    for r in rows:
        state = Text(r.state, style=STATE_STYLE.get(r.state, "red"))
        reason = r.reason if wide else _short(r.reason, 16)
        if reason and (wide or (r.group == "ended" and not reason.endswith("…"))):
            state.append(f" · {reason}", style="dim")
        need = ""
        if r.group == NEEDS:
            need = decision_text(r.decision, 80 if wide else 40) if r.decision else f"asks: {r.question}"
        where = r.where + (f" gpu {r.gpus}" if r.gpus else "")
        name = r.name if len(r.name) <= name_max else "…" + r.name[len(r.name) - name_max + 1:]
        cells = [Text(name), *([Text(r.task or "?")] if show_task else []), Text(where), state,
                 best_text(r.best, r.goal), ago(r.last_t, now), Text(need, style="bold yellow")]
        if any(x.undelivered for x in rows):
            cells.append(str(r.undelivered) if r.undelivered else "")
        table.add_row(*cells)
    console.print(table)
    return 0
