"""What the trust boundary costs: the same evaluations through the sandboxed host and in-process,
and optionally through another checkout's evaluator (the code before the boundary), on one task.

  PYTHONPATH=. python3 tests/evaluator/isolation_cost.py softmax-cpu [--budget S] [--before DIR] [--json OUT]

Prints, per path: wall time, the verdict's phases summed over scenarios, timed rounds, the host's
per-call overhead (the seed's mean wall-minus-event time: poison, flush, snapshot, synchronize)
and the candidate's per-call cost of the verification. Not part of the test suite (it measures).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def summarise(data: dict, wall: float) -> dict:
    phases: dict[str, float] = {}
    gaps, pairs, verified = [], 0, 0
    for r in data["scenarios"]:
        for k, v in (r.get("phases") or {}).items():
            phases[k] = round(phases.get(k, 0.0) + v, 3)
        gap = (r.get("audit") or {}).get("gap")
        if gap:
            gaps.append(gap["seed_ms"])
        pairs += r.get("pairs", 0)
        verified += (r.get("audit") or {}).get("verified", 0)
    return {"wall_s": round(wall, 2), "geomean": data.get("geomean"), "all_correct": data.get("all_correct"),
            "phases_s": phases, "pairs": pairs, "verified_rounds": verified,
            "host_overhead_ms_per_call": round(statistics.median(gaps), 4) if gaps else None,
            "host": (data.get("host") or {}).get("kind"),
            "flags": sorted({f for r in data["scenarios"] for f in r.get("flags", [])})}


def run_here(task: str, budget: float, host: str, seed: int) -> dict:
    from evaluator import evaluate, evaluate_isolated

    t0 = time.perf_counter()
    if host == "isolated":
        report = evaluate_isolated(task, seed=seed, time_budget_s=budget, baselines=False)
    else:
        report = evaluate(task, seed=seed, time_budget_s=budget, baselines=False, host=host)
    return summarise(report.to_json(), time.perf_counter() - t0)


def run_before(repo: Path, task: str, budget: float, seed: int) -> dict:
    code = ("import json, sys, time\nfrom evaluator import evaluate_isolated\n"
            f"t0 = time.perf_counter(); r = evaluate_isolated({task!r}, seed={seed}, time_budget_s={budget}, baselines=False)\n"
            "print(json.dumps({'wall': time.perf_counter() - t0, 'report': r.to_json()}))\n")
    env = dict(os.environ, PYTHONPATH=str(repo), PYTHONDONTWRITEBYTECODE="1",
               KERNELSEEK_CACHE=tempfile.mkdtemp(prefix="ks-before-"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=repo, env=env,
                         timeout=3600)
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return summarise(data["report"], data["wall"])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("task")
    ap.add_argument("--budget", type=float, default=None)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--before", type=Path, help="a checkout of the evaluator before the trust boundary")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rows = {}
    for host in ("local", "isolated"):
        rows[host] = run_here(args.task, args.budget, host, args.seed)
        print(host, json.dumps(rows[host]), flush=True)
    if args.before:
        rows["before"] = run_before(args.before, args.task, args.budget, args.seed)
        print("before", json.dumps(rows["before"]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
