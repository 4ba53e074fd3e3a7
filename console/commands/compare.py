"""`kernelseek compare`: how much did each arm get? Final kernels re-evaluated, medians with intervals."""
from __future__ import annotations

import argparse
import json
import sys

from console.commands import add_sessions_dir

HELP = "compare arms of sessions on their re-evaluated final kernels (median, bootstrap CI, difference)"
DESCRIPTION = """Re-evaluate each session's final kernel with the full sweep (the trusted
number, not the agent's best claim) and print, per arm: sessions, goal met,
the median final geomean with a bootstrap confidence interval, questions asked
(human and autopilot), tokens and cost; then each arm against the baseline
(`none` when present) with the interval of the difference. A final kernel that
is not correct on every scenario counts as 0x.

Sessions are given by name or directory, or all those of one launch with
--arms-of (the job id or batch name `kernelseek run --count/--arms` printed).
Arms come from the launch (`--arms`), else from the sessions' settings (--by
autopilot|model|agent)."""


class CompareError(Exception):
    exit_code = 2


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("sessions", metavar="SESSION", nargs="*", help="sessions to compare")
    p.add_argument("--arms-of", metavar="JOB", help="every session of one launch (Slurm job id or batch name)")
    p.add_argument("--by", choices=("arm", "autopilot", "model", "agent"), default="arm",
                   help="what makes an arm: the launch's --arms (default), autopilot on/off, the model, or "
                        "the agent")
    p.add_argument("--budget", metavar="S", type=float, help="timing budget per scenario, seconds (default: the task's)")
    p.add_argument("--pairs", metavar="N", type=int,
                   help="timed seed/candidate pairs per scenario at least (default: the task's; fewer is faster "
                        "and noisier)")
    p.add_argument("--seed", metavar="N", type=int, help="evaluation seed for the random inputs (default: fresh)")
    p.add_argument("--out", metavar="DIR", help="where the re-evaluation reports, report.md and plot go "
                                                "(default: $KERNELSEEK_HOME/compare/<time>)")
    p.add_argument("--report", metavar="FILE", help="write the Markdown report here too (the plot beside it)")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    add_sessions_dir(p)


def run(args: argparse.Namespace) -> int:
    import time
    from pathlib import Path

    from console.compare.gather import collect, reevaluate
    from console.compare.report import (ARM_HEADER, SESSION_HEADER, arm_rows, compare_arms, difference_lines,
                                        markdown, plot, session_rows)
    from sessions.layout import kernelseek_home, resolve_session

    if bool(args.sessions) == bool(args.arms_of):
        raise CompareError("give SESSION... or --arms-of JOB (one of them)")
    arms: dict[str, str] = {}
    preferred: list[str] = []
    title = "KernelSeek comparison"
    if args.arms_of:
        from agent.launchers.batch import find_batch

        batch = find_batch(args.arms_of)
        paths = [resolve_session(s["path"]) for s in batch["sessions"]]
        if args.by == "arm":
            arms = {s["path"]: s["arm"] for s in batch["sessions"] if s.get("arm")}
        preferred = [a["label"] for a in batch.get("arms") or []]
        title += f": batch {batch['batch']}" + (f" (job {batch['job_id']})" if batch.get("job_id") else "")
    else:
        paths = [resolve_session(s, args.sessions_dir) for s in args.sessions]
    results = collect(paths, by=args.by, arms=arms)
    out = Path(args.out) if args.out else kernelseek_home() / "compare" / time.strftime("%Y%m%d-%H%M%S")
    say = (lambda m: print(m, file=sys.stderr)) if not args.json or sys.stderr.isatty() else None
    for r in results:
        reevaluate(r, out_dir=out / "evals", budget_s=args.budget, min_pairs=args.pairs, seed=args.seed,
                   progress=say)
    c = compare_arms(results, preferred=preferred)
    out.mkdir(parents=True, exist_ok=True)
    (out / "compare.json").write_text(json.dumps(c.to_dict(), indent=1))
    (out / "geomean.svg").write_text(plot(c))
    (out / "report.md").write_text(markdown(c, title=title, plot_file="geomean.svg"))
    if args.report:
        report = Path(args.report)
        report.parent.mkdir(parents=True, exist_ok=True)
        svg = report.with_suffix(".svg")
        svg.write_text(plot(c))
        report.write_text(markdown(c, title=title, plot_file=svg.name))
    if args.json:
        json.dump(c.to_dict(), sys.stdout, indent=1)
        print()
        return 0
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(highlight=False)
    table = Table(title=title, title_justify="left")
    for h in ARM_HEADER:
        table.add_column(h, overflow="fold")
    for row in arm_rows(c):
        table.add_row(*(Text(x) for x in row))
    console.print(table)
    for line in difference_lines(c):
        console.print(Text(line))
    detail = Table(title="sessions", title_justify="left")
    for h in SESSION_HEADER:
        detail.add_column(h, overflow="fold")
    for row in session_rows(c):
        detail.add_row(*(Text(x) for x in row))
    console.print(detail)
    console.print(Text(f"report: {out / 'report.md'} (plot {out / 'geomean.svg'}, numbers {out / 'compare.json'})"))
    return 0
