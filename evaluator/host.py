"""The candidate host: the only process that loads candidate code. It holds no verdict.

`python -m evaluator host --requests R --replies W` runs inside the sandbox (evaluator.sandbox);
the verdict starts it (evaluator.hosting) and drives it with requests on file descriptor R,
reading one reply per request on W (framing: evaluator.protocol). It loads the seed and the
candidate libraries (after confining itself: evaluator.confine), receives each scenario's base
inputs, and runs *rounds*: each round refreshes the inputs from the base with the evaluator's
generator and the round's seed (or copies the base), and each call in it, timed or not, starts
the same way -- outputs poisoned, cache flushed -- and ends with a snapshot of the outputs into a
slot of its own the moment it returns. It answers with raw facts only: return codes, times, the
bytes of slots the verdict asks for. What those facts mean is decided on the other side.

`HostCore` is the same work without a process around it (evaluator.hosting.LocalHost uses it
in-process for trusted code and tests).

A cpu host imports the standard library and ctypes only: numpy maps a BLAS library, and code in
the candidate's process could find and call it without linking it.
"""
from __future__ import annotations

import argparse
import ctypes
import math
import mmap
import os
import random
import select
import sys
import threading
import time
import traceback
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from evaluator.abi import ParamField, load_symbol, params_struct
from evaluator.errors import KernelFault
from evaluator.native import ELEMENT_SIZES, GEN_KINDS, KIND_COPY, POISON_BYTE
from evaluator.protocol import Reader, write_message

SEED, CAND = 1, 0  # contestant indices: 0 the candidate, 1 the seed, 2.. baselines
SNAPSHOT = (0, 1)  # contestants whose outputs are kept in slots
LATE_WAIT_S = 0.02  # checked candidate calls: outputs are compared with the snapshot this much later


@dataclass
class BufferSpec:
    name: str
    type_name: str  # an ELEMENT_TYPES key
    shape: tuple[int, ...]
    refresh: bool = True  # inputs: refreshed by the generator each round (else copied)

    @property
    def nbytes(self) -> int:
        return self.count * ELEMENT_SIZES[self.type_name]

    @property
    def count(self) -> int:
        return math.prod(self.shape)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type_name, "shape": list(self.shape), "refresh": self.refresh}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> BufferSpec:
        return cls(d["name"], d["type"], tuple(int(x) for x in d["shape"]), bool(d.get("refresh", True)))


@dataclass
class ScenarioSpec:
    """What the host needs of a scenario: buffers, scalars, how many sets and slots."""

    name: str
    inputs: list[BufferSpec]
    outputs: list[BufferSpec]
    scalars: dict[str, Any]
    sets: int
    slots: int  # snapshotted calls a rounds request may hold

    @property
    def input_bytes(self) -> int:
        return sum(b.nbytes for b in self.inputs)

    @property
    def output_bytes(self) -> int:
        return sum(b.nbytes for b in self.outputs)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "inputs": [b.to_json() for b in self.inputs],
                "outputs": [b.to_json() for b in self.outputs], "scalars": self.scalars,
                "sets": self.sets, "slots": self.slots}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ScenarioSpec:
        return cls(d["name"], [BufferSpec.from_json(b) for b in d["inputs"]],
                   [BufferSpec.from_json(b) for b in d["outputs"]], dict(d["scalars"]), int(d["sets"]),
                   int(d["slots"]))


def gen_kind(spec: BufferSpec, seed: int | None) -> tuple[int, int]:
    """(generator kind, element count) for refreshing one input: a copy for integers, for
    inputs the task keeps fixed, and for the base round (seed None)."""
    kind = GEN_KINDS.get(spec.type_name, KIND_COPY) if (seed is not None and spec.refresh) else KIND_COPY
    return kind, (spec.count if kind != KIND_COPY else spec.nbytes)


@dataclass
class CallRecord:
    returned: int = 0
    event_ms: float = 0.0
    wall_ms: float = 0.0
    other_cpu_ms: float = 0.0  # CPU time of kernel threads after the call returned, until the next
    outside_ms: float = 0.0  # the wall time of that window
    modified: list[str] = field(default_factory=list)
    late: bool = False  # checked calls of the candidate: outputs changed after its snapshot


# ---- the backends -----------------------------------------------------------------------------------

class _Set:
    """One buffer set: base inputs (as the verdict sent them), live inputs, outputs, params."""

    def __init__(self) -> None:
        self.base: dict[str, Any] = {}
        self.live: dict[str, Any] = {}
        self.out: dict[str, Any] = {}
        self.params: Any = None
        self.expected: dict[str, Any] = {}  # copies of the refreshed inputs (checked calls)


