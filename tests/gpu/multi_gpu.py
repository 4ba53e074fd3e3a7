"""Acceptance of issue 17 on a node with several GPUs, in one command (prints the figures last):

    PYTHONPATH=. python3 tests/gpu/multi_gpu.py [--out DIR] [--task attention-fwd-sm90] [--stages ...]

Stages (default: all, in this order; each writes its JSON under --out, so a later call can run the
rest, e.g. `--stages compare` after a device call ran out of time):
  sessions  N sessions of TASK launched at once (`kernelseek run TASK --count N`, N = the node's
            idle GPUs or --sessions) with a scripted model that evaluates the seed once (quick):
            they must land on N distinct GPUs, and each seed-vs-seed geomean stay within 0.5% of
            1.0 (every scenario measured on the session's own GPU). Needs the project's Python
            dependencies (anthropic, watchfiles: `pip install -e .`); the model is the local fake.
  single    `kernelseek eval TASK --gpus 1 --seed S` (the full sweep on one idle GPU): wall time.
            It also leaves each scenario's seconds in the cache, which the sharded plan balances by.
  sharded   `kernelseek eval TASK --gpus all --seed S`: wall time over N GPUs.
  compare   sharded wall <= 1.3 x (single wall / N), and every scenario's ratio in the sharded
            sweep agrees with the single-GPU one within their intervals (the two 95% CIs overlap).
Exit 0 when every stage that ran met its figure, 1 otherwise. The build cache is warm for both
sweeps (the single one builds first), so the walls compare evaluation with evaluation.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
SEED = 20261201


def log(*parts) -> None:
    print(*parts, flush=True)


def kernelseek(args: list[str], env: dict | None = None, timeout: float = 600) -> tuple[subprocess.CompletedProcess, float]:
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "console", *args], cwd=str(REPO), capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})}, timeout=timeout)
    return proc, time.monotonic() - t0


def idle_count() -> tuple[int, list]:
    from evaluator.sweep import idle_gpus

    picked = idle_gpus(None, what="multi_gpu.py: counting idle GPUs")
    picked.release()
    return len(picked.gpus), [g.to_json() for g in picked.gpus]


# -- sessions ------------------------------------------------------------------------------------------

def stage_sessions(out: Path, task: str, n: int, summary: dict) -> bool:
    sys.path.insert(0, str(REPO / "tests" / "agent"))
    try:
        from fake_anthropic import FakeAnthropic, Reply, by_step, text, tool
    except ImportError as exc:
        log(f"SESSIONS skipped: {exc}")
        summary["sessions"] = {"skipped": str(exc)}
        return True
    import yaml

    home = Path(tempfile.mkdtemp(prefix="ks-multi-home-"))
    os.chmod(home, 0o700)
    (home / "agent.yaml").write_text(yaml.safe_dump({"max_turns": 3, "gate_quick": True}))
    # the model evaluates the seed (the session's candidate is its copy), then says it is done
    model = by_step(Reply(tool("evaluate", quick=True)), Reply(text("Measured the seed.")),
                    then=Reply(text("Stopping here.")))
    with FakeAnthropic(handler=model) as server:
        env = {**server.env(), "KERNELSEEK_HOME": str(home), "KERNELSEEK_STEERING_LOG": "off"}
        t0 = time.monotonic()
        proc, _ = kernelseek(["run", task, "--count", str(n), "--config", str(home / "agent.yaml")], env)
        if proc.returncode != 0:
            log("SESSIONS FAILED to launch:", proc.stderr[-2000:])
            summary["sessions"] = {"ok": False, "error": proc.stderr[-2000:]}
            return False
        sessions = sorted((home / "sessions").iterdir())
        deadline = time.monotonic() + 540
        while time.monotonic() < deadline and not all(_ended(s) for s in sessions):
            time.sleep(2)
        wall = time.monotonic() - t0
    deadline = time.monotonic() + 60  # the runners let their GPUs go as they exit
    while time.monotonic() < deadline and idle_count()[0] < n:
        time.sleep(1)
    rows = []
    for s in sessions:
        events = _events(s)
        start = next((e for e in events if e.get("type") == "session_start"), {})
        gpu = (start.get("place") or {}).get("gpu") or {}
        evals = [e for e in events if e.get("type") == "eval_result"]
        first = evals[0] if evals else {}
        summ = first.get("summary") or {}
        measured_on = set()
        if first.get("report"):
            report = json.loads((s / first["report"]).read_text())
            measured_on = {(r.get("gpu") or {}).get("uuid") for r in report["scenarios"]}
        rows.append({"session": s.name, "gpu_index": gpu.get("index"), "gpu_uuid": gpu.get("uuid"),
                     "geomean": summ.get("geomean"), "all_correct": summ.get("all_correct"),
                     "measured_on_own_gpu": measured_on == {gpu.get("uuid")},
                     "ended": next((e.get("reason") for e in events if e.get("type") == "session_end"), None)})
    distinct = len({r["gpu_uuid"] for r in rows if r["gpu_uuid"]}) == n == len(rows)
    within = all(isinstance(r["geomean"], (int, float)) and abs(r["geomean"] - 1.0) <= 0.005 and r["all_correct"]
                 for r in rows)
    own = all(r["measured_on_own_gpu"] for r in rows)
    ok = distinct and within and own
    summary["sessions"] = {"ok": ok, "n": n, "distinct_gpus": distinct, "geomeans_within_0.5pct": within,
                           "each_measured_on_its_own_gpu": own, "wall_s": round(wall, 1), "rows": rows}
    (out / "sessions.json").write_text(json.dumps(summary["sessions"], indent=1))
    for r in rows:
        log(f"  {r['session']}: GPU {r['gpu_index']} geomean {r['geomean']} correct {r['all_correct']} "
            f"own GPU {r['measured_on_own_gpu']} ({r['ended']})")
    log("SESSIONS", "ok" if ok else "FAILED", {k: v for k, v in summary["sessions"].items() if k != "rows"})
    return ok


def _events(session: Path) -> list[dict]:
    try:
        return [json.loads(line) for line in (session / "events.jsonl").read_text().splitlines() if line.strip()]
    except (OSError, ValueError):
        return []


def _ended(session: Path) -> bool:
    return any(e.get("type") == "session_end" for e in _events(session))


# -- the sweeps ----------------------------------------------------------------------------------------

def stage_sweep(out: Path, task: str, gpus: str, label: str, candidate: str | None, summary: dict) -> bool:
    path = out / f"{label}.json"
    args = ["eval", task, "--gpus", gpus, "--seed", str(SEED), "--json", str(path)]
    if candidate:
        args += ["--candidate", candidate]
    proc, wall = kernelseek(args)
    (out / f"{label}.txt").write_text(proc.stdout + proc.stderr)
    if not path.is_file():
        log(f"{label.upper()} FAILED (exit {proc.returncode}):", proc.stderr[-2000:])
        summary[label] = {"ok": False, "exit": proc.returncode}
        return False
    report = json.loads(path.read_text())
    shards = report["options"].get("shards") or []
    summary[label] = {"ok": proc.returncode == 0, "exit": proc.returncode, "wall_s": round(wall, 1),
                      "duration_s": report["duration_s"], "gpus": len(shards), "geomean": report["geomean"],
                      "passed": report["passed"], "total": report["total"], "error": report["error"],
                      "shards": [(s["gpu"].get("index"), s["scenarios"], s["planned_s"], s["seconds"]) for s in shards]}
    log(label.upper(), json.dumps(summary[label]))
    return proc.returncode == 0


def stage_compare(out: Path, summary: dict) -> bool:
    try:
        one = json.loads((out / "single.json").read_text())
        many = json.loads((out / "sharded.json").read_text())
    except OSError as exc:
        log("COMPARE skipped:", exc)
        return False
    n = len(many["options"]["shards"])
    walls = {k: (summary.get(k) or {}).get("wall_s") for k in ("single", "sharded")}
    t1 = walls["single"] or one["duration_s"]
    tn = walls["sharded"] or many["duration_s"]
    ideal = t1 / n
    speed_ok = tn <= 1.3 * ideal
    a = {s["name"]: s for s in one["scenarios"]}
    agree, differ = 0, []
    for s in many["scenarios"]:
        r = a.get(s["name"])
        if not r or not s.get("ci") or not r.get("ci"):
            continue
        if s["ci"][0] <= r["ci"][1] and r["ci"][0] <= s["ci"][1]:
            agree += 1
        else:
            differ.append((s["name"], r["ratio"], r["ci"], s["ratio"], s["ci"], (s.get("gpu") or {}).get("index")))
    compared = agree + len(differ)
    ratios_ok = compared > 0 and not differ
    summary["compare"] = {
        "gpus": n, "single_wall_s": t1, "sharded_wall_s": tn, "ideal_s": round(ideal, 1),
        "sharded_over_ideal": round(tn / ideal, 3), "within_1.3x": speed_ok,
        "scenarios_compared": compared, "ratios_agree": agree, "ratios_differ": differ[:20],
        "geomeans": [one["geomean"], many["geomean"]], "ok": speed_ok and ratios_ok}
    log("COMPARE", json.dumps(summary["compare"], indent=1))
    return speed_ok and ratios_ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT") or ".out/multi_gpu")
    ap.add_argument("--task", default="attention-fwd-sm90")
    ap.add_argument("--candidate", default=None, help="sweep this candidate instead of the seed")
    ap.add_argument("--sessions", type=int, default=None, help="sessions to launch (default: the idle GPUs)")
    ap.add_argument("--stages", default="sessions,single,sharded,compare")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    n, gpus = idle_count()
    summary: dict = {**_previous(out), "idle_gpus": gpus}  # what earlier calls measured, kept
    log(f"{n} idle GPUs: " + ", ".join(f"{g.get('index')} {g['uuid']}" for g in gpus))
    if n < 2:
        log("this node has fewer than two idle GPUs: the figures below do not test several GPUs")
    ok = True
    t0 = time.time()
    for stage in args.stages.split(","):
        if stage == "sessions":
            ok = stage_sessions(out, args.task, args.sessions or n, summary) and ok
        elif stage == "single":
            ok = stage_sweep(out, args.task, "1", "single", args.candidate, summary) and ok
        elif stage == "sharded":
            ok = stage_sweep(out, args.task, "all", "sharded", args.candidate, summary) and ok
        elif stage == "compare":
            ok = stage_compare(out, summary) and ok
        else:
            log(f"no stage {stage!r}")
            return 2
    summary["total_s"] = round(time.time() - t0, 1)
    (out / "summary.json").write_text(json.dumps(summary, indent=1, default=str))
    log("\nFIGURES", json.dumps({k: ({kk: vv for kk, vv in v.items() if kk not in ("rows", "ratios_differ")}
                                     if isinstance(v, dict) else v) for k, v in summary.items()}, indent=1, default=str))
    return 0 if ok else 1


def _previous(out: Path) -> dict:
    try:
        data = json.loads((out / "summary.json").read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


if __name__ == "__main__":
    sys.exit(main())
