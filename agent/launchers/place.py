"""Where this runner runs, as session_start and session_resume record it (`place`), and the GPU
it is pinned to.

From inside, a runner knows its host and pid, and under Slurm its job (the array element's id
for an array, which is what `scancel` and `sacct` accept), node, partition and GPUs. Consoles on
other nodes read this to say where a session runs; the launcher's own record (launch.json) says
how it was started.

A session of a cuda task is pinned to one GPU (`pin_runner`, before the session starts): a free
GPU of this runner's allocation -- the node's GPUs, or those CUDA_VISIBLE_DEVICES names (Slurm's
allocation inside a job) -- is claimed for the runner's lifetime (evaluator.gpu_lock: a lock that
dies with the runner) and CUDA_VISIBLE_DEVICES becomes its UUID, so the agent's commands and
every evaluation run there. "Free": nobody holds its claim (another session, a sweep) and nobody
else computes on it (nvidia-smi). When no GPU is free the runner refuses to start, naming who
holds each one, rather than share. `--gpu N|UUID` asks for one GPU, `--gpu none` pins nothing
(sessions then share GPUs; their evaluations still take turns timing, the per-GPU timing lock).
"""
from __future__ import annotations

import os
import socket
import sys
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass

from agent.launch import LaunchError
from evaluator.gpu_lock import Claim, GpuLockError, claim, claimed_by, holder_text
from evaluator.gpus import AllocationError, Gpu, GpuQueryError, allocation, compute_processes, node_gpus, pin_env

GPU_POLICIES = "auto (a free GPU; refuse when none is free), an index or UUID, or none (no pinning)"


class NoFreeGpu(LaunchError):
    """No GPU of this node is free for a session (each one's holder named)."""

    exit_code = 4


class GpuPolicyError(LaunchError):
    """A bad `--gpu` (no such GPU here)."""

    exit_code = 2


@dataclass
class Placement:
    """The GPU this runner is pinned to, and its claim on it."""

    gpu: Gpu
    claim: Claim | None

    def apply(self, env: MutableMapping[str, str]) -> None:
        env.update(pin_env(self.gpu))

    def to_json(self) -> dict:
        return self.gpu.to_json()


_PLACED: Placement | None = None  # this process's (a runner is one session)


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
    gpus = env.get("SLURM_JOB_GPUS") or env.get("SLURM_STEP_GPUS") or env.get("CUDA_VISIBLE_DEVICES")
    if gpus:
        place["gpus"] = gpus
    if _PLACED is not None:
        place["gpu"] = _PLACED.to_json()
    return place


# -- pinning ------------------------------------------------------------------------------------------

def runner_gpus(env: Mapping[str, str]) -> list[Gpu]:
    """The GPUs a runner may be pinned to: its allocation. A Slurm job given no GPU has none,
    whatever the node has."""
    if slurm_job_id(env) and not (env.get("CUDA_VISIBLE_DEVICES") or env.get("SLURM_JOB_GPUS")
                                  or env.get("SLURM_STEP_GPUS")):
        return []
    try:
        return allocation(node_gpus(), env)
    except AllocationError as exc:
        raise GpuPolicyError(str(exc)) from None


def _computing() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for p in compute_processes():
        out.setdefault(p.uuid, []).append(f"{p.name} (pid {p.pid})")
    return out


def _chosen(gpus: list[Gpu], policy: str) -> Gpu:
    if policy.isdigit():
        hit = next((g for g in gpus if g.index == int(policy)), None)
    else:
        hits = [g for g in gpus if g.uuid.lower().startswith(policy.lower())]
        hit = hits[0] if len(hits) == 1 else None
    if hit is None:
        have = ", ".join(f"{g.index} ({g.uuid})" for g in gpus) or "none"
        raise GpuPolicyError(f"--gpu {policy}: no such GPU here (this runner may use: {have})")
    return hit


def free_gpus(gpus: list[Gpu]) -> tuple[list[Gpu], dict[str, str]]:
    """Which of `gpus` are free now, and why each other one is not (for messages)."""
    computing = _computing()
    free, busy = [], {}
    for gpu in gpus:
        holder = claimed_by(gpu.uuid)
        if holder is not None:
            busy[gpu.label] = f"held by {holder_text(holder)}"
        elif computing.get(gpu.uuid):
            busy[gpu.label] = f"computing: {', '.join(computing[gpu.uuid][:3])}"
        else:
            free.append(gpu)
    return free, busy


