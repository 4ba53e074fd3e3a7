"""`kernelseek detect`: run the decision-point detectors over a session or transcript."""
from __future__ import annotations

import argparse

from console.commands import add_sessions_dir, not_yet

HELP = "list the decision points in a session or transcript"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", metavar="SESSION|TRANSCRIPT", help="session directory, events.jsonl, or a transcript file")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_sessions_dir(p)


def run(args: argparse.Namespace) -> int:
    return not_yet("detect", 4)
