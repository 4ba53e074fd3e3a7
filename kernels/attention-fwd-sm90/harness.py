"""Harness of the attention forward task: scenario -> inputs, exact FLOP and byte counts, the numpy
float64 reference, and torch SDPA baselines where their semantics match ours.

A scenario's parameters (task.yaml):
  batch           sequences in the batch
  sq, sk          query / key lengths per sequence: an int (all equal), "a,b,c" (one per sequence),
                  "rand:LO-HI" (drawn once per scenario, uniform in [LO, HI]); sk may start with
                  "+" to mean sq + that (chunked prefill: the chunk's queries are the last keys)
  heads           "h<Hq>kv<Hkv>", e.g. "h32kv8" (GQA 4); d: head dim
  causal          "causal" or "full" (or a bool); wl, wr: sliding window left / right
                  (-1 = unbounded); softcap (0 = off)
  page            0 = contiguous K/V, else the page size of a paged K/V cache
  dtype           "bf16" or "f16": the element type of q, k, v and o ($dtype in task.yaml)
  qscale          optional: std of q (default 1: scaled scores ~ N(0, 1)); softcap scenarios
                  raise it so the cap bends the scores

Shapes and index data (lengths, block tables) depend on the scenario only (a fixed generator
seeded by its parameters); values come from the evaluator's rng.
"""
from __future__ import annotations

import math
import re
import zlib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from evaluator.harness import Case

DTYPES = {"bf16": 0, "f16": 1}  # task.yaml dtype -> the header's KS_DTYPE_*
SPARE_BLOCKS = 3  # paged caches hold a few blocks no sequence uses
POOL = 262_139  # prime: large inputs repeat a fresh random pool with this period (see _normal)


# ---- the scenario's shape ------------------------------------------------------------------------

@dataclass(frozen=True)
class Shape:
    """Everything about a scenario except the values."""

    sq: tuple[int, ...]
    sk: tuple[int, ...]
    hq: int
    hkv: int
    d: int
    causal: bool
    wl: int
    wr: int
    softcap: float
    page: int
    dtype: str
    qscale: float
    block_table: np.ndarray | None  # [batch, max_blocks_per_seq] int32, paged only
    num_blocks: int

    @property
    def batch(self) -> int:
        return len(self.sq)

    @property
    def total_q(self) -> int:
        return sum(self.sq)

    @property
    def total_k(self) -> int:
        return sum(self.sk)

    @property
    def group(self) -> int:
        return self.hq // self.hkv


def _lengths(spec, batch: int, rng: np.random.Generator, base: tuple[int, ...] | None = None) -> tuple[int, ...]:
    if isinstance(spec, bool):
        raise ValueError(f"bad length spec {spec!r}")
    if isinstance(spec, int):
        out = [spec] * batch
    else:
        text = str(spec).strip()
        plus = text.startswith("+")
        if plus:
            if base is None:
                raise ValueError("'+' lengths only for sk")
            text = text[1:]
        if text.startswith("rand:"):
            lo, hi = (int(x) for x in text[5:].split("-"))
            out = [int(x) for x in rng.integers(lo, hi + 1, size=batch)]
        elif "," in text:
            out = [int(x) for x in text.split(",")]
            if len(out) != batch:
                raise ValueError(f"length list {spec!r} has {len(out)} entries for batch {batch}")
        else:
            out = [int(text)] * batch
        if plus:
            out = [a + b for a, b in zip(base, out)]
    if any(n < 0 for n in out):
        raise ValueError(f"negative length in {spec!r}")
    return tuple(out)


def _shape_seed(scenario: dict) -> int:
    items = sorted((k, str(v)) for k, v in scenario.items() if k != "tolerances")
    return zlib.crc32(repr(items).encode())


def shape_of(scenario: dict) -> Shape:
    return _shape_cached(tuple(sorted((k, v) for k, v in scenario.items() if k != "tolerances")))


