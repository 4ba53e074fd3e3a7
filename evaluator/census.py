"""The launch census: which GPU work the candidate host's process ran, on which stream, when.

Events on the evaluator's stream time what the call put on that stream; work it put anywhere else
(a private stream, the legacy default stream, another context) runs outside them. The census
records every kernel, memory copy and memory set of the host's process through CUPTI's Activity
API (`native/census.c`), and the host attributes each record to the call whose window (its first
operation for the call to the synchronize that closes it) holds the record's start: on the
evaluator's stream or elsewhere. Any candidate record elsewhere is `outside_stream`, on every call,
whatever its size or pattern. The span of a call's own records (first start to last end) is a
second, device-side clock beside its events.

The library is built on the machine that runs it, with that machine's CUPTI headers (the record
structures change between CUPTI versions; `record_types` reads which one each kind uses), and
checked by hash like every native helper. Where no CUPTI is found, it does not build or does not
start (no driver, a device CUPTI refuses), the evaluation runs without it and says so
("no launch census: ...").

Standard library only (ctypes): the candidate host imports this.
"""
from __future__ import annotations

import ctypes
import glob
import itertools
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

NAME_BYTES = 48
WHAT_BYTES = 200
# the activity kinds the census enables, and the record structure each needs from the header
KINDS = {"KS_KERNEL_T": "CONCURRENT_KERNEL", "KS_MEMCPY_T": "MEMCPY", "KS_MEMSET_T": "MEMSET",
         "KS_PEER_T": "MEMCPY2"}


class CensusUnavailable(RuntimeError):
    """Why this machine has no launch census (one line, for the report)."""


@dataclass(frozen=True)
class Cupti:
    """Where CUPTI is: its headers, the CUDA headers they include, its library."""

    include: Path
    cuda_include: Path
    library: Path


def cuda_roots(env: dict[str, str] | None = None) -> Iterator[Path]:
    """Folders that may hold a CUDA toolkit, most specific first (lazily: the costly ones last):
    CUDA_HOME / CUDA_PATH, the toolkit nvcc belongs to (through a wrapper script too, by asking
    it), the usual install places."""
    env = os.environ if env is None else env
    seen: set[Path] = set()

    def fresh(p: Path) -> bool:
        if p in seen:
            return False
        seen.add(p)
        return True
    for key in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
        if env.get(key) and fresh(Path(env[key])):
            yield Path(env[key])
    nvcc = shutil.which("nvcc", path=env.get("PATH"))
    if nvcc and fresh(Path(os.path.realpath(nvcc)).parent.parent):
        yield Path(os.path.realpath(nvcc)).parent.parent
    if nvcc:
        top = _nvcc_top(nvcc)
        if top is not None and fresh(top):
            yield top
    for p in [Path("/usr/local/cuda")] + [Path(p) for p in sorted(glob.glob("/usr/local/cuda-*"), reverse=True)] \
            + [Path("/opt/cuda"), Path("/usr")]:
        if fresh(p):
            yield p


def _nvcc_top(nvcc: str) -> Path | None:
    """The toolkit folder nvcc reports (`nvcc -dryrun` prints TOP=...): finds it behind a wrapper."""
    try:
        proc = subprocess.run([nvcc, "-dryrun", "-c", "-x", "cu", os.devnull, "-o", os.devnull],
                              capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"^#\$ TOP=(.+)$", proc.stdout + proc.stderr, re.M)
    return Path(os.path.realpath(m.group(1).strip())) if m else None


def _pip_roots() -> list[Path]:
    """CUPTI from pip wheels (nvidia-cuda-cupti-cuXX: site-packages/nvidia/cuda_cupti, or the
    CUDA 13 layout nvidia/cu13)."""
    out = []
    for base in sys.path:
        for sub in ("nvidia/cuda_cupti", "nvidia/cu13", "nvidia/cu12"):
            p = Path(base) / sub
            if p.is_dir():
                out.append(p)
    return out


INCLUDES = ("include", "extras/CUPTI/include", "targets/x86_64-linux/include", "targets/sbsa-linux/include")
LIBDIRS = ("lib64", "lib", "extras/CUPTI/lib64", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib",
           "lib/x86_64-linux-gnu")


def find_cupti(env: dict[str, str] | None = None) -> Cupti:
    """The first CUPTI with both its header and its library (and cuda.h beside it, or in a
    toolkit); CensusUnavailable lists where it looked."""
    looked: list[str] = []
    for root in itertools.chain(cuda_roots(env), _pip_roots()):
        looked.append(str(root))
        inc = next((root / i for i in INCLUDES if (root / i / "cupti.h").is_file()), None)
        lib = next((lib for d in LIBDIRS for lib in _cupti_libs(root / d)), None)
        if inc is None or lib is None:
            continue
        cuda_inc = inc if (inc / "cuda.h").is_file() else next(
            (r / i for r in cuda_roots(env) for i in INCLUDES if (r / i / "cuda.h").is_file()), None)
        if cuda_inc is not None:
            return Cupti(inc, cuda_inc, lib)
    raise CensusUnavailable(f"CUPTI (cupti.h and libcupti.so) not found under {', '.join(looked[:8])}")


