"""Reference outputs, computed by the verdict where the candidate cannot reach them.

For a scenario the verdict keeps the base inputs of every buffer set (what it sent the host) and,
for any round, regenerates the inputs the host's generator made from them (evaluator.native:
bit-identical on both sides), then computes the reference on them:

- `NumpyReferences`: harness.reference in float64 on the host (cpu tasks);
- `KernelReferences`: the task's fp32 reference kernel in the verdict's own CUDA context (its own
  process, its own memory), run only while the host is idle between requests.

`seed=None` means the base inputs themselves (the first correctness call).
"""
from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from evaluator.errors import TaskError
from evaluator.harness import ELEMENT_TYPES, Case, ElementType, poison_mask, to_values
from evaluator.host import BufferSpec, gen_kind
from evaluator.task import Scenario, Task


def check_reference_outputs(task: Task, scenario: str, refs: dict[str, np.ndarray], case: Case,
                            out_names: list[str]) -> dict[str, np.ndarray]:
    """The reference's outputs as float64 arrays of the right shapes; TaskError otherwise."""
    out = {}
    for name in out_names:
        if name not in refs:
            raise TaskError(f"task {task.name}: the reference gives no output {name}")
        arr = np.asarray(refs[name], dtype=np.float64)
        if arr.shape != tuple(case.outputs[name]):
            raise TaskError(f"task {task.name}: reference {name} has shape {arr.shape}, "
                            f"expected {tuple(case.outputs[name])}")
        out[name] = arr
    return out


class References:
    """Per scenario: prepare(cases, storages) once, then compute(set, seed) per checked call."""

    def __init__(self, task: Task, scenario: Scenario, types: dict[str, ElementType],
                 inputs: list[BufferSpec]) -> None:
        self.task, self.scenario, self.types, self.specs = task, scenario, types, inputs
        self.out_names = [f.name for f in task.buffers("out")]
        self.cases: list[Case] = []
        self.storages: list[dict[str, np.ndarray]] = []

    def prepare(self, cases: list[Case], storages: list[dict[str, np.ndarray]]) -> None:
        self.cases, self.storages = cases, storages

    def compute(self, set_index: int, seed: int | None) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def release(self) -> None:
        pass


class NumpyReferences(References):
    """harness.reference on the regenerated inputs (the verdict's CpuHelper runs the generator)."""

    def __init__(self, task: Task, scenario: Scenario, types: dict[str, ElementType], inputs: list[BufferSpec],
                 helper: Any) -> None:
        super().__init__(task, scenario, types, inputs)
        self.helper = helper

    def inputs_of(self, set_index: int, seed: int | None) -> dict[str, np.ndarray]:
        base = self.storages[set_index]
        out = {}
        for spec in self.specs:
            kind, count = gen_kind(spec, seed)
            arr = np.empty_like(base[spec.name])
            self.helper.refresh(arr.ctypes.data, np.ascontiguousarray(base[spec.name]).ctypes.data, count, kind,
                                seed or 0)
            out[spec.name] = arr
        return out

    def compute(self, set_index: int, seed: int | None) -> dict[str, np.ndarray]:
        storage = self.inputs_of(set_index, seed)
        case = self.cases[set_index]
        values = {name: to_values(arr, self.types[name]) for name, arr in storage.items()}
        exact = Case(values, dict(case.outputs), dict(case.scalars), dict(case.masks))
        return check_reference_outputs(self.task, self.scenario.name, self.task.harness.reference(exact), case,
                                       self.out_names)


class KernelReferences(References):
    """The fp32 reference kernel in the verdict's CUDA context, on inputs the verdict regenerates
    there with the generator kernel."""

    def __init__(self, task: Task, scenario: Scenario, types: dict[str, ElementType], inputs: list[BufferSpec],
                 device: Any, gen: Any, ref_fn: Any, timeout_s: float) -> None:
        super().__init__(task, scenario, types, inputs)
        self.device, self.gen, self.ref_fn, self.timeout_s = device, gen, ref_fn, timeout_s
        self.sets: list[tuple[dict[str, Any], Any]] = []  # (base handles, BufferSet with fp32 outputs)

    def prepare(self, cases: list[Case], storages: list[dict[str, np.ndarray]]) -> None:
        from evaluator.device import BufferSet

        super().prepare(cases, storages)
        f32 = self.types | {name: ELEMENT_TYPES["f32"] for name in self.out_names}
        for case, storage in zip(cases, storages):
            live = BufferSet(self.device, self.task, case, storage, f32)
            base = {}
            for name, arr in storage.items():
                base[name] = self.device.alloc(max(arr.nbytes, 16))
                self.device.upload(base[name], arr)
            self.sets.append((base, live))

    def compute(self, set_index: int, seed: int | None) -> dict[str, np.ndarray]:
        base, live = self.sets[set_index]
        dev = self.device
        for spec in self.specs:
            kind, count = gen_kind(spec, seed)
            rc = self.gen.ks_refresh_async(int(live.handles[spec.name]), int(base[spec.name]), count, kind,
                                           ctypes.c_ulonglong((seed or 0) & (2**64 - 1)), dev.stream_handle)
            if rc != 0:
                raise TaskError(f"the evaluator's input generator failed on the verdict's GPU (cuda error {rc})")
        live.poison()
        name = self.scenario.name
        returned = dev.call(self.ref_fn, live.params, f"reference on {name}", self.timeout_s)
        raw = live.outputs()
        case = self.cases[set_index]
        for out, arr in raw.items():
            bad = poison_mask(arr) | ~np.isfinite(arr)
            mask = case.masks.get(out)
            if mask is not None:  # elements the task does not require (e.g. lse = -inf rows)
                bad &= mask
            if returned != 0 or bad.any():
                raise TaskError(f"task {self.task.name}: its reference kernel left {out} unwritten or "
                                f"non-finite on {name} (returned {returned})")
        return check_reference_outputs(self.task, name, raw, case, self.out_names)

    def release(self) -> None:
        for base, live in self.sets:
            for handle in (*base.values(), *live.handles.values()):
                self.device.free(handle)
        self.sets = []
