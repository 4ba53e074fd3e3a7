"""Is a measured time one the candidate could not bend? Pure checks over what the host reported.

- `bracket_problem`: the host's per-call wall times must fit inside the verdict's own clock
  around the request (they can only be smaller), and each call's event time inside its wall time.
- `unexplained_time`: what the verdict's clock saw beyond the host's reported walls, per call,
  against a calibration request in which only the seed ran. A host that under-reports a call
  makes this grow. Coarse by design (UNEXPLAINED_FLOOR_MS): it cannot see below the host's own
  per-call jitter; fine-grained work off the stream is the launch census's (evaluator.census).
- `gap_excess` (cuda): per call, wall minus event time -- work the call left on another stream
  (or another context) finishes inside the wall (a context-wide synchronize ends each call) but
  outside the events. The candidate's calls must not carry more of it than the seed's, on
  average over every call: a pattern that does it on some calls only is counted in full.
- `outside_call_share` (cpu): CPU time of kernel threads between calls (threads are idle then
  when nothing works after a return) as a share of that wall time.
- `physics`: the fastest time the device's measured peaks allow for the scenario's FLOPs and
  bytes; a time below it is not a measurement.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from evaluator.stats import median

# a call's event time may exceed its wall time by this much (clock granularity)
EVENT_SLACK_MS = 0.005
# the host's walls may exceed the verdict's bracket by this share plus this (same clock, rounding)
BRACKET_SLACK = 0.001
BRACKET_SLACK_MS = 0.05
# work off the stream counts when it exceeds this share of the candidate's event time
GAP_SHARE = 0.05
GAP_FLOOR_MS = 0.0005
# ... and at least this when the launch census saw every call's own records and none off the
# stream: the census is then the fine check, and this one need only stay above the harness's own
# asymmetry (honest H200 attention sweeps: up to 0.012 ms per call on 10 us kernels, 4 sigma or not)
GAP_FLOOR_CENSUS_MS = 0.025
GAP_SIGMAS = 4.0
# kernel threads busy between calls: more than this share of one core on average (a spinning
# thread on a loaded two-core box still reads 0.07 and more)
OUTSIDE_CPU_SHARE = 0.03  # honest runs (idle workers asleep) read at most 0.0015 here
# the unexplained time per candidate call may exceed the calibration by this share of its time, and
# never by less than the floor: a coarse check, against a host whose timing code was rewritten.
# Honest sweeps on the H200 (attention, 179 scenarios, 2026-12-01) read up to 0.33 ms per call
# beyond the calibration while another thread of the verdict held the interpreter; the per-call
# jitter of a host's loop is not below ~0.05 ms. Work off the stream is the launch census's to find.
UNEXPLAINED_SHARE = 0.25
UNEXPLAINED_FLOOR_MS = 0.5
# a request's fixed cost (the pipe's round trip, the census's flush) differs between the seed-only
# calibration and the timed requests when they hold different numbers of calls; spread over a
# request's calls it weighs most on big kernels timed a few calls per request (an honest H200
# attention sweep read 0.65 ms per call there against a 0.51 ms threshold)
UNEXPLAINED_REQUEST_MS = 1.0
# a time below the physical floor divided by these is impossible (memory: writes may stay in a
# cache as large as the output, so up to twice the measured copy rate is not proof)
MEMORY_MARGIN = 2.0
COMPUTE_MARGIN = 1.25
# peaks measured on a busy machine may be this many times too low
CONTENDED_PEAK_MARGIN = 4.0


def bracket_problem(verdict_ms: float, walls: list[float], events: list[float]) -> str | None:
    """One line when the reported times cannot be true, else None."""
    for i, (w, e) in enumerate(zip(walls, events)):
        if e > w + EVENT_SLACK_MS + 0.01 * w:
            return f"call {i} reported {e:.4f} ms on its events but {w:.4f} ms on its wall clock"
    total = sum(walls)
    if total > verdict_ms * (1 + BRACKET_SLACK) + BRACKET_SLACK_MS:
        return (f"the host reported {total:.3f} ms of calls in a request the verdict's clock timed at "
                f"{verdict_ms:.3f} ms")
    return None


def per_call_unexplained(verdict_ms: float, walls: list[float]) -> float:
    return (verdict_ms - sum(walls)) / max(1, len(walls))


@dataclass
class Excess:
    """A candidate-minus-seed difference of means, its standard error, the threshold it must stay under."""

    cand: float
    seed: float
    excess: float
    se: float
    threshold: float
    n: int

    @property
    def flagged(self) -> bool:
        return abs(self.excess) > self.threshold

    def to_json(self) -> dict[str, float]:
        return {"cand_ms": round(self.cand, 6), "seed_ms": round(self.seed, 6), "excess_ms": round(self.excess, 6),
                "threshold_ms": round(self.threshold, 6), "calls": self.n}


def _mean_var(xs: list[float]) -> tuple[float, float]:
    n = len(xs)
    m = sum(xs) / n
    return m, (sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0)


def gap_excess(cand_gaps: list[float], seed_gaps: list[float], cand_event_ms: float,
               floor_ms: float = GAP_FLOOR_MS) -> Excess | None:
    """Mean (wall - event) of the candidate's calls minus the seed's; flagged when it exceeds
    GAP_SHARE of the candidate's time (or `floor_ms`) by more than GAP_SIGMAS standard errors."""
    if len(cand_gaps) < 3 or len(seed_gaps) < 3:
        return None
    mc, vc = _mean_var(cand_gaps)
    ms, vs = _mean_var(seed_gaps)
    se = math.sqrt(vc / len(cand_gaps) + vs / len(seed_gaps))
    threshold = max(GAP_SHARE * cand_event_ms, floor_ms) + GAP_SIGMAS * se
    return Excess(mc, ms, mc - ms, se, threshold, min(len(cand_gaps), len(seed_gaps)))


