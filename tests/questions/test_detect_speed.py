"""The detectors' budgets (issue #4): a 100,000-event log in under 2 s, under 50 µs per event live.

The log is the benchmark's synthetic long session (questions/bench_detect.py): real-sized tool
inputs and outputs, evaluations with scenarios, claims now and then. Run the benchmark itself
for the full figures: `python -m questions.bench_detect`.
"""
from __future__ import annotations

import time

from questions.bench_detect import BATCH_BUDGET_S, PER_EVENT_BUDGET_US, synthetic_log
from questions.detectors import Detectors, detect


def test_100k_events_within_budget():
    events = synthetic_log(100_000, seed=7)
    assert len(events) == 100_000
    best = float("inf")
    for _ in range(2):
        t0 = time.perf_counter()
        points = detect(events)
        best = min(best, time.perf_counter() - t0)
    print(f"\ndetect over 100,000 events: {best:.3f} s, {len(points)} decision points")
    assert len({dp.kind for dp in points}) == 8
    assert best < BATCH_BUDGET_S


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
    assert mean_us < PER_EVENT_BUDGET_US
