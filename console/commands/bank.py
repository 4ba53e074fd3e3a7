"""`kernelseek bank`: validate, list, show and suggest questions from the bank."""
from __future__ import annotations

import argparse

from console.commands import add_sessions_dir, not_yet

HELP = "the question bank: validate, list, show, suggest"


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="bank_command", metavar="ACTION", required=True)
    v = sub.add_parser("validate", help="check bank files and report every defect with its line")
    v.add_argument("files", metavar="FILE", nargs="*", help="bank YAML files (default: the bundled bank)")
    ls = sub.add_parser("list", help="list bank items")
    ls.add_argument("--trigger", metavar="KIND", help="only items serving this decision-point kind")
    ls.add_argument("--layer", metavar="LAYER", help="only items with this layer tag")
    ls.add_argument("--arch", metavar="ARCH", help="only items applying to this architecture")
    ls.add_argument("--json", action="store_true")
    show = sub.add_parser("show", help="show one item")
    show.add_argument("id", metavar="ID")
    sug = sub.add_parser("suggest", help="the questions to offer at a session's latest decision point")
    sug.add_argument("session", metavar="SESSION")
    sug.add_argument("--json", action="store_true")
    add_sessions_dir(sug)
    for q in (v, ls, show, sug):
        q.add_argument("--bank", metavar="FILE", action="append", help="use these bank files instead of the bundled bank")


def run(args: argparse.Namespace) -> int:
    return not_yet("bank", 4)
