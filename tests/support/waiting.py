"""Waiting in tests for a state, with a deadline, instead of sleeping a fixed time."""
from __future__ import annotations

import time


def wait_until(predicate, timeout: float = 30.0, step: float = 0.1, what: str = "the condition"):
    """The predicate's first truthy value, polled every `step` s; AssertionError after `timeout` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = predicate()
        if got:
            return got
        time.sleep(step)
    raise AssertionError(f"{what} not reached within {timeout:g} s")
