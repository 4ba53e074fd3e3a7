"""Builds: one source file into a shared library with gcc (cpu) or nvcc (cuda), cached by content.

The cache key covers the compiler's version, the command, the source, and every header in the
task folder, so a rebuild happens exactly when something that could change the binary changed.
Failed builds are cached too (their log is what the agent needs). A build also records what the
constraint check reads later: the files the preprocessor included, and for cuda the device-code
symbols of the cubins nvcc kept.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from evaluator.task import Task

FLAGS_LINE = re.compile(r"^[ \t]*//[ \t]*kernelseek-flags:(.*)$", re.MULTILINE)
HEADER_SUFFIXES = (".h", ".hpp", ".cuh", ".hh", ".inc")
BUILD_TIMEOUT_S = 300
LOG_LIMIT = 20_000


def default_cache_dir() -> Path:
    env = os.environ.get("KERNELSEEK_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kernelseek"


@dataclass
class BuildResult:
    """One build: the library (when ok), the command, the compiler's output, what it included."""

    ok: bool
    source: str
    lib: str | None
    command: list[str]
    log: str
    seconds: float
    cached: bool
    flags: list[str] = field(default_factory=list)
    includes: list[str] = field(default_factory=list)
    device_symbols: list[str] = field(default_factory=list)
    key: str = ""
    lib_sha256: str = ""  # the library's bytes when it was built: a cached one must still match

    def to_json(self, with_log: bool = True) -> dict:
        data = asdict(self)
        data.pop("device_symbols")
        data.pop("includes")
        data.pop("lib_sha256")
        data["command"] = shlex.join(self.command)
        if not with_log:
            data.pop("log")
        return data


def source_flags(text: str) -> list[str]:
    """Extra compiler flags a source asks for on `// kernelseek-flags: ...` lines."""
    flags: list[str] = []
    for match in FLAGS_LINE.finditer(text):
        try:
            flags.extend(shlex.split(match.group(1)))
        except ValueError:
            flags.extend(match.group(1).split())
    return flags


@functools.lru_cache(maxsize=None)
def compiler_identity(compiler: str) -> str:
    """The compiler's version text (part of every cache key); empty when it is missing."""
    exe = shutil.which(compiler)
    if not exe:
        return ""
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    return f"{exe}\n{out.strip()}"


@functools.lru_cache(maxsize=1)
def _host_identity() -> str:
    """What -march=native depends on: the CPU model and its flags."""
    model = flags = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name") and not model:
                model = line.split(":", 1)[1].strip()
            elif line.startswith("flags") and not flags:
                flags = line.split(":", 1)[1].strip()
    except OSError:
        pass
    return f"{platform.machine()}|{model}|{hashlib.sha1(flags.encode()).hexdigest()}"


def compile_command(task: Task, source: Path, out: Path, keep_dir: Path, deps: Path,
                    extra: list[str]) -> list[str]:
    """The exact command for one source (docs/evaluator.md, Build flags)."""
    include = ["-I", str(task.dir)]
    if task.backend == "cuda":
        arch = task.arch.removeprefix("sm_")
        return [
            "nvcc", "-O3", "-std=c++17", f"-gencode=arch=compute_{arch},code=sm_{arch}",
            "-shared", "-Xcompiler", "-fPIC", "-lineinfo", *include,
            "-keep", "-keep-dir", str(keep_dir), "-MD", "-MF", str(deps),
            str(source), *extra, "-o", str(out),
        ]
    cxx = source.suffix in (".cc", ".cpp", ".cxx")
    return [
        "g++" if cxx else "gcc", "-O3", "-march=native", "-fopenmp", "-fPIC", "-shared",
        "-std=gnu++17" if cxx else "-std=gnu11", *include, "-MD", "-MF", str(deps),
        str(source), *extra, "-o", str(out),
    ]


