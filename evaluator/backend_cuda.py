"""The cuda backend: the driver API (cuda.bindings) owns the primary context, buffers, a
non-blocking stream and events; kernels are called through ctypes on that stream.

Before each timed call, `cuMemsetD8Async` writes twice the L2 on the stream, so no input is
served from L2. Waits poll the stream (so the child's watchdog can end a hung kernel's process),
and any error a kernel leaves (illegal address, launch failure, ...) raises KernelFault: those
errors are sticky, the context is unusable after one. The audit runs a kernel between two
`cuCtxSynchronize` calls and compares the wall clock with the events, which catches work enqueued
on another stream. Imported only for cuda tasks: nothing here loads without cuda-python.
"""
from __future__ import annotations

import ctypes
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from evaluator.backend_cpu import cached_peaks
from evaluator.device import Device, Guard, KernelFn
from evaluator.errors import DeviceUnavailable, KernelFault
from evaluator.harness import ElementType

_TYPESTR = {"f32": "<f4", "f64": "<f8", "f16": "<f2", "bf16": "<i2", "i32": "<i4", "i64": "<i8",
            "i8": "|i1", "u8": "|u1"}

_FMA_SOURCE = r"""
extern "C" __global__ void ks_fma_kernel(float* out, int iters) {
    float a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
    for (int i = 0; i < iters; ++i) {
        a0 = fmaf(a0, 0.999999f, 1e-7f); a1 = fmaf(a1, 0.999999f, 1e-7f);
        a2 = fmaf(a2, 0.999999f, 1e-7f); a3 = fmaf(a3, 0.999999f, 1e-7f);
        a4 = fmaf(a4, 0.999999f, 1e-7f); a5 = fmaf(a5, 0.999999f, 1e-7f);
        a6 = fmaf(a6, 0.999999f, 1e-7f); a7 = fmaf(a7, 0.999999f, 1e-7f);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
extern "C" int ks_fma(float* out, int blocks, int iters, void* stream) {
    ks_fma_kernel<<<blocks, 256, 0, (cudaStream_t)stream>>>(out, iters);
    return (int)cudaGetLastError();
}
"""


class DeviceArray:
    """A device buffer as `__cuda_array_interface__` (bf16 shows as int16: view it)."""

    def __init__(self, ptr: int, shape: tuple[int, ...], etype: ElementType) -> None:
        self.ptr, self.shape, self.dtype = ptr, tuple(shape), etype.name
        self._typestr = _TYPESTR[etype.name]

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        return {"shape": self.shape, "typestr": self._typestr, "data": (self.ptr, False),
                "version": 3, "strides": None, "stream": None}


