"""The node's GPUs: which exist, which this process may use, who computes on them. One place.

Everything that asks "which GPUs are there" comes here: the runner pinning a session to a GPU,
the sharded sweep picking idle GPUs, the verdict naming the GPU that measured a scenario.

- `node_gpus()`: every GPU of the node as `nvidia-smi --query-gpu=index,uuid,name,memory.total`
  lists it (`index` is nvidia-smi's, the number people use; `uuid` is what identifies a GPU
  everywhere, whatever CUDA_VISIBLE_DEVICES says). Without nvidia-smi, cuda-python's
  `cuDeviceGetUuid` over the devices CUDA sees (then `index` is CUDA's ordinal).
- `allocation(gpus, env)`: the GPUs this process may use: all of them, or those
  CUDA_VISIBLE_DEVICES names (indices, full or abbreviated UUIDs; empty or -1 means none).
  Under Slurm the indices a job's CUDA_VISIBLE_DEVICES uses may be renumbered inside its cgroup;
  SLURM_JOB_GPUS (or SLURM_STEP_GPUS) holds the node's own numbers and is what we record.
- `compute_processes()`: `nvidia-smi --query-compute-apps`: a GPU someone computes on is not idle.
- `device_gpu(device)`: the UUID (and PCI bus id) of an open `CudaDevice`, for the timing lock.

Tests put a fake `nvidia-smi` first on PATH (tests/gpus/fake_bin); nothing here knows of it.
Imports: the standard library (cuda-python lazily, in the fallback and `device_gpu`).
"""
from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

SMI_TIMEOUT_S = 20.0
# set for a process pinned to one GPU (a session's runner, a sweep's shard), with CUDA_VISIBLE_DEVICES
PINNED_ENV = "KERNELSEEK_GPU"  # its UUID
PINNED_INDEX_ENV = "KERNELSEEK_GPU_INDEX"  # its number on the node (so nobody asks nvidia-smi again)
_UUID = re.compile(r"^(GPU|MIG)-[0-9a-fA-F-]+$")


@dataclass(frozen=True)
class Gpu:
    """One GPU of the node. `index`: nvidia-smi's (the node's) number; `uuid`: GPU-... (MIG-...)."""

    index: int | None
    uuid: str
    name: str = ""
    memory_mib: int | None = None

    @property
    def label(self) -> str:
        """How people name it: `GPU 3`, or the start of its UUID when its index is unknown."""
        return f"GPU {self.index}" if self.index is not None else self.uuid[:12]

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, "")}


@dataclass(frozen=True)
class ComputeProcess:
    """A process nvidia-smi says computes on a GPU."""

    uuid: str
    pid: int
    name: str
    memory_mib: int | None = None


class GpuQueryError(Exception):
    """nvidia-smi ran and failed (its one-line reason)."""

    exit_code = 4


def _smi(args: list[str]) -> str | None:
    """nvidia-smi's output for `args`, None when there is no nvidia-smi; GpuQueryError when it fails."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None
    try:
        proc = subprocess.run([exe, *args], capture_output=True, text=True, timeout=SMI_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise GpuQueryError(f"nvidia-smi did not answer within {SMI_TIMEOUT_S:g} s") from None
    except OSError as exc:
        raise GpuQueryError(f"nvidia-smi could not run: {exc}") from None
    if proc.returncode != 0:
        said = (proc.stdout + proc.stderr).strip().splitlines()
        raise GpuQueryError(f"nvidia-smi failed: {said[-1] if said else f'exit status {proc.returncode}'}")
    return proc.stdout


def _int(text: str) -> int | None:
    try:
        return int(float(text.strip()))
    except ValueError:
        return None  # [N/A], [Not Supported]


def parse_gpu_list(text: str) -> list[Gpu]:
    """`index, uuid, name, memory.total` CSV lines (no header, no units) as GPUs."""
    out = []
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 2 or not _UUID.match(parts[1]):
            continue
        out.append(Gpu(_int(parts[0]), parts[1], parts[2] if len(parts) > 2 else "",
                       _int(parts[3]) if len(parts) > 3 else None))
    return out


def parse_compute_apps(text: str) -> list[ComputeProcess]:
    """`gpu_uuid, pid, process_name, used_memory` CSV lines as processes."""
    out = []
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 3 or not _UUID.match(parts[0]) or _int(parts[1]) is None:
            continue
        out.append(ComputeProcess(parts[0], int(parts[1]), parts[2], _int(parts[3]) if len(parts) > 3 else None))
    return out


def node_gpus() -> list[Gpu]:
    """Every GPU of this node (empty when there is none, or no driver). GpuQueryError when
    nvidia-smi exists but fails (a driver that lost a GPU, say): that is worth saying."""
    text = _smi(["--query-gpu=index,uuid,name,memory.total", "--format=csv,noheader,nounits"])
    if text is not None:
        return parse_gpu_list(text)
    return _cuda_gpus()


def _cuda_gpus() -> list[Gpu]:
    """The devices CUDA sees, by cuDeviceGetUuid (no nvidia-smi on this machine)."""
    try:
        from cuda.bindings import driver as cu

        (err,) = cu.cuInit(0)
        if err != cu.CUresult.CUDA_SUCCESS:
            return []
        err, count = cu.cuDeviceGetCount()
        if err != cu.CUresult.CUDA_SUCCESS:
            return []
        out = []
        for ordinal in range(count):
            err, dev = cu.cuDeviceGet(ordinal)
            if err != cu.CUresult.CUDA_SUCCESS:
                continue
            err, uuid = cu.cuDeviceGetUuid(dev)
            err2, name = cu.cuDeviceGetName(256, dev)
            name = name.split(b"\0", 1)[0].decode() if isinstance(name, bytes) else str(name)
            if err == cu.CUresult.CUDA_SUCCESS:
                out.append(Gpu(ordinal, format_uuid(uuid.bytes), name if err2 == cu.CUresult.CUDA_SUCCESS else ""))
        return out
    except Exception:  # noqa: BLE001 - no cuda-python, no driver (DynamicLibNotFoundError): no GPUs
        return []


def compute_processes() -> list[ComputeProcess]:
    """Processes computing on the node's GPUs ([] without nvidia-smi, or when it cannot say)."""
    try:
        text = _smi(["--query-compute-apps=gpu_uuid,pid,process_name,used_memory",
                     "--format=csv,noheader,nounits"])
    except GpuQueryError:
        return []
    return parse_compute_apps(text or "")


