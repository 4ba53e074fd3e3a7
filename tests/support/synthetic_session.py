"""Synthetic session logs: deterministic, realistic-looking, for tests, snapshots and the benchmark.

`synthetic_events(n_tool_calls, ...)` yields events shaped like a kernel-optimising agent's
session (assistant text, tool calls and results, evaluations with per-scenario results,
usage, decision points with suggestions, human messages) with fixed timestamps from `t0`, so two
runs produce byte-identical logs. `write_synthetic_session(dir, ...)` writes them through the
real `SessionWriter`.
"""
from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator
from pathlib import Path

from sessions.layout import SessionPaths
from sessions.log import SessionWriter

T0 = 1764441600.0  # 2025-11-29 18:40:00 UTC: fixed so snapshots never depend on the wall clock

SCENARIOS = ("b1-h8-s128-d64", "b1-h16-s512-d64", "b2-h16-s1024-d128", "b4-h32-s2048-d128",
             "b1-h8-s4096-d64", "b8-h8-s256-d32")

_SENTENCES = (
    "The inner loop reloads K for every query row, so the kernel is bound by global memory.",
    "Tiling K and V through shared memory should cut the traffic by the tile height.",
    "The last evaluation regressed on the long-sequence scenarios; the softmax rescale is the suspect.",
    "I will vectorise the loads with float4 and check the alignment of the head dimension.",
    "Occupancy looks limited by registers; let me try a smaller tile and unroll by two.",
    "Correctness holds on every scenario, now timing the change against the seed.",
    "This is close to the hardware limit for this shape, memory bandwidth is saturated.",
    "I think the kernel is done: it beats the seed on every scenario.",
    "Let me read the harness to see how the inputs are laid out.",
    "The online softmax needs the running max kept in registers across tiles.",
)

_QUESTIONS = (
    ("measure-bandwidth", "What fraction of peak DRAM bandwidth does the kernel reach right now?"),
    ("profile-first", "What does a profile of the slowest scenario say the time goes to?"),
    ("other-layer", "Which layer below this one (memory layout, launch shape, compiler) have you not measured yet?"),
    ("check-limit", "Which measurement shows this is the hardware limit, and what is the number?"),
    ("worst-scenario", "Why is the worst scenario slower than the seed, by how much, and what differs about its shape?"),
    ("verify-win", "Does the speed-up survive a fresh seed and a cold L2?"),
)

_DP_KINDS = ("stall", "limit_claim", "completion_claim", "suspicious_win", "correctness_break",
             "regression", "loop")

_KERNEL_LINES = (
    "    for (int k = 0; k < D; ++k) acc += q[k] * K[j * D + k];",
    "    float m = -INFINITY, l = 0.f;",
    "    __shared__ float Ks[TILE][D];",
    "    const float4* q4 = reinterpret_cast<const float4*>(q);",
    "    #pragma unroll 2",
    "    m_new = fmaxf(m, s); l = l * expf(m - m_new) + expf(s - m_new);",
)


