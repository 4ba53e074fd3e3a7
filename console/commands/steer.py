"""`kernelseek steer`: start the agent runner on a task and open the console on its session.

The runner is a detached child process (its own process session, output in
<session>/runner.log): quitting the console leaves it running, `kernelseek console SESSION`
re-attaches, `kernelseek stop SESSION` ends it.
"""
from __future__ import annotations

import argparse
import sys

from console.commands import add_sessions_dir

HELP = "run the agent on a task and steer it in the console"
DESCRIPTION = """Start the agent on TASK in a new session (or --resume one) and open the console on
it. The agent runs as a detached process: quit the console with ctrl+q and it goes on; re-attach
with `kernelseek console SESSION`; end it with `kernelseek stop SESSION`. Needs ANTHROPIC_API_KEY
(or ANTHROPIC_AUTH_TOKEN; ANTHROPIC_BASE_URL is honoured)."""


class SteerError(Exception):
    exit_code = 2


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("task", metavar="TASK", nargs="?", help="task name or folder (omit with --resume)")
    p.add_argument("--session", metavar="DIR", help="session directory (default: a new one under the sessions dir)")
    p.add_argument("--resume", metavar="SESSION", help="carry on an interrupted session and attach to it")
    p.add_argument("--agent", choices=("native", "claude-code"), default="native",
                   help="native: KernelSeek's own loop; claude-code: Claude Code driven headless")
    p.add_argument("--unsafe-no-sandbox", action="store_true",
                   help="where no sandbox can be made, run the agent's commands unconfined instead of refusing")
    p.add_argument("--model", metavar="M", help="model (default: $KERNELSEEK_MODEL or the config default)")
    p.add_argument("--autopilot", action="store_true", help="let the bank answer decision points the steerer leaves open")
    p.add_argument("--grace", metavar="SECONDS", type=float, default=30.0,
                   help="with --autopilot, how long the steerer has to answer first (default 30)")
    p.add_argument("--max-turns", metavar="N", type=int, help="end the session after N model turns")
    p.add_argument("--max-cost", metavar="USD", type=float, help="end the session once it has cost this much")
    p.add_argument("--max-hours", metavar="H", type=float,
                   help="end the session after this many hours of running (pauses not counted)")
    p.add_argument("--config", metavar="FILE",
                   help="agent settings (YAML; default $KERNELSEEK_CONFIG or $KERNELSEEK_HOME/agent.yaml)")
    add_sessions_dir(p)


def run(args: argparse.Namespace) -> int:
    return steer(args.task, session=args.session, resume=args.resume, model=args.model,
                 autopilot=args.autopilot, grace=args.grace, max_turns=args.max_turns,
                 max_cost=args.max_cost, max_hours=args.max_hours, config=args.config,
                 sessions_dir=args.sessions_dir, agent=args.agent, unsafe_no_sandbox=args.unsafe_no_sandbox)


def steer(task: str | None, *, session: str | None = None, resume: str | None = None,
          sessions_dir: str | None = None, **settings) -> int:
    from agent.launch import run_argv, spawn_runner, wait_until_running
    from agent.model import make_client
    from agent.config import load_config
    from sessions.layout import create_session, resolve_session
    from sessions.log import read_events

    config = load_config(settings.get("config"))
    make_client(config)  # a missing key: one line, before any session exists
    if settings.get("agent") == "claude-code":
        from agent.claude_code.install import find_claude

        find_claude(config.claude_code_path)  # not installed: one line saying how to get it
    if resume:
        paths = resolve_session(resume, sessions_dir)
        if paths.is_running():
            raise SteerError(f"{paths.root} is running already: attach with `kernelseek console {paths.root}`")
        last = read_events(paths.events).events
        after = last[-1]["seq"] if last else -1
        argv = run_argv(resume=paths.root, sessions_dir=sessions_dir, **settings)
    else:
        if not task:
            raise SteerError("name a task (e.g. attention-cpu), or --resume a session")
        from evaluator import load_task

        load_task(task)  # a bad task name: one line now, not a dead runner later
        paths = create_session(sessions_dir, task=task, path=session)
        after = -1
        argv = run_argv(task, session=paths.root, sessions_dir=sessions_dir, **settings)
    proc = spawn_runner(argv, paths.root)
    print(f"kernelseek: starting the agent in {paths.root} ...", file=sys.stderr)
    wait_until_running(paths.root, proc, after_seq=after)

    from console.app import ConsoleApp

    ConsoleApp(paths, mode="live", runner=proc).run()
    if proc.poll() is None:
        print(f"The agent goes on (pid {proc.pid}). Re-attach: kernelseek console {paths.root}\n"
              f"Stop it: kernelseek stop {paths.root}", file=sys.stderr)
    else:
        print(f"The session has ended. Replay it: kernelseek replay {paths.root}", file=sys.stderr)
    return 0
