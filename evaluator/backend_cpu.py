"""The cpu backend: host buffers, calls through ctypes, the CPU clock, a last-level-cache flush.

Before each timed call a buffer twice the size of the last-level cache is written (memset), so
neither kernel finds its inputs in cache. Peaks (memory bandwidth, fp32 FMA rate) are measured
once per machine with a small OpenMP program built by the same gcc flags as the tasks.
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import os
import platform
import resource
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from evaluator.device import Device, Guard, KernelFn
from evaluator.timing import Plan

_PEAK_SOURCE = r"""
#include <omp.h>
void ks_copy(const float* restrict a, float* restrict b, long n) {
    #pragma omp parallel for simd schedule(static)
    for (long i = 0; i < n; ++i) b[i] = a[i];
}
/* 256 independent accumulators: enough vector chains to cover FMA latency on two ports even with
 * 512-bit vectors (16 chains of 16), so the probe measures throughput, not latency */
float ks_fma(long iters) {
    float total = 0.f;
    #pragma omp parallel reduction(+:total)
    {
        float acc[256];
        for (int i = 0; i < 256; ++i) acc[i] = 1.0f + i * 1e-3f + (float)omp_get_thread_num();
        for (long it = 0; it < iters; ++it)
            for (int i = 0; i < 256; ++i) acc[i] = acc[i] * 0.999999f + 1e-7f;
        for (int i = 0; i < 256; ++i) total += acc[i];
    }
    return total;
}
int ks_threads(void) { return omp_get_max_threads(); }
void ks_flush(unsigned char* buf, long n, int value) {
    #pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i += 4096) {
        long end = i + 4096 < n ? i + 4096 : n;
        for (long j = i; j < end; ++j) buf[j] = (unsigned char)value;
    }
}
"""


def last_level_cache_bytes() -> int:
    """Size of the largest data/unified cache of cpu0 (32 MiB when sysfs does not say)."""
    best_level, best = 0, 0
    for index in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        try:
            if (index / "type").read_text().strip() == "Instruction":
                continue
            level = int((index / "level").read_text())
            text = (index / "size").read_text().strip().upper()
        except (OSError, ValueError):
            continue
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
        size = int(text.rstrip("KMG")) * scale
        if level > best_level or (level == best_level and size > best):
            best_level, best = level, size
    return best or (32 << 20)


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _machine_busy_s() -> float | None:
    """Seconds all cores spent busy (user, system, irq, steal, ...) since boot, from /proc/stat."""
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            fields = [int(v) for v in fh.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    ticks = sum(fields[:8]) - idle  # guest time is already inside user
    return ticks / os.sysconf("SC_CLK_TCK")


def _own_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class CpuDevice(Device):
    kind = "cpu"

    def __init__(self, guard: Guard | None = None, cache_dir: Path | None = None) -> None:
        super().__init__(guard)
        self.llc = last_level_cache_bytes()
        self._flush = self.alloc(2 * self.llc)
        self._flush[:] = 1
        self._tick = 0
        self._helper = _helper_library(cache_dir) if cache_dir else None
        self._contention_mark: tuple[float | None, float, float] | None = None

    def alloc(self, nbytes: int) -> np.ndarray:
        raw = np.empty(nbytes + 64, dtype=np.uint8)
        offset = (-raw.ctypes.data) % 64  # 64-byte aligned, like cudaMalloc's 256 is for GPUs
        return raw[offset:offset + nbytes]

    def address(self, handle: np.ndarray) -> int:
        return handle.ctypes.data

    def upload(self, handle: np.ndarray, array: np.ndarray) -> None:
        handle[:array.nbytes] = np.ascontiguousarray(array).reshape(-1).view(np.uint8)

    def download(self, handle: np.ndarray, out: np.ndarray) -> None:
        out.reshape(-1).view(np.uint8)[:] = handle[:out.nbytes]

    def fill(self, handle: np.ndarray, byte: int, nbytes: int) -> None:
        ctypes.memset(handle.ctypes.data, byte, nbytes)

    def flush(self) -> None:
        """Evict the last-level cache by writing twice its size."""
        self._tick = (self._tick + 1) & 0xFF
        if self._helper is not None:  # all cores write: a large LLC is flushed in a few ms
            self._helper.ks_flush(self._flush.ctypes.data, self._flush.nbytes, self._tick)
        else:
            ctypes.memset(self._flush.ctypes.data, self._tick, self._flush.nbytes)

    def call(self, fn: KernelFn, params: Any, what: str, timeout_s: float) -> int:
        with self.guard.watch(what, timeout_s):
            return fn(params)

    def run_rounds(self, calls: list[list[Callable[[], Any]]], plan: Plan, timeout_s: float) -> list[list[float]]:
        clock = time.perf_counter_ns
        out = []
        for set_index, order in plan:
            times = [0.0] * len(calls)
            for c in order:
                self.flush()
                call = calls[c][set_index]
                with self.guard.watch("timing", timeout_s):
                    t0 = clock()
                    call()
                    t1 = clock()
                times[c] = (t1 - t0) / 1e6
            out.append(times)
        return out

    def contention_start(self) -> None:
        self._contention_mark = (_machine_busy_s(), _own_cpu_s(), time.monotonic())

    def contention(self) -> float | None:
        """Share of the machine's cores that other processes used since contention_start()
        (0 on a quiet machine; 0.5 on two cores where another process spins on one)."""
        mark = getattr(self, "_contention_mark", None)
        busy = _machine_busy_s()
        if mark is None or busy is None or mark[0] is None:
            return None
        cores = os.cpu_count() or 1
        wall = time.monotonic() - mark[2]
        others = (busy - mark[0]) - (_own_cpu_s() - mark[1])
        return max(0.0, others / (wall * cores)) if wall > 0 else None

    def info(self) -> dict[str, Any]:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        return {"name": cpu_model(), "cores": cores, "llc_bytes": self.llc,
                "omp_num_threads": os.environ.get("OMP_NUM_THREADS")}

    def peaks(self, cache_dir: Path) -> dict[str, float]:
        key = f"cpu|{cpu_model()}|{self.info()['cores']}|{os.environ.get('OMP_NUM_THREADS', '')}"
        return cached_peaks(cache_dir, key, lambda: self._measure_peaks(cache_dir))

    def _measure_peaks(self, cache_dir: Path) -> dict[str, float]:
        so = self._helper or _helper_library(cache_dir)
        if so is None:
            return {}
        self.contention_start()
        so.ks_copy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
        so.ks_fma.argtypes = [ctypes.c_long]
        so.ks_fma.restype = ctypes.c_float
        n = max(8 * self.llc // 4, 1 << 24)
        a = np.ones(n, np.float32)
        b = np.empty_like(a)
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            so.ks_copy(a.ctypes.data, b.ctypes.data, n)
            best = min(best, time.perf_counter() - t0)
        gbps = 2 * n * 4 / best / 1e9
        iters = 500_000
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            so.ks_fma(iters)
            best = min(best, time.perf_counter() - t0)
        tflops = 2 * 256 * iters * so.ks_threads() / best / 1e12
        peaks = {"memory_gbps": round(gbps, 2), "fp32_tflops": round(tflops, 4)}
        # a peak read while other processes held the cores is too low (every kernel would then
        # look "above roofline"): use it for this run, but do not keep it
        others = self.contention()
        if others is not None and others > 0.15:
            peaks["contended"] = round(others, 2)
        return peaks


def _helper_library(cache_dir: Path) -> ctypes.CDLL | None:
    """The small OpenMP helper (cache flush, peak probes), built once per machine with gcc."""
    folder = cache_dir / "peaks"
    digest = hashlib.sha1((_PEAK_SOURCE + platform.machine() + cpu_model()).encode()).hexdigest()[:12]
    lib = folder / f"cpu_helper_{digest}.so"
    if not lib.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        src = folder / f"cpu_helper_{digest}.c"
        tmp = folder / f"cpu_helper_{digest}.{os.getpid()}.so"
        src.write_text(_PEAK_SOURCE)
        try:
            proc = subprocess.run(["gcc", "-O3", "-march=native", "-fopenmp", "-fPIC", "-shared",
                                   str(src), "-o", str(tmp)], capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.SubprocessError):
            return None
        if proc.returncode != 0:
            return None
        os.replace(tmp, lib)
    so = ctypes.CDLL(str(lib))
    so.ks_flush.argtypes = [ctypes.c_void_p, ctypes.c_long, ctypes.c_int]
    return so


def cached_peaks(cache_dir: Path, key: str, measure: Callable[[], dict[str, float]]) -> dict[str, float]:
    """Peaks for this machine from $cache/peaks.json, measured (and stored) the first time."""
    path = cache_dir / "peaks.json"
    try:
        table = json.loads(path.read_text())
    except (OSError, ValueError):
        table = {}
    if key in table and table[key]:
        return table[key]
    value = measure()
    if value and not value.get("contended"):
        table[key] = value
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(table, indent=1))
        os.replace(tmp, path)
    return value
