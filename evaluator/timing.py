"""The back-to-back timing loop, independent of the backend.

Contestant 0 is the candidate, 1 the seed, 2.. optional upstream baselines. A round calls each
once, on one of the rotating buffer sets, in an order rotated every round (AB, BA, ... for two),
so neither kernel always runs first. The backend times each call (events or the CPU clock) with a
cache flush before it. The per-round ratio t_seed / t_cand is what is summarised: its median and
the distribution-free 95% CI of that median, widened when the samples drift (evaluator.stats). Rounds run in batches; after
`min_pairs` the loop stops when the CI half-width is <= target_ci of the median, the budget is
spent, or `max_pairs` is reached.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from evaluator.stats import compare, median, relative_half_width, timing_ci

Plan = list[tuple[int, list[int]]]  # per round: (buffer set, contestant call order)
RunRounds = Callable[[Plan], list[list[float]]]  # per round: milliseconds per contestant index


@dataclass
class TimingResult:
    ratio: float
    ci: tuple[float, float]
    cand_ms: float
    seed_ms: float
    pairs: int
    seconds: float
    flags: list[str] = field(default_factory=list)
    baselines: dict[str, dict[str, float]] = field(default_factory=dict)
    ratios: list[float] = field(default_factory=list)


def plan_rounds(start: int, count: int, n_contestants: int, n_sets: int) -> Plan:
    """Rounds start..start+count-1: set i % n_sets, order rotated by i."""
    base = list(range(n_contestants))
    return [(i % n_sets, base[i % n_contestants:] + base[:i % n_contestants])
            for i in range(start, start + count)]


def adaptive_ab(
    run_rounds: RunRounds,
    n_contestants: int,
    n_sets: int,
    *,
    budget_s: float,
    target_ci: float,
    min_pairs: int,
    max_pairs: int,
    baseline_names: tuple[str, ...] = (),
    warmup_s: float = 0.025,
    warmup_rounds: int = 3,
    batch_s: float = 0.02,
    max_batch: int = 64,
    clock: Callable[[], float] = time.perf_counter,
) -> TimingResult:
    """Time candidate (0) against seed (1) and baselines (2..) until the ratio's CI is tight."""
    t_start = clock()
    done = 0
    while True:  # warm-up: every kernel on every set, until enough calls and time
        run_rounds(plan_rounds(done, max(n_sets, n_contestants), n_contestants, n_sets))
        done += max(n_sets, n_contestants)
        if done >= warmup_rounds and clock() - t_start >= warmup_s:
            break
        if clock() - t_start > budget_s:
            break
    per_round = (clock() - t_start) / done
    batch = max(1, min(max_batch, int(batch_s / per_round) if per_round > 0 else max_batch))
    floor = min(min_pairs, max_pairs)
    times: list[list[float]] = []
    t_timed = clock()
    while True:
        count = min(batch, max_pairs - len(times))
        times.extend(run_rounds(plan_rounds(done, count, n_contestants, n_sets)))
        done += count
        n = len(times)
        elapsed = clock() - t_timed
        if n >= max_pairs:
            break
        if n < floor and not (elapsed > budget_s and n >= min(5, floor)):
            continue
        ratios = [t[1] / t[0] for t in times if t[0] > 0]
        lo, hi = timing_ci(ratios)
        if relative_half_width(lo, hi, median(ratios)) <= target_ci or elapsed >= budget_s:
            break
    ratios = [t[1] / t[0] for t in times if t[0] > 0]
    center = median(ratios)
    lo, hi = timing_ci(ratios)
    flags = []
    if compare(lo, hi) == "ambiguous":
        flags.append("ambiguous")
    if relative_half_width(lo, hi, center) > target_ci:
        flags.append("noisy")
    baselines = {}
    for j, name in enumerate(baseline_names, start=2):
        baselines[name] = {
            "ms": median([t[j] for t in times]),
            "ratio": median([t[j] / t[0] for t in times if t[0] > 0]),
        }
    return TimingResult(
        ratio=center, ci=(lo, hi), cand_ms=median([t[0] for t in times]),
        seed_ms=median([t[1] for t in times]), pairs=len(times), seconds=clock() - t_start,
        flags=flags, baselines=baselines, ratios=ratios,
    )
