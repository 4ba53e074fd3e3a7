"""`kernelseek attach claude-code`: steer a Claude Code session you run in your own terminal."""
from __future__ import annotations

import argparse
import os
import sys

from console.commands import add_sessions_dir
from console.commands.launch_options import add_autopilot_arguments

HELP = "follow and steer a Claude Code session you run yourself (hooks while attached)"
DESCRIPTION = """Attach KernelSeek to a Claude Code session running in another terminal (your own
TUI, your own key). Its transcript is followed live into a KernelSeek session (the same one again
when you re-attach), and while this runs, hooks in the project's .claude/settings.local.json hand
the console's questions to Claude Code at its next tool boundary or turn end; with --gate (and
--task) it may not stop before the evaluator says the goal is met. Ctrl-C detaches: the hooks are
removed and the settings file is left as it was. Open the console on the session with
`kernelseek console SESSION` (printed at start), or pass --console."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("agent", choices=("claude-code",), help="the agent whose session to attach to")
    p.add_argument("transcript", metavar="TRANSCRIPT", nargs="?",
                   help="the session's transcript (.jsonl under ~/.claude/projects/); default: the newest of "
                        "the current directory's project")
    p.add_argument("--latest", action="store_true", help="the newest transcript of any project")
    p.add_argument("--task", metavar="TASK", help="the kernel task the session works on (evaluations, the goal)")
    p.add_argument("--candidate", metavar="FILE",
                   help="with --task, the candidate file in the project (default: the task's candidate name)")
    p.add_argument("--gate", action="store_true", help="with --task, refuse Claude Code's stop until the goal is met")
    p.add_argument("--session", metavar="DIR", help="the KernelSeek session to write (default: the one an earlier "
                                                     "attach made for this Claude Code session, else a new one)")
    p.add_argument("--console", action="store_true", help="open the console on the session while attached")
    p.add_argument("--config", metavar="FILE", help="agent settings (YAML): detectors, autopilot, prices")
    add_autopilot_arguments(p)
    p.add_argument("--quiet", action="store_true", help="print nothing but where the session is")
    add_sessions_dir(p)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from agent.claude_code.attach import attach_transcript, find_transcript
    from agent.config import load_config
    from agent.host import install_signal_handlers
    from agent.secrets import secret_values
    from console.commands.run import EventPrinter, inert_output

    config = load_config(args.config, autopilot=True if args.autopilot else None,
                         grace_s=args.grace if args.autopilot else None)
    transcript = find_transcript(args.transcript, latest=args.latest, cwd=Path.cwd())
    inert_output()
    printer = None if args.quiet or args.console else EventPrinter()
    host = attach_transcript(transcript, task_name=args.task, gate=args.gate, candidate=args.candidate,
                             config=config, secrets=secret_values(os.environ), sessions_dir=args.sessions_dir,
                             session_dir=args.session, on_event=printer.put if printer else None)
    print(f"kernelseek: attached to {transcript}\n  session: {host.paths.root}\n"
          f"  console: kernelseek console {host.paths.root}\n  Ctrl-C detaches (the hooks are removed)",
          file=sys.stderr)
    try:
        if args.console:
            import threading

            from console.app import ConsoleApp

            box: dict = {}
            worker = threading.Thread(target=lambda: box.setdefault("reason", host.run()), daemon=True)
            worker.start()
            ConsoleApp(host.paths, mode="live").run()
            host.request_stop("detached")
            worker.join(30)
        else:
            install_signal_handlers(host, reason="detached")
            host.run()
    finally:
        if printer:
            printer.close()
    return 0
