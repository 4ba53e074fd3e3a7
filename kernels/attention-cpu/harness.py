"""attention-cpu harness: random q, k, v; FLOP and byte counts; a float64 numpy reference."""
from __future__ import annotations

import math

import numpy as np

from evaluator.harness import Case


def _dims(s: dict) -> tuple[int, int, int, int, int, int, bool]:
    return (int(s["batch"]), int(s["heads_q"]), int(s["heads_kv"]), int(s["seq_q"]), int(s["seq_k"]),
            int(s["head_dim"]), bool(s["causal"]))


def make_case(scenario: dict, rng: np.random.Generator) -> Case:
    b, h, hk, sq, sk, d, causal = _dims(scenario)
    q = rng.standard_normal((b, h, sq, d), dtype=np.float32)
    k = rng.standard_normal((b, hk, sk, d), dtype=np.float32)
    v = rng.standard_normal((b, hk, sk, d), dtype=np.float32)
    return Case(
        inputs={"q": q, "k": k, "v": v},
        outputs={"o": (b, h, sq, d)},
        scalars={"batch": b, "heads_q": h, "heads_kv": hk, "seq_q": sq, "seq_k": sk, "head_dim": d,
                 "causal": int(causal), "scale": 1.0 / math.sqrt(d)},
    )


def visible_pairs(scenario: dict) -> float:
    """Query-key pairs the mask lets through, per (batch, head)."""
    _, _, _, sq, sk, _, causal = _dims(scenario)
    if not causal:
        return float(sq * sk)
    offset = sk - sq
    return float(sum(i + offset + 1 for i in range(sq)))


def flops(scenario: dict) -> float:
    b, h, _, _, _, d, _ = _dims(scenario)
    return 4.0 * b * h * d * visible_pairs(scenario)  # two matrix products of 2*d per pair


def bytes_moved(scenario: dict) -> float:
    b, h, hk, sq, sk, d, _ = _dims(scenario)
    return 4.0 * (2 * b * h * sq * d + 2 * b * hk * sk * d)  # q and o once, k and v once


def reference(case: Case) -> dict[str, np.ndarray]:
    s = case.scalars
    q = case.inputs["q"].astype(np.float64)
    group = s["heads_q"] // s["heads_kv"]
    k = np.repeat(case.inputs["k"].astype(np.float64), group, axis=1)
    v = np.repeat(case.inputs["v"].astype(np.float64), group, axis=1)
    scores = np.einsum("bhid,bhjd->bhij", q, k) * float(s["scale"])
    if s["causal"]:
        sq, sk = s["seq_q"], s["seq_k"]
        allowed = np.arange(sk)[None, :] <= np.arange(sq)[:, None] + (sk - sq)
        scores = np.where(allowed, scores, -np.inf)
    scores -= scores.max(axis=-1, keepdims=True)
    p = np.exp(scores)
    p /= p.sum(axis=-1, keepdims=True)
    return {"o": np.einsum("bhij,bhjd->bhid", p, v)}
