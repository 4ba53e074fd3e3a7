"""Acceptance run of the attention task on a GPU node, in one command:

  python3 benchmarks/attention_acceptance.py [--out DIR] [--stages ...]

Stages, run in the order --stages gives (default: in order of diagnostic value); once one finds a
wrong kernel the rest are skipped, to save device time:
  ref      the fp32 reference kernel against float64 numpy on small shapes of every feature
  matrix   the seed and the five broken candidates on every scenario (one pass, shared inputs)
  quick    `evaluate_isolated(quick=True)` seed vs seed, fresh build cache: wall time
  full     `evaluate_isolated()` seed vs seed with torch SDPA baselines, fresh build cache
Writes the full reports under --out (default $OUT or .out/) and prints a short table last.
Imports only numpy, pyyaml, the evaluator and (in the baselines) torch.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# the attention task's checks, broken candidates and small shapes are the GPU tests' own
sys.path[:0] = [str(REPO / "tests" / "attention_sm90"), str(REPO)]

from attention_broken import BROKEN, TASK_DIR, feature_used  # noqa: E402
from attention_small import SMALL  # noqa: E402

LOG = None


def log(*parts) -> None:
    line = " ".join(str(p) for p in parts)
    print(line, flush=True)
    if LOG:
        LOG.write(line + "\n")
        LOG.flush()


def save(out: Path, name: str, data) -> None:
    (out / name).write_text(json.dumps(data, indent=1, default=str))


def stage_ref(out: Path, summary: dict) -> bool:
    from attention_check import reference_vs_numpy

    t0 = time.time()
    errors = reference_vs_numpy(SMALL, cache_dir=Path(tempfile.mkdtemp(prefix="ks-ref-")))
    save(out, "refcheck.json", errors)
    worst = {o: max(e[o]["rel_l2"] for e in errors.values()) for o in ("o", "lse")}
    worst_abs = {o: max(e[o]["max_abs"] for e in errors.values()) for o in ("o", "lse")}
    ok = worst["o"] < 2e-6 and worst["lse"] < 2e-6 and worst_abs["o"] < 2e-5 and worst_abs["lse"] < 1e-4
    for name, e in errors.items():
        log(f"  ref {name:32s} o rel {e['o']['rel_l2']:.2e} abs {e['o']['max_abs']:.2e}   "
            f"lse rel {e['lse']['rel_l2']:.2e} abs {e['lse']['max_abs']:.2e}")
    summary["ref"] = {"ok": ok, "worst_rel_l2": worst, "worst_max_abs": worst_abs, "cases": len(errors),
                      "seconds": round(time.time() - t0, 1)}
    log("REF", "ok" if ok else "FAILED", summary["ref"])
    return ok


def stage_matrix(out: Path, summary: dict, only: str | None) -> bool:
    from attention_check import correctness_matrix
    from evaluator.task import load_task

    task = load_task(TASK_DIR)
    res = correctness_matrix({b.name: b.path for b in BROKEN}, only=only,
                             progress=lambda line: log("  " + line))
    names = list(res.seed_failures)
    seed_bad = {n: f for n, f in res.seed_failures.items() if f}
    broken = {}
    for b in BROKEN:
        expected = {n for n in names if feature_used(task.harness, task.harness.shape_of(
            next(s for s in task.scenarios if s.name == n).params), b.feature)}
        got = res.failing(b.name)
        broken[b.name] = {"expected": len(expected), "failed": len(got), "exact": got == expected,
                          "unexpected": sorted(got - expected), "missed": sorted(expected - got)}
    worst_seed = {o: max(e[o]["rel_l2"] for e in res.seed_errors.values()) for o in ("o", "lse")}
    save(out, "matrix.json", {"seed_failures": res.seed_failures, "seed_errors": res.seed_errors,
                              "failures": res.failures, "violations": res.violations,
                              "build_seconds": res.build_seconds, "seconds": res.seconds, "broken": broken})
    summary["matrix"] = {"scenarios": len(names), "seed_incorrect": seed_bad, "broken": broken,
                         "seed_worst_rel_l2": worst_seed, "violations": res.violations,
                         "seconds": round(res.seconds, 1)}
    ok = not seed_bad and all(v["exact"] for v in broken.values())
    log("MATRIX", "ok" if ok else "FAILED", json.dumps(summary["matrix"], default=str)[:3000])
    return not seed_bad


def stage_eval(out: Path, summary: dict, quick: bool) -> bool:
    from evaluator import evaluate_isolated

    label = "quick" if quick else "full"
    cache = Path(tempfile.mkdtemp(prefix=f"ks-{label}-"))
    events = []

    def progress(ev):
        kind = ev.get("event")
        if kind == "scenario_done":
            r = ev["result"]
            b = " ".join(f"{k}={v.get('ms', v.get('error', ''))}" for k, v in (r.get("baselines") or {}).items())
            log(f"  {label} {r['name']:64s} {'ok ' if r['correct'] else 'BAD'} ratio {r.get('ratio')} "
                f"seed {r.get('seed_ms')} ms {b} {r.get('failure') or ''} {r.get('seconds')}s")
        elif kind in ("build", "start", "fatal"):
            log(f"  {label} {json.dumps({k: v for k, v in ev.items() if k != 'names'})[:400]}")
        events.append(kind)

    t0 = time.time()
    report = evaluate_isolated(TASK_DIR, None, quick=quick, cache_dir=str(cache), seed=1234,
                               progress=progress)
    wall = time.time() - t0
    data = report.to_json()
    save(out, f"{label}.json", data)
    s = {"wall_s": round(wall, 1), "duration_s": data["duration_s"], "geomean": data["geomean"],
         "min_ratio": data["min_ratio"], "all_correct": data["all_correct"], "passed": data["passed"],
         "total": data["total"], "error": data["error"], "host": data.get("host"),
         "build_s": {k: (data.get(k) or {}).get("seconds") for k in ("build", "reference_build")},
         "peaks": (data.get("device") or {}).get("peaks"), "cost": isolation_cost(data)}
    summary[label] = s
    log(label.upper(), json.dumps(s, default=str))
    cost = s["cost"]
    log(f"{label}: wall {s['wall_s']} s = " + ", ".join(f"{k} {v:.1f}" for k, v in cost["timeline_s"].items())
        + " | inside the scenarios: " + ", ".join(f"{k} {v:.1f}" for k, v in cost["phases_s"].items()))
    shutil.rmtree(cache, ignore_errors=True)
    return bool(data["all_correct"])


def isolation_cost(data: dict) -> dict:
    """Where a sweep's time went: the verdict's timeline (start, builds, constraints, hosts, peaks,
    scenarios) and, inside the scenarios, the verdict's phases summed (what no phase holds is
    `unaccounted`); what the host's loop costs per call (the seed's median wall-minus-event gap:
    poison, flush, snapshot, sync); the launch census (its cost per call, what it found); and the
    flags an honest sweep raised."""
    phases: dict[str, float] = {}
    gaps, kernel_ms, verified, flags, census_cost, off_stream, incomplete = [], 0.0, 0, {}, [], 0, 0
    inside = 0.0
    for r in data["scenarios"]:
        inside += r.get("seconds") or 0.0
        for k, v in (r.get("phases") or {}).items():
            phases[k] = phases.get(k, 0.0) + v
        gap = (r.get("audit") or {}).get("gap")
        if gap:
            gaps.append(gap["seed_ms"])
        census = (r.get("audit") or {}).get("census") or {}
        if census.get("cost_ms_per_call") is not None:
            census_cost.append(census["cost_ms_per_call"])
        off_stream += (census.get("off_stream") or 0) + (census.get("outside_calls") or 0)
        incomplete += census.get("incomplete_calls") or 0
        if r.get("seed_ms") and r.get("cand_ms"):
            kernel_ms += (r["seed_ms"] + r["cand_ms"]) * r.get("pairs", 0)
        verified += (r.get("audit") or {}).get("verified", 0)
        for f in r.get("flags") or []:
            flags[f] = flags.get(f, 0) + 1
    phases["unaccounted"] = inside - sum(phases.values())
    unexplained = [(r["audit"]["unexplained_ms_per_call"], r["audit"]["unexplained_threshold_ms"])
                   for r in data["scenarios"] if "unexplained_ms_per_call" in (r.get("audit") or {})]
    return {"timeline_s": data.get("timeline") or {},
            "phases_s": {k: round(v, 1) for k, v in sorted(phases.items())},
            "per_call_overhead_ms_median": round(statistics.median(gaps), 4) if gaps else None,
            "kernel_s_in_timed_rounds": round(kernel_ms / 1e3, 1), "verified_timed_rounds": verified,
            "census": {**((data.get("host") or {}).get("census") or {}),
                       "cost_ms_per_call_median": round(statistics.median(census_cost), 5) if census_cost else None,
                       "off_stream_records": off_stream, "incomplete_calls": incomplete},
            "unexplained_ms_max": round(max(u for u, _ in unexplained), 4) if unexplained else None,
            "unexplained_over_threshold_max": round(max(u / t for u, t in unexplained), 3) if unexplained else None,
            "flags": flags}


def _class(name: str) -> str:
    for prefix in ("prefill", "varlen", "chunked_paged", "chunked", "cross", "mixed", "decode_dense",
                   "decode", "specdec", "window", "softcap", "edge"):
        if name.startswith(prefix):
            return prefix
    return "other"


def table(out: Path, summary: dict) -> None:
    path = out / "full.json"
    if not path.is_file():
        path = out / "quick.json"
    if not path.is_file():
        return
    sys.path.insert(0, str(TASK_DIR))
    from evaluator.task import load_task

    task = load_task(TASK_DIR)
    data = json.loads(path.read_text())
    rows = []
    for r in data["scenarios"]:
        if not r.get("seed_ms"):
            continue
        flops = task.harness.flops(r["params"])
        tf = lambda ms: flops / (ms * 1e-3) / 1e12 if ms else None  # noqa: E731
        base = r.get("baselines") or {}
        rows.append({"name": r["name"], "class": _class(r["name"]), "seed_tf": tf(r["seed_ms"]),
                     "seed_ms": r["seed_ms"], "ratio": r.get("ratio"),
                     "flash_tf": tf(base.get("sdpa_flash", {}).get("ms")),
                     "cudnn_tf": tf(base.get("sdpa_cudnn", {}).get("ms")),
                     "flash_err": base.get("sdpa_flash", {}).get("error"),
                     "cudnn_err": base.get("sdpa_cudnn", {}).get("error")})
    save(out, "table.json", rows)
    with (out / "table.txt").open("w") as f:
        f.write(f"{'scenario':66s} {'seed ms':>9s} {'seed TF/s':>9s} {'flash':>7s} {'cudnn':>7s} {'ratio':>6s}\n")
        for r in rows:
            fmt = lambda x: f"{x:7.1f}" if x else "      -"  # noqa: E731
            f.write(f"{r['name']:66s} {r['seed_ms']:9.4f} {r['seed_tf']:9.1f} {fmt(r['flash_tf'])} "
                    f"{fmt(r['cudnn_tf'])} {r['ratio'] or 0:6.3f}\n")
    log("\nper class: median TFLOP/s (scenarios) — seed | SDPA flash | SDPA cuDNN, where SDPA applies")
    for cls in sorted({r["class"] for r in rows}):
        rs = [r for r in rows if r["class"] == cls]
        med = lambda xs: statistics.median(xs) if xs else float("nan")  # noqa: E731
        fl = [r for r in rs if r["flash_tf"]]
        cu = [r for r in rs if r["cudnn_tf"]]
        log(f"  {cls:14s} seed {med([r['seed_tf'] for r in rs]):7.1f} ({len(rs):3d})   "
            f"on SDPA's: seed {med([r['seed_tf'] for r in cu]):7.1f} flash {med([r['flash_tf'] for r in fl]):7.1f} "
            f"({len(fl):2d}) cudnn {med([r['cudnn_tf'] for r in cu]):7.1f} ({len(cu):2d})")
    share = [r["seed_tf"] / r["cudnn_tf"] for r in rows
             if r["cudnn_tf"] and re.match(r"prefill_d128_.*_bf16$", r["name"])]
    if share:
        summary["seed_share_of_cudnn_d128_bf16_prefill"] = {
            "geomean": math.exp(sum(map(math.log, share)) / len(share)), "min": min(share), "max": max(share),
            "n": len(share)}
    errs = {r["name"]: (r["flash_err"], r["cudnn_err"]) for r in rows if r["flash_err"] or r["cudnn_err"]}
    summary["baseline_errors"] = {k: v for k, v in list(errs.items())[:12]}


def main() -> int:
    global LOG
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT") or ".out")
    ap.add_argument("--stages", default="ref,matrix,quick,full")
    ap.add_argument("--only", default=None, help="regex on scenario names for the matrix stage")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    LOG = (out / "acceptance.log").open("a")
    stages = args.stages.split(",")
    summary: dict = {"stages": stages}
    t0 = time.time()
    healthy = True
    run = {"ref": lambda: stage_ref(out, summary),
           "matrix": lambda: stage_matrix(out, summary, args.only),
           "quick": lambda: stage_eval(out, summary, quick=True),
           "full": lambda: stage_eval(out, summary, quick=False)}
    try:
        for stage in stages:  # in the order given; a wrong kernel stops the rest
            if healthy:
                healthy = run[stage]() and healthy
        table(out, summary)
    finally:
        summary["total_s"] = round(time.time() - t0, 1)
        save(out, "summary.json", summary)
        log("\nSUMMARY", json.dumps(summary, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
