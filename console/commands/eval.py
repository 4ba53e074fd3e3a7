"""`kernelseek eval`: evaluate a candidate kernel against a task's seed."""
from __future__ import annotations

import argparse
import sys
from typing import Any

HELP = "evaluate a candidate kernel: build, constraints, correctness, timing vs the seed"
DESCRIPTION = (
    "Build the candidate and the task's seed, check constraints and correctness on every scenario,\n"
    "time both back to back, verify timed calls after the fact, and print a table (worst ratio\n"
    "first). Ratio = median over rounds of seed time / candidate time (> 1: the candidate is\n"
    "faster). The verdict runs in a child process and the candidate in a sandboxed host: a\n"
    "crashing, hanging or hostile kernel gives a report.\n"
    "\n"
    "Exit status: 0 every scenario correct, no constraint broken, nothing crashed or hung (the\n"
    "speed verdict is in the output); 1 a scenario incorrect, a constraint violated, the candidate\n"
    "crashed or hung, or its timing cannot be trusted (work off the stream or after returning,\n"
    "times the verdict's clock contradicts, faster than the machine's peaks) -- with\n"
    "--require-goal also when the goal is not met or must be re-measured; 2 a bad task or usage;\n"
    "3 the candidate does not build; 4 the task needs a GPU this machine lacks (or --gpus finds\n"
    "too few idle ones).\n"
    "\n"
    "--gpus N|all spreads a cuda task's scenarios over N (or all) idle GPUs of this node: each\n"
    "scenario's seed and candidate are timed back to back on one GPU, the shards share one eval\n"
    "seed and one build, and one report says which GPU measured each scenario."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("task", metavar="TASK", help="task name (kernels/<task>) or a task folder")
    p.add_argument("--candidate", metavar="FILE", help="candidate source (default: the task's seed)")
    p.add_argument("--json", metavar="OUT", help="write the JSON report to OUT ('-' for stdout)")
    p.add_argument("--only", metavar="REGEX", help="only scenarios whose name matches REGEX")
    p.add_argument("--quick", action="store_true", help="only the task's quick subset")
    p.add_argument("--seed", type=int, metavar="N", help="eval seed for the random inputs (replays a run)")
    p.add_argument("--budget", type=float, metavar="S", help="timing budget per scenario, seconds")
    p.add_argument("--timeout", type=float, metavar="S", help="limit for the whole evaluation, seconds")
    p.add_argument("--require-goal", action="store_true",
                   help="exit 1 unless the task's goal is met (not met, or re-measure needed)")
    p.add_argument("--gpus", metavar="N|all",
                   help="spread the scenarios over N (or all) idle GPUs of this node; one merged report")


class _UsageError(Exception):
    exit_code = 2


def run(args: argparse.Namespace) -> int:
    import json

    from rich.console import Console

    from evaluator import evaluate_isolated, load_task
    from kernels import TASKS_DIR

    to_stdout = args.json == "-"
    err = Console(stderr=True, highlight=False)
    out = err if to_stdout else Console(highlight=False)
    task = load_task(args.task, TASKS_DIR)
    options = dict(quick=args.quick, only=args.only, seed=args.seed, time_budget_s=args.budget,
                   timeout_s=args.timeout)
    picked = None
    if args.gpus is not None:  # the GPUs first: a busy node is one line, before any progress
        from evaluator.sweep import parse_gpus, pick_for_sweep, sweep_over

        try:
            count = parse_gpus(args.gpus)
        except ValueError:
            raise _UsageError(f"--gpus {args.gpus}: give a number of GPUs or all") from None
        picked = pick_for_sweep(task, count)
    try:
        with _ProgressView(err, task.name) as view:
            if picked is not None:
                report = sweep_over(task, args.candidate, picked.gpus, progress=view.update, **options)
            else:
                report = evaluate_isolated(task, args.candidate, progress=view.update, **options)
    finally:
        if picked is not None:
            picked.release()
    _print_report(out, report)
    if args.json:
        text = json.dumps(report.to_json(), indent=1)
        if to_stdout:
            sys.stdout.write(text + "\n")
        else:
            with open(args.json, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
    return report.exit_code(require_goal=args.require_goal)


class _ProgressView:
    """A Rich progress bar over scenarios, fed by the evaluator's progress events."""

    def __init__(self, console: Any, task: str) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.console = console
        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[detail]}"), TimeElapsedColumn(),
            console=console, transient=False,
        )
        self.bar = self.progress.add_task(f"{task}: building", total=None, detail="")
        self.task = task

    def __enter__(self) -> _ProgressView:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.__exit__(*exc)

    def update(self, event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind == "build":
            state = "cached" if event.get("cached") else f"{event.get('seconds', 0):.1f} s"
            ok = "built" if event.get("ok") else "[red]FAILED[/red]"
            self.progress.console.print(f"  {event.get('role')}: {ok} ({state})")
        elif kind == "start":
            gpus = event.get("gpus")
            self.progress.update(self.bar, total=event["total"], completed=0,
                                 description=f"{self.task}: eval seed {event['eval_seed']}"
                                 + (f" on {len(gpus)} GPUs" if gpus else ""))
        elif kind == "scenario":
            self.progress.update(self.bar, detail=f"{event['name']} · {event['phase']}")
        elif kind == "shard_start":
            self.progress.console.print(f"  {gpu_text(event.get('gpu'))}: {event.get('total')} scenarios",
                                        markup=False, highlight=False)
        elif kind == "gpu_wait":
            self.progress.console.print(f"  {event.get('message')}", markup=False, highlight=False)
        elif kind == "gpu_lock":
            self.progress.console.print(f"  {gpu_text(event.get('gpu'))}: had it after {event.get('waited_s')} s",
                                        markup=False, highlight=False)
        elif kind == "scenario_done":
            result = event["result"]
            ratio = result.get("ratio")
            mark = "[green]ok[/green]" if result.get("correct") else "[red]WRONG[/red]"
            shown = f"{ratio:.3f}" if isinstance(ratio, (int, float)) else "-"
            self.progress.update(self.bar, advance=1, detail=f"{event['name']} {mark} ratio {shown}")


def _print_report(console: Any, report: Any) -> None:
    from rich.table import Table
    from rich.text import Text

    from evaluator.report import rate_text

    if not report.build_ok:
        console.print("[bold red]the candidate did not build[/bold red]")
        console.print(str(report.build.get("log", "")), markup=False, highlight=False)
    rows = sorted(report.scenarios, key=lambda s: s.sort_key)
    swept = bool(report.device.get("gpus"))  # a sharded sweep: which GPU measured each scenario
    if rows:
        table = Table(title=f"{report.task} · eval seed {report.eval_seed}", title_justify="left")
        wide = console.width >= 110  # the rate column only where the flags still have room
        # numbers keep their width; a long scenario name is cut with an ellipsis instead
        table.add_column("scenario", no_wrap=True, overflow="ellipsis", min_width=12, ratio=3)
        for name, width in (("seed ms", 8), ("cand ms", 8), ("ratio", 6), ("95% CI", 11)) + (
                (("rate", 14),) if wide else ()) + ((("gpu", 3),) if swept else ()):
            table.add_column(name, justify="right", no_wrap=True, min_width=width)
        table.add_column("flags / failure", overflow="fold", min_width=10, ratio=2)
        for s in rows:
            verdict = "" if not s.ci else "green" if s.ci[0] > 1 else "red" if s.ci[1] < 1 else "yellow"
            rate = rate_text(s, report.roofline) + (f" {s.pct_peak:.0f}%" if s.pct_peak is not None else "")
            table.add_row(
                Text(s.name, style="" if s.correct else "red"), _f(s.seed_ms, ".4g"), _f(s.cand_ms, ".4g"),
                Text(_f(s.ratio, ".3f"), style=verdict),
                f"{s.ci[0]:.3f}-{s.ci[1]:.3f}" if s.ci else "", *((rate,) if wide else ()),
                *((_gpu_cell(s.gpu),) if swept else ()),
                Text(s.failure or "", style="red") if not s.correct else Text(" ".join(s.flags)),
            )
        console.print(table)
    from evaluator.report import LEGEND

    summary = report.summary()
    console.print(
        f"passed {summary['passed']}/{summary['total']} · geomean {_f(summary['geomean'], '.3f')} · "
        f"min {_f(summary['min_ratio'], '.3f')} · fast_1 {_f(summary['fast_1'], '.2f')}",
        highlight=False,
    )
    if rows:
        console.print(Text(LEGEND, style="dim"))
    console.print(Text(report.host_text(), style="yellow" if report.host.get("kind") == "none" else "dim"))
    where = measured_on(report)
    if where:
        console.print(Text(where, style="dim"))
    for v in summary["violations"]:
        console.print(Text.assemble(("violation", "red"), f": {v}"))
    if report.error:
        console.print(Text.assemble((f"error ({report.error_kind})", "red"), f": {report.error}"))
    if summary["goal_met"]:
        console.print("[bold green]GOAL MET[/bold green]")
    else:
        console.print(Text.assemble(("goal not met", "bold"), ": " + "; ".join(summary["reasons"])))


def _f(value: Any, spec: str) -> str:
    return format(value, spec) if isinstance(value, (int, float)) else "-"


def gpu_text(gpu: Any) -> str:
    """`GPU 3`, or the start of the UUID when the index is unknown."""
    if not isinstance(gpu, dict):
        return "GPU ?"
    return f"GPU {gpu['index']}" if gpu.get("index") is not None else str(gpu.get("uuid", "GPU ?"))[:12]


def _gpu_cell(gpu: Any) -> str:
    return "" if not isinstance(gpu, dict) else str(gpu["index"]) if gpu.get("index") is not None else \
        str(gpu.get("uuid", ""))[4:12]


def measured_on(report: Any) -> str:
    """Which GPU(s) measured the report, and any wait for a GPU another evaluation timed on."""
    waits = [s.gpu for s in report.scenarios if isinstance(s.gpu, dict) and s.gpu.get("waited_s")]
    waited = sum(g["waited_s"] for g in waits)
    wait = f" · waited {waited:.1f} s for the GPU ({waits[0].get('waited_for', 'another evaluation')})" \
        if waits else ""
    shards = report.options.get("shards") if isinstance(report.options, dict) else None
    if shards:
        parts = ", ".join(f"{gpu_text(s.get('gpu'))} {s.get('scenarios')} in {s.get('seconds', 0):.0f} s"
                          for s in shards)
        return f"swept over {len(shards)} GPUs in {report.duration_s:.1f} s: {parts}{wait}"
    gpu = report.device.get("gpu") if isinstance(report.device, dict) else None
    if gpu:
        return f"measured on {gpu_text(gpu)} ({gpu.get('uuid', '?')}){wait}"
    return wait.lstrip(" ·")
