"""Starting sessions through a launcher, for `run` and `steer` (imported inside their `run`)."""
from __future__ import annotations

import argparse
import sys

from agent.launch import LaunchError, wait_until_running
from agent.launchers import Handle
from agent.launchers.batch import Launched, launch, parse_arms, relaunch
from console.commands.launch_options import launcher_options
from sessions.layout import SessionPaths
from sessions.log import read_events


def agent_settings(args: argparse.Namespace) -> dict:
    """The agent flags as `kernelseek run` takes them (None: not given)."""
    autopilot = bool(getattr(args, "autopilot", False))
    agent = getattr(args, "agent", None)
    return {"model": args.model, "autopilot": autopilot, "grace": args.grace if autopilot else None,
            "max_turns": args.max_turns, "max_cost": args.max_cost, "max_hours": args.max_hours,
            "config": args.config, "agent": agent if agent not in (None, "native") else None,
            "unsafe_no_sandbox": bool(getattr(args, "unsafe_no_sandbox", False)), "gpu": getattr(args, "gpu", None)}


def start_new(args: argparse.Namespace, on: str) -> Launched:
    """Make the sessions (private, under the sessions root) and start their runners."""
    from evaluator import load_task
    from kernels import TASKS_DIR

    load_task(args.task, TASKS_DIR)  # a bad task name: one line now, not N dead runners later
    arms = parse_arms(args.arms) if args.arms else None
    return launch(args.task, on=on, count=args.count, arms=arms, settings=agent_settings(args),
                  sessions_dir=args.sessions_dir, session=args.session, group=args.group,
                  launcher_options=launcher_options(args, on, args.config))


def resume(args: argparse.Namespace, paths: SessionPaths, on: str) -> tuple[Handle, int]:
    """A new runner for an existing session; the handle and the log's last seq before it."""
    events = read_events(paths.events).events
    after = events[-1]["seq"] if events else -1
    handle = relaunch(paths, on=on, settings=agent_settings(args), sessions_dir=args.sessions_dir,
                      group=args.group, launcher_options=launcher_options(args, on, args.config))
    return handle, after


def describe(handle: Handle) -> str:
    job = getattr(handle, "job_id", None)
    return f"Slurm job {job}" if job else f"pid {getattr(handle, 'pid', '?')}"


def print_launched(launched: Launched, out=sys.stdout) -> None:
    for paths, handle, arm in zip(launched.sessions, launched.handles, launched.arms):
        print(f"{paths.root}  {describe(handle)}" + (f"  arm {arm}" if arm else ""), file=out)
    if launched.batch:
        job = getattr(launched.handles[0], "job_id", None)
        ref = job.split("_")[0] if job else launched.batch
        print(f"batch {launched.batch}: watch with `kernelseek fleet`, compare the arms with "
              f"`kernelseek compare --arms-of {ref}`", file=out)


def wait_for_start(paths: SessionPaths, handle: Handle, after_seq: int = -1) -> dict:
    """Wait for the runner's session_start/session_resume; a queued job may take a while."""
    proc = getattr(handle, "process", None)
    if proc is not None:
        return wait_until_running(paths.root, proc, after_seq=after_seq)
    print(f"kernelseek: waiting for {describe(handle)} to start (ctrl+c leaves it queued) ...", file=sys.stderr)
    try:
        return wait_until_running(paths.root, timeout_s=None, after_seq=after_seq, alive=handle.poll)
    except LaunchError as exc:
        view = handle.describe()
        said = " · ".join(x for x in (view.state, view.reason) if x)
        raise LaunchError(f"{exc} ({view.where}{': ' + said if said else ''})") from None
