"""Fixtures for the Claude Code tests: a clean Anthropic environment, and the CLI or a skip."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cc_helpers import claude_or_skip  # noqa: E402


@pytest.fixture(autouse=True)
def _anthropic_env(monkeypatch):
    for var in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_PROFILE",
                "ANTHROPIC_CONFIG_DIR", "KERNELSEEK_MODEL", "KERNELSEEK_CONFIG", "CLAUDE_CONFIG_DIR",
                "CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT"):
        monkeypatch.delenv(var, raising=False)
    # the sessions here are about Claude Code and the gate, not the machine: a shared box's load
    # must not turn their goals into "re-measure" (the evaluator's own tests cover contention)
    monkeypatch.setenv("KERNELSEEK_CONTENDED_SHARE", "1.0")


@pytest.fixture
def claude() -> Path:
    return claude_or_skip()