def _refusal(busy: dict[str, str]) -> str:
    held = "; ".join(f"{k} {v}" for k, v in busy.items())
    return (f"no free GPU on {socket.gethostname()}: {held or 'none'}. Wait for a session to end, "
            "or --gpu none to let sessions share GPUs (their evaluations then take turns timing)")


def pin_runner(backend: str, policy: str | None = "auto", *, prefer: str | None = None,
               what: str = "a KernelSeek session", env: MutableMapping[str, str] | None = None) -> Placement | None:
    """Pin this runner to a GPU (cuda tasks; None: nothing to pin, or `--gpu none`). Sets
    CUDA_VISIBLE_DEVICES in `env` (this process's environment) so that everything it starts runs
    there. `prefer`: a UUID to try first (the GPU a resumed session had). NoFreeGpu, GpuPolicyError."""
    global _PLACED
    env = os.environ if env is None else env
    policy = (policy or "auto").strip()
    if backend != "cuda" or policy == "none":
        return None
    try:
        gpus = runner_gpus(env)
    except GpuQueryError as exc:  # the driver will say more when an evaluation runs
        print(f"kernelseek: not pinned to a GPU: {exc}", file=sys.stderr)
        return None
    if not gpus:
        return None
    try:
        if policy != "auto":
            gpu = _chosen(gpus, policy)
            held = claim(gpu.uuid, what=what)
            if held is None:
                raise NoFreeGpu(f"--gpu {policy}: {gpu.label} is held by {holder_text(claimed_by(gpu.uuid) or {})}; "
                                "--gpu auto takes a free one")
            placed = Placement(gpu, held)
        else:
            placed = _first_free(gpus, prefer, what)
    except GpuLockError as exc:
        raise LaunchError(str(exc)) from None
    placed.apply(env)
    _PLACED = placed
    return placed


def _first_free(gpus: list[Gpu], prefer: str | None, what: str) -> Placement:
    computing = _computing()
    order = sorted(gpus, key=lambda g: g.uuid != prefer)  # stable: the allocation's order otherwise
    busy: dict[str, str] = {}
    for gpu in order:
        if computing.get(gpu.uuid):
            busy[gpu.label] = f"computing: {', '.join(computing[gpu.uuid][:3])}"
            continue
        held = claim(gpu.uuid, what=what)
        if held is not None:
            return Placement(gpu, held)
        busy[gpu.label] = f"held by {holder_text(claimed_by(gpu.uuid) or {})}"
    raise NoFreeGpu(_refusal(busy))


def check_free(backend: str, count: int, policy: str | None, env: Mapping[str, str] | None = None) -> None:
    """Before starting `count` local runners: NoFreeGpu unless as many GPUs are free (the runners
    then claim them; a race with another launch ends in one runner's refusal, never in sharing)."""
    policy = (policy or "auto").strip()
    if backend != "cuda" or policy == "none":
        return
    env = os.environ if env is None else env
    try:
        gpus = runner_gpus(env)
    except GpuQueryError:
        return
    if not gpus:
        return
    if policy != "auto":
        if count > 1:
            raise GpuPolicyError(f"--gpu {policy} pins one session; {count} sessions need --gpu auto")
        gpus = [_chosen(gpus, policy)]
    free, busy = free_gpus(gpus)
    if len(free) >= count:
        return
    if count == 1:
        raise NoFreeGpu(_refusal(busy))
    held = "; ".join(f"{k} {v}" for k, v in busy.items())
    raise NoFreeGpu(f"{count} sessions need {count} free GPUs; {len(free)} of {len(gpus)} are free on "
                    f"{socket.gethostname()}" + (f" ({held})" if held else "") +
                    ". Start fewer, or --gpu none to let sessions share GPUs")


def placed() -> Placement | None:
    """The GPU this process was pinned to (None: not pinned)."""
    return _PLACED


def release_pin() -> None:
    """Let this process's GPU go (a runner keeps it until it ends; tests pin many times)."""
    global _PLACED
    if _PLACED is not None and _PLACED.claim is not None:
        _PLACED.claim.release()
    _PLACED = None
