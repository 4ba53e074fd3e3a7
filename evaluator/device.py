"""What both backends share: buffer sets built from a harness Case, loaded kernels, the guard.

A `Device` (cpu or cuda) allocates, copies and fills memory, loads a kernel's entry with ctypes
and makes a synchronous checked call; the verdict uses one for its reference kernel, the machine's
facts and its peaks (candidates run in the host: evaluator.host). A `BufferSet` is one set of
kernel buffers for one scenario plus the params struct pointing at them.
"""
from __future__ import annotations

import contextlib
import ctypes
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from evaluator.abi import load_symbol, params_struct
from evaluator.errors import TaskError
from evaluator.harness import Case, ElementType, to_storage
from evaluator.native import POISON_BYTE
from evaluator.task import Task

KernelFn = Callable[[Any], int]  # called with the params struct; returns the entry's result


class Guard:
    """Watches kernel calls. In-process it only records what runs; the child's watchdog (isolate)
    ends the process with a `hang` report when a watched step outlives its time."""

    def __init__(self) -> None:
        self.activity = ""

    @contextlib.contextmanager
    def watch(self, what: str, seconds: float) -> Iterator[None]:
        previous, self.activity = self.activity, what
        try:
            yield
        finally:
            self.activity = previous


class Device:
    """Memory, calls and clocks of one backend. Subclasses: CpuDevice, CudaDevice."""

    kind = ""

    def __init__(self, guard: Guard | None = None) -> None:
        self.guard = guard or Guard()

    # memory -------------------------------------------------------------------------------
    def alloc(self, nbytes: int) -> Any: raise NotImplementedError
    def address(self, handle: Any) -> int: raise NotImplementedError
    def upload(self, handle: Any, array: np.ndarray) -> None: raise NotImplementedError
    def download(self, handle: Any, out: np.ndarray) -> None: raise NotImplementedError
    def fill(self, handle: Any, byte: int, nbytes: int) -> None: raise NotImplementedError

    # calls --------------------------------------------------------------------------------
    stream_handle: int | None = None  # what the entry gets as its `void* stream` (NULL on cpu)

    def load(self, lib: str, entry: str) -> KernelFn:
        """The entry of a built library as fn(params) -> int, passing this device's stream."""
        fn = load_symbol(lib, entry)
        stream = ctypes.c_void_p(self.stream_handle)

        def call(params: Any) -> int:
            return fn(ctypes.byref(params), stream)
        call._ks_fn = fn  # type: ignore[attr-defined]  # keeps the library loaded
        return call

    def call(self, fn: KernelFn, params: Any, what: str, timeout_s: float) -> int:
        """Run one call to completion; raise KernelFault if it broke the device."""
        raise NotImplementedError

    def info(self) -> dict[str, Any]: raise NotImplementedError
    def peaks(self, cache_dir: Any) -> dict[str, float]: raise NotImplementedError
    def close(self) -> None: pass


class BufferSet:
    """One scenario's buffers on a device, the params struct pointing at them, a host copy of inputs."""

    def __init__(self, device: Device, task: Task, case: Case, storage: dict[str, np.ndarray],
                 types: dict[str, ElementType], share_inputs: BufferSet | None = None) -> None:
        self.device, self.task = device, task
        self.scalars = dict(case.scalars)
        self.types = types
        self.out_types = {f.name: types[f.name] for f in task.buffers("out")}
        self.out_shapes = {name: tuple(case.outputs[name]) for name in self.out_types}
        self.handles: dict[str, Any] = {}
        if share_inputs is not None:  # the reference kernel's set: same inputs, its own outputs
            self.host_inputs = share_inputs.host_inputs
            for f in task.buffers("in"):
                self.handles[f.name] = share_inputs.handles[f.name]
        else:
            self.host_inputs = {k: v.copy() for k, v in storage.items()}
            for name, array in storage.items():
                self.handles[name] = device.alloc(max(array.nbytes, 16))
                device.upload(self.handles[name], array)
        for name, etype in self.out_types.items():
            nbytes = int(np.prod(self.out_shapes[name], dtype=np.int64)) * etype.size
            self.handles[name] = device.alloc(max(nbytes, 16))
        self.params = params_struct(task.params)()
        for f in task.params:
            if f.kind == "scalar":
                setattr(self.params, f.name, self.scalars[f.name])
            else:
                setattr(self.params, f.name, device.address(self.handles[f.name]))

    def write_inputs(self, storage: dict[str, np.ndarray]) -> None:
        for name, array in storage.items():
            if array.shape != self.host_inputs[name].shape:
                raise TaskError(f"{self.task.name}: harness gave input {name} shape {array.shape} "
                                f"then {self.host_inputs[name].shape}: shapes must not depend on rng")
            self.device.upload(self.handles[name], array)
            self.host_inputs[name] = array.copy()

    def poison(self) -> None:
        for name, etype in self.out_types.items():
            n = int(np.prod(self.out_shapes[name], dtype=np.int64)) * etype.size
            self.device.fill(self.handles[name], POISON_BYTE, n)

    def outputs(self) -> dict[str, np.ndarray]:
        out = {}
        for name, etype in self.out_types.items():
            array = np.empty(self.out_shapes[name], dtype=etype.storage)
            self.device.download(self.handles[name], array)
            out[name] = array
        return out

    def modified_inputs(self) -> list[str]:
        changed = []
        for name, host in self.host_inputs.items():
            now = np.empty_like(host)
            self.device.download(self.handles[name], now)
            if not np.array_equal(now.view(np.uint8), host.view(np.uint8)):
                changed.append(name)
        return changed


def case_storage(task: Task, case: Case, scenario: str, types: dict[str, ElementType]) -> dict[str, np.ndarray]:
    """A harness Case's inputs as storage arrays, after checking it names every field."""
    if not isinstance(case, Case):
        raise TaskError(f"{task.name}: harness.make_case must return evaluator.harness.Case, got {type(case).__name__}")
    for kind, given in (("in", case.inputs), ("out", case.outputs)):
        want = {f.name for f in task.buffers(kind)}
        if set(given) != want:
            raise TaskError(f"{task.name}: scenario {scenario}: harness {kind}puts {sorted(given)} "
                            f"do not match params {sorted(want)}")
    want = {f.name for f in task.buffers("scalar")}
    if set(case.scalars) != want:
        raise TaskError(f"{task.name}: scenario {scenario}: harness scalars {sorted(case.scalars)} "
                        f"do not match params {sorted(want)}")
    return {f.name: to_storage(case.inputs[f.name], types[f.name], f"{task.name}: input {f.name}")
            for f in task.buffers("in")}
