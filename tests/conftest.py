"""Shared test configuration: the `gpu` marker skips cleanly without a CUDA GPU; how many
pytest-xdist workers `-n auto` (pyproject's addopts) starts."""
from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "support"))  # test-support modules, importable by name
sys.path.insert(1, str(REPO / "benchmarks"))  # the benchmarks whose budgets `-m bench` checks
SHARED = REPO.parent / "shared"
TRANSCRIPTS = SHARED / "data" / "transcripts"


@functools.lru_cache(maxsize=1)
def cuda_gpu_available() -> bool:
    if os.environ.get("KERNELSEEK_NO_GPU"):
        return False
    try:
        from cuda.bindings import driver
    except Exception:
        return False
    try:
        (err,) = driver.cuInit(0)
        if err != driver.CUresult.CUDA_SUCCESS:
            return False
        err, n = driver.cuDeviceGetCount()
        return err == driver.CUresult.CUDA_SUCCESS and n > 0
    except Exception:
        return False


@pytest.hookimpl(optionalhook=True)  # the GPU node has pytest without pytest-xdist (device_run.sh)
def pytest_xdist_auto_num_workers(config) -> int:
    """Two workers where there are two cores (CI's box): most tests wait on child processes, so
    a second worker nearly halves the wall time; more were not measured. The timing budgets
    (`-m bench`) run in one process: a second worker's load would be what they measure."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return int(os.environ["PYTEST_XDIST_AUTO_NUM_WORKERS"])
    expr = config.getoption("markexpr") or ""
    if "bench" in expr and "not bench" not in expr:
        return 0
    cores = len(os.sched_getaffinity(0))
    return 2 if cores >= 2 else 0


@pytest.fixture(autouse=True)
def _private_kernelseek_home(tmp_path_factory, monkeypatch):
    """Tests never touch the user's real sessions or steering log."""
    home = tmp_path_factory.mktemp("kernelseek-home")
    monkeypatch.setenv("KERNELSEEK_HOME", str(home))
    monkeypatch.delenv("KERNELSEEK_STEERING_LOG", raising=False)
    return home


# what each cold-cache flush of the CPU evaluator writes in tests that are not about measuring: the
# full flush is twice the last-level cache, and a VM that reports a 260 MiB L3 spends ~25 ms on each,
# about two thirds of a small evaluation. Every call, checked or timed, goes through the same flush,
# so its size tells no call from another (the attack tests hold with either); what it changes is
# how cold the timed calls run, so the measurement tests (FULL_FLUSH) and the timing budgets
# (-m bench) keep the full flush.
SMALL_FLUSH_BYTES = str(32 << 20)
FULL_FLUSH = ("tests/evaluator/test_eval_cpu.py",)


@pytest.fixture(autouse=True)
def _small_cache_flush(request, monkeypatch):
    path = Path(str(request.node.fspath)).resolve()
    measuring = any(path == REPO / p for p in FULL_FLUSH) or request.node.get_closest_marker("bench") is not None
    if not measuring:
        monkeypatch.setenv("KERNELSEEK_FLUSH_BYTES", SMALL_FLUSH_BYTES)


def pytest_collection_modifyitems(config, items):
    gpu_items = [i for i in items if "gpu" in i.keywords]
    if gpu_items and not cuda_gpu_available():
        skip = pytest.mark.skip(reason="needs a CUDA GPU (none found)")
        for item in gpu_items:
            item.add_marker(skip)