class HostBuffer:
    """Page-aligned host memory (an anonymous mapping) and its address."""

    def __init__(self, nbytes: int) -> None:
        self.nbytes = max(nbytes, 16)
        self.map = mmap.mmap(-1, self.nbytes)
        self.address = ctypes.addressof(ctypes.c_char.from_buffer(self.map))


_libc = ctypes.CDLL(None)
_memcmp = _libc.memcmp
_memcmp.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
_memcmp.restype = ctypes.c_int


class CpuBackend:
    """Host memory; the evaluator's pthread pool (native.CpuHelper) does the work around calls."""

    kind = "cpu"

    def __init__(self, helper_lib: str, threads: int | None) -> None:
        from pathlib import Path

        from evaluator.machine import flush_bytes, last_level_cache_bytes
        from evaluator.native import CpuHelper

        self.helper = CpuHelper(Path(helper_lib), threads)
        self.llc = last_level_cache_bytes()
        self.flush_buf = self.alloc(flush_bytes(self.llc))
        self.tick = 0
        self.stream = None

    @staticmethod
    def alloc(nbytes: int) -> HostBuffer:
        return HostBuffer(nbytes)

    def address(self, handle: HostBuffer) -> int:
        return handle.address

    def upload(self, handle: HostBuffer, data: memoryview) -> None:
        handle.map[:len(data)] = data

    def download(self, handle: HostBuffer, nbytes: int) -> bytes:
        return handle.map[:nbytes]

    def read_range(self, handle: HostBuffer, start: int, length: int) -> bytes:
        return handle.map[start:start + length]

    def read_into(self, handle: HostBuffer, start: int, length: int, dst: int) -> None:
        ctypes.memmove(dst, handle.address + start, length)

    def upload_from(self, handle: HostBuffer, src: int, nbytes: int) -> None:
        ctypes.memmove(handle.address, src, nbytes)

    def refresh(self, dst: HostBuffer, base: HostBuffer, kind: int, count: int, seed: int) -> None:
        self.helper.refresh(dst.address, base.address, count, kind, seed)

    def poison(self, handle: HostBuffer, nbytes: int) -> None:
        self.helper.fill(handle.address, nbytes, POISON_BYTE)

    def flush(self) -> None:
        self.tick = (self.tick + 1) & 0xFF
        self.helper.fill(self.flush_buf.address, self.flush_buf.nbytes, self.tick)

    def snapshot(self, dst: HostBuffer, dst_offset: int, src: HostBuffer, nbytes: int, seed: int) -> None:
        self.helper.snapshot(dst.address + dst_offset, src.address, nbytes, seed)

    def copy(self, dst: HostBuffer, src: HostBuffer, nbytes: int) -> None:
        ctypes.memmove(dst.address, src.address, nbytes)

    def differs(self, a: HostBuffer, a_offset: int, b: HostBuffer, b_offset: int, nbytes: int) -> bool:
        return _memcmp(a.address + a_offset, b.address + b_offset, nbytes) != 0

    def other_cpu_ns(self) -> int:
        return self.helper.other_cpu_ns()

    def timed_call(self, fn: Any, params: Any) -> tuple[int, float]:
        t0 = time.perf_counter_ns()
        returned = fn(ctypes.byref(params), None)
        return returned, (time.perf_counter_ns() - t0) / 1e6

    def settle(self) -> None:
        pass

    def close(self) -> None:
        pass


