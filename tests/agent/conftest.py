"""Fixtures for the runner's tests: the fake Messages API, with a clean Anthropic environment."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from agent_helpers import API_KEY  # noqa: E402
from fake_anthropic import FakeAnthropic  # noqa: E402


@pytest.fixture(autouse=True)
def _anthropic_env(monkeypatch, tmp_path_factory):
    """No credential or profile of the machine leaks in; each test sets its own."""
    for var in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_PROFILE",
                "ANTHROPIC_CONFIG_DIR", "KERNELSEEK_MODEL", "KERNELSEEK_CONFIG", "KERNELSEEK_THINKING"):
        monkeypatch.delenv(var, raising=False)
    # these tests are about the runner, not the machine: a shared box's load must not turn their
    # seed-vs-seed goals into "re-measure" (the evaluator's own tests cover contention)
    monkeypatch.setenv("KERNELSEEK_CONTENDED_SHARE", "1.0")


@pytest.fixture
def fake(monkeypatch):
    """Start a fake Messages API with a script; the SDK in this process is pointed at it."""
    servers: list[FakeAnthropic] = []

    def make(script=(), handler=None) -> FakeAnthropic:
        server = FakeAnthropic(script, handler=handler).start()
        servers.append(server)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
        return server

    yield make
    for s in servers:
        s.stop()