def synthetic_events(n_tool_calls: int = 40, *, seed: int = 7, t0: float = T0, dt: float = 1.5,
                     eval_every: int = 10, dp_every: int = 60, human_every: int = 120,
                     end: bool = True, output_lines: int = 12, task: str = "attention-cpu",
                     model: str = "claude-sonnet-4-5", output_bytes: tuple[int, int] | None = None,
                     reports: dict[int, dict] | None = None) -> Iterator[dict]:
    """Events of a synthetic session, seq from 0, t from t0 in steps of dt (deterministic).

    Per-scenario results go where the evaluator puts them: into `reports[n]` (a report dict in
    the evaluator's JSON schema, written to evals/NNNN.json by `write_synthetic_session`), not
    into the `eval_result` summary.

    `output_bytes=(lo, hi)` gives the run and read tool results outputs of lo..hi bytes (what
    agents produce: 2-20 KB of compiler output, profiles, file contents) instead of
    `output_lines` short lines.
    """
    rng = random.Random(seed)
    seq = 0
    t = t0

    def ev(type_: str, **fields) -> dict:
        nonlocal seq, t
        e = {"v": 1, "seq": seq, "t": round(t, 3), "type": type_}
        e.update(fields)
        seq += 1
        t += dt * (0.5 + rng.random())
        return e

    yield ev("session_start", task=task, goal={"all_correct": True, "min_geomean": 1.2},
             agent="scripted", model=model, host="node-7", device="cpu",
             recorded_by="tests/support/synthetic_session.py (test data)")
    geomean, best, n_eval = 0.92, None, 0
    tokens_in = tokens_out = 0
    cost = 0.0
    for i in range(n_tool_calls):
        if i % 2 == 0:
            yield ev("assistant_text", text=" ".join(rng.choice(_SENTENCES)
                                                     for _ in range(rng.randint(1, 3))), turn=i)
        call_id = f"c{i}"
        if i % eval_every == eval_every - 1:
            yield ev("tool_call", id=call_id, name="evaluate", input={"quick": False}, turn=i)
            n_eval += 1
            yield ev("eval_start", candidate="workspace/kernel.c", n=n_eval,
                     scenarios=len(SCENARIOS))
            for k in range(0, len(SCENARIOS), 2):
                yield ev("eval_progress", done=k + 2, total=len(SCENARIOS), scenario=SCENARIOS[k],
                         phase="timing", n=n_eval)
            geomean = max(0.5, geomean + rng.uniform(-0.06, 0.09))
            ratios = [max(0.3, geomean * rng.uniform(0.8, 1.25)) for _ in SCENARIOS]
            correct = [rng.random() > 0.04 for _ in SCENARIOS]
            all_ok = all(correct)
            if all_ok and (best is None or geomean > best):
                best = geomean
            scenarios = [
                {"name": name, "correct": ok, "failure": None if ok else "error rel_l2 0.4 > limit 0.01",
                 "ratio": round(r, 4) if ok else None,
                 "ci": [round(r * 0.98, 4), round(r * 1.02, 4)] if ok else None,
                 "cand_ms": round(1.8 / r, 4), "seed_ms": 1.8,
                 "flags": ["ambiguous"] if ok and 0.98 < r < 1.02 else []}
                for name, r, ok in zip(SCENARIOS, ratios, correct)
            ]
            summary = {"geomean": round(geomean, 4), "all_correct": all_ok,
                       "passed": sum(correct), "total": len(SCENARIOS),
                       "best_geomean": round(best, 4) if best else None,
                       "goal_met": bool(all_ok and geomean >= 1.2),
                       "min_ratio": round(min(ratios), 4),
                       "fast_1": round(sum(r > 1 for r in ratios) / len(ratios), 3),
                       "reasons": [] if all_ok and geomean >= 1.2 else
                       [f"geomean {geomean:.3f} < 1.2"] + ([] if all_ok else ["not all correct"]),
                       "flags": ["noisy x1"] if n_eval % 7 == 0 else [],
                       "failing": [s["name"] for s in scenarios if not s["correct"]]}
            if reports is not None:
                reports[n_eval] = {"schema": "kernelseek.eval/1", "task": task, "scenarios": scenarios,
                                   **{k: summary[k] for k in ("geomean", "min_ratio", "fast_1",
                                                              "all_correct", "passed", "total")}}
            yield ev("eval_result", summary=summary, report=f"evals/{n_eval:04d}.json", n=n_eval,
                     call_id=call_id)
            yield ev("tool_result", id=call_id, name="evaluate",
                     output=f"geomean {geomean:.3f}x, {sum(correct)}/{len(SCENARIOS)} correct",
                     is_error=not all_ok, duration_s=round(rng.uniform(4, 20), 2))
        else:
            kind = rng.random()
            if kind < 0.35:
                old = rng.choice(_KERNEL_LINES)
                new = rng.choice(_KERNEL_LINES)
                yield ev("tool_call", id=call_id, name="edit_file", turn=i,
                         input={"path": "kernel.c", "old_str": old, "new_str": new})
                out = "edited kernel.c (1 replacement)"
            elif kind < 0.6:
                yield ev("tool_call", id=call_id, name="run", turn=i,
                         input={"command": rng.choice(["make -j2", "perf stat ./bench",
                                                       "grep -n TILE kernel.c", "ls -la"])})
                n_lines = rng.randint(output_lines // 2, output_lines)
                if output_bytes:
                    n_lines = rng.randint(*output_bytes) // 46
                out = "\n".join(f"{rng.choice(_KERNEL_LINES).strip()}  # {j}" for j in range(n_lines))
            else:
                yield ev("tool_call", id=call_id, name="read_file", turn=i,
                         input={"path": rng.choice(["kernel.c", "harness.py", "task.yaml"])})
                n_lines = rng.randint(output_lines // 2, output_lines)
                if output_bytes:
                    n_lines = rng.randint(*output_bytes) // 46
                out = "\n".join(rng.choice(_KERNEL_LINES) for _ in range(n_lines))
            yield ev("tool_result", id=call_id, output=out, is_error=rng.random() < 0.03,
                     duration_s=round(rng.uniform(0.01, 3.0), 2))
        d_in, d_out = rng.randint(800, 4000), rng.randint(50, 600)
        tokens_in += d_in
        tokens_out += d_out
        cost += d_in * 3e-6 + d_out * 15e-6
        yield ev("usage", input_tokens=d_in, output_tokens=d_out, total_cost_usd=round(cost, 4))
        if dp_every and i % dp_every == dp_every - 1:
            kind = _DP_KINDS[(i // dp_every) % len(_DP_KINDS)]
            picks = rng.sample(_QUESTIONS, 4)
            dp = ev("decision_point", kind=kind, about_seq=seq - 2,
                    evidence=f"{kind.replace('_', ' ')}: {rng.choice(_SENTENCES)}",
                    suggestions=[{"id": q, "text": text} for q, text in picks], strength=0.8)
            yield dp
            if human_every and i % human_every == human_every - 1:
                q_id, q_text = picks[0]
                yield ev("human_message", text=q_text, source="bank", bank_id=q_id,
                         decision_point=dp["seq"], inbox_id=f"m-synth-{i}", kind="message",
                         context={"decision_point": {"seq": dp["seq"], "kind": kind}})
    if end:
        yield ev("session_end", reason="max_turns")


def write_events(path: str | os.PathLike, events) -> int:
    """Append events (their seq and t as given) to a log through the real writer."""
    n = 0
    with SessionWriter(path, fsync_types=frozenset()) as w:
        for e in events:
            w.write_event(e)
            n += 1
    return n


def write_synthetic_session(root: str | os.PathLike, n_tool_calls: int = 40, **kw) -> SessionPaths:
    """A session directory holding a synthetic events.jsonl (and its eval reports)."""
    sp = SessionPaths(Path(root))
    for d in (sp.root, sp.workspace, sp.evals):
        d.mkdir(parents=True, exist_ok=True)
    reports: dict[int, dict] = {}
    write_events(sp.events, synthetic_events(n_tool_calls, reports=reports, **kw))
    for n, report in reports.items():
        sp.eval_report(n).write_text(json.dumps(report, indent=1))
    return sp
