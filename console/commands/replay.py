"""`kernelseek replay`: replay a recorded session or a foreign transcript, read-only."""
from __future__ import annotations

import argparse

from console.commands import add_sessions_dir, not_yet

HELP = "replay a recorded session or a Claude Code / Codex transcript"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", metavar="SESSION|TRANSCRIPT", help="session directory, events.jsonl, or a transcript file")
    p.add_argument("--speed", metavar="X", type=float, default=1.0, help="initial playback speed")
    add_sessions_dir(p)


def run(args: argparse.Namespace) -> int:
    return not_yet("replay", 6)
