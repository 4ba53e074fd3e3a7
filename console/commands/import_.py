"""`kernelseek import`: convert a Claude Code or Codex transcript into a session."""
from __future__ import annotations

import argparse

from console.commands import not_yet

HELP = "import a Claude Code session or Codex rollout as a session"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("kind", choices=["claude-code", "codex"], help="transcript format")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--out", metavar="SESSION", required=True, help="session directory to write")


def run(args: argparse.Namespace) -> int:
    return not_yet("import", 7)
