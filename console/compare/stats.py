"""The statistics of a comparison of arms: medians with bootstrap confidence intervals.

Pure functions over plain lists. The bootstrap resamples sessions with replacement (percentile
intervals, a fixed seed so a report can be reproduced); with a handful of sessions per arm the
intervals are wide, and they say so.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

RESAMPLES = 5000
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Estimate:
    value: float | None
    lo: float | None
    hi: float | None

    def to_dict(self) -> dict:
        return {"value": self.value, "lo": self.lo, "hi": self.hi}


def _medians(values: np.ndarray, rng: np.random.Generator, n: int) -> np.ndarray:
    idx = rng.integers(0, len(values), size=(n, len(values)))
    return np.median(values[idx], axis=1)


def median_ci(values: Sequence[float], *, resamples: int = RESAMPLES, confidence: float = CONFIDENCE,
              seed: int = 0) -> Estimate:
    """The median and its percentile-bootstrap interval (None without values)."""
    v = np.asarray([x for x in values if x is not None], dtype=float)
    if not len(v):
        return Estimate(None, None, None)
    meds = _medians(v, np.random.default_rng(seed), resamples)
    a = (1 - confidence) / 2
    return Estimate(float(np.median(v)), float(np.quantile(meds, a)), float(np.quantile(meds, 1 - a)))


def median_difference_ci(base: Sequence[float], other: Sequence[float], *, resamples: int = RESAMPLES,
                         confidence: float = CONFIDENCE, seed: int = 0) -> Estimate:
    """median(other) - median(base), each arm resampled on its own."""
    a = np.asarray([x for x in base if x is not None], dtype=float)
    b = np.asarray([x for x in other if x is not None], dtype=float)
    if not len(a) or not len(b):
        return Estimate(None, None, None)
    rng = np.random.default_rng(seed)
    diffs = _medians(b, rng, resamples) - _medians(a, rng, resamples)
    q = (1 - confidence) / 2
    return Estimate(float(np.median(b) - np.median(a)), float(np.quantile(diffs, q)),
                    float(np.quantile(diffs, 1 - q)))


def verdict(diff: Estimate) -> str:
    """What an interval of a difference allows one to say."""
    if diff.lo is None or diff.hi is None:
        return "no data"
    if diff.lo > 0:
        return "higher"
    if diff.hi < 0:
        return "lower"
    return "ambiguous (the interval includes 0)"
