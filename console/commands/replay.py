"""`kernelseek replay`: replay a recorded session or a foreign transcript, read-only."""
from __future__ import annotations

import argparse

from console.commands import add_sessions_dir

HELP = "replay a recorded session or a Claude Code / Codex transcript"
DESCRIPTION = """Replay a session read-only, with a timeline: space plays and pauses, +/- change
the speed, arrows seek, d/D and h/H jump between decision points and human messages, / searches.
A Claude Code session or a Codex rollout is read through the transcript importers."""


class ReplayError(Exception):
    exit_code = 2


def refuse_non_log(paths) -> None:
    """One line and exit 2 for a session whose events.jsonl is not a log (random bytes, another
    format): never an empty console named '?'."""
    from sessions.log import not_a_log

    why = not_a_log(paths.events)
    if why:
        raise ReplayError(f"{paths.events}: not a KernelSeek session log: {why}")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", metavar="SESSION|TRANSCRIPT", help="session directory, events.jsonl, or a transcript file")
    p.add_argument("--speed", metavar="X", type=float, default=1.0, help="initial playback speed")
    add_sessions_dir(p)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from sessions.layout import resolve_session
    from sessions.log import SessionError

    if args.speed <= 0:
        raise ReplayError(f"--speed must be positive, not {args.speed}")
    try:
        paths = resolve_session(args.source, args.sessions_dir)
    except SessionError:
        paths = None
    from console.app import ConsoleApp

    if paths is not None:
        refuse_non_log(paths)
        app = ConsoleApp(paths, mode="replay", speed=args.speed)
    else:
        p = Path(args.source).expanduser()
        if not p.is_file():
            raise ReplayError(f"{args.source}: no such session or transcript file")
        import importlib.util

        if importlib.util.find_spec("sessions.importers") is None:
            raise ReplayError(f"{p}: reading foreign transcripts needs the importers (not installed yet)")
        app = ConsoleApp.for_transcript(p, speed=args.speed)
    app.run()
    return 0
