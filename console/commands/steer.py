"""`kernelseek steer`: start the agent runner on a task and open the console on its session.

The runner is a detached child process (its own process session, output in
<session>/runner.log), or with `--on slurm` a batch job: quitting the console leaves it running,
`kernelseek console SESSION` re-attaches, `kernelseek stop SESSION` ends it. With `--count` or
`--arms` several sessions start at once and the fleet view opens on them.
"""
from __future__ import annotations

import argparse
import sys

from console.commands import add_sessions_dir
from console.commands.launch_options import (add_agent_arguments, add_launch_arguments, check_launch_arguments,
                                             check_slurm_flags, resume_launcher)

HELP = "run the agent on a task and steer it in the console"
DESCRIPTION = """Start the agent on TASK in a new session (or --resume one) and open the console on
it. The agent runs as a detached process: quit the console with ctrl+q and it goes on; re-attach
with `kernelseek console SESSION`; end it with `kernelseek stop SESSION`. Needs ANTHROPIC_API_KEY
(or ANTHROPIC_AUTH_TOKEN; ANTHROPIC_BASE_URL is honoured)."""


class SteerError(Exception):
    exit_code = 2


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_agent_arguments(p)
    add_sessions_dir(p)
    add_launch_arguments(p)


def run(args: argparse.Namespace) -> int:
    check_launch_arguments(args)
    return steer(args.task, session=args.session, resume=args.resume, sessions_dir=args.sessions_dir,
                 launch=args, model=args.model, autopilot=args.autopilot, grace=args.grace,
                 max_turns=args.max_turns, max_cost=args.max_cost, max_hours=args.max_hours, config=args.config,
                 agent=args.agent, unsafe_no_sandbox=args.unsafe_no_sandbox)


def _launch_args(task, session, resume, sessions_dir, launch, settings) -> argparse.Namespace:
    """The launcher's view of this call (`launch` holds the launcher flags when called from the CLI)."""
    base = {"on": None, "count": 1, "arms": None, "group": None, "gpu": None, "gpus": None, "partition": None,
            "time": None, "account": None, "sbatch_args": None}
    if launch is not None:
        base.update({k: getattr(launch, k) for k in base})
    return argparse.Namespace(task=task, session=session, resume=resume, sessions_dir=sessions_dir,
                              **base, **{"autopilot": False, "grace": None, "model": None, "max_turns": None,
                                         "max_cost": None, "max_hours": None, "config": None, "agent": None,
                                         "unsafe_no_sandbox": False, **settings})


def steer(task: str | None, *, session: str | None = None, resume: str | None = None,
          sessions_dir: str | None = None, launch: argparse.Namespace | None = None, **settings) -> int:
    from agent.config import load_config
    from agent.model import make_client
    from console.commands.launching import resume as resume_session, start_new, wait_for_start
    from sessions.layout import resolve_session

    args = _launch_args(task, session, resume, sessions_dir, launch, settings)
    config = load_config(settings.get("config"))
    make_client(config)  # a missing key: one line, before any session exists
    if settings.get("agent") == "claude-code":
        from agent.claude_code.install import find_claude

        find_claude(config.claude_code_path)  # not installed: one line saying how to get it
    if resume:
        paths = resolve_session(resume, sessions_dir)
        if paths.is_running():
            raise SteerError(f"{paths.root} is running already: attach with `kernelseek console {paths.root}`")
        on = resume_launcher(args, paths) or "local"
        check_slurm_flags(args, on)
        handle, after = resume_session(args, paths, on)
    else:
        if not task:
            raise SteerError("name a task (e.g. attention-cpu), or --resume a session")
        check_slurm_flags(args, args.on)
        launched = start_new(args, args.on or "local")
        if launched.batch:
            from console.commands.launching import print_launched

            print_launched(launched, out=sys.stderr)
            return _open_fleet(launched.sessions[0].root.parent)
        paths, handle, after = launched.sessions[0], launched.handles[0], -1
    print(f"kernelseek: starting the agent in {paths.root} ...", file=sys.stderr)
    wait_for_start(paths, handle, after_seq=after)

    from console.app import ConsoleApp

    proc = getattr(handle, "process", None)
    ConsoleApp(paths, mode="live", runner=proc or handle).run()
    if handle.poll() is not False:
        print(f"The agent goes on ({'pid ' + str(proc.pid) if proc else handle.describe().where}). "
              f"Re-attach: kernelseek console {paths.root}\nStop it: kernelseek stop {paths.root}", file=sys.stderr)
    else:
        print(f"The session has ended. Replay it: kernelseek replay {paths.root}", file=sys.stderr)
    return 0


def _open_fleet(root) -> int:
    from console.app import ConsoleApp

    ConsoleApp.for_fleet(root).run()
    return 0