class CudaBackend:
    """Device memory through the driver API (evaluator.backend_cuda.CudaDevice) and the generator
    kernel; each call: poison, flush 2x L2, events around the call, snapshot copy, then a
    context-wide synchronize so work the call left on any stream belongs to its wall time."""

    kind = "cuda"

    def __init__(self, gen_lib: str | None = None) -> None:
        from evaluator.backend_cuda import CudaDevice
        from evaluator.device import Guard

        self.dev = CudaDevice(Guard())
        self.cu = self.dev.cu
        self.stream = self.dev.stream
        self.gen: Any = None
        if gen_lib:
            self.attach(gen_lib)
        self.counter = self.dev.alloc(16)
        self.start, self.end = self.dev.event_pool(2)[:2]
        self.other_cpu_ns = lambda: 0

    def attach(self, gen_lib: str) -> None:
        """The evaluator's generator library (built while the context started)."""
        self.gen = ctypes.CDLL(gen_lib)
        self.gen.ks_refresh_async.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_longlong, ctypes.c_int,
                                              ctypes.c_ulonglong, ctypes.c_void_p]
        self.gen.ks_count_diff_async.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_longlong, ctypes.c_void_p,
                                                 ctypes.c_void_p]

    def census_self_test(self, census: Any) -> None:
        """One memset of the evaluator's own, counted: a census that misses it counts nothing."""
        from evaluator.census import CensusUnavailable

        census.bind(int(self.dev.ctx), self.dev.stream_handle)
        census.open(head=0)
        self.dev.ok(self.cu.cuMemsetD8Async(self.counter, 0, 16, self.stream), "memset")
        self.settle()
        census.close(tail=0)
        census.wait_for_records(1)
        seen = census.attribute()
        if not seen.on or seen.on[0] < 1 or seen.off[0]:
            raise CensusUnavailable(f"self-test: one memset on the evaluator's stream read as {seen.on} on it and "
                                    f"{seen.off} elsewhere")

    def alloc(self, nbytes: int) -> Any:
        return self.dev.alloc(max(nbytes, 16))

    def address(self, handle: Any) -> int:
        return int(handle)

    def upload(self, handle: Any, data: memoryview) -> None:
        import numpy as np

        self.dev.upload(handle, np.frombuffer(data, dtype=np.uint8))

    def download(self, handle: Any, nbytes: int) -> bytes:
        return self.read_range(handle, 0, nbytes)

    def read_range(self, handle: Any, start: int, length: int) -> bytes:
        import numpy as np

        out = np.empty(length, dtype=np.uint8)
        if length:
            self.dev.download(self.cu.CUdeviceptr(int(handle) + start), out)
        return out.tobytes()

    def read_into(self, handle: Any, start: int, length: int, dst: int) -> None:
        if length:
            self.dev.ok(self.cu.cuMemcpyDtoHAsync(dst, self.cu.CUdeviceptr(int(handle) + start), length, self.stream),
                        "download")
            self.dev.wait("download", 60.0)

    def upload_from(self, handle: Any, src: int, nbytes: int) -> None:
        if nbytes:
            self.dev.ok(self.cu.cuMemcpyHtoDAsync(handle, src, nbytes, self.stream), "upload")
            self.dev.wait("upload", 60.0)

    def refresh(self, dst: Any, base: Any, kind: int, count: int, seed: int) -> None:
        rc = self.gen.ks_refresh_async(int(dst), int(base), count, kind, seed & (2**64 - 1), self.dev.stream_handle)
        if rc != 0:
            raise KernelFault(f"the input generator failed to launch (cuda error {rc})", rc)

    def poison(self, handle: Any, nbytes: int) -> None:
        self.dev.ok(self.cu.cuMemsetD8Async(handle, POISON_BYTE, nbytes, self.stream), "poison")

    def flush(self) -> None:
        self.dev.flush_async()

    def snapshot(self, dst: Any, dst_offset: int, src: Any, nbytes: int, seed: int) -> None:
        self.dev.ok(self.cu.cuMemcpyDtoDAsync(self.cu.CUdeviceptr(int(dst) + dst_offset), src, nbytes, self.stream),
                    "snapshot")

    def copy(self, dst: Any, src: Any, nbytes: int) -> None:
        self.dev.ok(self.cu.cuMemcpyDtoDAsync(dst, src, nbytes, self.stream), "copy")

    def differs(self, a: Any, a_offset: int, b: Any, b_offset: int, nbytes: int) -> bool:
        """Compared on the device: only the count of differing bytes comes back."""
        import numpy as np

        self.dev.ok(self.cu.cuMemsetD8Async(self.counter, 0, 8, self.stream), "memset")
        rc = self.gen.ks_count_diff_async(int(a) + a_offset, int(b) + b_offset, nbytes, int(self.counter),
                                          self.dev.stream_handle)
        if rc != 0:
            raise KernelFault(f"the evaluator's comparison failed to launch (cuda error {rc})", rc)
        count = np.zeros(1, dtype=np.uint64)
        self.dev.download(self.counter, count)
        return bool(count[0])

    def timed_call(self, fn: Any, params: Any) -> tuple[int, float]:
        cu, ok = self.cu, self.dev.ok
        ok(cu.cuEventRecord(self.start, self.stream), "cuEventRecord")
        returned = fn(ctypes.byref(params), ctypes.c_void_p(self.dev.stream_handle))
        ok(cu.cuEventRecord(self.end, self.stream), "cuEventRecord")
        return returned, -1.0  # the event time is read after settle()

    def event_ms(self) -> float:
        return self.dev.elapsed(self.start, self.end)

    def settle(self) -> None:
        """Everything the context has in flight, on any stream, finishes here."""
        self.dev.ok(self.cu.cuCtxSynchronize(), "cuCtxSynchronize")

    def close(self) -> None:
        self.dev.close()


