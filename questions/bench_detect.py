"""Benchmark of the detectors: a whole-log run and the per-event cost of live feeding.

    python -m questions.bench_detect [--events 100000] [--seed 7] [--json]
    python -m questions.bench_detect --memory-mb 200      # kernelseek detect's peak memory, streaming

Builds a synthetic session log shaped like a long agent run (assistant text with the occasional
claim, thinking, tool calls and results with real-sized inputs and outputs, compiler errors,
evaluations with per-scenario ratios, usage, streamed deltas, human messages), writes it as an
events.jsonl, then measures:

- batch: `detect(events)` over the whole log in memory, and read-from-disk plus detect;
- live: `Detectors.feed(event)` one event at a time, timed per call (mean, p50, p99, max),
  over every event and over the "heavy" ones alone (text, tool calls and results, evaluations).

The budgets (issues #4, #12): a 100,000-event log in under 2 s; under 50 µs per event on average;
`kernelseek detect` streams a 200 MB log in at most 300 MB of peak resident memory.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

BATCH_BUDGET_S = 2.0
MEMORY_BUDGET_MB = 300.0  # peak resident memory of `kernelseek detect` on a 200 MB log
PER_EVENT_BUDGET_US = 50.0

_PROSE = (
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
_CLAIMS = (
    "We're now at the memory bandwidth limit, so no further gains are possible.",
    "This is as fast as it gets on this hardware.",
    "The optimization is complete and all scenarios pass.",
    "The mismatch is just fp16 rounding noise; I'll loosen the tolerance.",
)
_SCENARIOS = [f"s{i}" for i in range(8)]


def _text(rng: random.Random, sentences: int) -> str:
    parts = [rng.choice(_PROSE) for _ in range(sentences)]
    if rng.random() < 0.03:
        parts.insert(rng.randrange(len(parts) + 1), rng.choice(_CLAIMS))
    return " ".join(parts)


def synthetic_log(n: int, seed: int = 7) -> list[dict]:
    """A log of n events shaped like a long agent session."""
    return list(synthetic_events(n, seed))


def synthetic_events(n: int, seed: int = 7):
    """The events of `synthetic_log`, one at a time (a 200 MB log need not be held to be written)."""
    rng = random.Random(seed)
    events: list[dict] = []  # the current block's events, handed out as it ends
    made = 0
    t = 1_764_000_000.0
    geomean = 1.0
    calls = 0

    def add(type_: str, **fields) -> None:
        nonlocal t
        t += rng.uniform(0.2, 6.0)
        events.append({"v": 1, "seq": made + len(events), "t": round(t, 6), "type": type_, **fields})

    add("session_start", task="attention-fwd-sm90", goal={"geomean": 1.3}, arch="sm90",
        capabilities=["other_implementation"], model="synthetic")
    while made + len(events) < n:
        block = f"b{len(events)}"
        for _ in range(rng.randint(0, 4)):
            add("assistant_delta", block=block, text=rng.choice(_PROSE)[:40])
        add("assistant_text", block=block, text=_text(rng, rng.randint(1, 6)))
        if rng.random() < 0.5:
            add("thinking", text=_text(rng, rng.randint(2, 10)))
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
                old = _text(rng, 2)
                add("tool_call", id=cid, name="edit_file",
                    input={"path": "kernel.cu", "old": old, "new": old.replace("tile", "tile2") + " // v2"})
                add("tool_result", id=cid, output="edited kernel.cu")
            elif r < 0.8:
                add("tool_call", id=cid, name="read_file", input={"path": "kernel.cu"})
                add("tool_result", id=cid, output="\n".join(_text(rng, 1) for _ in range(rng.randint(20, 120))))
            else:
                add("tool_call", id=cid, name="write_file",
                    input={"path": "kernel.cu", "content": "\n".join(_text(rng, 1) for _ in range(rng.randint(40, 200)))})
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
                     "pct_peak": round(rng.uniform(20, 80), 1)} for i, s in enumerate(_SCENARIOS)]
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


def _percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    k = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[k]


def run(n: int = 100_000, seed: int = 7, repeats: int = 3) -> dict:
    from questions.detectors import Detectors, detect
    from sessions.log import SessionWriter, read_events

    events = synthetic_log(n, seed)
    heavy_types = {"assistant_text", "thinking", "tool_call", "tool_result", "eval_result"}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "events.jsonl"
        with SessionWriter(path, fsync_types=frozenset()) as w:
            for ev in events:
                w.write_event(ev)
        size = path.stat().st_size
        batch = []
        disk = []
        points = None
        for _ in range(repeats):
            t0 = time.perf_counter()
            points = detect(events)
            batch.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            detect(read_events(path).events)
            disk.append(time.perf_counter() - t0)
    det = Detectors()
    per_event: list[float] = []
    per_heavy: list[float] = []
    clock = time.perf_counter_ns
    for ev in events:
        t0 = clock()
        det.feed(ev)
        dt = (clock() - t0) / 1000.0
        per_event.append(dt)
        if ev["type"] in heavy_types:
            per_heavy.append(dt)
    per_event.sort()
    per_heavy.sort()
    kinds: dict[str, int] = {}
    for dp in points or []:
        kinds[dp.kind] = kinds.get(dp.kind, 0) + 1
    types: dict[str, int] = {}
    for ev in events:
        types[ev["type"]] = types.get(ev["type"], 0) + 1
    return {
        "events": len(events), "bytes": size, "event_types": types,
        "decision_points": kinds,
        "batch_s": round(min(batch), 4), "batch_with_read_s": round(min(disk), 4),
        "per_event_us": {"mean": round(statistics.fmean(per_event), 2),
                         "p50": round(_percentile(per_event, 0.5), 2),
                         "p99": round(_percentile(per_event, 0.99), 2),
                         "max": round(per_event[-1], 2)},
        "per_heavy_event_us": {"n": len(per_heavy), "mean": round(statistics.fmean(per_heavy), 2),
                               "p50": round(_percentile(per_heavy, 0.5), 2),
                               "p99": round(_percentile(per_heavy, 0.99), 2),
                               "max": round(per_heavy[-1], 2)},
        "budgets": {"batch_s": BATCH_BUDGET_S, "per_event_us": PER_EVENT_BUDGET_US},
    }


def write_log(path: Path, target_bytes: int, seed: int = 7) -> tuple[int, int]:
    """Write a synthetic events.jsonl of at least `target_bytes` without holding it; (events, bytes)."""
    from sessions.log import SessionWriter

    n = 0
    with SessionWriter(path, fsync_types=frozenset()) as w:
        for ev in synthetic_events(10**9, seed):
            w.write_event(ev)
            n += 1
            if n % 5000 == 0 and path.stat().st_size >= target_bytes:
                break
    return n, path.stat().st_size


_CHILD = """
import resource, sys
from console.cli import main
code = main(["detect", sys.argv[1], "--json"])
try:
    status = open("/proc/self/status").read()
    peak = int(status.split("VmHWM:")[1].split()[0])
