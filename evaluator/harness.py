"""What a task's harness.py returns, the element types of kernel buffers, and harness loading.

A harness builds a `Case` for a scenario: numpy input values, output shapes, scalar parameters.
The evaluator turns the values into each buffer's storage type (bf16 by round-to-nearest-even)
and hands the harness's reference exactly the values the kernel sees.
"""
from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from evaluator.errors import TaskError


@dataclass(frozen=True)
class ElementType:
    """One buffer element type: its name in task.yaml, numpy storage, and numpy value type."""

    name: str
    storage: np.dtype
    values: np.dtype
    is_float: bool

    @property
    def size(self) -> int:
        return self.storage.itemsize


ELEMENT_TYPES: dict[str, ElementType] = {
    t.name: t
    for t in (
        ElementType("f32", np.dtype(np.float32), np.dtype(np.float32), True),
        ElementType("f64", np.dtype(np.float64), np.dtype(np.float64), True),
        ElementType("f16", np.dtype(np.float16), np.dtype(np.float32), True),
        ElementType("bf16", np.dtype(np.uint16), np.dtype(np.float32), True),
        ElementType("i32", np.dtype(np.int32), np.dtype(np.int32), False),
        ElementType("i64", np.dtype(np.int64), np.dtype(np.int64), False),
        ElementType("i8", np.dtype(np.int8), np.dtype(np.int8), False),
        ElementType("u8", np.dtype(np.uint8), np.dtype(np.uint8), False),
    )
}



def bf16_bits(values: np.ndarray) -> np.ndarray:
    """float values -> bf16 bit patterns (uint16), round to nearest even; NaN stays NaN."""
    f = np.ascontiguousarray(values, dtype=np.float32)
    u = f.view(np.uint32)
    rounded = ((u + (((u >> 16) & 1) + 0x7FFF)) >> 16).astype(np.uint16)
    nan = np.isnan(f)
    if nan.any():
        rounded[nan] = 0x7FC0
    return rounded


def bf16_values(bits: np.ndarray) -> np.ndarray:
    """bf16 bit patterns (uint16) -> float32 values."""
    return (np.ascontiguousarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def to_storage(values: np.ndarray, etype: ElementType, what: str) -> np.ndarray:
    """Harness values -> the C-contiguous storage array a kernel reads."""
    values = np.asarray(values)
    if etype.is_float:
        if not np.issubdtype(values.dtype, np.floating):
            raise TaskError(f"{what}: expected float values for a {etype.name} buffer, got {values.dtype}")
        if etype.name == "bf16":
            return bf16_bits(values)
        return np.ascontiguousarray(values, dtype=etype.storage)
    if not np.issubdtype(values.dtype, np.integer):
        raise TaskError(f"{what}: expected integer values for a {etype.name} buffer, got {values.dtype}")
    info = np.iinfo(etype.storage)
    if values.size and (values.min() < info.min or values.max() > info.max):
        raise TaskError(f"{what}: values out of range for {etype.name}")
    return np.ascontiguousarray(values, dtype=etype.storage)


def to_values(storage: np.ndarray, etype: ElementType) -> np.ndarray:
    """Storage array -> the values it holds (float32 for bf16/f16, else the storage type)."""
    if etype.name == "bf16":
        return bf16_values(storage)
    return storage.astype(etype.values, copy=False)


def poison_mask(storage: np.ndarray) -> np.ndarray:
    """True where an element still holds the poison pattern (all bytes 0xFF)."""
    unsigned = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[storage.dtype.itemsize]
    return storage.view(unsigned) == np.iinfo(unsigned).max


@dataclass
class Case:
    """One scenario's inputs, as a harness makes them.

    inputs: values for every `in` field (floats for float buffers, integers for integer ones).
    outputs: the shape of every `out` field.
    scalars: the value of every `scalar` field.
    masks: optional, per output: a bool array; False elements need not be written, are not compared.
    """

    inputs: dict[str, np.ndarray]
    outputs: dict[str, tuple[int, ...]]
    scalars: dict[str, int | float]
    masks: dict[str, np.ndarray] = field(default_factory=dict)


REQUIRED_FUNCTIONS = ("make_case", "flops", "bytes_moved", "reference")


def load_harness(path: Path, module_name: str) -> ModuleType:
    """Import a task's harness.py under a private module name; check the functions it must have."""
    if not path.is_file():
        raise TaskError(f"{path}: harness.py not found")
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # a broken harness is a broken task
        sys.modules.pop(module_name, None)
        raise TaskError(f"{path}: cannot import: {type(exc).__name__}: {exc}") from None
    missing = [name for name in REQUIRED_FUNCTIONS if not callable(getattr(module, name, None))]
    if missing:
        raise TaskError(f"{path}: missing function(s): {', '.join(missing)}")
    return module


def describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
