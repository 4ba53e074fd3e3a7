"""Fixtures for the evaluator tests: one build cache per session, a folder of planted candidates."""
from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session", autouse=True)
def build_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """All evaluations of the session share one build cache (set through the environment so
    child processes use it too), unless the caller already chose one."""
    if os.environ.get("KERNELSEEK_CACHE"):
        yield Path(os.environ["KERNELSEEK_CACHE"])
        return
    path = tmp_path_factory.mktemp("ks-cache")
    os.environ["KERNELSEEK_CACHE"] = str(path)
    yield path
    os.environ.pop("KERNELSEEK_CACHE", None)


@pytest.fixture(scope="session")
def planted_dir(build_cache: Path) -> Path:
    """Where planted candidates (eval_plants.plant) are written for this session."""
    return build_cache / "planted"