def build(task: Task, source: Path, cache_dir: Path | None = None,
          timeout_s: float = BUILD_TIMEOUT_S) -> BuildResult:
    """Build `source` for `task` into a cached shared library (or return the cached result)."""
    cache = (cache_dir or default_cache_dir()) / "build"
    source = Path(source).resolve()
    text = source.read_bytes()
    extra = source_flags(text.decode("utf-8", "replace"))
    placeholder = compile_command(task, source, Path("OUT"), Path("KEEP"), Path("DEPS"), extra)
    compiler = placeholder[0]
    h = hashlib.sha256()
    for part in (compiler_identity(compiler), compiler_identity("gcc"), shlex.join(placeholder),
                 _host_identity() if task.backend == "cpu" else task.arch):
        h.update(part.encode() + b"\0")
    h.update(text + b"\0")
    for header in sorted(p for p in task.dir.iterdir() if p.suffix in HEADER_SUFFIXES):
        h.update(header.name.encode() + b"\0" + header.read_bytes() + b"\0")
    key = h.hexdigest()[:24]
    final = cache / key
    meta_path = final / "build.json"
    if meta_path.is_file():
        try:
            result = BuildResult(**json.loads(meta_path.read_text()))
            if not result.ok or (result.lib and Path(result.lib).is_file() and result.lib_sha256
                                 and file_sha256(Path(result.lib)) == result.lib_sha256):
                result.cached, result.seconds = True, 0.0
                return result
        except (OSError, ValueError, TypeError):
            pass  # a torn or stale entry: rebuild over it
        # a library whose bytes changed since it was built is never used: build again beside it
        _discard(final)

    cache.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".tmp-{key}-", dir=cache))
    keep = work / "keep"
    keep.mkdir()
    lib = work / "lib.so"
    cmd = compile_command(task, source, lib, keep, work / "deps.d", extra)
    t0 = time.perf_counter()
    if not compiler_identity(compiler):
        ok, log = False, f"{compiler}: not found on PATH"
    else:
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, cwd=work)
            ok, log = proc.returncode == 0 and lib.is_file(), (proc.stdout + proc.stderr)
            if proc.returncode != 0:
                log += f"\n[{compiler} exited with {proc.returncode}]"
        except subprocess.TimeoutExpired as exc:
            ok, log = False, f"{_text(exc.stdout)}{_text(exc.stderr)}\n[{compiler} ran past {timeout_s:.0f} s]"
    seconds = time.perf_counter() - t0
    if len(log) > LOG_LIMIT:
        log = log[:LOG_LIMIT // 2] + "\n[... cut ...]\n" + log[-LOG_LIMIT // 2:]
    result = BuildResult(
        ok=ok, source=str(source), lib=str(final / "lib.so") if ok else None, command=cmd,
        log=log.strip(), seconds=round(seconds, 3), cached=False, flags=extra,
        includes=_read_deps(work / "deps.d", source) if ok else [],
        device_symbols=_device_symbols(keep) if ok and task.backend == "cuda" else [],
        key=key,
    )
    shutil.rmtree(keep, ignore_errors=True)
    if ok:
        result.lib_sha256 = file_sha256(lib)
    (work / "build.json").write_text(json.dumps(asdict(result)))
    try:
        os.rename(work, final)
    except OSError:  # another process built the same key first: theirs is as good
        shutil.rmtree(work, ignore_errors=True)
    return result


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _discard(entry: Path) -> None:
    """Move a stale or altered cache entry out of the way (renamed first: another evaluation may
    be reading it)."""
    try:
        os.rename(entry, entry.with_name(f".stale-{entry.name}-{os.getpid()}-{time.monotonic_ns()}"))
    except OSError:
        return
    for old in entry.parent.glob(f".stale-{entry.name}-*"):
        shutil.rmtree(old, ignore_errors=True)


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode("utf-8", "replace")


def _read_deps(deps: Path, source: Path) -> list[str]:
    """Paths from a make-style dependency file, the source itself left out."""
    try:
        text = deps.read_text()
    except OSError:
        return []
    body = text.replace("\\\n", " ").split(":", 1)[-1]
    paths = []
    for token in body.split():
        path = os.path.normpath(token)
        if path != str(source) and path not in paths:
            paths.append(path)
    return paths


def _device_symbols(keep: Path) -> list[str]:
    """Function and object symbols of the cubins nvcc kept, demangled."""
    names: list[str] = []
    for cubin in sorted(keep.glob("*.cubin")):
        try:
            out = subprocess.run(["readelf", "-sW", str(cubin)], capture_output=True, text=True,
                                 timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        for line in out.splitlines():
            parts = line.split()
            if len(parts) >= 8 and parts[3] in ("FUNC", "OBJECT"):
                # a local callee shows as $caller$callee: keep each name
                names.extend(n for n in parts[-1].split("$") if n and n not in names)
    return demangle(names)


def demangle(names: list[str]) -> list[str]:
    """C++ names demangled by c++filt (unchanged when it is missing)."""
    if not names or not shutil.which("c++filt"):
        return names
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True,
                             timeout=60).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return names
    return out if len(out) == len(names) else names
