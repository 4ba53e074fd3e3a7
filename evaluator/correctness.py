"""Correctness of one kernel call: pure checks over the outputs it left and the inputs after it.

Order of checks (the first that fails is the call's `failure`): the return code, elements left
with the poison pattern (unwritten), NaN or Inf, inputs changed by the call, then the error
against the reference bounded by the task's tolerance and by a multiple of the seed's own error.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from evaluator.harness import ElementType, poison_mask, to_values
from evaluator.task import Tolerance

Errors = dict[str, dict[str, float]]  # output name -> metric -> value


@dataclass
class CallOutcome:
    """What one call did: its failure (None = passed) and its error per output and metric."""

    failure: str | None
    errors: Errors = field(default_factory=dict)


def output_errors(values: np.ndarray, ref: np.ndarray, mask: np.ndarray | None) -> dict[str, float]:
    """rel_l2 = ||out - ref|| / ||ref|| and max_abs = max |out - ref|, in float64, over the mask."""
    out, ref = np.asarray(values), np.asarray(ref)
    if mask is not None:
        out, ref = out[mask], ref[mask]
    if out.size == 0:
        return {"rel_l2": 0.0, "max_abs": 0.0}
    # one float64 pass over the difference (no float64 copies of the operands: a large output is
    # checked in a fraction of the time, with the same values)
    diff = np.subtract(out, ref, dtype=np.float64)
    if not np.isfinite(diff).all():
        return {"rel_l2": math.inf, "max_abs": math.inf}
    norm = float(np.linalg.norm(np.asarray(ref, dtype=np.float64)))
    err = float(np.linalg.norm(diff))
    return {"rel_l2": err / norm if norm > 0 else err, "max_abs": max(float(diff.max()), -float(diff.min()))}


def error_limits(tol: Tolerance, seed_errors: Errors) -> Errors:
    """Per output and metric: min(tol, seed_factor * seed_err + seed_slack * tol)."""
    limits: Errors = {}
    for name, errs in seed_errors.items():
        limits[name] = {}
        for metric, bound in tol.bounds().items():
            seed_err = errs.get(metric, math.inf)
            limits[name][metric] = min(bound, tol.seed_factor * seed_err + tol.seed_slack * bound)
    return limits


def tolerance_limits(tol: Tolerance, names: list[str]) -> Errors:
    return {name: dict(tol.bounds()) for name in names}


def check_call(
    returned: int,
    outputs: dict[str, np.ndarray],
    etypes: dict[str, ElementType],
    refs: dict[str, np.ndarray],
    masks: dict[str, np.ndarray],
    inputs_modified: list[str],
    limits: Errors,
    index_of: dict[str, np.ndarray] | None = None,
) -> CallOutcome:
    """Check one call's outputs (storage arrays) against the reference values and the limits.
    `index_of`: for outputs given as a 1-d slice, the flat element index of each sliced element
    (failures then name that index)."""
    if returned != 0:
        return CallOutcome(f"the entry returned {returned} (0 means success)")
    errors: Errors = {}
    failure: str | None = None
    for name, storage in outputs.items():
        etype = etypes[name]
        mask = masks.get(name)
        ref = refs[name]
        unwritten = poison_mask(storage)
        if not etype.is_float:
            # an integer output may legitimately equal the poison value (-1): only where ref differs
            unwritten &= ref != np.full(etype.size, 0xFF, np.uint8).view(etype.storage)[0]
        if mask is not None:
            unwritten &= mask
        n_unwritten = int(unwritten.sum())
        values = to_values(storage, etype)
        if failure is None and n_unwritten:
            failure = (f"unwritten: {n_unwritten} of {storage.size} {_what(name, index_of)} "
                       f"(first at {_where(unwritten, name, index_of)})")
        if etype.is_float:
            bad = ~np.isfinite(values) & ~unwritten
            if mask is not None:
                bad &= mask
            n_bad = int(bad.sum())
            if failure is None and n_bad:
                failure = (f"non-finite: {n_bad} NaN/Inf {_what(name, index_of).replace(' of ', ' in ', 1)} "
                           f"(first at {_where(bad, name, index_of)})")
        errors[name] = output_errors(values, ref, mask)
    if failure is None and inputs_modified:
        failure = f"inputs modified by the call: {', '.join(inputs_modified)}"
    return CallOutcome(failure or limit_failure(errors, limits), errors)


def limit_failure(errors: Errors, limits: Errors) -> str | None:
    """The first error beyond its limit, in words; None when all are within. (A call checked with
    no limits first, its limits known later, gets the same failure this way.)"""
    for name, metrics in limits.items():
        for metric, limit in metrics.items():
            err = errors[name][metric]
            if not err <= limit:
                return f"error {metric} of {name} is {err:.3g} > limit {limit:.3g}"
    return None


def _what(name: str, index_of: dict[str, np.ndarray] | None) -> str:
    return f"checked elements of {name}" if index_of and name in index_of else f"elements of {name}"


def _where(hits: np.ndarray, name: str, index_of: dict[str, np.ndarray] | None) -> str:
    first = int(np.argmax(hits))
    if index_of and name in index_of:
        return f"flat index {int(index_of[name][first])}"
    return str(tuple(int(i) for i in np.unravel_index(first, hits.shape)))


def worst(a: Errors, b: Errors) -> Errors:
    """Per output and metric, the larger of two calls' errors."""
    return {name: {m: max(v, b.get(name, {}).get(m, v)) for m, v in metrics.items()}
            for name, metrics in a.items()}
