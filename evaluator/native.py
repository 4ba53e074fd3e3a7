"""The evaluator's own native code: built once per machine into the cache, checked by hash at load.

- `host_cpu.c` (gcc): the CPU candidate host's pool (poison, cache flush, input refresh, output
  snapshots) and CPU-time accounting; the verdict loads it too, to regenerate inputs.
- `gen_cuda.cu` (nvcc): the input generator on the GPU, for the cuda host and the verdict.
- small probes (peak bandwidth and FLOP rate) given as source text by the backends.

Both sides of the trust boundary must compute the same inputs from a round's seed, so the
generator lives in one header (`native/ks_gen.h`) that the C and CUDA sources include, and
`refresh_numpy` is the same function in numpy (the tests hold the three to bit equality).
A built library records its sha256 next to it; a library whose bytes changed is rebuilt, not used.
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import os
import platform
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported where used: the cpu candidate host never loads it
    import numpy as np

NATIVE_DIR = Path(__file__).resolve().parent / "native"
BUILD_TIMEOUT_S = 300

# generator kinds (ks_gen.h): element type name -> kind; integer buffers are copied unchanged
GEN_KINDS = {"f32": 0, "f64": 1, "f16": 2, "bf16": 3}
KIND_COPY = 4
# bytes per element of each buffer type (evaluator.harness.ELEMENT_TYPES, without numpy)
ELEMENT_SIZES = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2, "i32": 4, "i64": 8, "i8": 1, "u8": 1}
POISON_BYTE = 0xFF  # all-ones: a NaN in f32, f16, bf16 and f64; -1 in signed integers


class NativeBuildError(RuntimeError):
    """The evaluator's own helper does not build (a broken toolchain, not a candidate's fault)."""


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part + b"\0")
    return h.hexdigest()[:16]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def native_library(cache_dir: Path, name: str, source: str, suffix: str, command: list[str],
                   headers: tuple[Path, ...] = (), link: list[str] | None = None, identity: str = "") -> Path:
    """Build `source` (text) with `command` (the compiler and flags; source, `link` and output
    appended) into $cache/native/<name>-<digest>.so once; later calls return it after checking its
    sha256. `headers` and `identity` (e.g. the library it links) are part of the cache key."""
    link = list(link or [])
    key = _digest(name.encode(), source.encode(), " ".join(command + link).encode(), platform.machine().encode(),
                  _cpu_flags().encode(), identity.encode(), *(h.read_bytes() for h in headers))
    folder = cache_dir / "native"
    lib = folder / f"{name}-{key}.so"
    meta = folder / f"{name}-{key}.json"
    if lib.is_file() and meta.is_file():
        try:
            if json.loads(meta.read_text()).get("sha256") == _sha256(lib):
                return lib
        except (OSError, ValueError):
            pass  # a torn or altered entry: build it again
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{name}-", dir=folder) as tmp:
        src = Path(tmp) / f"{name}{suffix}"
        out = Path(tmp) / "lib.so"
        src.write_text(source)
        include = [f"-I{NATIVE_DIR}"]
        try:
            proc = subprocess.run([*command, *include, str(src), *link, "-o", str(out)], capture_output=True,
                                  text=True, timeout=BUILD_TIMEOUT_S)
        except (OSError, subprocess.SubprocessError) as exc:
            raise NativeBuildError(f"{name}: {command[0]} could not run: {exc}") from None
        if proc.returncode != 0 or not out.is_file():
            raise NativeBuildError(f"{name}: {command[0]} failed:\n{(proc.stdout + proc.stderr)[-2000:]}")
        os.replace(out, lib)
    meta_tmp = meta.with_suffix(f".{os.getpid()}.tmp")
    meta_tmp.write_text(json.dumps({"sha256": _sha256(lib), "command": command}))
    os.replace(meta_tmp, meta)
    return lib


def _cpu_flags() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return line
    except OSError:
        pass
    return ""


def host_cpu_library(cache_dir: Path) -> Path:
    source = (NATIVE_DIR / "host_cpu.c").read_text()
    # -ffp-contract=off: the generator's products must round exactly as the GPU's do
    return native_library(cache_dir, "host_cpu", source, ".c",
                          ["gcc", "-O3", "-march=native", "-ffp-contract=off", "-fPIC", "-shared", "-pthread"],
                          headers=(NATIVE_DIR / "ks_gen.h",))


def wire_stamp(cache_dir: Path) -> Callable[[int, int], int] | None:
    """`stamp(fd, timeout_ms)`: perf_counter_ns when fd turns readable, 0 on timeout (native/wire.c,
    waited on outside the interpreter lock); None where it cannot be built."""
    try:
        lib = native_library(cache_dir, "wire", (NATIVE_DIR / "wire.c").read_text(), ".c",
                             ["gcc", "-O2", "-fPIC", "-shared"])
        so = ctypes.CDLL(str(lib))
    except (NativeBuildError, OSError):
        return None
    so.ks_wait_readable.argtypes = [ctypes.c_int, ctypes.c_int]
    so.ks_wait_readable.restype = ctypes.c_longlong
    return so.ks_wait_readable


def gen_cuda_library(cache_dir: Path, cc: str) -> Path:
    source = (NATIVE_DIR / "gen_cuda.cu").read_text()
    return native_library(cache_dir, f"gen_cuda_sm{cc}", source, ".cu",
                          ["nvcc", "-O3", "-std=c++17", f"-gencode=arch=compute_{cc},code=sm_{cc}", "-shared",
                           "-Xcompiler", "-fPIC", "-fmad=false"],
                          headers=(NATIVE_DIR / "ks_gen.h",))


class CpuHelper:
    """host_cpu.so through ctypes: the pool, fills, snapshots, refreshes, CPU accounting."""

    def __init__(self, lib: Path, threads: int | None = None) -> None:
        self.lib = ctypes.CDLL(str(lib))
        self.lib.ks_pool_init.argtypes = [ctypes.c_int]
        self.lib.ks_fill.argtypes = [ctypes.c_void_p, ctypes.c_long, ctypes.c_int]
        self.lib.ks_snapshot.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long, ctypes.c_uint64]
        self.lib.ks_refresh.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long, ctypes.c_int, ctypes.c_uint64]
        self.lib.ks_other_cpu_ns.restype = ctypes.c_longlong
        self.lib.ks_now_ns.restype = ctypes.c_longlong
        n = threads or (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
        self.threads = self.lib.ks_pool_init(max(1, n))

    def fill(self, address: int, nbytes: int, byte: int) -> None:
        self.lib.ks_fill(address, nbytes, byte)

    def snapshot(self, dst: int, src: int, nbytes: int, seed: int) -> None:
        self.lib.ks_snapshot(dst, src, nbytes, seed & (2**64 - 1))

    def refresh(self, dst: int, base: int, count: int, kind: int, seed: int) -> None:
        self.lib.ks_refresh(dst, base, count, kind, seed & (2**64 - 1))

    def other_cpu_ns(self) -> int:
        return int(self.lib.ks_other_cpu_ns())

    def refresh_array(self, base: np.ndarray, type_name: str, seed: int | None) -> np.ndarray:
        """A new storage array: `base` refreshed for the round `seed` (None = an exact copy)."""
        import numpy as np

        out = np.empty_like(base)
        kind = GEN_KINDS.get(type_name, KIND_COPY) if seed is not None else KIND_COPY
        count = base.size if kind != KIND_COPY else base.nbytes
        self.refresh(out.ctypes.data, np.ascontiguousarray(base).ctypes.data, count, kind, seed or 0)
        return out


# ---- the generator in numpy (for the tests: C, CUDA and this agree bit for bit) ---------------------

def _mix(seed: int, index: np.ndarray) -> np.ndarray:
    import numpy as np

    with np.errstate(over="ignore"):
        z = np.uint64(seed & 0xFFFFFFFFFFFFFFFF) + index.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def factors_numpy(seed: int, n: int) -> np.ndarray:
    import numpy as np

    h = _mix(seed, np.arange(n, dtype=np.uint64))
    k = (h & np.uint64(0xFFFF)).astype(np.int64) - 32768
    m = (np.float32(1.0) + k.astype(np.float32) * np.float32(2.0 ** -18)).astype(np.float32)
    return np.where((h >> np.uint64(16)) & np.uint64(1), -m, m).astype(np.float32)


def refresh_numpy(base: np.ndarray, type_name: str, seed: int) -> np.ndarray:
    """refresh_array in numpy: float storage times the round's factors, rounded to the storage type."""
    import numpy as np

    from evaluator.harness import bf16_bits, bf16_values

    flat = np.ascontiguousarray(base).reshape(-1)
    f = factors_numpy(seed, flat.size)
    if type_name == "f32":
        out = flat * f
    elif type_name == "f64":
        out = flat * f.astype(np.float64)
    elif type_name == "f16":
        with np.errstate(over="ignore"):  # beyond the f16 range is inf, as in C
            out = (flat.astype(np.float32) * f).astype(np.float16)
    elif type_name == "bf16":
        out = bf16_bits(bf16_values(flat) * f)
    else:
        out = flat.copy()
    return out.reshape(base.shape)
