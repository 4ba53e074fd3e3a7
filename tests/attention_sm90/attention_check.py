"""GPU checks of the attention task that the evaluator's one-candidate pipeline does not cover:

- `reference_vs_numpy`: the fp32 reference kernel against harness.reference (float64) on small
  shapes given as scenario dicts (not in task.yaml);
- `correctness_matrix`: the seed and several candidates on the same inputs per scenario, with the
  evaluator's own checks (evaluator.correctness.check_call, seed-relative limits), so that five
  broken candidates cost one pass over the scenarios instead of five.

Buffer element types come from the scenario (`in: $dtype` in task.yaml), as in the evaluator.

Imports: numpy and the evaluator (cuda-python lazily); runs on the GPU node without pytest.
"""
from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from evaluator.build import build
from evaluator.constraints import check_binary, check_source
from evaluator.correctness import check_call, error_limits, output_errors, tolerance_limits
from evaluator.device import BufferSet
from evaluator.harness import ELEMENT_TYPES, Case, poison_mask, to_storage, to_values
from evaluator.pipeline import scenario_rng
from evaluator.task import Task, load_task

TASK_DIR = Path(__file__).resolve().parent.parent.parent / "kernels" / "attention-fwd-sm90"


def storage_of(task: Task, case: Case, types: dict[str, Any]) -> dict[str, np.ndarray]:
    return {f.name: to_storage(case.inputs[f.name], types[f.name], f"input {f.name}") for f in task.buffers("in")}


def exact_case(case: Case, storage: dict[str, np.ndarray], types: dict[str, Any]) -> Case:
    """The case with the values the kernel sees (after rounding to each buffer's type)."""
    values = {name: to_values(arr, types[name]) for name, arr in storage.items()}
    return Case(values, dict(case.outputs), dict(case.scalars), dict(case.masks))


def _builds(task: Task, sources: dict[str, Path], cache_dir: Path | None) -> dict[str, Any]:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, len(sources))) as pool:
        futures = {role: pool.submit(build, task, path, cache_dir) for role, path in sources.items()}
    return {role: f.result() for role, f in futures.items()}


def _device():
    from evaluator.backend_cuda import CudaDevice

    return CudaDevice()


def _run_reference(device, task: Task, ref_fn, case: Case, bufs: BufferSet, what: str) -> dict[str, np.ndarray]:
    f32 = bufs.types | {name: ELEMENT_TYPES["f32"] for name in case.outputs}
    rb = BufferSet(device, task, case, {}, f32, share_inputs=bufs)
    rb.poison()
    returned = device.call(ref_fn, rb.params, what, 60.0)
    if returned != 0:
        raise RuntimeError(f"reference returned {returned} on {what}")
    out = {}
    for name, arr in rb.outputs().items():
        mask = case.masks.get(name)
        bad = poison_mask(arr) | ~np.isfinite(arr)
        if mask is not None:
            bad &= mask
        if bad.any():
            raise RuntimeError(f"reference left {int(bad.sum())} elements of {name} unwritten or non-finite on {what}")
        out[name] = arr.astype(np.float64)
    return out


# ---- the fp32 reference kernel against the float64 numpy reference ---------------------------------

def reference_vs_numpy(scenarios: dict[str, dict], seed: int = 0, cache_dir: Path | None = None
                       ) -> dict[str, dict[str, dict[str, float]]]:
    """{name: {output: {rel_l2, max_abs}}} of the reference kernel against harness.reference."""
    task = load_task(TASK_DIR)
    ref = _builds(task, {"reference": task.reference.source}, cache_dir)["reference"]
    if not ref.ok:
        raise RuntimeError(f"the reference does not build:\n{ref.log[-3000:]}")
    device = _device()
    try:
        ref_fn = device.load(str(ref.lib), task.reference.entry)
        out = {}
        for name, params in scenarios.items():
            types = task.element_types(params)
            case = task.harness.make_case(dict(params), scenario_rng(seed, name, 0))
            storage = storage_of(task, case, types)
            bufs = BufferSet(device, task, case, storage, types)
            kernel = _run_reference(device, task, ref_fn, case, bufs, name)
            numpy_ref = task.harness.reference(exact_case(case, storage, types))
            out[name] = {k: output_errors(kernel[k], numpy_ref[k], case.masks.get(k)) for k in kernel}
        return out
    finally:
        device.close()


