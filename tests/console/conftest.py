"""Fixtures for the console: synthetic session logs written by the real SessionWriter."""
from __future__ import annotations

import pytest

from synthetic_session import write_synthetic_session
from console_helpers import LiveSession
from sessions.layout import SessionPaths


@pytest.fixture
def session(tmp_path) -> SessionPaths:
    """A finished synthetic session: 140 tool calls, evaluations with reports, decision points."""
    return write_synthetic_session(tmp_path / "s", 140)


@pytest.fixture
def small_session(tmp_path) -> SessionPaths:
    """A short one, still running (no session_end), its last decision point unanswered."""
    return write_synthetic_session(tmp_path / "small", 62, dp_every=30, human_every=0, end=False)


@pytest.fixture
def live(tmp_path):
    s = LiveSession(tmp_path / "live", dp_every=30, human_every=0)
    s.write()
    yield s
    s.close()


@pytest.fixture
def anyio_backend():
    """Async tests (`pytest.mark.anyio`) run on asyncio, as Textual does."""
    return "asyncio"


@pytest.fixture
def deciding(tmp_path):
    """A running session (the writer holds the lock) whose last event is an open decision point."""
    s = LiveSession(tmp_path / "deciding", n_tool_calls=60, dp_every=30, human_every=0)
    s.write()
    yield s
    s.close()
