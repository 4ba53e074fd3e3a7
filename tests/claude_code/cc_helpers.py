"""Helpers for the Claude Code tests: the real `claude` CLI (from the npm package, installed into
`.claude-code/` by CI) against the scripted Messages API, through the real `kernelseek` commands.
Tests import these by name (never from conftest)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
AGENT_TESTS = HERE.parent / "agent"
sys.path.insert(0, str(AGENT_TESTS))

from agent_helpers import REPO, events, of_type  # noqa: E402
from fake_anthropic import Reply, text, tool  # noqa: E402
import waiting  # noqa: E402

CANDIDATE = "candidate.c"
SEED = (REPO / "kernels" / "attention-cpu" / "seed.c").read_text()
DOT = "                for (int d = 0; d < D; ++d) dot += q[d] * k[(long)j * D + d];"
DOT_SIMD = "#pragma omp simd reduction(+:dot)\n" + DOT
MODEL = "claude-sonnet-4-5"


def claude_or_skip() -> Path:
    """The `claude` executable KernelSeek would run, or skip the test saying how to get it."""
    from agent.adapter import AgentError
    from agent.claude_code.install import find_claude

    try:
        return find_claude()
    except AgentError as exc:
        pytest.skip(f"{exc} (CI installs it: npm install --prefix .claude-code @anthropic-ai/claude-code)")


def bash(command: str, description: str = "run a command"):
    return tool("Bash", command=command, description=description)


def read(workspace: Path, name: str = CANDIDATE):
    return tool("Read", file_path=str(workspace / name))


def edit(workspace: Path, old: str, new: str, name: str = CANDIDATE):
    return tool("Edit", file_path=str(workspace / name), old_string=old, new_string=new)


def wait_until(pred, timeout: float = 60.0, poll: float = 0.02):
    return waiting.wait_until(pred, timeout, poll)


def requests_holding(server, needle: str) -> list[int]:
    """How often `needle` appears in each request's whole body (system reminders included)."""
    return [r.all_text().count(needle) for r in server.requests]


__all__ = ["REPO", "events", "of_type", "Reply", "text", "tool", "claude_or_skip", "bash", "read", "edit",
           "wait_until", "requests_holding", "CANDIDATE", "SEED", "DOT", "DOT_SIMD", "MODEL"]
