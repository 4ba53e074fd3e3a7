"""Where this runner runs, as session_start and session_resume record it (`place`).

From inside, a runner knows its host and pid, and under Slurm its job (the array element's id
for an array, which is what `scancel` and `sacct` accept), node, partition and GPUs. Consoles on
other nodes read this to say where a session runs; the launcher's own record (launch.json) says
how it was started.
"""
from __future__ import annotations

import os
import socket
from collections.abc import Mapping


def slurm_job_id(env: Mapping[str, str]) -> str | None:
    """The job id a user names this job by: `ARRAY_TASK` for an array element, else the job id."""
    array, task = env.get("SLURM_ARRAY_JOB_ID"), env.get("SLURM_ARRAY_TASK_ID")
    if array and task:
        return f"{array}_{task}"
    return env.get("SLURM_JOB_ID") or None


def runner_place(env: Mapping[str, str] | None = None) -> dict:
    env = os.environ if env is None else env
    place: dict = {"launcher": "local", "host": socket.gethostname(), "pid": os.getpid()}
    job = slurm_job_id(env)
    if job:
        place.update(launcher="slurm", job_id=job, node=env.get("SLURMD_NODENAME") or place["host"])
        if env.get("SLURM_JOB_PARTITION"):
            place["partition"] = env["SLURM_JOB_PARTITION"]
    gpus = env.get("CUDA_VISIBLE_DEVICES") or env.get("SLURM_JOB_GPUS") or env.get("SLURM_STEP_GPUS")
    if gpus:
        place["gpus"] = gpus
    return place
