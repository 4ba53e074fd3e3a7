"""Statistics of timing: the median CI really covers the median, geomean, nvbench's verdict."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from evaluator.stats import compare, geomean, median, median_ci, median_ci_ranks, relative_half_width
from evaluator.timing import adaptive_ab, plan_rounds


def test_median_and_geomean():
    assert median([3, 1, 2]) == 2
    assert median([4, 1, 2, 3]) == 2.5
    assert geomean([0.5, 2.0]) == pytest.approx(1.0)
    assert geomean([]) is None


def test_known_median_ci_ranks():
    # textbook values (e.g. Conover): n=10 -> (2, 9), n=20 -> (6, 15); too few below 6
    assert median_ci_ranks(5) is None
    assert median_ci_ranks(6) == (1, 6)
    assert median_ci_ranks(10) == (2, 9)
    assert median_ci_ranks(20) == (6, 15)
    lo, hi = median_ci_ranks(1000)
    assert hi == 1001 - lo and 465 <= lo <= 472


@pytest.mark.parametrize("n", [12, 40, 300])
def test_median_ci_covers_the_median_about_95_percent(n):
    rng = np.random.default_rng(7)
    trials, hits = 2000, 0
    for _ in range(trials):
        xs = rng.lognormal(0.0, 0.3, n)  # skewed, like timings; its median is exactly 1
        lo, hi = median_ci(xs)
        hits += lo <= 1.0 <= hi
    assert 0.93 <= hits / trials <= 0.99


def test_compare_reports_ambiguity_honestly():
    assert compare(1.02, 1.05) == "faster"
    assert compare(0.90, 0.99) == "slower"
    assert compare(0.99, 1.01) == "ambiguous"
    assert relative_half_width(0.99, 1.01, 1.0) == pytest.approx(0.01)


def test_rounds_alternate_order_and_rotate_sets():
    plan = plan_rounds(0, 4, 2, 3)
    assert plan == [(0, [0, 1]), (1, [1, 0]), (2, [0, 1]), (0, [1, 0])]
    assert plan_rounds(0, 3, 3, 1)[1] == (0, [1, 2, 0])


def _clock(step):
    counter = itertools.count()
    return lambda: next(counter) * step


def _fake_runner(cand_ms, seed_ms, noise, rng, first_penalty=0.0):
    """Times with multiplicative noise, plus a penalty for whoever runs first in a round."""
    def run(plan):
        out = []
        for _, order in plan:
            t = [0.0, 0.0]
            for pos, c in enumerate(order):
                base = cand_ms if c == 0 else seed_ms
                t[c] = base * math.exp(rng.normal(0, noise)) * (1 + (first_penalty if pos == 0 else 0))
            out.append(t)
        return out
    return run


def test_adaptive_loop_finds_a_2x_ratio_and_stops_when_tight():
    rng = np.random.default_rng(1)
    clock = _clock(1e-4)
    r = adaptive_ab(_fake_runner(1.0, 2.0, 0.02, rng), 2, 3, budget_s=10, target_ci=0.01,
                    min_pairs=10, max_pairs=5000, clock=clock)
    assert r.ratio == pytest.approx(2.0, rel=0.01)
    assert r.ci[0] > 1.0 and "ambiguous" not in r.flags and "noisy" not in r.flags
    assert r.pairs < 5000  # stopped on the CI, not on the cap
    assert (r.ci[1] - r.ci[0]) / 2 / r.ratio <= 0.01


def test_interleaving_cancels_an_order_effect():
    rng = np.random.default_rng(2)
    clock = _clock(1e-4)
    # equal kernels, but the first call of each round pays 10%: AB/BA alternation cancels it
    r = adaptive_ab(_fake_runner(1.0, 1.0, 0.01, rng, first_penalty=0.10), 2, 2, budget_s=10,
                    target_ci=0.005, min_pairs=10, max_pairs=4000, clock=clock)
    assert abs(r.ratio - 1.0) < 0.02
    assert "ambiguous" in r.flags


def test_budget_ends_a_noisy_loop_and_says_so():
    rng = np.random.default_rng(3)
    ticks = _clock(0.01)  # each clock read is 10 ms later
    r = adaptive_ab(_fake_runner(1.0, 1.0, 0.5, rng), 2, 2, budget_s=1.0, target_ci=0.001,
                    min_pairs=10, max_pairs=100000, clock=ticks)
    assert "noisy" in r.flags and r.pairs >= 10


def test_drifting_samples_widen_the_interval_to_stay_honest():
    from evaluator.stats import timing_ci

    rng = np.random.default_rng(11)
    trials, plain_hits, robust_hits = 400, 0, 0
    for _ in range(trials):
        # ratios whose noise drifts slowly (AR(1), as clocks and background load do); true median 1
        e, xs = 0.0, []
        for _ in range(160):
            e = 0.95 * e + rng.normal(0, 0.01)
            xs.append(math.exp(e))
        lo, hi = median_ci(xs)
        plain_hits += lo <= 1.0 <= hi
        lo, hi = timing_ci(xs)
        robust_hits += lo <= 1.0 <= hi
    assert plain_hits / trials < 0.7  # the i.i.d. interval is far too narrow here ...
    assert robust_hits / trials > plain_hits / trials + 0.15  # ... the batch interval recovers much of it


def test_independent_samples_keep_the_order_statistics_interval():
    from evaluator.stats import timing_ci

    rng = np.random.default_rng(12)
    widths = []
    for _ in range(200):
        xs = list(rng.lognormal(0, 0.02, 200))
        lo, hi = median_ci(xs)
        rlo, rhi = timing_ci(xs)
        widths.append((rhi - rlo) / (hi - lo))
    assert float(np.median(widths)) < 1.6  # little cost when nothing drifts
