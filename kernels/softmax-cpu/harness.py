"""softmax-cpu harness: random rows, byte and FLOP counts, a float64 numpy reference."""
from __future__ import annotations

import numpy as np

from evaluator.harness import Case


def make_case(scenario: dict, rng: np.random.Generator) -> Case:
    rows, cols = int(scenario["rows"]), int(scenario["cols"])
    # a spread of logits (scale 3) so the max subtraction and the sum both matter
    x = (rng.standard_normal((rows, cols), dtype=np.float32) * np.float32(3.0))
    return Case(inputs={"x": x}, outputs={"y": (rows, cols)}, scalars={"rows": rows, "cols": cols})


def flops(scenario: dict) -> float:
    # max, subtract, exp (counted as 1), add, divide: about 5 per element
    return 5.0 * scenario["rows"] * scenario["cols"]


def bytes_moved(scenario: dict) -> float:
    return 2.0 * 4 * scenario["rows"] * scenario["cols"]  # read x once, write y once


def reference(case: Case) -> dict[str, np.ndarray]:
    x = case.inputs["x"].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"y": e / e.sum(axis=1, keepdims=True)}
