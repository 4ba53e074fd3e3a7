"""The flags `run` and `steer` share, declared once: the agent's settings and where it runs.

    TASK  --session DIR  --resume SESSION  --agent native|claude-code  --model M  --config FILE
    --autopilot [--grace S]  --max-turns N  --max-cost USD  --max-hours H  --unsafe-no-sandbox
    --on local|slurm   --count N   --arms A,B   --group NAME   --gpu auto|N|UUID|none
    --gpus N  --partition P  --time T  --account A  --sbatch-arg ARG ...   (with --on slurm)

Slurm defaults come from the agent config file's `slurm:` section; flags override them.
"""
from __future__ import annotations

import argparse

def add_autopilot_arguments(p: argparse.ArgumentParser) -> None:
    """--autopilot and --grace (also `attach`'s). --grace given overrides the config file's
    grace_s; not given, the file's (default 30 s) holds."""
    p.add_argument("--autopilot", action="store_true",
                   help="let the bank answer the decision points the steerer leaves open")
    p.add_argument("--grace", metavar="SECONDS", type=float, default=None,
                   help="with --autopilot, how long the steerer has to answer first (default: the config "
                        "file's grace_s, else 30; 0 for runs nobody watches)")


def add_agent_arguments(p: argparse.ArgumentParser) -> None:
    """The task or session, the agent and its settings."""
    p.add_argument("task", metavar="TASK", nargs="?", help="task name or folder (omit with --resume)")
    p.add_argument("--session", metavar="DIR", help="session directory to create (default: a new one under "
                                                    "the sessions dir)")
    p.add_argument("--resume", metavar="SESSION", help="rebuild the conversation from SESSION's log and carry on")
    p.add_argument("--agent", choices=("native", "claude-code"), default="native",
                   help="native: KernelSeek's own loop on the Messages API; claude-code: Claude Code driven "
                        "headless (see docs/agent.md). --resume keeps the session's own")
    p.add_argument("--unsafe-no-sandbox", action="store_true",
                   help="where no sandbox can be made (no bubblewrap, no user namespaces), run the agent's "
                        "commands unconfined instead of refusing to start")
    p.add_argument("--model", metavar="M", help="model (default: $KERNELSEEK_MODEL or the config default)")
    add_autopilot_arguments(p)
    p.add_argument("--max-turns", metavar="N", type=int, help="end the session after N model turns")
    p.add_argument("--max-cost", metavar="USD", type=float, help="end the session once it has cost this much")
    p.add_argument("--max-hours", metavar="H", type=float,
                   help="end the session after this many hours of running (pauses not counted)")
    p.add_argument("--config", metavar="FILE",
                   help="agent settings (YAML; default $KERNELSEEK_CONFIG or $KERNELSEEK_HOME/agent.yaml)")


ON_HELP = ("where the agent runs: local (default; `run` runs it in this process) or slurm (a batch "
           "job; the session lives on the shared KERNELSEEK_HOME). --resume keeps the session's own")


def add_launch_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("where it runs")
    g.add_argument("--on", choices=("local", "slurm"), default=None, help=ON_HELP)
    g.add_argument("--count", metavar="N", type=int, default=1,
                   help="start N sessions of TASK at once (one Slurm job array with --on slurm)")
    g.add_argument("--arms", metavar="A,B",
                   help="deal the sessions to arms of settings, in turn: autopilot, none, model=M, "
                        "agent=claude-code, max-turns=N, ... joined by + within an arm (e.g. autopilot,none)")
    g.add_argument("--group", metavar="NAME",
                   help="share the session directory with this group (default: private to you, 0700)")
    g.add_argument("--gpu", metavar="WHICH", default=None,
                   help="the GPU a cuda task's session is pinned to: auto (default: a free one of this node, "
                        "or of the Slurm job; refuse when none is free), an index or UUID, or none (no "
                        "pinning: sessions share GPUs and their evaluations take turns timing)")
    s = p.add_argument_group("Slurm (with --on slurm; defaults from the config file's slurm: section)")
    s.add_argument("--gpus", metavar="N", help="GPUs per session (sbatch --gpus)")
    s.add_argument("--partition", metavar="P", help="partition to submit to")
    s.add_argument("--time", metavar="T", help="time limit per session (e.g. 4:00:00)")
    s.add_argument("--account", metavar="A", help="account to charge")
    s.add_argument("--sbatch-arg", metavar="ARG", action="append", dest="sbatch_args", default=None,
                   help="one more sbatch argument, e.g. --sbatch-arg=--qos=high (repeatable)")


class LaunchUsageError(Exception):
    exit_code = 2


def check_launch_arguments(args: argparse.Namespace) -> None:
    if args.count < 1:
        raise LaunchUsageError("--count must be at least 1")
    if args.resume and (args.count > 1 or args.arms):
        raise LaunchUsageError("--resume carries on one session; --count and --arms start new ones")
    if args.session and (args.count > 1 or args.arms):
        raise LaunchUsageError("--session names one session; --count and --arms make their own")


def check_slurm_flags(args: argparse.Namespace, on: str | None) -> None:
    """Slurm's flags only where the session goes to Slurm (`on`: the launcher it will use)."""
    slurm_flags = [f for f in ("gpus", "partition", "time", "account", "sbatch_args") if getattr(args, f)]
    if slurm_flags and on != "slurm":
        raise LaunchUsageError(f"--{slurm_flags[0].replace('_', '-')} is a Slurm option: add --on slurm")


def launcher_options(args: argparse.Namespace, on: str, config_file: str | None) -> dict:
    """The launcher's options: for Slurm, the config file's `slurm:` section under the flags."""
    if on != "slurm":
        return {}
    from agent.config import config_path, load_config
    from agent.launchers.slurm import SlurmOptions

    where = config_path(config_file)
    base = SlurmOptions.from_mapping(load_config(config_file).slurm, f"{where or 'config'}: slurm")
    return {"options": base.merged(gpus=args.gpus, partition=args.partition, time=args.time,
                                   account=args.account, options=args.sbatch_args)}


def resume_launcher(args: argparse.Namespace, session) -> str | None:
    """Where a resumed session's new runner goes: --on if given, else where it ran before."""
    if args.on:
        return args.on
    from sessions.layout import read_launch

    record = read_launch(session) or {}
    return record.get("launcher") if record.get("launcher") in ("local", "slurm") else None