except (OSError, IndexError, ValueError):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print("peak_kb", peak, file=sys.stderr)
sys.exit(code)
"""


def memory(target_mb: int = 200, seed: int = 7) -> dict:
    """`kernelseek detect` on a log of `target_mb` MB, in a child process: wall time and peak RSS."""
    import resource
    import subprocess

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "events.jsonl"
        n, size = write_log(path, target_mb << 20, seed)
        t0 = time.perf_counter()
        # the child reports its own high-water mark (VmHWM, reset at exec): the rusage of children
        # would also count the parent's pages the child held between fork and exec
        proc = subprocess.run([sys.executable, "-c", _CHILD, str(path)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
        took = time.perf_counter() - t0
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr.decode(errors="replace")[-400:])
        hwm = [ln for ln in proc.stderr.decode().splitlines() if ln.startswith("peak_kb ")]
        peak_kb = int(hwm[-1].split()[1]) if hwm else resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        points = len(json.loads(proc.stdout)["decision_points"])
    return {"events": n, "bytes": size, "seconds": round(took, 2), "peak_rss_mb": round(peak_kb / 1024, 1),
            "decision_points": points, "budget_peak_rss_mb": MEMORY_BUDGET_MB}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m questions.bench_detect", description=__doc__.split("\n")[0])
    p.add_argument("--events", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--json", action="store_true")
    p.add_argument("--memory-mb", type=int, metavar="MB",
                   help="instead: run `kernelseek detect` on a log of this size and report its peak memory")
    args = p.parse_args(argv)
    if args.memory_mb:
        m = memory(args.memory_mb, args.seed)
        if args.json:
            json.dump(m, sys.stdout, indent=1)
            print()
        else:
            print(f"kernelseek detect on {m['bytes'] / 2**20:.0f} MB ({m['events']} events): {m['seconds']} s, "
                  f"peak RSS {m['peak_rss_mb']} MB (budget {MEMORY_BUDGET_MB:.0f} MB), "
                  f"{m['decision_points']} decision points")
        return 0 if m["peak_rss_mb"] <= MEMORY_BUDGET_MB else 1
    r = run(args.events, args.seed)
    if args.json:
        json.dump(r, sys.stdout, indent=1)
        print()
    else:
        print(f"{r['events']} events ({r['bytes'] / 1e6:.1f} MB): decision points {r['decision_points']}")
        print(f"batch detect: {r['batch_s']:.3f} s (with reading the file: {r['batch_with_read_s']:.3f} s); "
              f"budget {BATCH_BUDGET_S} s")
        pe, ph = r["per_event_us"], r["per_heavy_event_us"]
        print(f"live feed, every event: mean {pe['mean']} µs, p50 {pe['p50']}, p99 {pe['p99']}, max {pe['max']}; "
              f"budget {PER_EVENT_BUDGET_US} µs mean")
        print(f"live feed, heavy events only ({ph['n']}): mean {ph['mean']} µs, p50 {ph['p50']}, p99 {ph['p99']}, "
              f"max {ph['max']}")
    ok = r["batch_s"] < BATCH_BUDGET_S and r["per_event_us"]["mean"] < PER_EVENT_BUDGET_US
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
