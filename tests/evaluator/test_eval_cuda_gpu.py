"""The cuda path end to end on a GPU (rmsnorm-cuda): timing acceptance and every caught trick.

All tests here need a CUDA GPU (`gpu` marker; skipped cleanly without one). They also keep their
measured figures (eval_plants.record) so tests/gpu/device_run.sh prints the acceptance table.
The timing figures go through the user's path (`evaluate_isolated`: the verdict in a child, the
candidate in a sandboxed host); correctness-only cases run in this process (host="local", one
CUDA context for all); a kernel that breaks the context or hangs runs isolated.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eval_plants import candidate, plant, record
from evaluator import check_reference, evaluate, evaluate_isolated

pytestmark = pytest.mark.gpu
TASK = "rmsnorm-cuda"
SMALL = "^r1024_c1024$|^r333_c1000$"
REPO = Path(__file__).resolve().parents[2]


def test_quick_eval_from_a_cold_cache_is_under_20_s(tmp_path):
    env = dict(os.environ, KERNELSEEK_CACHE=str(tmp_path / "cold-cache"), PYTHONPATH=str(REPO))
    out = tmp_path / "quick.json"
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "console", "eval", TASK, "--quick", "--json", str(out)],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    wall = time.perf_counter() - t0
    print(proc.stdout[-3000:], proc.stderr[-3000:])
    report = json.loads(out.read_text())
    record("cuda quick eval wall (cold cache, incl. build)", wall_s=round(wall, 2),
           geomean=report["geomean"], all_correct=report["all_correct"],
           build_s=report["build"]["seconds"], device=report["device"].get("name"),
           peak_gbps=report["device"].get("peaks", {}).get("memory_gbps"))
    assert proc.returncode == 0
    assert report["all_correct"] and not report["build"]["cached"]
    assert wall < 20.0


def test_seed_against_itself_reads_one_on_every_scenario():
    report = evaluate_isolated(TASK, seed=21, time_budget_s=1.5, baselines=False)
    rows = {s.name: (round(s.ratio, 4), [round(c, 4) for c in s.ci], s.pairs) for s in report.scenarios}
    record("cuda seed vs seed (all scenarios)", geomean=round(report.geomean, 4),
           min_ratio=round(report.min_ratio, 4), passed=report.passed, total=report.total, scenarios=rows,
           audit={s.name: s.audit for s in report.scenarios[:2]}, host=report.host,
           seconds={s.name: s.seconds for s in report.scenarios},
           pct_peak={s.name: round(s.pct_peak or 0, 1) for s in report.scenarios})
    print(report.text_table())
    assert report.all_correct and report.host.get("confined", {}).get("seccomp")
    assert report.host["census"]["on"], report.host["census"]["note"]
    assert abs(report.geomean - 1.0) <= 0.005  # within 0.5% of 1.0
    assert not any(f in s.flags for s in report.scenarios for f in ("outside_stream", "timing_inconsistent",
                                                                      "impossible"))
    assert all(s.audit["census"]["off_stream"] == 0 and s.audit["census"]["outside_calls"] == 0
               for s in report.scenarios)


def test_the_launch_census_costs_little_per_call():
    """The same quick seed-vs-seed run with and without the census: what it adds to each call
    (the host's loop, wall minus events) and to the kernels' own times."""
    runs = {on: evaluate_isolated(TASK, quick=True, seed=29, time_budget_s=0.5, baselines=False, census=on)
            for on in (True, False, True)}
    on, off = runs[True], runs[False]
    assert on.host["census"]["on"] and not off.host["census"]["on"]

    def per_call(report, key):
        return statistics.median(s.audit["gap"][key] for s in report.scenarios)
    loop_on, loop_off = per_call(on, "seed_ms"), per_call(off, "seed_ms")
    kernel = {s.name: (s.seed_ms, t.seed_ms) for s, t in zip(on.scenarios, off.scenarios)}
    cost = statistics.median(s.audit["census"]["cost_ms_per_call"] for s in on.scenarios)
    record("cuda census cost per call", host_loop_ms_on=round(loop_on, 4), host_loop_ms_off=round(loop_off, 4),
           flush_and_attribute_ms=cost, seed_ms_on_off={k: (round(a, 4), round(b, 4)) for k, (a, b) in kernel.items()},
           spans={s.name: (s.audit["census"].get("span_ms"), s.audit["census"].get("event_ms")) for s in on.scenarios})
    assert on.all_correct and abs(on.geomean - 1.0) <= 0.01
    # the host's flush and attribution, per call, after the timed rounds: it costs the sweep's wall
    # time, not the timings (0.09-0.15 ms on an H200; a 179-scenario sweep pays about 2 s of it)
    assert cost < 0.3
    assert loop_on - loop_off < 0.05  # what CUPTI adds around each call
    for name, (a, b) in kernel.items():  # and to the kernel itself
        assert a <= 1.05 * b + 0.002, (name, a, b)


def test_planted_2x_slower_reads_half_everywhere(planted_dir):
    report = evaluate_isolated(TASK, plant("rmsnorm_slow2x", planted_dir), seed=22, time_budget_s=0.5, baselines=False)
    ratios = {s.name: round(s.ratio, 3) for s in report.scenarios}
    # seed = K + F and plant = 2K + F: F = 2 seed - plant is what every call carries inside its
    # events beyond the kernel (the event pair, the launch); it pulls small scenarios above 0.5
    fixed = {s.name: round((2 * s.seed_ms - s.cand_ms) * 1e3, 2) for s in report.scenarios}
    record("cuda planted 2x slower", geomean=round(report.geomean, 4), ratios=ratios, fixed_us_in_events=fixed,
           seed_us={s.name: round(s.seed_ms * 1e3, 1) for s in report.scenarios})
    assert report.all_correct
    assert not any("outside_stream" in s.flags for s in report.scenarios)  # an honest plant: all on the stream
    for s in report.scenarios:
        assert 0.40 <= s.ratio <= 0.60, (s.name, s.ratio)
        assert s.ci[1] < 1.0
        assert -1.0 <= fixed[s.name] <= 8.0, (s.name, fixed[s.name])  # microseconds: an event pair and a launch
    # the fixed cost only pulls the ratio up: on the H200, six runs read 0.525-0.531 (a bound of
    # 0.5 +- 0.03 failed once at 0.5309, for that reason and no other)
    assert 0.49 <= report.geomean <= 0.56, report.geomean


def test_planted_faster_reads_above_one_with_a_ci_excluding_one():
    report = evaluate_isolated(TASK, candidate("rmsnorm_fast.cu"), quick=True, seed=23, time_budget_s=1.0)
    rows = {s.name: (round(s.ratio, 3), [round(c, 3) for c in s.ci]) for s in report.scenarios}
    record("cuda planted faster", geomean=round(report.geomean, 4), scenarios=rows,
           pct_peak={s.name: round(s.pct_peak or 0, 1) for s in report.scenarios})
    print(report.text_table())
    assert report.all_correct
    for s in report.scenarios:
        assert s.ratio > 1.0 and s.ci[0] > 1.0, (s.name, s.ratio, s.ci)


@pytest.mark.parametrize("name, expect", [
    ("rmsnorm_unwritten", "unwritten: 1 of"),
    ("rmsnorm_inplace", "inputs modified by the call: x"),
    ("rmsnorm_cached", "second call with new inputs"),
    ("rmsnorm_nan", "non-finite: 1 NaN/Inf"),
])
def test_correctness_tricks_are_caught(planted_dir, name, expect):
    report = evaluate(TASK, plant(name, planted_dir), only=SMALL, seed=24, timing=False)
    failures = [s.failure for s in report.scenarios]
    record(f"cuda caught: {name}", failures=failures)
    assert report.build_ok and not report.all_correct
    assert all(f and expect in f for f in failures), failures
    assert not report.goal()[0]


@pytest.mark.parametrize("name, kinds", [
    ("rmsnorm_banned_lib", {"library"}),
    ("rmsnorm_banned_symbol", {"symbol", "device_symbol"}),
])
def test_banned_library_and_symbols_fail_the_goal_on_a_gpu_run(planted_dir, name, kinds):
    report = evaluate(TASK, plant(name, planted_dir), only=SMALL, seed=25, timing=False)
    found = {v["kind"] for v in report.violations}
    record(f"cuda caught: {name}", violations=report.summary()["violations"])
    assert kinds <= found
    assert report.all_correct  # the kernel itself is right; the goal fails on the constraint
    met, reasons = report.goal()
    assert not met and any("constraint violation" in r for r in reasons)


def test_illegal_address_is_a_fault_report_not_a_dead_caller(planted_dir):
    t0 = time.perf_counter()
    report = evaluate_isolated(TASK, plant("rmsnorm_illegal_address", planted_dir), only=SMALL, seed=26,
                               timing=False, timeout_s=120)
    wall = time.perf_counter() - t0
    record("cuda caught: illegal address", error_kind=report.error_kind, error=report.error, wall_s=round(wall, 2))
    assert report.error_kind == "fault" and "ILLEGAL_ADDRESS" in report.error
    assert report.scenarios and not report.scenarios[0].correct
    assert not report.goal()[0]


def test_work_outside_the_stream_is_flagged(planted_dir):
    report = evaluate_isolated(TASK, plant("rmsnorm_outside_stream", planted_dir), only="^r2048_c4096$", seed=28,
                               time_budget_s=0.5)
    s = report.scenarios[0]
    record("cuda caught: outside stream", flags=s.flags, ratio=s.ratio, audit=s.audit, failure=s.failure)
    # the snapshot taken when its (empty) stream was done misses the work still running elsewhere:
    # late writes on a checked call; or, timed, the wall clock of every call exceeds its events
    assert "outside_stream" in s.flags or "late_writes" in s.flags, (s.flags, s.failure)
    assert not report.goal()[0] and report.exit_code() == 1


def test_reference_kernel_agrees_with_the_float64_numpy_reference():
    errors = check_reference(TASK, ["r1024_c1024", "r333_c1000", "r2048_c4095"], seed=5)
    record("cuda reference kernel vs numpy float64", errors=errors)
    for per_output in errors.values():
        assert per_output["y"]["rel_l2"] < 1e-6


def test_upstream_baseline_adds_a_ratio():
    pytest.importorskip("torch")
    report = evaluate_isolated(TASK, only="^r2048_c4096$", seed=29, time_budget_s=0.5, baselines=True)
    base = report.scenarios[0].baselines
    record("cuda upstream baseline (torch rms_norm)", baselines=base)
    assert "torch.rms_norm" in base and base["torch.rms_norm"].get("ratio", 0) > 0, base
    # its rate on the task's byte count: the same bytes in its time
    s = report.scenarios[0]
    assert base["torch.rms_norm"]["gbps"] == pytest.approx(s.gbps * s.cand_ms / base["torch.rms_norm"]["ms"], rel=1e-6)


# last: a hung kernel's process is killed, and the driver tears its context down after it
def test_hang_returns_within_the_call_limit(planted_dir):
    t0 = time.perf_counter()
    report = evaluate_isolated(TASK, plant("rmsnorm_hang", planted_dir), only=SMALL, seed=27,
                               timing=False, call_timeout_s=2.0, timeout_s=120)
    wall = time.perf_counter() - t0
    record("cuda caught: hang", error_kind=report.error_kind, error=report.error, wall_s=round(wall, 2))
    assert report.error_kind == "hang"
    assert wall < 30
    assert not report.goal()[0]
