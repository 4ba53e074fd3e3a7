"""The fleet view's budgets (issue 14), a short run of benchmarks/bench_fleet.py: a hundred
sessions open within a second, and keys answer within 100 ms (p95) while ten of them are written
at 200 events/s each. Timing budgets: `pytest -m bench` (not in the default run)."""
from __future__ import annotations

import asyncio

import pytest

from budgets import within


@pytest.mark.bench
def test_a_hundred_sessions_open_in_a_second_and_keys_stay_prompt_under_writes(tmp_path):
    from bench_fleet import bench

    root = tmp_path / "sessions"
    root.mkdir()
    result = asyncio.run(bench(root, sessions=100, live=10, rate=200.0, seconds=6.0, tool_calls=120))
    assert result["rows"] == 100
    assert result["open_s"] <= within(1.0), result
    assert result["keys"]["p95_ms"] <= within(100), result
