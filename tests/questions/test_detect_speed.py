"""The detectors' budgets (issue #4): a 100,000-event log in under 2 s, under 50 µs per event live.

The log is the benchmark's synthetic long session (tests/support/synthetic_session.py's
`long_run_events`): real-sized tool inputs and outputs, evaluations with scenarios, claims now and
then. Run the benchmark itself for the full figures: `python benchmarks/bench_detect.py`.
"""
from __future__ import annotations

import time

import pytest

from bench_detect import BATCH_BUDGET_S, PER_EVENT_BUDGET_US
from budgets import within
from synthetic_session import long_run_log as synthetic_log
from questions.detectors import Detectors, detect


@pytest.mark.bench
def test_100k_events_within_budget():
    events = synthetic_log(100_000, seed=7)
    assert len(events) == 100_000
    best = float("inf")
    for _ in range(2):
        t0 = time.perf_counter()
        points = detect(events)
        best = min(best, time.perf_counter() - t0)
    print(f"\ndetect over 100,000 events: {best:.3f} s, {len(points)} decision points")
    assert len({dp.kind for dp in points}) >= 8
    assert best < within(BATCH_BUDGET_S)


@pytest.mark.bench
def test_per_event_cost_live():
    events = synthetic_log(30_000, seed=8)
    det = Detectors()
    clock = time.perf_counter_ns
    total = 0
    for ev in events:
        t0 = clock()
        det.feed(ev)
        total += clock() - t0
    mean_us = total / len(events) / 1000.0
    print(f"\nlive feed: {mean_us:.1f} µs per event on average")
    assert mean_us < within(PER_EVENT_BUDGET_US)


@pytest.mark.bench
def test_detect_streams_a_200_mb_log_in_little_memory():
    """`kernelseek detect` on a 200 MB events.jsonl, in a child process: peak RSS under 300 MB."""
    from bench_detect import MEMORY_BUDGET_MB, memory

    m = memory(200)
    print(f"\n{m}")
    assert m["bytes"] >= 200 << 20 and m["decision_points"] > 1000
    assert m["peak_rss_mb"] <= MEMORY_BUDGET_MB


def test_detect_reads_a_log_in_slices(tmp_path, monkeypatch):
    """The default run's check that detection streams: a log read through `open_events` never
    holds more than a slice of it (the budget above is measured under -m bench)."""
    from questions import source
    from synthetic_session import write_long_run_log

    path = tmp_path / "events.jsonl"
    n, size = write_long_run_log(path, 3 << 20)
    monkeypatch.setattr(source, "SLICE_BYTES", 256 << 10)
    reads = []
    from sessions.log import LogReader
    original = LogReader.read

    def spy(self, max_bytes=None):
        got = original(self, max_bytes)
        reads.append(len(got.events))
        return got
    monkeypatch.setattr(LogReader, "read", spy)
    stream = source.open_events(path)
    count = sum(1 for _ in stream)
    assert count == n and len(reads) > 8 and max(reads) < n / 4
