"""The header says so when a session's agent ran its commands unconfined (--unsafe-no-sandbox,
or an attached Claude Code), at every width, and says nothing when they were confined."""
from __future__ import annotations

import pytest

from console_helpers import make_app, screen_text, wait_loaded
from sessions.layout import SessionPaths
from sessions.log import SessionWriter

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("sandboxed", [False, True])
async def test_the_header_says_unsandboxed_at_80_columns(tmp_path, sandboxed):
    with SessionWriter(tmp_path / "events.jsonl") as w:
        w.append("session_start", task="attention-cpu", model="m", agent="kernelseek", goal={"min_geomean": 2.0},
                 sandboxed=sandboxed, sandbox="bwrap: ..." if sandboxed else "unsandboxed: configured")
        w.append("assistant_text", text="hello")
        w.append("session_end", reason="max_turns")
    app = make_app(SessionPaths(tmp_path), mode="replay")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        await pilot.pause()
        header = screen_text(app).splitlines()[0]
    assert ("⚠ unsandboxed" in header) is not sandboxed