# ---- several candidates, one pass --------------------------------------------------------------------

@dataclass
class MatrixResult:
    """Per scenario: the seed's failure (vs the tolerance alone) and each candidate's failure."""

    seed_failures: dict[str, str | None] = field(default_factory=dict)
    seed_errors: dict[str, dict] = field(default_factory=dict)
    failures: dict[str, dict[str, str | None]] = field(default_factory=dict)  # candidate -> scenario -> failure
    violations: dict[str, list[str]] = field(default_factory=dict)
    build_seconds: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0

    def failing(self, candidate: str) -> set[str]:
        return {s for s, f in self.failures[candidate].items() if f}


def correctness_matrix(candidates: dict[str, Path], only: str | None = None, seed: int = 0,
                       cache_dir: Path | None = None, progress: Callable[[str], None] | None = None) -> MatrixResult:
    """Two correctness calls per scenario (fresh values, then new values in the same buffers), each
    checked exactly as the evaluator checks a candidate; the seed's errors set the limits."""
    t0 = time.time()
    task = load_task(TASK_DIR)
    scenarios = [s for s in task.scenarios if not only or re.search(only, s.name)]
    sources = {"seed": task.seed, "reference": task.reference.source, **candidates}
    builds = _builds(task, sources, cache_dir)
    result = MatrixResult()
    for role, b in builds.items():
        result.build_seconds[role] = b.seconds
        if not b.ok:
            raise RuntimeError(f"{role} does not build:\n{b.log[-3000:]}")
    for role, path in candidates.items():
        b = builds[role]
        v = check_source(Path(path).read_text(), b.flags, b.includes, task.constraints) + check_binary(b, task.constraints)
        result.violations[role] = [str(x) for x in v]
    device = _device()
    try:
        fns = {role: device.load(str(b.lib), task.reference.entry if role == "reference" else task.entry)
               for role, b in builds.items()}
        for role in candidates:
            result.failures[role] = {}
        for scenario in scenarios:
            name, tol = scenario.name, scenario.tolerance
            types = task.element_types(scenario.params)
            etypes = {f.name: types[f.name] for f in task.buffers("out")}
            bufs = None
            seed_failure = None
            for trial in (0, 1):
                case = task.harness.make_case(dict(scenario.params), scenario_rng(seed, name, trial))
                storage = storage_of(task, case, types)
                if bufs is None:
                    bufs = BufferSet(device, task, case, storage, types)
                else:
                    bufs.write_inputs(storage)
                refs = _run_reference(device, task, fns["reference"], case, bufs, f"reference on {name}")
                seed_out = _check(device, fns["seed"], bufs, etypes, refs, case, tolerance_limits(tol, list(etypes)), name)
                seed_failure = seed_failure or seed_out.failure
                if trial == 0:
                    result.seed_errors[name] = seed_out.errors
                limits = error_limits(tol, seed_out.errors)
                for role in candidates:
                    if result.failures[role].get(name):
                        continue
                    out = _check(device, fns[role], bufs, etypes, refs, case, limits, name)
                    result.failures[role][name] = out.failure and (out.failure if trial == 0 else f"second call: {out.failure}")
            result.seed_failures[name] = seed_failure
            if progress:
                bad = [r for r in candidates if result.failures[r][name]]
                progress(f"{name}: seed {'FAIL ' + seed_failure if seed_failure else 'ok'}; failing: {', '.join(bad) or '-'}")
    finally:
        device.close()
    result.seconds = time.time() - t0
    return result


def _check(device, fn, bufs: BufferSet, etypes, refs, case: Case, limits, name: str):
    bufs.poison()
    returned = device.call(fn, bufs.params, f"call on {name}", 60.0)
    return check_call(returned, bufs.outputs(), etypes, refs, case.masks, bufs.modified_inputs(), limits)