def outside_call_share(other_cpu_ms: list[float], outside_ms: list[float]) -> float | None:
    """Kernel threads' CPU time between calls over that wall time (0 when they rest)."""
    wall = sum(outside_ms)
    return sum(other_cpu_ms) / wall if wall > 0 else None


def unexplained_time(batches: list[float], calibration: list[float], cand_event_ms: float,
                     calls_per_request: float = 1.0) -> tuple[float, float] | None:
    """(excess per call, threshold): the median unexplained time per call of the timed requests
    beyond the calibration's (seed only), against a threshold with the request's fixed cost spread
    over its calls (`calls_per_request`, the timed requests' median). None without both."""
    if not batches or not calibration:
        return None
    excess = median(batches) - median(calibration)
    spread = max(calibration) - min(calibration) if len(calibration) > 1 else 0.0
    fixed = UNEXPLAINED_REQUEST_MS / max(1.0, calls_per_request)
    return excess, max(UNEXPLAINED_SHARE * cand_event_ms, UNEXPLAINED_FLOOR_MS) + spread + fixed


@dataclass
class Floor:
    """The fastest time the measured peaks allow, and which limit sets it."""

    floor_ms: float
    bound: str  # memory | compute
    compute_ms: float | None
    memory_ms: float | None
    margin: float

    def to_json(self) -> dict[str, object]:
        return {"floor_ms": self.floor_ms, "bound": self.bound, "compute_floor_ms": self.compute_ms,
                "memory_floor_ms": self.memory_ms, "margin": self.margin}


def physical_floor(flops: float, nbytes: float, peak_tflops: float | None, peak_gbps: float | None) -> Floor | None:
    """max(FLOPs at the compute peak, bytes at the memory peak), in ms; None without a peak."""
    compute = flops / (peak_tflops * 1e12) * 1e3 if flops and peak_tflops else None
    memory = nbytes / (peak_gbps * 1e9) * 1e3 if nbytes and peak_gbps else None
    if compute is None and memory is None:
        return None
    # each bound with its own margin: the one that still rules out the time decides
    c = compute / COMPUTE_MARGIN if compute else 0.0
    m = memory / MEMORY_MARGIN if memory else 0.0
    if c >= m:
        return Floor(compute or 0.0, "compute", compute, memory, COMPUTE_MARGIN)
    return Floor(memory or 0.0, "memory", compute, memory, MEMORY_MARGIN)


def impossible(time_ms: float, floor: Floor) -> bool:
    return time_ms * floor.margin < floor.floor_ms
