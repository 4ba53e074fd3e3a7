"""The fake Messages API as pytest fixtures, for every folder whose tests drive a runner
(tests/agent, tests/fleet import these into their conftest.py)."""
from __future__ import annotations

import pytest

from agent_helpers import API_KEY
from fake_anthropic import FakeAnthropic


@pytest.fixture(autouse=True)
def anthropic_env(monkeypatch):
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