# ---- the core ------------------------------------------------------------------------------------

class LazyInputs(Mapping):
    """A case's inputs, each fetched (by `load(spec)`) the first time it is read."""

    def __init__(self, specs: list[BufferSpec], load: Any) -> None:
        self.specs = {b.name: b for b in specs}
        self.load = load
        self.values: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self.values:
            self.values[name] = self.load(self.specs[name])
        return self.values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.specs)

    def __len__(self) -> int:
        return len(self.specs)


def mapped_libraries() -> set[str]:
    """Files mapped executable in this process (from /proc/self/maps): the shared objects, and
    anything else code was loaded from (a memfd, a deleted file)."""
    out = set()
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                parts = line.split(None, 5)
                if len(parts) == 6 and "x" in parts[1]:
                    path = parts[5].strip()
                    if path and not (path.startswith("[") and path.endswith("]")):
                        out.add(path)
    except OSError:
        pass
    return out


@dataclass
class Early:
    """What `start` set up before the libraries were built: the launch census (started before any
    CUDA context, so nothing escapes it), the cuda backend, the task's harness and torch (baselines)."""

    census: Any = None  # evaluator.census.Census
    census_note: str = "no launch census"
    backend: Any = None  # CudaBackend
    harness: Any = None


def start_core(h: dict[str, Any]) -> Early:
    early = Early()
    if h["backend"] == "cuda" and h.get("census"):
        from evaluator.census import Census, CensusUnavailable

        try:
            early.census = Census.start(str(h["census"]))
        except CensusUnavailable as exc:
            early.census_note = f"no launch census: {exc}"
    if h["backend"] == "cuda":
        early.backend = CudaBackend()
        if early.census is not None:
            from evaluator.census import CensusUnavailable

            try:
                early.backend.census_self_test(early.census)
                early.census_note = "launch census: every kernel, copy and set of the host, by stream (CUPTI)"
            except CensusUnavailable as exc:
                early.census, early.census_note = None, f"no launch census: {exc}"
    if h.get("task_dir"):  # upstream baselines: the harness and torch load before the filter
        from evaluator.task import load_task

        early.harness = load_task(h["task_dir"]).harness
        try:
            import torch  # noqa: F401
            if h["backend"] == "cuda":
                torch.cuda.init()
        except Exception:  # noqa: BLE001 - baselines then report their own error
            pass
    return early


