"""Synthetic session logs: deterministic, realistic-looking, for tests, snapshots and the benchmark.

`synthetic_events(n_tool_calls, ...)` yields events shaped like a kernel-optimising agent's
session (assistant text, tool calls and results, evaluations with per-scenario results,
usage, decision points with suggestions, human messages) with fixed timestamps from `t0`, so two
runs produce byte-identical logs. `write_synthetic_session(dir, ...)` writes them through the
real `SessionWriter`. `long_run_events(n)` yields n events of a long agent run with real-sized
tool inputs and outputs, claims, build loops and evaluations (the detectors' benchmark,
benchmarks/bench_detect.py, and the tests that feed the detectors a big log). `event(seq, type)`
builds one event for a test that writes its log by hand.
"""
from __future__ import annotations

import json
import os
import random
import sys
import time
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


def event(seq: int, type_: str, *, t: float | None = None, **fields) -> dict:
    """One event in the log's schema; `t` defaults to 1000 + seq (ordered, readable in a failure)."""
    return {"v": 1, "seq": seq, "t": 1000.0 + seq if t is None else t, "type": type_, **fields}


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
        e = event(seq, type_, t=round(t, 3), **fields)
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


def append_live(paths: list[str], rate: float, seconds: float, *, first_seed: int = 0, fsync: bool = True,
                ready=None) -> int:
    """Append synthetic events to each log at `rate` events/s for `seconds`, stamped with the
    wall clock, one writer per log holding its lock as a runner does (the benchmarks' live
    sessions). `ready()` is called once every writer is open; returns how many were written."""
    writers = [SessionWriter(p, **({} if fsync else {"fsync_types": frozenset()})) for p in paths]
    streams = [synthetic_events(10**7, end=False, seed=first_seed + i, dt=1.0 / rate) for i in range(len(paths))]
    if ready is not None:
        ready()
    start, n = time.monotonic(), 0
    try:
        while (elapsed := time.monotonic() - start) < seconds:
            due = int(elapsed * rate) + 1
            while n < due:
                for w, s in zip(writers, streams):
                    ev = next(s)
                    ev["seq"], ev["t"] = w.next_seq, round(time.time(), 6)
                    w.write_event(ev)
                n += 1
            time.sleep(0.005)
    finally:
        for w in writers:
            w.close()
    return n * len(paths)


def main(argv: list[str]) -> int:
    """`python synthetic_session.py live RATE SECONDS FIRST_SEED FSYNC(0|1) LOG...`: append_live
    in a process of its own (prints `ready`, then the count)."""
    if len(argv) < 6 or argv[0] != "live":
        print(main.__doc__, file=sys.stderr)
        return 2
    rate, seconds, first_seed, fsync = float(argv[1]), float(argv[2]), int(argv[3]), argv[4] == "1"
    n = append_live(argv[5:], rate, seconds, first_seed=first_seed, fsync=fsync,
                    ready=lambda: print("ready", flush=True))
    print(n, flush=True)
    return 0


# -- a long agent run, for the detectors' benchmark and the tests that feed them a big log --------

_RUN_PROSE = (
    "Let me look at the seed kernel first and see how it tiles the K dimension.",
    "The inner loop loads a 64x64 tile of K into shared memory and then does the dot products.",
    "I'll try double buffering the shared-memory tiles so the loads overlap with the math.",
    "The profile shows most stalls are long scoreboard waits on global loads.",
    "That change helped the large scenarios but the small ones got slightly slower.",
    "Now let me run the evaluator on the new candidate.",
    "The register count went up to 168 per thread, which limits us to one block per SM.",
    "I think the softmax rescaling can be deferred until the end of each tile.",
    "Let me check whether the mask is applied before or after the scaling.",
    "The build failed because of a missing include; fixing it now.",
    "We're far from the bandwidth limit on the decode shapes, so there is room there.",
    "Done with step 1, now let's vectorise the loads.",
    "The kernel is memory-bound at this size, so I'll reduce the bytes moved.",
)
_RUN_CLAIMS = (
    "We're now at the memory bandwidth limit, so no further gains are possible.",
    "This is as fast as it gets on this hardware.",
    "The optimization is complete and all scenarios pass.",
    "The mismatch is just fp16 rounding noise; I'll loosen the tolerance.",
)
_RUN_SCENARIOS = [f"s{i}" for i in range(8)]


def _run_text(rng: random.Random, sentences: int) -> str:
    parts = [rng.choice(_RUN_PROSE) for _ in range(sentences)]
    if rng.random() < 0.03:
        parts.insert(rng.randrange(len(parts) + 1), rng.choice(_RUN_CLAIMS))
    return " ".join(parts)


def long_run_log(n: int, seed: int = 7) -> list[dict]:
    """A log of n events shaped like a long agent session (benchmarks/bench_detect.py's)."""
    return list(long_run_events(n, seed))


