"""`kernelseek start`: the one command a new user runs.

With Anthropic credentials in the environment it steers a live agent: on the flagship Hopper
task when this machine has a compute-capability 9.0 GPU, else on attention-cpu. Without them it
replays the bundled example session (recorded by KernelSeek's own tools: a scripted model
driving the real runner and evaluator on attention-cpu).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from console.commands import add_sessions_dir

HELP = "steer the default task live (with ANTHROPIC_API_KEY), else replay the bundled example"
DESCRIPTION = __doc__.split("\n\n", 1)[1].strip()

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "attention-cpu"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--task", metavar="TASK", help="steer this task instead of the default one")
    p.add_argument("--autopilot", action="store_true", help="let the bank answer decision points you leave open")
    p.add_argument("--model", metavar="M", help="model (default: $KERNELSEEK_MODEL or the config default)")
    add_sessions_dir(p)


def hopper_gpu_present() -> bool:
    """A CUDA GPU of compute capability 9.x that the driver can open (quietly False otherwise)."""
    try:
        from cuda.bindings import driver as cu

        (err,) = cu.cuInit(0)
        if err != cu.CUresult.CUDA_SUCCESS:
            return False
        err, count = cu.cuDeviceGetCount()
        if err != cu.CUresult.CUDA_SUCCESS or count < 1:
            return False
        err, dev = cu.cuDeviceGet(0)
        attr = cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
        err2, major = cu.cuDeviceGetAttribute(attr, dev)
        return err == cu.CUresult.CUDA_SUCCESS and err2 == cu.CUresult.CUDA_SUCCESS and major == 9
    except Exception:  # noqa: BLE001 - no driver, no library: no GPU
        return False


def has_credentials() -> bool:
    return bool(os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN"))


def run(args: argparse.Namespace) -> int:
    if has_credentials():
        from console.commands.steer import steer

        task = args.task or ("attention-fwd-sm90" if hopper_gpu_present() else "attention-cpu")
        print(f"kernelseek: steering {task} live", file=sys.stderr)
        return steer(task, sessions_dir=args.sessions_dir, autopilot=args.autopilot, model=args.model)
    print("kernelseek: no ANTHROPIC_API_KEY, so this replays the bundled example session (recorded by a\n"
          "scripted model driving the real runner and evaluator). Set ANTHROPIC_API_KEY to steer a live agent.",
          file=sys.stderr)
    from console.app import ConsoleApp
    from sessions.layout import SessionPaths

    ConsoleApp(SessionPaths(EXAMPLE), mode="replay").run()
    return 0
