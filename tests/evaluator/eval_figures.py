"""Print the acceptance figures that tests recorded (JSON lines in $KS_FIGURES), then a compact
table of the ones the GPU acceptance is judged on (with the attention sweep's summary.json).

    python3 tests/evaluator/eval_figures.py figures.jsonl [summary.json]
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

INTEGRITY = ("outside_stream", "timing_inconsistent", "impossible", "late_writes", "outside_call")


def load(path: str) -> list[dict]:
    try:
        with open(path, encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]
    except (OSError, ValueError) as exc:
        print(f"no figures: {exc}")
        return []


def compact(rows: list[dict], summary: dict) -> list[str]:
    """One line per acceptance figure, in the order the lead reads them."""
    by = {r["test"]: r for r in rows}
    out = []

    def line(what: str, text: str) -> None:
        out.append(f"{what:<30} {text}"[:160])

    def planted(p: dict) -> str:
        r, fixed = list(p["ratios"].values()), list((p.get("fixed_us_in_events") or {}).values())
        return (f"geomean {p['geomean']} (goal 0.49..0.56: half, pulled up by the fixed cost), per scenario {min(r)}..{max(r)}; fixed cost in events "
                f"{min(fixed, default='-')}..{max(fixed, default='-')} us")

    singles = {  # test -> (label, what its figures say)
        "cuda seed vs seed (all scenarios)": ("seed vs seed (rmsnorm)", lambda s: (
            f"geomean {s['geomean']} min {s['min_ratio']} passed {s['passed']}/{s['total']} (goal: within 0.005 of 1)")),
        "cuda planted 2x slower": ("planted 2x slower", planted),
        "cuda planted faster": ("planted faster", lambda f: f"geomean {f['geomean']}"),
        "cuda census cost per call": ("census cost per call", lambda c: (
            f"flush+attribute {c['flush_and_attribute_ms']} ms; host loop {c['host_loop_ms_off']} -> "
            f"{c['host_loop_ms_on']} ms")),
        "cuda quick eval wall (cold cache, incl. build)": ("quick eval, cold cache", lambda q: f"{q['wall_s']} s (goal < 20)"),
    }
    for test, (label, say) in singles.items():
        if test in by:
            line(label, say(by[test]))
    for r in rows:
        if r["test"].startswith("cuda attack: "):
            caught = "GOAL MET (not caught)" if r.get("met") else "caught: " + "; ".join(x[:60] for x in r.get("reasons", [])[:2])
            line(r["test"].removeprefix("cuda attack: "), caught)
        elif r["test"].startswith("cuda census: "):
            named = sum(1 for v in (r.get("census") or {}).values() if v)
            line("  census " + r["test"].removeprefix("cuda census: "), f"outside_stream named on {named} scenario(s)")
    full = summary.get("full") or {}
    if full:
        cost = full.get("cost") or {}
        tl = ", ".join(f"{k} {v:.1f}" for k, v in (cost.get("timeline_s") or {}).items())
        ph = ", ".join(f"{k} {v:.1f}" for k, v in (cost.get("phases_s") or {}).items())
        line("attention full sweep", f"wall {full.get('wall_s')} s (goal <= 90; acceptance <= 100): {tl}")
        line("  inside its scenarios", ph)
        census = cost.get("census") or {}
        line("  its census", f"on={census.get('on')} cost/call {census.get('cost_ms_per_call_median')} ms, "
                             f"off-stream {census.get('off_stream_records')}, incomplete {census.get('incomplete_calls')}")
        flags = cost.get("flags") or {}
        bad = {k: v for k, v in flags.items() if k in INTEGRITY}
        line("  honest sweep: false flags", f"{bad or 'none'} of {full.get('total')} scenarios; geomean "
                                            f"{round(full.get('geomean') or 0, 4)}; unexplained max "
                                            f"{cost.get('unexplained_ms_max')} ms "
                                            f"({cost.get('unexplained_over_threshold_max')} of its threshold)")
    return out


def main(path: str, summary_path: str | None = None) -> int:
    rows = load(path)
    if not rows and not summary_path:
        return 1
    width = max((len(r["test"]) for r in rows), default=10)
    print("\n=== acceptance figures ===")
    for r in rows:
        text = ", ".join(f"{k}={v}" for k, v in r.items() if k != "test")
        print(f"{r['test']:<{width}}  {text[:600]}")
    summary = {}
    if summary_path and Path(summary_path).is_file():
        summary = json.loads(Path(summary_path).read_text())
    print("\n=== figures (compact) ===")
    for text in compact(rows, summary):
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "figures.jsonl", sys.argv[2] if len(sys.argv) > 2 else None))