class HostCore:
    """Loaded kernels, the current scenario's sets and slots, and the rounds."""

    def __init__(self, backend: str, helper: str, threads: int | None = None, early: Early | None = None) -> None:
        early = early or Early()
        if backend == "cpu":
            self.backend: Any = CpuBackend(helper, threads)
        else:
            self.backend = early.backend or CudaBackend()
            self.backend.attach(helper)
        self.census = early.census
        self.census_note = early.census_note
        self.fns: list[Any] = []
        self.fields: tuple[ParamField, ...] = ()
        self.spec: ScenarioSpec | None = None
        self.sets: list[_Set] = []
        self.slots: Any = None
        self.baseline_calls: list[list[Any]] = []  # per baseline: one callable per set
        self.harness: Any = early.harness
        self.rng = random.Random(os.urandom(16))
        self.known_libs: set[str] = set()
        self.attribution: Any = None  # the census of the last rounds request

    def census_state(self) -> dict[str, Any]:
        return {"on": self.census is not None, "note": self.census_note[:300]}

    def new_libraries(self) -> list[str]:
        """Libraries mapped since the last call of this (the first call: since start)."""
        now = mapped_libraries()
        added = sorted(now - self.known_libs)
        self.known_libs = now
        return added

    def load(self, libs: list[str], entry: str, fields: list[list[str]]) -> list[str]:
        """Open the libraries, the seed (last in `libs`) first, so the candidate's load-time code
        finds the seed already mapped. What was mapped before counts as the host's own; what the
        two libraries brought (with their dependencies and anything their load-time code opened) is
        returned for the verdict to check."""
        self.fields = tuple(ParamField(*f) for f in fields)
        self.new_libraries()
        fns = {i: load_symbol(lib, entry) for i, lib in reversed(list(enumerate(libs)))}
        self.fns = [fns[i] for i in range(len(libs))]
        return self.new_libraries()

    # scenario ----------------------------------------------------------------------------------
    def prepare(self, spec: ScenarioSpec, payload: memoryview | int, size: int | None = None) -> None:
        """The scenario's sets from the base inputs: bytes, or (`size` given) an address where they are."""
        b = self.backend
        size = len(payload) if size is None else size  # type: ignore[arg-type]
        if size != spec.sets * spec.input_bytes:
            raise ValueError(f"prepare: {size} input bytes, expected {spec.sets * spec.input_bytes}")
        self.release()
        self.spec = spec
        struct = params_struct(self.fields)
        at = 0
        for _ in range(spec.sets):
            s = _Set()
            for buf in spec.inputs:
                s.base[buf.name] = b.alloc(buf.nbytes)
                s.live[buf.name] = b.alloc(buf.nbytes)
                if isinstance(payload, int):
                    b.upload_from(s.base[buf.name], payload + at, buf.nbytes)
                else:
                    b.upload(s.base[buf.name], payload[at:at + buf.nbytes])
                at += buf.nbytes
            for buf in spec.outputs:
                s.out[buf.name] = b.alloc(buf.nbytes)
            s.params = struct()
            for f in self.fields:
                if f.kind == "scalar":
                    setattr(s.params, f.name, spec.scalars[f.name])
                else:
                    handle = s.live[f.name] if f.kind == "in" else s.out[f.name]
                    setattr(s.params, f.name, b.address(handle))
            self.sets.append(s)
        self.slots = b.alloc(max(1, spec.slots) * spec.output_bytes)
        self.baseline_calls = []

    def release(self) -> None:
        """Free the previous scenario's device memory (host memory goes with its arrays)."""
        if self.backend.kind == "cuda" and self.sets:
            dev = self.backend.dev
            for s in self.sets:
                for handle in (*s.base.values(), *s.live.values(), *s.out.values(), *s.expected.values()):
                    dev.free(handle)
            if self.slots is not None:
                dev.free(self.slots)
        self.sets, self.slots, self.spec = [], None, None

    def slot_offset(self, slot: int, output: str) -> tuple[int, int]:
        assert self.spec is not None
        at = slot * self.spec.output_bytes
        for buf in self.spec.outputs:
            if buf.name == output:
                return at, buf.nbytes
            at += buf.nbytes
        raise KeyError(output)

    # rounds ---------------------------------------------------------------------------------------
    def _refresh(self, s: _Set, seed: int | None) -> int:
        """The set's inputs for this round; the number of launches it took (empty ones launch nothing)."""
        assert self.spec is not None
        for buf in self.spec.inputs:
            kind, count = gen_kind(buf, seed)
            self.backend.refresh(s.live[buf.name], s.base[buf.name], kind, count, seed or 0)
        return sum(1 for buf in self.spec.inputs if gen_kind(buf, seed)[1] > 0)

    def _keep_inputs(self, s: _Set) -> int:
        """A copy of the refreshed inputs, to tell after each call whether it changed them; the
        number of copies made."""
        assert self.spec is not None
        made = 0
        for buf in self.spec.inputs:
            if buf.name not in s.expected:
                s.expected[buf.name] = self.backend.alloc(buf.nbytes)
            if buf.nbytes:
                self.backend.copy(s.expected[buf.name], s.live[buf.name], buf.nbytes)
                made += 1
        return made

    def _changed_inputs(self, s: _Set) -> list[str]:
        assert self.spec is not None
        self.backend.settle()
        return [buf.name for buf in self.spec.inputs
                if self.backend.differs(s.live[buf.name], 0, s.expected[buf.name], 0, buf.nbytes)]

    def rounds(self, plan: list[tuple[int, list[int]]], seeds: list[int | None], flush: bool,
               check_inputs: bool, census_later: bool = False) -> list[CallRecord]:
        """The plan's rounds. With the launch census, each call's window opens before the
        evaluator's own work for it (the round's refresh and input copies on its first call, the
        poison, the flush) and closes after the synchronize that ends it; `self.attribution` then
        says what ran where (evaluator.census)."""
        b, spec, census = self.backend, self.spec, self.census
        assert spec is not None
        records: list[CallRecord] = []
        slot = 0
        last: CallRecord | None = None
        last_end = time.perf_counter_ns()
        last_cpu = b.other_cpu_ns()
        outputs = sum(1 for buf in spec.outputs if buf.nbytes)
        for (set_index, order), seed in zip(plan, seeds):
            s = self.sets[set_index]
            opened = census.now() if census is not None else 0
            own = self._refresh(s, seed)
            if check_inputs:
                own += self._keep_inputs(s)
            for c in order:
                rec = CallRecord()
                fn = self.fns[c] if c < len(self.fns) else None
                w0 = time.perf_counter_ns()
                if census is not None:
                    census.open(head=own + outputs + (1 if flush else 0), start=opened or None)
                    opened, own = 0, 0
                for buf in spec.outputs:
                    if buf.nbytes:
                        b.poison(s.out[buf.name], buf.nbytes)
                if flush:
                    b.flush()
                cpu0 = b.other_cpu_ns()
                if last is not None:  # the previous call's window ends where this call starts
                    last.other_cpu_ms = max(0.0, (cpu0 - last_cpu) / 1e6)
                    last.outside_ms = max(0.0, (time.perf_counter_ns() - last_end) / 1e6)
                if fn is not None:
                    rec.returned, rec.event_ms = b.timed_call(fn, s.params)
                else:  # an upstream baseline: a Python callable that enqueues its work
                    rec.returned, rec.event_ms = self._baseline_call(c, set_index)
                last_end = time.perf_counter_ns()
                last_cpu = b.other_cpu_ns()
                if c in SNAPSHOT:
                    at = slot * spec.output_bytes
                    for buf in spec.outputs:
                        if buf.nbytes:
                            b.snapshot(self.slots, at, s.out[buf.name], buf.nbytes, self.rng.getrandbits(62))
                        at += buf.nbytes
                    slot += 1
                b.settle()
                if census is not None:
                    census.close(tail=outputs if c in SNAPSHOT else 0)
                if rec.event_ms < 0:
                    rec.event_ms = b.event_ms()
                rec.wall_ms = (time.perf_counter_ns() - w0) / 1e6
                if check_inputs:
                    rec.modified = self._changed_inputs(s)
                    if c == CAND:
                        rec.late = self._changed_since_snapshot(s, slot - 1, LATE_WAIT_S if b.kind == "cpu" else 0.0)
                records.append(rec)
                last = rec
        if last is not None:
            last.other_cpu_ms = max(0.0, (b.other_cpu_ns() - last_cpu) / 1e6)
            last.outside_ms = max(0.0, (time.perf_counter_ns() - last_end) / 1e6)
        # later: the flush and attribution wait for a `census` request, outside the verdict's clock
        # around these calls (their cost is the request's, not the calls')
        self.attribution = census.attribute() if census is not None and not census_later else None
        return records

    def census_now(self) -> dict[str, Any]:
        """The census of the rounds answered last (asked for after their reply), as reply fields."""
        if self.census is None:
            raise RuntimeError("census asked for without a launch census")
        return self.census.attribute().to_reply()

    def _changed_since_snapshot(self, s: _Set, slot: int, wait_s: float) -> bool:
        """Did the outputs change after the call's snapshot (work still running after it returned)?
        (cuda: the context was synchronized after the snapshot: what changed, changed then)"""
        assert self.spec is not None
        time.sleep(wait_s)
        self.backend.settle()
        for buf in self.spec.outputs:
            at, nbytes = self.slot_offset(slot, buf.name)
            if self.backend.differs(s.out[buf.name], 0, self.slots, at, nbytes):
                return True
        return False

    def _baseline_call(self, contestant: int, set_index: int) -> tuple[int, float]:
        calls = self.baseline_calls[contestant - 2]
        b = self.backend
        cu, ok = b.cu, b.dev.ok
        ok(cu.cuEventRecord(b.start, b.stream), "cuEventRecord")
        calls[set_index]()
        ok(cu.cuEventRecord(b.end, b.stream), "cuEventRecord")
        return 0, -1.0

    def fetch(self, slot: int, output: str, blocks: list[tuple[int, int]] | None) -> bytes:
        self.backend.settle()
        at, nbytes = self.slot_offset(slot, output)
        if blocks is None:
            return self.backend.read_range(self.slots, at, nbytes)
        parts = []
        for start, length in self._blocks(blocks, nbytes, output):
            parts.append(self.backend.read_range(self.slots, at + start, length))
        return b"".join(parts)

    def fetch_into(self, slot: int, output: str, blocks: list[tuple[int, int]] | None, dst: int, room: int) -> int:
        """fetch() written straight to address `dst` (at most `room` bytes); the count written."""
        self.backend.settle()
        at, nbytes = self.slot_offset(slot, output)
        ranges = [(0, nbytes)] if blocks is None else self._blocks(blocks, nbytes, output)
        total = sum(length for _, length in ranges)
        if total > room:
            raise ValueError(f"fetch: {total} bytes do not fit the {room} bytes of the shared buffer")
        written = 0
        for start, length in ranges:
            self.backend.read_into(self.slots, at + start, length, dst + written)
            written += length
        return written

    @staticmethod
    def _blocks(blocks: list[tuple[int, int]], nbytes: int, output: str) -> list[tuple[int, int]]:
        for start, length in blocks:
            if start < 0 or length < 0 or start + length > nbytes:
                raise ValueError(f"fetch: block ({start}, {length}) outside {output} ({nbytes} bytes)")
        return blocks

    # baselines (cuda): upstream ops from the task's harness, timed like contestants -----------------
    def baselines(self) -> tuple[list[str], dict[str, str]]:
        import numpy as np

        from evaluator.backend_cuda import DeviceArray
        from evaluator.harness import ELEMENT_TYPES, Case, to_values

        spec, b = self.spec, self.backend
        assert spec is not None and self.harness is not None and b.kind == "cuda"
        hook = getattr(self.harness, "baselines", None)
        if not callable(hook):
            return [], {}
        per_set: list[dict[str, Any]] = []
        errors: dict[str, str] = {}
        try:
            for s in self.sets:
                def values(buf: BufferSpec, s: _Set = s) -> Any:
                    etype = ELEMENT_TYPES[buf.type_name]
                    raw = np.frombuffer(b.download(s.base[buf.name], buf.nbytes), etype.storage)
                    return to_values(raw.reshape(buf.shape), etype)
                # read from the device only what the hook looks at (most only look at index inputs)
                inputs: Any = LazyInputs(spec.inputs, values)
                case = Case(inputs, {o.name: o.shape for o in spec.outputs}, dict(spec.scalars))
                arrays = {buf.name: DeviceArray(int(s.live[buf.name]), buf.shape, ELEMENT_TYPES[buf.type_name])
                          for buf in spec.inputs}
                arrays |= {buf.name: DeviceArray(int(s.out[buf.name]), buf.shape, ELEMENT_TYPES[buf.type_name])
                           for buf in spec.outputs}
                per_set.append(dict(hook(case, arrays, b.dev.stream_handle)))
        except KernelFault:
            raise
        except Exception as exc:  # noqa: BLE001 - upstream code is optional and may be missing
            return [], {"(hook)": f"{type(exc).__name__}: {exc}"}
        names = sorted(set.intersection(*(set(d) for d in per_set))) if per_set else []
        kept = []
        for name in names:  # one untimed call each: a baseline that fails is reported, not timed
            try:
                per_set[0][name]()
                b.settle()
                kept.append(name)
            except KernelFault:
                raise
            except Exception as exc:  # noqa: BLE001
                errors[name] = f"{type(exc).__name__}: {exc}"
        self.baseline_calls = [[d[name] for d in per_set] for name in kept]
        return kept, errors

    def close(self) -> None:
        self.release()
        self.backend.close()


