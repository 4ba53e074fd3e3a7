"""`kernelseek eval`: evaluate a candidate kernel against a task's seed."""
from __future__ import annotations

import argparse

from console.commands import not_yet

HELP = "evaluate a candidate kernel: build, constraints, correctness, timing vs the seed"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("task", metavar="TASK", help="task name (kernels/<task>) or a task folder")
    p.add_argument("--candidate", metavar="FILE", help="candidate source (default: the task's seed)")
    p.add_argument("--json", metavar="OUT", help="write the JSON report to OUT ('-' for stdout)")
    p.add_argument("--only", metavar="REGEX", help="only scenarios whose name matches REGEX")
    p.add_argument("--quick", action="store_true", help="only the task's quick subset")


def run(args: argparse.Namespace) -> int:
    return not_yet("eval", 3)
