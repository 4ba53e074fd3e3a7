"""Fixtures for the fleet's tests: the fake Messages API (tests/agent), the console's helpers
(tests/console), and a real single-node Slurm cluster started once per test run."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
for folder in (HERE, HERE.parent / "agent", HERE.parent / "console"):
    sys.path.insert(0, str(folder))

from api_fixtures import anthropic_env, fake  # noqa: E402,F401  (fixtures)
from slurm_cluster import SlurmCluster, SlurmUnavailable  # noqa: E402


@pytest.fixture(scope="session")
def slurm_cluster():
    """A real Slurm (slurmctld, slurmd, munged) for the whole run; skipped with the reason when it
    cannot start here. Every daemon it started is stopped at the end."""
    if os.environ.get("KERNELSEEK_NO_SLURM"):
        pytest.skip("KERNELSEEK_NO_SLURM is set")
    try:
        cluster = SlurmCluster.start()
    except SlurmUnavailable as exc:
        pytest.skip(f"no Slurm cluster: {exc}")
    yield cluster
    cluster.stop()


@pytest.fixture
def slurm(slurm_cluster, monkeypatch):
    """The cluster's client settings in this test's environment (children inherit them)."""
    for k, v in slurm_cluster.env.items():
        monkeypatch.setenv(k, v)
    return slurm_cluster


@pytest.fixture
def anyio_backend():
    """Async tests (`pytest.mark.anyio`) run on asyncio, as Textual does."""
    return "asyncio"