# ---- the process ----------------------------------------------------------------------------------

class Bulk:
    """The shared buffer the verdict set up (a sealed memfd): large inputs and outputs cross
    through it instead of the pipe. The verdict copies out of it before it reads anything."""

    def __init__(self, fd: int) -> None:
        self.fd, self.size, self.map, self.address = fd, 0, None, 0

    def at_least(self, size: int) -> int:
        """The buffer's address, mapped again when the verdict has grown it to `size`."""
        if size != self.size:
            self.map = mmap.mmap(self.fd, size)
            self.address = ctypes.addressof(ctypes.c_char.from_buffer(self.map))
            self.size = size
        return self.address


def end_with_the_verdict(req_fd: int) -> None:
    """End this process once every writer of the requests is gone: the verdict exited, was killed
    (a parent's time limit, an agent's tool timeout, the OOM killer) or ended itself, and nothing
    the host does matters any more. The host runs in a session of its own, so a kill of the
    verdict's process group does not reach it, and a candidate that never returns would keep it
    spinning on a shared node; the main thread may be inside that candidate, so a thread watches.
    (A verdict that closes the host kills it anyway.)"""
    def watch() -> None:
        poller = select.poll()
        poller.register(req_fd, select.POLLHUP)  # (not POLLIN: requests are the main thread's to read)
        while True:
            for _, events in poller.poll():
                if events & (select.POLLHUP | select.POLLERR | select.POLLNVAL):
                    os._exit(0)

    threading.Thread(target=watch, name="ks-verdict-gone", daemon=True).start()


