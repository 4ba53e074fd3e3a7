"""What a session says about its task and machine: the device, the arch tag, the capabilities
ranking filters on, the candidate's file name. Read once, at session_start."""
from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
from pathlib import Path


def cuda_device_name() -> str:
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            out = subprocess.run([smi, "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                                 text=True, timeout=10)
            names = [n.strip() for n in out.stdout.splitlines() if n.strip()]
            if names:
                return names[0] + (f" (x{len(names)})" if len(names) > 1 else "")
        except (OSError, subprocess.TimeoutExpired):
            pass
    return "CUDA GPU (name unknown: nvidia-smi not available)"


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip() + f" ({os.cpu_count()} cores)"
    except OSError:
        pass
    return (platform.processor() or platform.machine() or "cpu") + f" ({os.cpu_count()} cores)"


def task_arch(task) -> str:
    """`cpu`, or the GPU generation as the bank tags it: sm_90a -> sm90."""
    if task.backend == "cpu":
        return "cpu"
    m = re.match(r"sm_?(\d+)", task.arch)
    return f"sm{m.group(1)}" if m else task.arch


def task_capabilities(task) -> list[str]:
    caps = []
    try:
        if hasattr(task.harness, "baselines"):
            caps.append("other_implementation")
    except Exception:  # noqa: BLE001 - a harness that fails to import is the evaluator's to report
        pass
    profilers = ("ncu", "nsys") if task.backend == "cuda" else ("perf",)
    if any(shutil.which(p) for p in profilers):
        caps.append("profiler")
    return caps


def candidate_name(task) -> str:
    return "candidate" + task.seed.suffix


def device_name(task) -> str:
    return cuda_device_name() if task.backend == "cuda" else cpu_name()
