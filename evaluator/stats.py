"""Statistics of timing: medians, a distribution-free confidence interval of a median, geomean.

The CI of the median of n samples comes from order statistics: with X sorted, [X(j), X(n+1-j)]
covers the population median with probability 1 - 2 P(Bin(n, 1/2) < j). j is chosen exactly for
n <= 200 and by the normal approximation above. No assumption about the distribution is made,
which matters for timing samples (skewed, with outliers). That interval assumes independent
samples; timing noise often drifts (clocks, other work), so `timing_ci` also takes the interval of
the medians of consecutive batches (batch means, with Student's t) and reports the union of both.
"""
from __future__ import annotations

import math
from collections.abc import Sequence


def median(values: Sequence[float]) -> float:
    xs = sorted(values)
    n = len(xs)
    if n == 0:
        raise ValueError("median of nothing")
    mid = n // 2
    return xs[mid] if n % 2 else 0.5 * (xs[mid - 1] + xs[mid])


def median_ci_ranks(n: int, confidence: float = 0.95) -> tuple[int, int] | None:
    """1-based ranks (j, n+1-j) bounding the median with at least `confidence`; None if n too small."""
    alpha = 1.0 - confidence
    if n <= 200:
        # largest j with P(Bin(n,1/2) <= j-1) <= alpha/2
        total, cdf, j = 2 ** n, 0, 0
        for k in range(n + 1):
            cdf += math.comb(n, k)
            if cdf * 2 > alpha * total:  # P(Bin <= k) > alpha/2: rank k+1 is the last safe one
                j = k  # P(Bin <= k-1) <= alpha/2 -> rank j = k
                break
        if j < 1:
            return None
        return j, n + 1 - j
    z = 1.959963984540054 if abs(confidence - 0.95) < 1e-12 else _z(confidence)
    j = int(math.floor(n / 2 - z * math.sqrt(n) / 2))
    return (j, n + 1 - j) if j >= 1 else None


def _z(confidence: float) -> float:
    """Two-sided normal quantile by bisection (only for non-default confidence levels)."""
    lo, hi = 0.0, 10.0
    target = 1 - (1 - confidence) / 2
    for _ in range(100):
        mid = (lo + hi) / 2
        if 0.5 * (1 + math.erf(mid / math.sqrt(2))) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def median_ci(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """Distribution-free CI of the median; the full range when there are too few samples."""
    xs = sorted(values)
    ranks = median_ci_ranks(len(xs), confidence)
    if ranks is None:
        return xs[0], xs[-1]
    return xs[ranks[0] - 1], xs[ranks[1] - 1]


# two-sided 97.5% quantiles of Student's t by degrees of freedom (batches - 1)
_T975 = {3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228, 11: 2.201}


def batch_median_ci(values: Sequence[float], batches: int = 8) -> tuple[float, float] | None:
    """95% CI from the medians of `batches` consecutive batches (None for fewer than 5 per batch)."""
    n = len(values)
    if batches < 4 or n < 5 * batches:
        return None
    size = n // batches
    meds = [median(values[i * size:(i + 1) * size]) for i in range(batches)]
    center = sum(meds) / batches
    sd = math.sqrt(sum((m - center) ** 2 for m in meds) / (batches - 1))
    half = _T975.get(batches - 1, 1.96) * sd / math.sqrt(batches)
    return center - half, center + half


def timing_ci(values: Sequence[float]) -> tuple[float, float]:
    """The order-statistics CI of the median, widened to cover the batch-median CI when samples
    drift over time (values in the order they were taken)."""
    lo, hi = median_ci(values)
    batched = batch_median_ci(values)
    if batched is not None:
        lo, hi = min(lo, batched[0]), max(hi, batched[1])
    return lo, hi


def relative_half_width(lo: float, hi: float, center: float) -> float:
    return (hi - lo) / 2 / center if center > 0 else math.inf


def geomean(values: Sequence[float]) -> float | None:
    xs = [v for v in values if v is not None and v > 0]
    if not xs:
        return None
    return math.exp(sum(math.log(v) for v in xs) / len(xs))


def compare(lo: float, hi: float) -> str:
    """nvbench's rule: 'faster' or 'slower' only when the ratio's interval excludes 1."""
    if lo > 1.0:
        return "faster"
    if hi < 1.0:
        return "slower"
    return "ambiguous"