@lru_cache(maxsize=512)
def _shape_cached(items: tuple) -> Shape:
    s = dict(items)
    rng = np.random.default_rng(_shape_seed(s))
    batch = int(s["batch"])
    sq = _lengths(s["sq"], batch, rng)
    sk = _lengths(s["sk"], batch, rng, base=sq)
    heads = re.fullmatch(r"h(\d+)kv(\d+)", str(s["heads"]))
    if not heads:
        raise ValueError(f"heads {s['heads']!r} is not h<Hq>kv<Hkv>")
    hq, hkv, d = int(heads[1]), int(heads[2]), int(s["d"])
    if hkv < 1 or hq % hkv:
        raise ValueError(f"hq={hq} is not a multiple of hkv={hkv}")
    page = int(s.get("page", 0))
    table, num_blocks = None, 0
    if page:
        pages = [max(1, -(-n // page)) for n in sk]
        num_blocks = sum(pages) + SPARE_BLOCKS
        width = max(pages)
        # Each sequence gets its own blocks, scattered over the cache; unused table entries point
        # at real blocks too (as a serving engine's padding would), so reading them is in bounds.
        perm = rng.permutation(num_blocks).astype(np.int32)
        table = rng.integers(0, num_blocks, size=(batch, width), dtype=np.int32)
        at = 0
        for b, n in enumerate(pages):
            table[b, :n] = perm[at:at + n]
            at += n
    dtype = str(s.get("dtype", "bf16"))
    if dtype not in DTYPES:
        raise ValueError(f"dtype {dtype!r} is not one of {sorted(DTYPES)}")
    causal = s.get("causal", False)
    if causal not in (True, False, "causal", "full"):
        raise ValueError(f"causal {causal!r} is not causal/full")
    return Shape(sq, sk, hq, hkv, d, causal in (True, "causal"), int(s.get("wl", -1)),
                 int(s.get("wr", -1)), float(s.get("softcap", 0.0)), page, dtype,
                 float(s.get("qscale", 1.0)), table, num_blocks)


# ---- which pairs are attended ------------------------------------------------------------------

def key_range(shape: Shape, b: int) -> tuple[np.ndarray, np.ndarray]:
    """Per query row of sequence b: the first and last attended key (lo > hi: none)."""
    lq, lk = shape.sq[b], shape.sk[b]
    pos = np.arange(lq, dtype=np.int64) + (lk - lq)
    lo = np.zeros(lq, dtype=np.int64)
    hi = np.full(lq, lk - 1, dtype=np.int64)
    if shape.causal:
        hi = np.minimum(hi, pos)
    if shape.wl >= 0:
        lo = np.maximum(lo, pos - shape.wl)
    if shape.wr >= 0:
        hi = np.minimum(hi, pos + shape.wr)
    return lo, hi


def attended_pairs(shape: Shape) -> int:
    """Query-key pairs the mask and window allow, summed over sequences (one head)."""
    total = 0
    for b in range(shape.batch):
        lo, hi = key_range(shape, b)
        total += int(np.maximum(hi - lo + 1, 0).sum())
    return total


def mask_matrix(shape: Shape, b: int) -> np.ndarray:
    """Brute-force [Lq, Lk] bool mask of sequence b, straight from attention.h's rule."""
    lq, lk = shape.sq[b], shape.sk[b]
    i = np.arange(lq)[:, None]
    j = np.arange(lk)[None, :]
    pos = i + lk - lq
    m = np.ones((lq, lk), dtype=bool)
    if shape.causal:
        m &= j <= pos
    if shape.wl >= 0:
        m &= j >= pos - shape.wl
    if shape.wr >= 0:
        m &= j <= pos + shape.wr
    return m


def flops(scenario: dict) -> float:
    """4 * attended (q, k) pairs * head_dim, over all query heads (QK^T and PV, 2 FLOP per MAC)."""
    shape = shape_of(scenario)
    return 4.0 * attended_pairs(shape) * shape.d * shape.hq


def bytes_moved(scenario: dict) -> float:
    """Q, O, LSE once, and each K/V row some query attends once (2 bytes per element)."""
    shape = shape_of(scenario)
    keys = 0
    for b in range(shape.batch):
        lo, hi = key_range(shape, b)
        ok = hi >= lo
        if ok.any():
            keys += int(hi[ok].max() - lo[ok].min() + 1)
    q_o = 2 * 2 * shape.total_q * shape.hq * shape.d
    kv = 2 * 2 * keys * shape.hkv * shape.d
    return float(q_o + kv + 4 * shape.total_q * shape.hq)


# ---- the case ----------------------------------------------------------------------------------

def _normal(rng: np.random.Generator, shape: tuple[int, ...], std: float = 1.0) -> np.ndarray:
    """N(0, std^2) float32 values. Past POOL elements a fresh pool repeats: drawing each of
    hundreds of millions of values would dominate the sweep. The period is a prime larger than any
    page, head or row stride, so no two K/V rows, pages or heads hold the same values: a kernel
    reading the wrong page, head or row still reads different numbers."""
    n = int(np.prod(shape))
    pool = rng.standard_normal(min(n, POOL), dtype=np.float32)
    if std != 1.0:
        pool *= np.float32(std)
    if n > POOL:
        pool = np.tile(pool, -(-n // POOL))[:n]
    return pool.reshape(shape)


def make_case(scenario: dict, rng: np.random.Generator) -> Case:
    shape = shape_of(scenario)
    b, hq, hkv, d = shape.batch, shape.hq, shape.hkv, shape.d
    if shape.page:
        kv_shape = (shape.num_blocks, shape.page, hkv, d)
    else:
        kv_shape = (max(shape.total_k, 1), hkv, d)
    q = _normal(rng, (max(shape.total_q, 1), hq, d), shape.qscale)
    k = _normal(rng, kv_shape)
    v = _normal(rng, kv_shape)
    cu_q = np.concatenate([[0], np.cumsum(shape.sq)]).astype(np.int32)
    cu_k = np.concatenate([[0], np.cumsum(shape.sk)]).astype(np.int32)
    table = shape.block_table if shape.page else np.zeros((b, 1), dtype=np.int32)

    lse_mask = np.ones((hq, max(shape.total_q, 1)), dtype=bool)
    for i in range(b):
        lo, hi = key_range(shape, i)
        lse_mask[:, cu_q[i]:cu_q[i + 1]] = (hi >= lo)[None, :]  # a row with no key: lse = -inf, not compared

    return Case(
        inputs={"q": q, "k": k, "v": v, "cu_seqlens_q": cu_q, "cu_seqlens_k": cu_k,
                "seqused_k": np.asarray(shape.sk, dtype=np.int32), "block_table": table},
        outputs={"o": q.shape, "lse": lse_mask.shape},
        scalars={
            "batch": b, "total_q": shape.total_q, "max_seqlen_q": max(shape.sq),
            "max_seqlen_k": max(shape.sk), "num_heads_q": hq, "num_heads_kv": hkv, "head_dim": d,
            "dtype": DTYPES[shape.dtype], "paged": int(bool(shape.page)), "page_size": shape.page,
            "num_blocks": shape.num_blocks, "max_blocks_per_seq": int(table.shape[1]),
            "causal": int(shape.causal), "window_left": shape.wl, "window_right": shape.wr,
            "softmax_scale": 1.0 / math.sqrt(d), "softcap": shape.softcap,
        },
        masks={"lse": lse_mask},
    )


# ---- the float64 reference -------------------------------------------------------------------------

def reference(case: Case) -> dict[str, np.ndarray]:
    """Attention in float64 straight from attention.h's definition (for small shapes)."""
    s = case.scalars
    q = np.asarray(case.inputs["q"], dtype=np.float64)
    k = np.asarray(case.inputs["k"], dtype=np.float64)
    v = np.asarray(case.inputs["v"], dtype=np.float64)
    cu_q, cu_k = case.inputs["cu_seqlens_q"], case.inputs["cu_seqlens_k"]
    used, table = case.inputs["seqused_k"], case.inputs["block_table"]
    hq, hkv, d = s["num_heads_q"], s["num_heads_kv"], s["head_dim"]
    group = hq // hkv
    o = np.zeros_like(q)
    lse = np.full((hq, q.shape[0]), -np.inf)
    for b in range(s["batch"]):
        q0, q1 = int(cu_q[b]), int(cu_q[b + 1])
        lq = q1 - q0
        if s["paged"]:
            lk = int(used[b])
            j = np.arange(lk)
            rows = table[b, j // s["page_size"]].astype(np.int64) * s["page_size"] + j % s["page_size"]
            kb = k.reshape(-1, hkv, d)[rows]
            vb = v.reshape(-1, hkv, d)[rows]
        else:
            k0, k1 = int(cu_k[b]), int(cu_k[b + 1])
            lk = k1 - k0
            kb, vb = k[k0:k1], v[k0:k1]
        i = np.arange(lq)[:, None]
        j = np.arange(lk)[None, :]
        pos = i + lk - lq
        visible = np.ones((lq, lk), dtype=bool)
        if s["causal"]:
            visible &= j <= pos
        if s["window_left"] >= 0:
            visible &= j >= pos - s["window_left"]
        if s["window_right"] >= 0:
            visible &= j <= pos + s["window_right"]
        for h in range(hq):
            g = h // group
            scores = s["softmax_scale"] * (q[q0:q1, h] @ kb[:, g].T)
            if s["softcap"] > 0:
                scores = s["softcap"] * np.tanh(scores / s["softcap"])
            scores = np.where(visible, scores, -np.inf)
            m = scores.max(axis=1, initial=-np.inf)
            any_key = np.isfinite(m)
            p = np.exp(scores - np.where(any_key, m, 0.0)[:, None])
            total = p.sum(axis=1)
            safe = np.where(any_key, total, 1.0)
            o[q0:q1, h] = np.where(any_key[:, None], (p @ vb[:, g]) / safe[:, None], 0.0)
            lse[h, q0:q1] = np.where(any_key, m + np.log(safe), -np.inf)
    return {"o": o, "lse": lse}


# ---- upstream baselines ------------------------------------------------------------------------------

def sdpa_support(scenario: dict) -> str | None:
    """None when torch SDPA computes exactly this scenario, else why not.

    SDPA takes dense [B, H, L, D] batches: equal lengths, contiguous K/V, no window, no softcap.
    Its is_causal is aligned top-left, ours bottom-right: they agree only when Lq == Lk, or when
    Lq == 1 (our causal mask is then no mask at all).
    """
    shape = shape_of(scenario)
    if shape.page:
        return "paged K/V"
    if len(set(shape.sq)) > 1 or len(set(shape.sk)) > 1:
        return "variable lengths"
    if shape.wl >= 0 or shape.wr >= 0:
        return "sliding window"
    if shape.softcap > 0:
        return "softcap"
    if shape.causal and shape.sq[0] != shape.sk[0] and shape.sq[0] != 1:
        return "causal with Lq != Lk (SDPA aligns top-left)"
    return None


def baselines(case: Case, buffers: dict, stream: int) -> dict:
    """torch SDPA through its FlashAttention and cuDNN backends, where the semantics match ours.

    Each callable enqueues one attention on the evaluator's stream. Scenarios SDPA cannot express
    get no baselines (the report then shows none for them).
    """
    s = case.scalars
    if s["paged"] or s["window_left"] >= 0 or s["window_right"] >= 0 or s["softcap"] > 0:
        return {}
    cu_q, cu_k = case.inputs["cu_seqlens_q"], case.inputs["cu_seqlens_k"]
    lq, lk = np.diff(cu_q), np.diff(cu_k)
    if len(set(lq.tolist())) > 1 or len(set(lk.tolist())) > 1:
        return {}
    lq, lk = int(lq[0]), int(lk[0])
    causal = bool(s["causal"]) and lq > 1
    if causal and lq != lk:
        return {}
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    dtype = torch.bfloat16 if s["dtype"] == DTYPES["bf16"] else torch.float16
    bsz, hq, hkv, d = s["batch"], s["num_heads_q"], s["num_heads_kv"], s["head_dim"]

    def tensor(name, shape):
        t = torch.as_tensor(buffers[name], device="cuda")
        return t.view(dtype).view(*shape)

    # [total, H, D] = [B, L, H, D] -> [B, H, L, D] views (strided, no copy)
    q = tensor("q", (bsz, lq, hq, d)).transpose(1, 2)
    k = tensor("k", (bsz, lk, hkv, d)).transpose(1, 2)
    v = tensor("v", (bsz, lk, hkv, d)).transpose(1, 2)
    torch_stream = torch.cuda.ExternalStream(stream)
    scale = float(s["softmax_scale"])

    def runner(backend):
        def run():
            with torch.cuda.stream(torch_stream), sdpa_kernel([backend]):
                torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, is_causal=causal, scale=scale, enable_gqa=hq != hkv)
        return run

    return {"sdpa_flash": runner(SDPBackend.FLASH_ATTENTION),
            "sdpa_cudnn": runner(SDPBackend.CUDNN_ATTENTION)}
