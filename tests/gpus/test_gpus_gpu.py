"""On a real GPU (`gpu` marker; skipped cleanly without one): evaluations that share a GPU take
turns timing (never two timing at once, a wait said and recorded), correctness-only work shares
with correctness-only work only, and `kernelseek eval --gpus all` on this node's idle GPUs merges
one report naming the GPU of every scenario. Written for any number of GPUs; on a one-GPU machine
the N>1 parts are the ones one GPU allows (three evaluations on it at once; --gpus 2 refused).

Added to tests/gpu/device_run.sh: about 30 s on an H200 with a warm build cache.
"""
from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "evaluator"))

from eval_plants import record  # noqa: E402
from evaluator import evaluate_isolated  # noqa: E402
from evaluator.gpu_lock import TimingLock  # noqa: E402
from evaluator.gpus import allocation, node_gpus  # noqa: E402
from fleet_helpers import kernelseek  # noqa: E402
from gpu_helpers import REPO  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.timeout(240)]
TASK = "rmsnorm-cuda"


def _intervals(report, lock: str) -> list[tuple[float, float, str]]:
    return [(s.gpu["held"][0], s.gpu["held"][1], s.name) for s in report.scenarios
            if s.gpu and s.gpu.get("lock") == lock]


def _overlap(a: list, b: list) -> list:
    return [(x, y) for x in a for y in b if x[0] < y[1] - 1e-4 and y[0] < x[1] - 1e-4]


def test_evaluations_on_one_gpu_take_turns_timing_and_say_that_they_waited():
    gpus = allocation(node_gpus())
    me = gpus[0] if gpus else None
    events: dict[str, list] = {"a": [], "b": [], "checks": []}
    reports: dict = {}

    def run(key: str, **kw) -> None:
        reports[key] = evaluate_isolated(TASK, None, quick=True, seed=5, time_budget_s=0.3, baselines=False,
                                         progress=events[key].append, **kw)

    # this test times on the GPU first (as another session's evaluation would): the others must wait
    uuid = me.uuid if me else None
    threads = [threading.Thread(target=run, args=("a",)), threading.Thread(target=run, args=("b",)),
               threading.Thread(target=run, args=("checks",), kwargs={"timing": False})]
    t0 = time.monotonic()
    if uuid:
        with TimingLock(uuid).hold("the test's own timing"):
            for th in threads:
                th.start()
            time.sleep(6.0)
    else:
        for th in threads:
            th.start()
    for th in threads:
        th.join(200)
    wall = time.monotonic() - t0
    a, b, checks = reports["a"], reports["b"], reports["checks"]
    for r in (a, b, checks):
        assert r.error is None and r.all_correct, r.error
        gpu = r.device["gpu"]
        assert all(s.gpu and s.gpu["uuid"] == gpu["uuid"] for s in r.scenarios)
        if me:
            assert gpu["uuid"] == me.uuid and gpu.get("index") == me.index
    ex_a, ex_b = _intervals(a, "exclusive"), _intervals(b, "exclusive")
    shared = _intervals(checks, "shared")
    assert len(ex_a) == len(ex_b) == len(shared) == 3
    assert not _overlap(ex_a, ex_b), "two evaluations timed on one GPU at once"
    assert not _overlap(shared, ex_a + ex_b), "checks ran while an evaluation timed"
    waits = [e for k in events for e in events[k] if e.get("event") == "gpu_wait"]
    waited = [s.gpu for r in (a, b, checks) for s in r.scenarios if s.gpu.get("waited_s")]
    if uuid:
        assert any("the test's own timing" in e["message"] for e in waits)
        assert any("the test's own timing" in g.get("waited_for", "") for g in waited)
    assert abs(a.geomean - 1.0) < 0.02 and abs(b.geomean - 1.0) < 0.02
    record("gpus: three evaluations on one GPU", wall_s=round(wall, 1), waits=len(waits),
           waited_s=round(sum(g["waited_s"] for g in waited), 2), geomeans=[round(a.geomean, 4), round(b.geomean, 4)],
           gpu=a.device["gpu"])


def test_eval_gpus_all_sweeps_the_idle_gpus_into_one_report(tmp_path):
    out = tmp_path / "sweep.json"
    t0 = time.monotonic()
    r = kernelseek(["eval", TASK, "--quick", "--gpus", "all", "--seed", "5", "--budget", "0.3", "--json", str(out)],
                   {**os.environ, "PYTHONPATH": str(REPO)}, timeout=200)
    wall = time.monotonic() - t0
    assert r.returncode == 0, r.stderr[-3000:]
    report = json.loads(out.read_text())
    idle = len(report["options"]["shards"])
    gpus = {g["uuid"] for g in report["device"]["gpus"]}
    assert idle >= 1 and len(gpus) == idle and report["all_correct"]
    assert all(s["gpu"]["uuid"] in gpus for s in report["scenarios"]) and report["total"] == 3
    assert "swept over" in r.stdout
    record("gpus: eval --quick --gpus all", wall_s=round(wall, 1), gpus=idle, geomean=report["geomean"],
           per_gpu=[(s["gpu"].get("index"), s["scenarios"], s["seconds"]) for s in report["options"]["shards"]])
    node = allocation(node_gpus())
    if len(node) == 1:  # more GPUs than the node has: refused, naming what it has
        r = kernelseek(["eval", TASK, "--quick", "--gpus", "2"], {**os.environ, "PYTHONPATH": str(REPO)})
        assert r.returncode == 4 and "asked for 2 GPUs, 1 of 1 idle" in r.stderr, r.stderr
