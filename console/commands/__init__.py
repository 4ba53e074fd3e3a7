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


def print_wrapped(line: str, indent: int) -> None:
    """Print a line; on a terminal, wrapped to its width with the rest indented by `indent`
    (piped output stays one line per item, for grep and friends)."""
    if not sys.stdout.isatty():
        print(line)
        return
    import shutil
    import textwrap

    width = max(40, shutil.get_terminal_size().columns - 1)
    print(textwrap.fill(line, width, subsequent_indent=" " * indent, break_on_hyphens=False))
