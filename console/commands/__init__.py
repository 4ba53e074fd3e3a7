"""Subcommand modules of `kernelseek`: HELP, add_arguments(parser), run(args) -> int.

Keep module-level imports to the standard library so building the parser stays fast.
"""
from __future__ import annotations

import argparse
import sys


def add_sessions_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sessions-dir",
        metavar="DIR",
        help="where sessions live (default: $KERNELSEEK_HOME/sessions, else the per-user data dir)",
    )


def not_yet(what: str, issue: int) -> int:
    """A subcommand that a later issue fills: say so in one line, exit 2."""
    print(f"kernelseek: {what} is not built yet (issue #{issue})", file=sys.stderr)
    return 2
