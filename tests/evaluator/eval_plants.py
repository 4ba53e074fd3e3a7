"""Planted candidates: a task's seed with one fault (or one change of speed) planted by text edits.

Each plant names the task, says what it plants, and lists (old, new) edits applied to the seed;
every `old` must occur in the seed, so a seed edit that breaks a plant fails loudly instead of
testing nothing. `plant(name, folder)` writes the source and returns its path. Hand-written candidates (the planted
faster ones) live in candidates/. `record()` keeps measured figures in $KS_FIGURES (JSON lines)
when it is set, so a GPU run yields the acceptance table (eval_figures.py prints it).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from evaluator.task import load_task


@dataclass(frozen=True)
class Plant:
    task: str
    what: str
    edits: tuple[tuple[str, str], ...]
    prefix: str = ""  # lines put before the seed (e.g. a kernelseek-flags line)
    suffix: str = ""  # lines put after it


SOFTMAX_ENTRY = "int ks_softmax(const SoftmaxParams* p, void* stream) {\n"
SOFTMAX_START = "    (void)stream;\n"
SOFTMAX_STORE = "        for (int c = 0; c < cols; ++c) y[c] = expf(x[c] - m) / sum;\n"
SOFTMAX_INCLUDE = '#include "softmax.h"\n'
RMS_LAUNCH = ("    rmsnorm_kernel<<<p->rows, kThreads, 0, static_cast<cudaStream_t>(stream)>>>"
              "(p->x, p->w, p->y, p->cols, p->eps);\n")
RMS_STORE = "        yr[c] = __float2bfloat16(v);\n"
RMS_GUARD = "    if (p->rows <= 0 || p->cols <= 0) return 0;\n"
RMS_INCLUDE = '#include "rmsnorm.h"\n'
RMS_SHARED = "    __shared__ float partial[kThreads];\n"

PLANTS: dict[str, Plant] = {
    # softmax-cpu -------------------------------------------------------------------------
    "softmax_slow2x": Plant("softmax-cpu", "the seed's whole computation done twice", (
        (SOFTMAX_ENTRY, "static int once(const SoftmaxParams* p, void* stream) {\n"),),
        suffix="\nint ks_softmax(const SoftmaxParams* p, void* stream) {\n"
               "    once(p, stream);\n    return once(p, stream);\n}\n"),
    "softmax_unwritten": Plant("softmax-cpu", "the last element of the last row is never written", (
        (SOFTMAX_STORE, SOFTMAX_STORE.replace("c < cols;", "c < cols - (r == rows - 1);")),)),
    "softmax_inplace": Plant("softmax-cpu", "correct outputs, but x is shifted in place (x - max)", (
        (SOFTMAX_STORE, SOFTMAX_STORE + "        for (int c = 0; c < cols; ++c) ((float*)x)[c] -= m;\n"),)),
    "softmax_nan": Plant("softmax-cpu", "one output element is NaN", (
        ("    return 0;\n}", "    p->y[(size_t)rows * cols / 2] = NAN;\n    return 0;\n}"),)),
    "softmax_cached": Plant("softmax-cpu", "skips the work when the buffers repeat the last call", (
        (SOFTMAX_START, SOFTMAX_START + "    static const float* last_x = 0;\n    static float* last_y = 0;\n"
                        "    if (p->x == last_x && p->y == last_y) return 0;\n"
                        "    last_x = p->x;\n    last_y = p->y;\n"),)),
    "softmax_segfault": Plant("softmax-cpu", "writes through a null pointer", (
        (SOFTMAX_START, SOFTMAX_START + "    *(volatile float*)0 = 1.0f;\n"),)),
    "softmax_hang": Plant("softmax-cpu", "never returns", (
        (SOFTMAX_START, SOFTMAX_START + '    for (;;) __asm__ volatile("");\n'),)),
    "softmax_late": Plant("softmax-cpu", "returns at once; a detached thread does the work 2 ms later", (
        (SOFTMAX_ENTRY, "static int compute(const SoftmaxParams* p, void* stream) {\n"),
        (SOFTMAX_INCLUDE, SOFTMAX_INCLUDE + "#include <pthread.h>\n#include <time.h>\n"),),
        suffix="\nstatic SoftmaxParams pending;\n"
               "static void* later(void* arg) {\n    (void)arg;\n"
               "    struct timespec pause = {0, 2000000};\n    nanosleep(&pause, NULL);\n"
               "    compute(&pending, NULL);\n    return NULL;\n}\n"
               "int ks_softmax(const SoftmaxParams* p, void* stream) {\n    (void)stream;\n"
               "    pending = *p;\n    pthread_t t;\n"
               "    if (pthread_create(&t, NULL, later, NULL) != 0) return 1;\n"
               "    pthread_detach(t);\n    return 0;\n}\n"),
    "softmax_banned_lib": Plant("softmax-cpu", "links zlib (not an allowed library) and calls it", (
        (SOFTMAX_INCLUDE, SOFTMAX_INCLUDE + "extern const char* zlibVersion(void);\n"),
        (SOFTMAX_START, SOFTMAX_START + "    if (p->rows < 0) return zlibVersion()[0];\n"),),
        prefix="// kernelseek-flags: -l:libz.so.1\n"),
    "softmax_banned_symbol": Plant("softmax-cpu", "calls cblas_sgemm when one is loaded (a weak reference)", (
        (SOFTMAX_INCLUDE, SOFTMAX_INCLUDE + "extern void cblas_sgemm(void) __attribute__((weak));\n"),
        (SOFTMAX_START, SOFTMAX_START + "    if (cblas_sgemm) cblas_sgemm();\n"),)),
    "softmax_macro_include": Plant("softmax-cpu", "includes dlfcn.h through a macro the text scan cannot see", (
        (SOFTMAX_INCLUDE, SOFTMAX_INCLUDE + "#define KS_HEADER <dlfcn.h>\n#include KS_HEADER\n"),)),
    "softmax_bad_flag": Plant("softmax-cpu", "asks for a linker flag that is not allowed", (),
                              prefix="// kernelseek-flags: -Wl,-z,now\n"),
    "softmax_syntax_error": Plant("softmax-cpu", "does not compile", (("float sum = 0.0f;", "float sum = 0.0f"),)),
    "softmax_no_entry": Plant("softmax-cpu", "compiles but exports the wrong name", (
        ("int ks_softmax(", "int ks_softmax_v2("),)),
    # rmsnorm-cuda ------------------------------------------------------------------------
    "rmsnorm_slow2x": Plant("rmsnorm-cuda", "the seed kernel run twice: first on a scratch copy of the same size "
                            "(so both runs read cold memory), then on the real buffers", (
        (RMS_LAUNCH, "    static __nv_bfloat16* scratch = nullptr;\n    static size_t held = 0;\n"
                     "    const size_t n = (size_t)p->rows * p->cols;\n"
                     "    if (held < n) {\n        cudaFree(scratch);\n"
                     "        cudaMalloc(&scratch, 2 * n * sizeof(__nv_bfloat16));\n"
                     "        cudaMemsetAsync(scratch, 0x3c, 2 * n * sizeof(__nv_bfloat16),\n"
                     "                        static_cast<cudaStream_t>(stream));\n"
                     "        held = n;\n    }\n"
                     + RMS_LAUNCH.replace("(p->x, p->w, p->y,", "(scratch, p->w, scratch + n,") + RMS_LAUNCH),)),
    "rmsnorm_unwritten": Plant("rmsnorm-cuda", "the last element of the last row is never written", (
        (RMS_STORE, "        if (row + 1 == gridDim.x && c + 1 == cols) continue;\n" + RMS_STORE),)),
    "rmsnorm_inplace": Plant("rmsnorm-cuda", "correct outputs, then one input element overwritten", (
        (RMS_STORE + "    }\n", RMS_STORE + "    }\n    __syncthreads();\n"
         "    if (row == 0 && threadIdx.x == 0) const_cast<__nv_bfloat16*>(xr)[0] = __float2bfloat16(0.0f);\n"),)),
    "rmsnorm_nan": Plant("rmsnorm-cuda", "one output element is NaN", (
        (RMS_STORE, "        yr[c] = (row == 1 && c == 0) ? __float2bfloat16(__int_as_float(0x7fc00000))"
                    " : __float2bfloat16(v);\n"),)),
    "rmsnorm_cached": Plant("rmsnorm-cuda", "skips the launch when the buffers repeat the last call", (
        (RMS_GUARD, RMS_GUARD + "    static const void* last_x = nullptr;\n    static void* last_y = nullptr;\n"
                    "    if (p->x == last_x && p->y == last_y) return 0;\n    last_x = p->x;\n    last_y = p->y;\n"),)),
    "rmsnorm_illegal_address": Plant("rmsnorm-cuda", "writes far outside every allocation (sticky error)", (
        (RMS_STORE, RMS_STORE + "        if (row == 0 && c == 0) yr[(size_t)1 << 40] = __float2bfloat16(1.0f);\n"),)),
    "rmsnorm_hang": Plant("rmsnorm-cuda", "one thread waits forever for a flag nobody sets", (
        (RMS_SHARED, RMS_SHARED + "    if (blockIdx.x == 0 && threadIdx.x == 0) {\n"
                     "        while (*reinterpret_cast<volatile int*>(&never_set) == 0) __nanosleep(1000);\n    }\n"),
        ("constexpr int kThreads = 256;\n", "constexpr int kThreads = 256;\n__device__ int never_set = 0;\n"),)),
    "rmsnorm_outside_stream": Plant("rmsnorm-cuda", "launches on a private stream, not the one given", (
        (RMS_LAUNCH, "    static cudaStream_t own = nullptr;\n"
                     "    if (!own) cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking);\n"
                     + RMS_LAUNCH.replace("static_cast<cudaStream_t>(stream)", "own")),)),
    "rmsnorm_banned_lib": Plant("rmsnorm-cuda", "links zlib (not an allowed library) from host code", (
        (RMS_INCLUDE, RMS_INCLUDE + 'extern "C" const char* zlibVersion(void);\n'),
        (RMS_GUARD, "    if (p->eps < 0.0f) return zlibVersion()[0];\n" + RMS_GUARD),),
        prefix="// kernelseek-flags: -l:libz.so.1\n"),
    "rmsnorm_banned_symbol": Plant("rmsnorm-cuda", "a weak cublasCreate_v2 call and a device function in namespace cutlass", (
        (RMS_INCLUDE, RMS_INCLUDE + 'extern "C" int cublasCreate_v2(void** handle) __attribute__((weak));\n'
                      "namespace cutlass {\n__device__ __noinline__ float scale(float v, float s) { return v * s; }\n}\n"),
        ("__bfloat162float(xr[c]) * inv_rms *", "cutlass::scale(__bfloat162float(xr[c]), inv_rms) *"),
        (RMS_GUARD, RMS_GUARD + "    if (cublasCreate_v2 && p->eps < 0.0f) { void* h; cublasCreate_v2(&h); }\n"),)),
}


def plant_source(name: str) -> str:
    p = PLANTS[name]
    text = load_task(p.task).seed.read_text()
    for old, new in p.edits:
        assert old in text, f"plant {name}: the seed no longer contains {old!r}"
        text = text.replace(old, new)
    return f"/* Planted ({name}): {p.what}. */\n{p.prefix}{text}{p.suffix}"


def plant(name: str, folder: Path) -> Path:
    """Write the planted candidate `name` into folder; its path."""
    suffix = load_task(PLANTS[name].task).seed.suffix
    path = folder / f"{name}{suffix}"
    text = plant_source(name)
    if not path.is_file() or path.read_text() != text:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return path


CANDIDATES = Path(__file__).resolve().parent / "candidates"


def candidate(name: str) -> Path:
    """A hand-written candidate from candidates/."""
    path = CANDIDATES / name
    assert path.is_file(), path
    return path


def record(test: str, **figures: object) -> None:
    """Keep a measured figure for the acceptance table (printed; appended to $KS_FIGURES if set)."""
    print(f"\nFIGURE {test}: {figures}")
    target = os.environ.get("KS_FIGURES")
    if target:
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"test": test, **figures}, default=str) + "\n")