def long_run_events(n: int, seed: int = 7) -> Iterator[dict]:
    """The events of `long_run_log`, one at a time (a 200 MB log need not be held to be written)."""
    rng = random.Random(seed)
    events: list[dict] = []  # the current block's events, handed out as it ends
    made = 0
    t = 1_764_000_000.0
    geomean = 1.0
    calls = 0

    def add(type_: str, **fields) -> None:
        nonlocal t
        t += rng.uniform(0.2, 6.0)
        events.append(event(made + len(events), type_, t=round(t, 6), **fields))

    add("session_start", task="attention-fwd-sm90", goal={"geomean": 1.3}, arch="sm90",
        capabilities=["other_implementation"], model="synthetic")
    while made + len(events) < n:
        block = f"b{len(events)}"
        for _ in range(rng.randint(0, 4)):
            add("assistant_delta", block=block, text=rng.choice(_RUN_PROSE)[:40])
        add("assistant_text", block=block, text=_run_text(rng, rng.randint(1, 6)))
        if rng.random() < 0.5:
            add("thinking", text=_run_text(rng, rng.randint(2, 10)))
        for _ in range(rng.randint(1, 4)):
            calls += 1
            cid = f"c{calls}"
            r = rng.random()
            if r < 0.35:
                cmd = rng.choice(["nvcc -O3 -arch=sm_90a -shared -o k.so kernel.cu", "python bench.py --quick",
                                  "cat kernel.cu", "ls -la", "ncu --set full ./run", "make -j"])
                add("tool_call", id=cid, name="bash", input={"command": cmd})
                if rng.random() < 0.15:
                    out = f"kernel.cu({rng.randint(1, 400)}): error: identifier \"tile{rng.randint(0, 3)}\" is undefined\n" * 2
                    add("tool_result", id=cid, output=out, is_error=True)
                else:
                    add("tool_result", id=cid, output="\n".join(f"line {i}: {rng.random():.6f} ms" for i in
                                                                rng.sample(range(400), rng.randint(5, 60))))
            elif r < 0.6:
                old = _run_text(rng, 2)
                add("tool_call", id=cid, name="edit_file",
                    input={"path": "kernel.cu", "old": old, "new": old.replace("tile", "tile2") + " // v2"})
                add("tool_result", id=cid, output="edited kernel.cu")
            elif r < 0.8:
                add("tool_call", id=cid, name="read_file", input={"path": "kernel.cu"})
                add("tool_result", id=cid, output="\n".join(_run_text(rng, 1) for _ in range(rng.randint(20, 120))))
            else:
                add("tool_call", id=cid, name="write_file",
                    input={"path": "kernel.cu", "content": "\n".join(_run_text(rng, 1) for _ in range(rng.randint(40, 200)))})
                add("tool_result", id=cid, output="wrote kernel.cu")
            add("usage", input_tokens=rng.randint(100, 5000), output_tokens=rng.randint(10, 900))
        if rng.random() < 0.01:  # stuck: the same failing build again and again, nothing measured between
            err = f"kernel.cu({rng.randint(1, 400)}): error: no instance of overloaded function \"mma\" matches\n"
            for _ in range(rng.randint(3, 5)):
                calls += 1
                add("tool_call", id=f"c{calls}", name="bash", input={"command": "make -j"})
                add("tool_result", id=f"c{calls}", output=err, is_error=True)
        if rng.random() < 0.12:
            geomean = max(0.3, geomean * rng.uniform(0.9, 1.12))
            correct = rng.random() > 0.1
            scen = [{"name": s, "ratio": round(geomean * rng.uniform(0.8, 1.25), 4), "correct": correct or i > 0,
                     "pct_peak": round(rng.uniform(20, 80), 1)} for i, s in enumerate(_RUN_SCENARIOS)]
            add("eval_start", candidate_hash=f"h{rng.randint(0, 40)}", n=len(events))
            add("eval_result", summary={"geomean": round(geomean, 4), "all_correct": correct, "passed": 8 if correct else 7,
                                        "total": 8, "scenarios": scen, "failing": [] if correct else ["s0"],
                                        "goal_met": geomean >= 1.3, "flags": []})
        if rng.random() < 0.02:
            add("human_message", text="Is that win noise? Run it again and show me the spread.", source="bank",
                bank_id="win-noise")
        take = events[: n - made]
        made += len(take)
        events.clear()
        yield from take




def write_long_run_log(path: Path, target_bytes: int, seed: int = 7) -> tuple[int, int]:
    """Write a synthetic events.jsonl of at least `target_bytes` without holding it; (events, bytes)."""
    n = 0
    with SessionWriter(path, fsync_types=frozenset()) as w:
        for ev in long_run_events(10**9, seed):
            w.write_event(ev)
            n += 1
            if n % 5000 == 0 and path.stat().st_size >= target_bytes:
                break
    return n, path.stat().st_size


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
