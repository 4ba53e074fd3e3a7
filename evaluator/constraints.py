"""Constraint checks on a candidate: its source, its flags, and the binary that was built.

What is checked: include targets written in the source and every file the preprocessor actually
included (so a macro cannot hide a banned header), banned patterns in the source with comments
removed, flags from `// kernelseek-flags:` lines against an allow-list, the shared libraries the
binary needs (DT_NEEDED) against an allow-list, its host symbols (defined and undefined,
demangled) and, for cuda, its device-code symbols. Each hit is one `Violation` naming the thing.
"""
from __future__ import annotations

import fnmatch
import os
import re
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path

from evaluator.build import BuildResult
from evaluator.task import Constraints

INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]', re.MULTILINE)
_COMMENT_OR_STRING = re.compile(
    r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.DOTALL)


@dataclass(frozen=True)
class Violation:
    kind: str  # include | source | flag | library | symbol | device_symbol | entry
    name: str
    rule: str
    detail: str = ""

    def __str__(self) -> str:
        text = f"{self.kind} {self.name!r}"
        if self.rule:
            text += f" (rule {self.rule!r})"
        return text + (f": {self.detail}" if self.detail else "")

    def to_json(self) -> dict:
        return asdict(self)


def strip_comments(text: str) -> str:
    """Source text with comments removed (string literals kept, line numbers kept)."""
    def keep(match: re.Match[str]) -> str:
        s = match.group(0)
        if s.startswith("/"):
            return "\n" * s.count("\n") if s.startswith("/*") else ""
        return s
    return _COMMENT_OR_STRING.sub(keep, text)


def _first(patterns: tuple[str, ...], text: str) -> str | None:
    for rx in patterns:
        if re.search(rx, text):
            return rx
    return None


def check_source(text: str, flags: list[str], includes: list[str], rules: Constraints) -> list[Violation]:
    """Includes (written and actually included), banned source patterns, and flags."""
    found: list[Violation] = []
    code = strip_comments(text)
    for match in INCLUDE_RE.finditer(code):
        target = match.group(1)
        rule = _first(rules.banned_includes, target)
        if rule:
            line = code.count("\n", 0, match.start()) + 1
            found.append(Violation("include", target, rule, f"line {line}"))
    written = {v.name for v in found}
    for path in includes:
        rule = _first(rules.banned_includes, path)
        if rule and not any(path.endswith(w) for w in written):
            found.append(Violation("include", path, rule, "included through the preprocessor"))
    for rx in rules.banned_source:
        match = re.search(rx, code)
        if match:
            line = code.count("\n", 0, match.start()) + 1
            found.append(Violation("source", match.group(0).strip(), rx, f"line {line}"))
    for flag in flags:
        if not any(re.fullmatch(rx, flag) for rx in rules.allowed_flags):
            found.append(Violation("flag", flag, "", "not in allowed_flags"))
    return found


def needed_libraries(lib: Path) -> list[str]:
    """DT_NEEDED entries of a shared library (readelf -d)."""
    out = _run(["readelf", "-dW", str(lib)])
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def host_symbols(lib: Path) -> tuple[set[str], set[str]]:
    """(defined, undefined) symbol names of a shared library, demangled, versions stripped."""
    defined: set[str] = set()
    undefined: set[str] = set()
    for args in (["nm", "-C", "-D"], ["nm", "-C"]):
        for line in _run([*args, str(lib)]).splitlines():
            parts = line.split(maxsplit=2)
            if len(parts) == 2 and parts[0] in ("U", "w", "v"):
                undefined.add(parts[1].split("@", 1)[0])
            elif len(parts) == 3 and len(parts[1]) == 1:
                (undefined if parts[1] in "Uwv" else defined).add(parts[2].split("@", 1)[0])
    return defined, undefined


def exported_functions(lib: Path) -> set[str]:
    """Names of functions a shared library exports (what ctypes can find)."""
    names = set()
    for line in _run(["nm", "-D", "--defined-only", str(lib)]).splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TtWiu":
            names.add(parts[2].split("@", 1)[0])
    return names


def check_binary(build: BuildResult, rules: Constraints) -> list[Violation]:
    """Linked libraries against the allow-list; host and device symbols against banned patterns."""
    lib = Path(build.lib or "")
    found: list[Violation] = []
    for needed in needed_libraries(lib):
        if not any(fnmatch.fnmatchcase(needed, pattern) for pattern in rules.allowed_libraries):
            found.append(Violation("library", needed, "", "not in allowed_libraries"))
    defined, undefined = host_symbols(lib)
    for kind, names in (("symbol", sorted(undefined | defined)), ("device_symbol", build.device_symbols)):
        for name in names:
            rule = _first(rules.banned_symbols, name)
            if rule:
                where = "undefined (called)" if name in undefined else "defined"
                found.append(Violation(kind, name, rule, where if kind == "symbol" else "device code"))
    return found


def _run(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


# libraries a CUDA runtime may map on its own once a kernel runs (the driver's helpers)
CUDA_RUNTIME_LIBRARIES = ("libcuda.so*", "libnvidia-*.so*", "libcudadebugger.so*")
WRITABLE_ROOTS = ("/tmp", "/dev/shm", "/var/tmp", "/run")


def runtime_library_violations(paths: list[str], rules: Constraints, own: list[str], backend: str,
                               writable: tuple[str, ...] = ()) -> list[Violation]:
    """Code the host mapped beyond what the verdict built and checked: each path must be one of the
    libraries it built (`own`), or an allowed library by name that lies outside every place a
    candidate can write (a copy of libm.so.6 in its scratch directory is not libm)."""
    own_real = {os.path.realpath(p) for p in own}
    allowed = tuple(rules.allowed_libraries) + (CUDA_RUNTIME_LIBRARIES if backend == "cuda" else ())
    roots = WRITABLE_ROOTS + tuple(writable)
    out = []
    for path in paths:
        if os.path.realpath(path) in own_real:
            continue
        name = os.path.basename(path)
        written = (not path.startswith("/") or path.startswith("/memfd:") or path.endswith("(deleted)")
                   or any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots))
        if not written and any(fnmatch.fnmatch(name, pat) for pat in allowed):
            continue
        out.append(Violation("library", path, "", "mapped at run time (loaded by the candidate's code, not "
                                                  "linked; or from a place the candidate can write)"))
    return out