def format_uuid(raw: bytes) -> str:
    """cuDeviceGetUuid's 16 bytes as nvidia-smi writes them: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx."""
    h = bytes(b & 0xFF for b in raw).hex()
    return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


# -- what this process may use ------------------------------------------------------------------

class AllocationError(Exception):
    """CUDA_VISIBLE_DEVICES (or Slurm's list) names a GPU this node does not have."""

    exit_code = 2


def visible_entries(env: Mapping[str, str]) -> list[str] | None:
    """CUDA_VISIBLE_DEVICES as a list (None: unset, every GPU). CUDA stops at the first entry it
    cannot read, and so do we; "" and "-1" hide every GPU."""
    value = env.get("CUDA_VISIBLE_DEVICES")
    if value is None:
        return None
    out = []
    for entry in (e.strip() for e in value.split(",")):
        if not entry or entry.startswith("-") or entry.lower() == "nodevfiles":
            break
        out.append(entry)
    return out


def _match(entry: str, gpus: list[Gpu]) -> Gpu | None:
    if entry.isdigit():
        return next((g for g in gpus if g.index == int(entry)), None)
    hits = [g for g in gpus if g.uuid.lower().startswith(entry.lower())
            or g.uuid.lower().startswith("gpu-" + entry.lower())]
    return hits[0] if len(hits) == 1 else None


def allocation(gpus: list[Gpu], env: Mapping[str, str] | None = None) -> list[Gpu]:
    """The GPUs of `gpus` this process may use, in CUDA_VISIBLE_DEVICES' order, with the node's
    own indices (under Slurm, from SLURM_JOB_GPUS when the job sees a renumbered view)."""
    env = os.environ if env is None else env
    entries = visible_entries(env)
    if entries is None:
        return list(gpus)
    slurm = _slurm_indices(env)
    # a job confined to its GPUs sees only them (numbered from 0): Slurm's list has the node's numbers
    renumbered = slurm is not None and len(slurm) == len(gpus) and len(entries) == len(gpus) and \
        sorted(g.index for g in gpus if g.index is not None) == list(range(len(gpus)))
    out = []
    for pos, entry in enumerate(entries):
        gpu = _match(entry, gpus)
        if gpu is None:
            have = ", ".join(f"{g.index}:{g.uuid}" for g in gpus) or "none"
            raise AllocationError(f"CUDA_VISIBLE_DEVICES={env.get('CUDA_VISIBLE_DEVICES')}: no GPU {entry!r} "
                                  f"on this node (it has {have})")
        if renumbered and gpu.index is not None and slurm is not None:
            gpu = Gpu(slurm[gpu.index], gpu.uuid, gpu.name, gpu.memory_mib)
        if gpu not in out:
            out.append(gpu)
    return out


def _slurm_indices(env: Mapping[str, str]) -> list[int] | None:
    raw = env.get("SLURM_STEP_GPUS") or env.get("SLURM_JOB_GPUS")
    if not raw:
        return None
    try:
        return [int(x) for x in raw.split(",") if x.strip()]
    except ValueError:
        return None


# -- the GPU a CUDA device is ---------------------------------------------------------------------

def device_gpu(device: Any) -> dict[str, Any]:
    """{uuid, pci_bus_id, name} of an open evaluator.backend_cuda.CudaDevice (its `cu` and `dev`)."""
    cu = device.cu
    out: dict[str, Any] = {}
    err, uuid = cu.cuDeviceGetUuid(device.dev)
    if err == cu.CUresult.CUDA_SUCCESS:
        out["uuid"] = format_uuid(uuid.bytes)
    err, bus = cu.cuDeviceGetPCIBusId(32, device.dev)
    if err == cu.CUresult.CUDA_SUCCESS:
        out["pci_bus_id"] = (bus.split(b"\0", 1)[0].decode() if isinstance(bus, bytes) else str(bus)).strip("\0")
    return out


def pin_env(gpu: Gpu) -> dict[str, str]:
    """The environment that pins a process (and all it starts) to `gpu`."""
    env = {"CUDA_VISIBLE_DEVICES": gpu.uuid, PINNED_ENV: gpu.uuid}
    if gpu.index is not None:
        env[PINNED_INDEX_ENV] = str(gpu.index)
    return env


@functools.lru_cache(maxsize=64)
def node_index(uuid: str) -> int | None:
    """The node's number of the GPU with this UUID (None when nobody can say): from the pin its
    parent set, else from nvidia-smi."""
    hint = os.environ.get(PINNED_INDEX_ENV, "")
    if os.environ.get(PINNED_ENV) == uuid and hint.isdigit():
        return int(hint)
    try:
        gpus = node_gpus()
        mine = allocation(gpus) if os.environ.get("CUDA_VISIBLE_DEVICES") is not None else gpus
    except (GpuQueryError, AllocationError):
        return None
    hit = next((g for g in mine if g.uuid == uuid), None) or next((g for g in gpus if g.uuid == uuid), None)
    return hit.index if hit else None