def serve(req_fd: int, rep_fd: int, bulk_fd: int | None = None) -> int:
    """Answer the verdict's requests until `close` or the end of the request stream."""
    end_with_the_verdict(req_fd)
    reader = Reader(req_fd)
    bulk = Bulk(bulk_fd) if bulk_fd is not None else None
    core: HostCore | None = None
    early: Early | None = None
    while True:
        try:
            msg = reader.read()
        except Exception:  # noqa: BLE001 - the verdict went away: nothing left to do
            return 0
        h = msg.header
        seq, kind = h.get("seq"), h.get("kind")
        reply: dict[str, Any] = {"seq": seq}
        payload: bytes | None = None
        try:
            if kind == "start":
                early = start_core(h)
                reply |= {"kind": "started", "census": {"on": early.census is not None,
                                                        "note": early.census_note[:300]}}
            elif kind == "load":
                core, confined, libs = load_core(h, early)
                reply |= {"kind": "loaded", "threads": core.backend.helper.threads
                          if core.backend.kind == "cpu" else 1, "confined": confined, "libs": libs[:64],
                          "census": core.census_state()}
            elif core is None:
                raise RuntimeError(f"{kind} before load")
            elif kind == "prepare":
                spec = ScenarioSpec.from_json(h["spec"])
                if h.get("bulk") is not None and bulk is not None:
                    core.prepare(spec, bulk.at_least(int(h["bulk_size"])), int(h["bulk"]))
                else:
                    core.prepare(spec, memoryview(msg.payload))
                reply["kind"] = "prepared"
            elif kind == "rounds":
                plan = [(int(p[0]), [int(c) for c in p[1]]) for p in h["plan"]]
                records = core.rounds(plan, h["seeds"], bool(h["flush"]), bool(h["check_inputs"]),
                                      bool(h.get("census_later")))
                reply |= {"kind": "rounds_done", **{
                    key: [getattr(r, key) for r in records]
                    for key in ("returned", "event_ms", "wall_ms", "other_cpu_ms", "outside_ms")},
                    "libs": core.new_libraries()[:64]}
                if core.attribution is not None:
                    reply |= core.attribution.to_reply()
                if h["check_inputs"]:
                    reply["modified"] = [r.modified for r in records]
                    reply["late"] = [r.late for r in records]
            elif kind == "census":
                reply |= {"kind": "census_done", **core.census_now()}
            elif kind == "fetch":
                blocks = None if h["blocks"] is None else [(int(a), int(n)) for a, n in h["blocks"]]
                if h.get("bulk_size") and bulk is not None:
                    size = int(h["bulk_size"])
                    n = core.fetch_into(int(h["slot"]), str(h["output"]), blocks, bulk.at_least(size), size)
                    reply |= {"kind": "data", "nbytes": n, "bulk": True}
                else:
                    payload = core.fetch(int(h["slot"]), str(h["output"]), blocks)
                    reply |= {"kind": "data", "nbytes": len(payload)}
            elif kind == "baselines":
                names, errors = core.baselines()
                core.new_libraries()  # what the upstream ops loaded is theirs
                reply |= {"kind": "baselines_ready", "names": names, "errors": errors}
            elif kind == "close":
                core.close()
                write_message(rep_fd, reply | {"kind": "bye"})
                return 0
            else:
                raise RuntimeError(f"unknown request {kind!r}")
        except KernelFault as exc:
            reply = {"seq": seq, "kind": "error", "error_kind": "fault", "error": str(exc)[:4000]}
            payload = None
        except OSError as exc:
            reply = {"seq": seq, "kind": "error", "error_kind": "setup" if kind == "load" else "internal",
                     "error": f"{exc}"[:4000]}
            payload = None
        except Exception as exc:  # noqa: BLE001 - any failure is a reply, not a silent death
            traceback.print_exc()
            reply = {"seq": seq, "kind": "error", "error_kind": "internal",
                     "error": f"{type(exc).__name__}: {exc}"[:4000]}
            payload = None
        write_message(rep_fd, reply, payload)


