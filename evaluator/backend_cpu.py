"""The cpu backend on the verdict's side: what the machine is, how busy it is, its measured peaks.

Candidates run in the candidate host (evaluator.host, whose native pool flushes the last-level
cache before each call). Peaks (memory bandwidth, fp32 FMA rate) are measured once per machine
with a small OpenMP program built with the same gcc flags as the tasks; the copy probe is sized
from the last-level cache but bounded by the memory the machine has, and a measurement taken on a
busy machine is kept (and marked) rather than repeated at every evaluation.
"""
from __future__ import annotations

import ctypes
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from evaluator.device import Device, Guard
from evaluator.machine import cpu_model, flush_bytes, last_level_cache_bytes, machine_busy_s, mem_available, own_cpu_s

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
"""
# the copy probe's arrays: each at least twice the last-level cache (so the copy streams from
# memory) but never more than this share of the memory available, nor more than 1 GiB each
PROBE_MEMORY_SHARE = 0.125
PROBE_MAX_BYTES = 1 << 30
PROBE_MIN_BYTES = 64 << 20
# a contended peak measurement is used at once but measured again only after this long
REMEASURE_AFTER_S = 3600.0


def probe_bytes(llc: int, available: int) -> int:
    """Size of each array of the bandwidth probe: twice the last-level cache, bounded by memory."""
    want = max(2 * llc, PROBE_MIN_BYTES)
    return int(max(min(want, PROBE_MAX_BYTES, available * PROBE_MEMORY_SHARE), 1 << 20)) // 64 * 64


class CpuDevice(Device):
    """The verdict's view of the CPU: what it is, its measured peaks. (Candidates run in the host:
    evaluator.host.)"""

    kind = "cpu"

    def __init__(self, guard: Guard | None = None, cache_dir: Path | None = None) -> None:
        super().__init__(guard)
        self.llc = last_level_cache_bytes()

    def info(self) -> dict[str, Any]:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        out = {"name": cpu_model(), "cores": cores, "llc_bytes": self.llc,
               "omp_num_threads": os.environ.get("OMP_NUM_THREADS")}
        flush = flush_bytes(self.llc)
        if flush != 2 * self.llc:  # a test rig's cap (KERNELSEEK_FLUSH_BYTES): said in the report
            out["flush_bytes"] = flush
        return out

    def peaks(self, cache_dir: Path) -> dict[str, Any]:
        key = f"cpu|{cpu_model()}|{self.info()['cores']}|{os.environ.get('OMP_NUM_THREADS', '')}"
        return cached_peaks(cache_dir, key, lambda: self._measure_peaks(cache_dir))

    def _measure_peaks(self, cache_dir: Path) -> dict[str, Any]:
        from evaluator.native import NativeBuildError, native_library

        try:
            lib = native_library(cache_dir, "cpu_peaks", _PEAK_SOURCE, ".c",
                                 ["gcc", "-O3", "-march=native", "-fopenmp", "-fPIC", "-shared"])
        except NativeBuildError:
            return {}
        so = ctypes.CDLL(str(lib))
        mark = (machine_busy_s(), own_cpu_s(), time.monotonic())
        so.ks_copy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
        so.ks_fma.argtypes = [ctypes.c_long]
        so.ks_fma.restype = ctypes.c_float
        n = probe_bytes(self.llc, mem_available()) // 4
        a = np.ones(n, np.float32)
        b = np.empty_like(a)
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            so.ks_copy(a.ctypes.data, b.ctypes.data, n)
            best = min(best, time.perf_counter() - t0)
        del a, b
        gbps = 2 * n * 4 / best / 1e9
        iters = 500_000
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            so.ks_fma(iters)
            best = min(best, time.perf_counter() - t0)
        tflops = 2 * 256 * iters * so.ks_threads() / best / 1e12
        peaks: dict[str, Any] = {"memory_gbps": round(gbps, 2), "fp32_tflops": round(tflops, 4)}
        # a peak read while other processes held the cores is too low: say so (it is kept only
        # until a quieter measurement, and physics does not fail a kernel on it)
        busy = machine_busy_s()
        wall = time.monotonic() - mark[2]
        if busy is not None and mark[0] is not None and wall > 0:
            others = ((busy - mark[0]) - (own_cpu_s() - mark[1])) / (wall * (self.info()["cores"] or 1))
            if others > 0.15:
                peaks["contended"] = round(others, 2)
        return peaks


def cached_peaks(cache_dir: Path, key: str, measure: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Peaks for this machine from $cache/peaks.json, measured the first time. A measurement taken
    on a busy machine (`contended`) is kept too, so a busy machine does not measure again at every
    evaluation, but it is measured again after REMEASURE_AFTER_S; each rate keeps the highest value
    seen (contention only ever lowers a peak), and the entry is `contended` until a quiet one."""
    path = cache_dir / "peaks.json"
    try:
        table = json.loads(path.read_text())
    except (OSError, ValueError):
        table = {}
    old = table.get(key) or {}
    if old and (not old.get("contended") or time.time() - old.get("measured_at", 0) < REMEASURE_AFTER_S):
        return {k: v for k, v in old.items() if k != "measured_at"}
    value = measure()
    if not value:
        return {k: v for k, v in old.items() if k != "measured_at"}
    merged = {k: max(v, old.get(k, 0)) if isinstance(v, (int, float)) else v for k, v in value.items()
              if k != "contended"}
    if value.get("contended"):
        merged["contended"] = value["contended"]
    merged["measured_at"] = time.time()
    table[key] = merged
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(table, indent=1))
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache: measured again next time
    return {k: v for k, v in merged.items() if k != "measured_at"}
