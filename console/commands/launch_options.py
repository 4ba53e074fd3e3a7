"""Where `run` and `steer` start the agent: the launcher flags both commands share.

    --on local|slurm   --count N   --arms A,B   --group NAME   --gpu auto|N|UUID|none
    --gpus N  --partition P  --time T  --account A  --sbatch-arg ARG ...   (with --on slurm)

Slurm defaults come from the agent config file's `slurm:` section; flags override them.
"""
from __future__ import annotations

import argparse

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