def load_core(h: dict[str, Any], early: Early | None = None) -> tuple[HostCore, dict[str, Any], list[str]]:
    """Start the backend (unless `start` did), confine, then open seed and candidate."""
    from evaluator.confine import Limits, confine, data_in_use

    if early is None:
        early = start_core(h)
    core = HostCore(h["backend"], h["helper"], h.get("threads"), early)
    confined: dict[str, Any] = {"seccomp": False, "rlimits": False, "note": "not confined (in-process host)"}
    if h.get("confine"):
        lim = h["confine"]
        data = lim.get("data_bytes")
        if data is not None and lim.get("data_headroom"):
            data = data_in_use() + int(lim["data_headroom"])
        confined = confine(Limits(cpu_s=int(lim["cpu_s"]), file_bytes=int(lim["file_bytes"]), data_bytes=data),
                           sockets=core.backend.kind == "cuda")
    libs = core.load(h["libs"], h["entry"], h["fields"])
    return core, confined, libs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluator host")
    parser.add_argument("--requests", type=int, required=True)
    parser.add_argument("--replies", type=int, required=True)
    parser.add_argument("--bulk", type=int, default=None)
    args = parser.parse_args(argv)
    import faulthandler

    faulthandler.enable(file=sys.stderr, all_threads=True)
    return serve(args.requests, args.replies, args.bulk)
