"""rmsnorm-cuda harness: random rows and weights, byte and FLOP counts, a float64 reference,
and torch's rms_norm as an optional upstream baseline."""
from __future__ import annotations

import numpy as np

from evaluator.harness import Case


def make_case(scenario: dict, rng: np.random.Generator) -> Case:
    rows, cols = int(scenario["rows"]), int(scenario["cols"])
    x = rng.standard_normal((rows, cols), dtype=np.float32)
    w = rng.uniform(0.5, 1.5, cols).astype(np.float32)
    return Case(inputs={"x": x, "w": w}, outputs={"y": (rows, cols)},
                scalars={"rows": rows, "cols": cols, "eps": float(scenario.get("eps", 1e-6))})


def flops(scenario: dict) -> float:
    return 4.0 * scenario["rows"] * scenario["cols"]  # square-add, then two multiplies


def bytes_moved(scenario: dict) -> float:
    rows, cols = scenario["rows"], scenario["cols"]
    return 2.0 * (2 * rows * cols + cols)  # read x and w once, write y once (bf16)


def reference(case: Case) -> dict[str, np.ndarray]:
    x = case.inputs["x"].astype(np.float64)
    w = case.inputs["w"].astype(np.float64)
    eps = float(case.scalars["eps"])
    inv = 1.0 / np.sqrt((x * x).mean(axis=1, keepdims=True) + eps)
    return {"y": x * inv * w[None, :]}


def baselines(case: Case, buffers: dict, stream: int) -> dict:
    """torch.nn.functional.rms_norm on the same device buffers and stream (when torch is there)."""
    import torch

    cols, eps = case.scalars["cols"], case.scalars["eps"]
    x = torch.as_tensor(buffers["x"], device="cuda").view(torch.bfloat16)
    w = torch.as_tensor(buffers["w"], device="cuda").view(torch.bfloat16)
    s = torch.cuda.ExternalStream(stream)

    def run() -> None:
        with torch.cuda.stream(s):
            torch.nn.functional.rms_norm(x, (cols,), w, eps)

    return {"torch.rms_norm": run}