def _cupti_libs(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    plain = folder / "libcupti.so"
    if plain.exists():
        return [Path(os.path.realpath(plain))]
    return sorted((Path(p) for p in glob.glob(str(folder / "libcupti.so.*"))), key=lambda p: len(p.name))


def record_types(header_text: str) -> dict[str, str]:
    """The record structure each activity kind uses, as cupti_activity.h documents it (the comment
    above `CUPTI_ACTIVITY_KIND_<KIND> =` names it: `\\ref CUpti_ActivityKernel10`)."""
    out = {}
    for macro, kind in KINDS.items():
        m = re.search(r"/\*\*((?:(?!\*/).)*?)\*/\s*CUPTI_ACTIVITY_KIND_" + kind + r"\s*=", header_text, re.S)
        refs = re.findall(r"\\ref[\s*]+(CUpti_Activity\w+)", m.group(1)) if m else []
        if not refs:
            raise CensusUnavailable(f"cupti_activity.h does not say which record CUPTI_ACTIVITY_KIND_{kind} uses")
        out[macro] = refs[-1]
    return out


def census_library(cache_dir: Path, env: dict[str, str] | None = None) -> Path:
    """Build (once per machine and CUPTI) the census library; CensusUnavailable when it cannot be."""
    from evaluator.native import NATIVE_DIR, NativeBuildError, native_library

    cupti = find_cupti(env)
    header = cupti.include / "cupti_activity.h"
    try:
        types = record_types(header.read_text(errors="replace"))
    except OSError as exc:
        raise CensusUnavailable(f"cannot read {header}: {exc}") from None
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        raise CensusUnavailable("no C compiler (gcc) to build the census with")
    command = [compiler, "-O2", "-std=gnu11", "-fPIC", "-shared", "-pthread", f"-I{cupti.include}",
               f"-I{cupti.cuda_include}", *(f"-D{k}={v}" for k, v in sorted(types.items()))]
    link = [str(cupti.library), f"-Wl,-rpath,{cupti.library.parent}"]
    try:
        return native_library(cache_dir, "census", (NATIVE_DIR / "census.c").read_text(), ".c", command,
                              headers=(header,), link=link, identity=str(cupti.library))
    except NativeBuildError as exc:
        raise CensusUnavailable(f"the census does not build against {cupti.include}: {exc}") from None


# ---- in the host -------------------------------------------------------------------------------------

@dataclass
class Window:
    """One call's census window (CUPTI ns) and how many of the evaluator's own operations open
    (head) and close (tail) it on the evaluator's stream."""

    start: int
    end: int = 0
    head: int = 0
    tail: int = 0


@dataclass
class Attribution:
    """What the census saw over one request's calls."""

    on: list[int]  # records on the evaluator's stream, per call (the evaluator's own included)
    off: list[int]  # records anywhere else, per call
    span_ms: list[float]  # the call's own work, first start to last end (0: none, or not attributable)
    stray_off: int = 0  # off-stream records outside every call window
    dropped: int = 0  # records CUPTI or the census lost since the last request (then absence proves nothing)
    short: int = 0  # calls with fewer of the evaluator's own records than it made (records late or lost)
    what: str = ""  # the first off-stream record, in words
    cost_ms: float = 0.0  # the host's time flushing and attributing

    def to_reply(self) -> dict[str, object]:
        return {"census_on": self.on, "census_off": self.off, "census_span_ms": self.span_ms,
                "census_stray": self.stray_off, "census_dropped": self.dropped, "census_what": self.what[:WHAT_BYTES],
                "census_short": self.short, "census_ms": self.cost_ms}


@dataclass
class Census:
    """The census library in this process, bound to the evaluator's context and stream."""

    lib: ctypes.CDLL
    context_id: int = 0
    stream_id: int = 0
    dropped_seen: int = 0
    note: str = ""
    windows: list[Window] = field(default_factory=list)

    @classmethod
    def start(cls, path: str) -> Census:
        """Load and start it, before this process creates a CUDA context (so nothing escapes it)."""
        census = cls.load(path)
        rc = census.lib.ks_census_start()
        if rc != 0:
            raise CensusUnavailable(f"CUPTI refused the activity API: "
                                    f"{census.lib.ks_census_error(rc).decode(errors='replace')}")
        return census

    @classmethod
    def load(cls, path: str) -> Census:
        """The library, not started (tests inject records into it)."""
        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            raise CensusUnavailable(f"cannot load the census library: {exc}") from None
        lib.ks_census_start.restype = ctypes.c_int
        lib.ks_census_error.restype = ctypes.c_char_p
        lib.ks_census_error.argtypes = [ctypes.c_int]
        lib.ks_census_ids.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint32),
                                      ctypes.POINTER(ctypes.c_uint32)]
        lib.ks_census_now.restype = ctypes.c_uint64
        lib.ks_census_dropped.restype = ctypes.c_uint64
        lib.ks_census_pending.restype = ctypes.c_uint64
        u64p, intp = ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_int)
        lib.ks_census_attribute.argtypes = [ctypes.c_int, u64p, u64p, intp, intp, ctypes.c_uint32, ctypes.c_uint32,
                                            intp, intp, u64p, u64p, intp, intp, ctypes.c_char_p, ctypes.c_int]
        lib.ks_census_inject.argtypes = [ctypes.c_int, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint64,
                                         ctypes.c_uint64, ctypes.c_uint64, ctypes.c_char_p]
        return cls(lib)

    def inject(self, kind: str, context: int, stream: int, start: int, end: int, nbytes: int = 0,
               name: str = "") -> None:
        """A record as CUPTI would deliver it (tests: the attribution needs no GPU)."""
        self.lib.ks_census_inject({"kernel": 0, "memcpy": 1, "memset": 2}[kind], context, stream, start, end, nbytes,
                                  name.encode())

    def bind(self, context: int, stream: int) -> None:
        ctx, st = ctypes.c_uint32(0), ctypes.c_uint32(0)
        rc = self.lib.ks_census_ids(ctypes.c_void_p(context), ctypes.c_void_p(stream), ctypes.byref(ctx),
                                    ctypes.byref(st))
        if rc != 0:
            raise CensusUnavailable(f"CUPTI does not know the evaluator's stream: "
                                    f"{self.lib.ks_census_error(rc).decode(errors='replace')}")
        self.context_id, self.stream_id = ctx.value, st.value

    def now(self) -> int:
        return int(self.lib.ks_census_now())

    def open(self, head: int, start: int | None = None) -> None:
        """A call's window starts now (or at `start`, taken earlier); `head` of the evaluator's own
        operations come first in it."""
        self.windows.append(Window(start or self.now(), head=head))

    def close(self, tail: int) -> None:
        """The call's window ends here (after its synchronize); `tail` own operations ended it."""
        w = self.windows[-1]
        w.end, w.tail = self.now(), tail

    def attribute(self) -> Attribution:
        """Flush CUPTI's buffers and attribute every record since the last request to the windows
        opened since then (which are then forgotten)."""
        t0 = time.perf_counter()
        windows, self.windows = self.windows, []
        self.lib.ks_census_flush()
        n = len(windows)
        u64, i32 = ctypes.c_uint64 * max(1, n), ctypes.c_int * max(1, n)
        starts, ends = u64(*[w.start for w in windows]), u64(*[w.end or w.start for w in windows])
        head, tail = i32(*[w.head for w in windows]), i32(*[w.tail for w in windows])
        on, off, s0, s1 = i32(), i32(), u64(), u64()
        stray_off, stray_on = ctypes.c_int(0), ctypes.c_int(0)
        what = ctypes.create_string_buffer(WHAT_BYTES)
        self.lib.ks_census_attribute(n, starts, ends, head, tail, self.context_id, self.stream_id, on, off, s0, s1,
                                     ctypes.byref(stray_off), ctypes.byref(stray_on), what, WHAT_BYTES)
        dropped = int(self.lib.ks_census_dropped())
        lost, self.dropped_seen = dropped - self.dropped_seen, dropped
        spans = [(s1[i] - s0[i]) / 1e6 if s0[i] and s1[i] >= s0[i] else 0.0 for i in range(n)]
        short = sum(1 for i, w in enumerate(windows) if on[i] < w.head + w.tail)
        return Attribution(list(on)[:n], list(off)[:n], spans, stray_off.value, lost, short,
                           what.value.decode("utf-8", "replace"), (time.perf_counter() - t0) * 1e3)

    def wait_for_records(self, at_least: int, timeout_s: float = 0.5) -> None:
        """Flush until `at_least` records are in (CUPTI may hand over the last ones a moment after
        the synchronize that completed them); for the self-test, not for every request."""
        deadline = time.monotonic() + timeout_s
        while True:
            self.lib.ks_census_flush()
            if int(self.lib.ks_census_pending()) >= at_least or time.monotonic() > deadline:
                return
            time.sleep(0.01)
