"""Fixtures for the GPU placement, lock and sweep tests: fake GPU lists through a fake
`nvidia-smi` on PATH (fake_bin/), a private lock directory per test, the fake Messages API."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
for folder in (HERE, HERE.parent / "agent", HERE.parent / "fleet"):
    sys.path.insert(0, str(folder))

from api_fixtures import anthropic_env, fake  # noqa: E402,F401  (fixtures)
from gpu_helpers import FakeGpus  # noqa: E402


@pytest.fixture(autouse=True)
def private_gpu_locks(tmp_path_factory, monkeypatch):
    """Every test its own node-local lock directory (tests on one machine never meet), and no
    GPU allocation of the machine running the tests."""
    locks = tmp_path_factory.mktemp("gpu-locks")
    monkeypatch.setenv("KERNELSEEK_GPU_LOCKS", str(locks))
    for var in ("CUDA_VISIBLE_DEVICES", "KERNELSEEK_GPU", "KERNELSEEK_GPU_INDEX", "SLURM_JOB_ID", "SLURM_JOB_GPUS", "SLURM_STEP_GPUS",
                "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID"):
        monkeypatch.delenv(var, raising=False)
    yield locks
    from agent.launchers.place import release_pin

    release_pin()


@pytest.fixture
def fake_gpus(tmp_path, monkeypatch):
    """`fake_gpus(4)`: this node has four (fake) GPUs; returns a FakeGpus to add compute processes."""
    def make(n: int = 4, **kw) -> FakeGpus:
        fake = FakeGpus(tmp_path / "fake-gpus.json", n, **kw)
        monkeypatch.setenv("KS_FAKE_GPUS", str(fake.path))
        monkeypatch.setenv("PATH", f"{HERE / 'fake_bin'}:{fake.env_path()}")
        node_index_cache_clear()
        return fake
    return make


def node_index_cache_clear() -> None:
    from evaluator.gpus import node_index

    node_index.cache_clear()
