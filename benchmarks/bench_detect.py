"""Benchmark of the detectors: a whole-log run and the per-event cost of live feeding.

    .venv/bin/python benchmarks/bench_detect.py [--events 100000] [--seed 7] [--json]
    .venv/bin/python benchmarks/bench_detect.py --memory-mb 200   # kernelseek detect's peak memory, streaming

Takes the synthetic log of a long agent run from tests/support/synthetic_session.py
(`long_run_events`: assistant text with the occasional claim, thinking, tool calls and results
with real-sized inputs and outputs, compiler errors, evaluations with per-scenario ratios, usage,
streamed deltas, human messages), writes it as an events.jsonl, then measures:

- batch: `detect(events)` over the whole log in memory, and read-from-disk plus detect;
- live: `Detectors.feed(event)` one event at a time, timed per call (mean, p50, p99, max),
  over every event and over the "heavy" ones alone (text, tool calls and results, evaluations).

The budgets (issues #4, #12): a 100,000-event log in under 2 s; under 50 µs per event on average;
`kernelseek detect` streams a 200 MB log in at most 300 MB of peak resident memory.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests" / "support")]  # the generator lives with the tests

from synthetic_session import long_run_log, write_long_run_log  # noqa: E402

BATCH_BUDGET_S = 2.0
MEMORY_BUDGET_MB = 300.0  # peak resident memory of `kernelseek detect` on a 200 MB log
PER_EVENT_BUDGET_US = 50.0


def _percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    k = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[k]


def run(n: int = 100_000, seed: int = 7, repeats: int = 3) -> dict:
    from questions.detectors import Detectors, detect
    from sessions.log import SessionWriter, read_events

    events = long_run_log(n, seed)
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
        n, size = write_long_run_log(path, target_mb << 20, seed)
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
    p = argparse.ArgumentParser(prog="benchmarks/bench_detect.py", description=__doc__.split("\n")[0])
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