class CudaDevice(Device):
    kind = "cuda"

    def __init__(self, guard: Guard | None = None, ordinal: int = 0) -> None:
        super().__init__(guard)
        try:
            from cuda.bindings import driver as cu
        except Exception as exc:  # noqa: BLE001 - any import failure means no usable CUDA
            raise DeviceUnavailable(f"this task needs a CUDA GPU: cuda-python is not importable ({exc})") from None
        self.cu = cu
        try:
            (err,) = cu.cuInit(0)
        except Exception as exc:  # noqa: BLE001 - DynamicLibNotFoundError when there is no driver
            raise DeviceUnavailable(f"this task needs a CUDA GPU and its driver: {exc}") from None
        if err != cu.CUresult.CUDA_SUCCESS:
            raise DeviceUnavailable(f"this task needs a CUDA GPU: cuInit failed with {self._name(err)}")
        count = self.ok(cu.cuDeviceGetCount(), "cuDeviceGetCount")
        if count <= ordinal:
            raise DeviceUnavailable("this task needs a CUDA GPU: the driver sees none")
        self.dev = self.ok(cu.cuDeviceGet(ordinal), "cuDeviceGet")
        self.ctx = self.ok(cu.cuDevicePrimaryCtxRetain(self.dev), "cuDevicePrimaryCtxRetain")
        self.ok(cu.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")
        self.stream = self.ok(cu.cuStreamCreate(int(cu.CUstream_flags.CU_STREAM_NON_BLOCKING)), "cuStreamCreate")
        self.stream_handle = int(self.stream)
        self.l2 = self._attr("L2_CACHE_SIZE")
        self._allocs: list[Any] = []
        self._events: list[Any] = []
        self._flush_bytes = 2 * self.l2
        self._flush = self.alloc(self._flush_bytes)
        self._tick = 0
        self.broken = False

    def bind_thread(self) -> None:
        """Make this device's context current in the calling thread (the driver keeps it per thread)."""
        self.ok(self.cu.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")

    # errors -------------------------------------------------------------------------------
    def _name(self, err: Any) -> str:
        try:
            _, name = self.cu.cuGetErrorName(err)
            return name.decode() if isinstance(name, bytes) else str(name)
        except Exception:  # noqa: BLE001
            return str(err)

    def ok(self, result: Any, what: str) -> Any:
        err, *values = result if isinstance(result, tuple) else (result,)
        if err != self.cu.CUresult.CUDA_SUCCESS:
            self._raise(err, what)
        if not values:
            return None
        return values[0] if len(values) == 1 else tuple(values)

    def _raise(self, err: Any, what: str) -> None:
        self.broken = True
        raise KernelFault(f"{what}: {self._name(err)}", int(err))

    def _attr(self, name: str) -> int:
        attr = getattr(self.cu.CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_{name}")
        return int(self.ok(self.cu.cuDeviceGetAttribute(attr, self.dev), f"attribute {name}"))

    # memory -------------------------------------------------------------------------------
    def alloc(self, nbytes: int) -> Any:
        ptr = self.ok(self.cu.cuMemAlloc(nbytes), f"cuMemAlloc({nbytes})")
        self._allocs.append(ptr)
        return ptr

    def address(self, handle: Any) -> int:
        return int(handle)

    def upload(self, handle: Any, array: np.ndarray) -> None:
        array = np.ascontiguousarray(array)
        self.ok(self.cu.cuMemcpyHtoDAsync(handle, array.ctypes.data, array.nbytes, self.stream), "upload")
        self.wait("upload", 60.0)

    def download(self, handle: Any, out: np.ndarray) -> None:
        assert out.flags.c_contiguous
        self.ok(self.cu.cuMemcpyDtoHAsync(out.ctypes.data, handle, out.nbytes, self.stream), "download")
        self.wait("download", 60.0)

    def fill(self, handle: Any, byte: int, nbytes: int) -> None:
        self.ok(self.cu.cuMemsetD8Async(handle, byte, nbytes, self.stream), "memset")
        self.wait("memset", 60.0)

    def arrays(self, bufs: Any) -> dict[str, DeviceArray]:
        """Every buffer of a BufferSet as a DeviceArray (for upstream baselines)."""
        out = {}
        for f in bufs.task.params:
            if f.kind == "in":
                out[f.name] = DeviceArray(int(bufs.handles[f.name]), bufs.host_inputs[f.name].shape,
                                          bufs.types[f.name])
            elif f.kind == "out":
                out[f.name] = DeviceArray(int(bufs.handles[f.name]), bufs.out_shapes[f.name],
                                          bufs.out_types[f.name])
        return out

    # waiting ------------------------------------------------------------------------------
    def wait(self, what: str, timeout_s: float) -> None:
        """Wait for the stream by polling (the watchdog can fire); KernelFault on a device error."""
        cu = self.cu
        with self.guard.watch(what, timeout_s):
            spins = 0
            while True:
                (err,) = cu.cuStreamQuery(self.stream)
                if err == cu.CUresult.CUDA_SUCCESS:
                    return
                if err != cu.CUresult.CUDA_ERROR_NOT_READY:
                    self._raise(err, what)
                spins += 1
                time.sleep(0 if spins < 100 else 0.0001)

    def sync_all(self, what: str, timeout_s: float) -> None:
        """Wait for the whole context (work on any stream); KernelFault on a device error."""
        self.wait(what, timeout_s)
        with self.guard.watch(what, timeout_s):
            self.ok(self.cu.cuCtxSynchronize(), what)

    # calls --------------------------------------------------------------------------------
    def call(self, fn: KernelFn, params: Any, what: str, timeout_s: float) -> int:
        with self.guard.watch(what, timeout_s):
            returned = fn(params)
            self.sync_all(what, timeout_s)
        return returned

    def event_pool(self, n: int) -> list[Any]:
        flags = int(self.cu.CUevent_flags.CU_EVENT_DEFAULT)
        while len(self._events) < n:
            self._events.append(self.ok(self.cu.cuEventCreate(flags), "cuEventCreate"))
        return self._events

    def flush_async(self) -> None:
        self._tick = (self._tick + 1) & 0xFF
        self.ok(self.cu.cuMemsetD8Async(self._flush, self._tick, self._flush_bytes, self.stream), "L2 flush")

    def elapsed(self, start: Any, end: Any) -> float:
        return float(self.ok(self.cu.cuEventElapsedTime(start, end), "cuEventElapsedTime"))

    # the machine --------------------------------------------------------------------------
    def info(self) -> dict[str, Any]:
        name = self.ok(self.cu.cuDeviceGetName(256, self.dev), "cuDeviceGetName")
        name = name.split(b"\0", 1)[0].decode() if isinstance(name, bytes) else str(name)
        driver = int(self.ok(self.cu.cuDriverGetVersion(), "cuDriverGetVersion"))
        return {
            "name": name, "sm_count": self._attr("MULTIPROCESSOR_COUNT"), "l2_bytes": self.l2,
            "cc": f"{self._attr('COMPUTE_CAPABILITY_MAJOR')}.{self._attr('COMPUTE_CAPABILITY_MINOR')}",
            "driver": f"{driver // 1000}.{driver % 1000 // 10}",
        }

    def peaks(self, cache_dir: Path, which: str = "memory") -> dict[str, float]:
        info = self.info()
        key = f"cuda|{info['name']}|{info['driver']}|{which}"
        return cached_peaks(cache_dir, key, lambda: self._measure(cache_dir, which))

    def _measure(self, cache_dir: Path, which: str) -> dict[str, float]:
        if which == "memory":
            return {"memory_gbps": round(self._copy_gbps(), 1)}
        if which == "fp32":
            value = self._fma_tflops(cache_dir)
            return {"fp32_tflops": round(value, 2)} if value else {}
        value = self._torch_matmul_tflops("bfloat16" if which == "bf16_tensor" else "float16")
        return {f"{which}_tflops": round(value, 1)} if value else {}

    def _time_ms(self, launch: Callable[[], Any], repeats: int) -> float:
        start, end = self.event_pool(2)[:2]
        best = float("inf")
        for _ in range(repeats):
            self.ok(self.cu.cuEventRecord(start, self.stream), "cuEventRecord")
            launch()
            self.ok(self.cu.cuEventRecord(end, self.stream), "cuEventRecord")
            self.wait("peak", 60.0)
            best = min(best, self.elapsed(start, end))
        return best

    def _copy_gbps(self) -> float:
        n = 1 << 30
        src, dst = self.alloc(n), self.alloc(n)
        self.fill(src, 1, n)
        ms = self._time_ms(lambda: self.ok(self.cu.cuMemcpyDtoDAsync(dst, src, n, self.stream), "copy"), 6)
        self.free(src)
        self.free(dst)
        return 2 * n / (ms * 1e-3) / 1e9

    def _fma_tflops(self, cache_dir: Path) -> float | None:
        from evaluator.native import NativeBuildError, native_library

        cc = self.info()["cc"].replace(".", "")
        try:
            lib = native_library(cache_dir, f"cuda_fma_sm{cc}", _FMA_SOURCE, ".cu",
                                 ["nvcc", "-O3", f"-gencode=arch=compute_{cc},code=sm_{cc}", "-shared",
                                  "-Xcompiler", "-fPIC"])
        except NativeBuildError:
            return None
        so = ctypes.CDLL(str(lib))
        so.ks_fma.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
        blocks, iters = self._attr("MULTIPROCESSOR_COUNT") * 8, 4096
        out = self.alloc(blocks * 256 * 4)
        stream = ctypes.c_void_p(self.stream_handle)
        ms = self._time_ms(lambda: so.ks_fma(int(out), blocks, iters, stream), 5)
        self.free(out)
        return 2 * 8 * iters * blocks * 256 / (ms * 1e-3) / 1e12

    def _torch_matmul_tflops(self, dtype: str) -> float | None:
        try:
            import torch
        except Exception:  # noqa: BLE001 - torch is optional
            return None
        n = 8192
        t = getattr(torch, dtype)
        a = torch.randn(n, n, device="cuda", dtype=t)
        b = torch.randn(n, n, device="cuda", dtype=t)
        for _ in range(3):
            a @ b
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(10):
            a @ b
        e.record()
        torch.cuda.synchronize()
        return 2 * n ** 3 * 10 / (s.elapsed_time(e) * 1e-3) / 1e12

    def free(self, ptr: Any) -> None:
        self.cu.cuMemFree(ptr)
        self._allocs = [p for p in self._allocs if int(p) != int(ptr)]

    def close(self) -> None:
        if self.broken:
            return  # after a sticky error every call fails; the process exit cleans up
        try:
            self.wait("close", 60.0)
            for ptr in self._allocs:
                self.cu.cuMemFree(ptr)
            for ev in self._events:
                self.cu.cuEventDestroy(ev)
            self.cu.cuStreamDestroy(self.stream)
            # the primary context stays retained: libraries loaded in this process keep cudart
            # state bound to it, and a later evaluation in the same process reuses it

        except Exception:  # noqa: BLE001 - best effort at the end of an evaluation
            pass
        self._allocs, self._events = [], []
