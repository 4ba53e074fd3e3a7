"""The C ABI: the params struct's fields, as a ctypes Structure, loading an entry, and a check of
the struct against the C header. (Standard library only: the candidate host imports this.)

Every field is either a pointer (`in`/`out` buffers) or a scalar; ctypes lays the struct out with
natural C alignment, which is what the header's compiler does without `#pragma pack`.
`check_header` compiles a small program with the backend's compiler that prints the struct's size
and each field's offset, so a header and task.yaml that disagree are caught before any call.
"""
from __future__ import annotations

import ctypes
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evaluator.task import Task

SCALAR_CTYPES: dict[str, type] = {
    "i32": ctypes.c_int32, "i64": ctypes.c_int64, "u32": ctypes.c_uint32, "u64": ctypes.c_uint64,
    "f32": ctypes.c_float, "f64": ctypes.c_double,
}


@dataclass(frozen=True)
class ParamField:
    """One field of the task's params struct: a pointer to an input or output buffer, or a scalar."""

    name: str
    kind: str  # "in" | "out" | "scalar"
    dtype: str  # an element type name for buffers, a SCALAR_CTYPES key for scalars
    refresh: bool = True  # inputs: new values each timed round from the evaluator's generator


def load_symbol(lib: str, entry: str) -> Callable[..., int]:
    """The entry of a shared library as a ctypes function `int entry(const Params*, void*)`."""
    handle = ctypes.CDLL(lib, mode=ctypes.RTLD_LOCAL)
    fn = getattr(handle, entry)
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    fn._ks_lib = handle  # keep the library loaded as long as the function lives
    return fn


def params_struct(fields: tuple[ParamField, ...], name: str = "Params") -> type[ctypes.Structure]:
    """A ctypes Structure with the task's fields in order."""
    layout = [(f.name, ctypes.c_void_p if f.kind != "scalar" else SCALAR_CTYPES[f.dtype]) for f in fields]
    return type(name, (ctypes.Structure,), {"_fields_": layout})


def layout(fields: tuple[ParamField, ...]) -> dict[str, int]:
    """{'sizeof': n, field: offset, ...} as ctypes lays the struct out."""
    struct = params_struct(fields)
    out = {"sizeof": ctypes.sizeof(struct)}
    out.update({f.name: getattr(struct, f.name).offset for f in fields})
    return out


def check_header(task: Task, timeout_s: float = 120) -> list[str]:
    """Mismatches between the header's struct and task.yaml's params (empty = they agree)."""
    lines = ["#include <stddef.h>", "#include <stdio.h>", f'#include "{task.header.name}"',
             "int main(void) {",
             f'  printf("sizeof %zu\\n", sizeof({task.struct}));']
    lines += [f'  printf("{f.name} %zu\\n", offsetof({task.struct}, {f.name}));' for f in task.params]
    lines += ["  return 0;", "}"]
    with tempfile.TemporaryDirectory(prefix="ks-abi-") as tmp:
        suffix = ".cu" if task.backend == "cuda" else ".c"
        src, exe = Path(tmp) / f"abi{suffix}", Path(tmp) / "abi"
        src.write_text("\n".join(lines) + "\n")
        compiler = ["nvcc"] if task.backend == "cuda" else ["gcc", "-std=gnu11"]
        proc = subprocess.run([*compiler, "-I", str(task.dir), str(src), "-o", str(exe)],
                              capture_output=True, text=True, timeout=timeout_s)
        if proc.returncode != 0:
            return [f"the header does not compile with these fields: {(proc.stdout + proc.stderr).strip()[-2000:]}"]
        out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=timeout_s).stdout
    got = {k: int(v) for k, v in (line.split() for line in out.splitlines() if line.strip())}
    want = layout(task.params)
    return [f"{key}: header says {got.get(key)}, task.yaml gives {want[key]}"
            for key in want if got.get(key) != want[key]]
