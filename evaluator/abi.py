"""The C ABI: the task's params struct as a ctypes Structure, and a check against the C header.

Every field is either a pointer (`in`/`out` buffers) or a scalar; ctypes lays the struct out with
natural C alignment, which is what the header's compiler does without `#pragma pack`.
`check_header` compiles a small program with the backend's compiler that prints the struct's size
and each field's offset, so a header and task.yaml that disagree are caught before any call.
"""
from __future__ import annotations

import ctypes
import subprocess
import tempfile
from pathlib import Path

from evaluator.task import ParamField, Task

SCALAR_CTYPES: dict[str, type] = {
    "i32": ctypes.c_int32, "i64": ctypes.c_int64, "u32": ctypes.c_uint32, "u64": ctypes.c_uint64,
    "f32": ctypes.c_float, "f64": ctypes.c_double,
}


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
