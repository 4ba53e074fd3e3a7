"""The report and the correctness checks as pure functions: verdicts, JSON, summary, the agent's table."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from evaluator.correctness import check_call, error_limits, output_errors
from evaluator.harness import ELEMENT_TYPES, bf16_bits, bf16_values
from evaluator.native import POISON_BYTE
from evaluator.report import EvalReport, ScenarioResult
from evaluator.task import Tolerance

F32 = {"y": ELEMENT_TYPES["f32"]}


def _poisoned(shape, dtype=np.float32):
    a = np.empty(shape, dtype)
    a.view(np.uint8)[...] = POISON_BYTE
    return a


def test_bf16_round_trip_rounds_to_nearest_even():
    x = np.array([1.0, 1.00390625, 1.01171875, -2.5, 3.0e38, np.nan], np.float32)
    bits = bf16_bits(x)
    back = bf16_values(bits)
    assert back[0] == 1.0 and back[1] == 1.0  # halfway rounds to even (down)
    assert back[2] == np.float32(1.015625)    # halfway rounds to even (up)
    assert back[3] == -2.5 and np.isfinite(back[4]) and np.isnan(back[5])


def test_check_call_order_poison_nan_inputs_and_limits():
    ref = {"y": np.linspace(1, 2, 12).reshape(3, 4)}
    limits = {"y": {"rel_l2": 1e-6}}
    good = ref["y"].astype(np.float32)
    assert check_call(0, {"y": good}, F32, ref, {}, [], limits).failure is None
    assert check_call(7, {"y": good}, F32, ref, {}, [], limits).failure.startswith("the entry returned 7")
    hole = good.copy()
    hole.view(np.uint32)[2, 3] = 0xFFFFFFFF
    assert check_call(0, {"y": hole}, F32, ref, {}, [], limits).failure == \
        "unwritten: 1 of 12 elements of y (first at (2, 3))"
    nan = good.copy()
    nan[1, 0] = np.nan
    assert check_call(0, {"y": nan}, F32, ref, {}, [], limits).failure.startswith("non-finite: 1 NaN/Inf")
    assert check_call(0, {"y": good}, F32, ref, {}, ["x"], limits).failure == "inputs modified by the call: x"
    off = good * np.float32(1.001)
    assert "error rel_l2 of y" in check_call(0, {"y": off}, F32, ref, {}, [], limits).failure


def test_masks_exempt_padding_from_writes_and_errors():
    ref = {"y": np.ones((2, 4))}
    out = _poisoned((2, 4))
    out[:, :2] = 1.0
    mask = np.zeros((2, 4), bool)
    mask[:, :2] = True
    assert check_call(0, {"y": out}, F32, ref, {"y": mask}, [], {"y": {"max_abs": 0.0}}).failure is None
    assert check_call(0, {"y": out}, F32, ref, {}, [], {"y": {"max_abs": 0.0}}).failure.startswith("unwritten: 4")


def test_integer_outputs_may_hold_minus_one_legitimately():
    ref = {"y": np.array([-1.0, 3.0])}
    i32 = {"y": ELEMENT_TYPES["i32"]}
    ok = np.array([-1, 3], np.int32)
    assert check_call(0, {"y": ok}, i32, ref, {}, [], {"y": {"max_abs": 0.0}}).failure is None
    hole = np.array([-1, -1], np.int32)
    assert check_call(0, {"y": hole}, i32, ref, {}, [], {"y": {"max_abs": 0.0}}).failure.startswith("unwritten: 1")


def test_error_limit_is_bounded_by_tolerance_and_seed_error():
    tol = Tolerance(rel_l2=1e-2, max_abs=None, seed_factor=2.0, seed_slack=0.1)
    assert error_limits(tol, {"y": {"rel_l2": 1e-3, "max_abs": 5.0}}) == {"y": {"rel_l2": pytest.approx(3e-3)}}
    assert error_limits(tol, {"y": {"rel_l2": 1.0}}) == {"y": {"rel_l2": 1e-2}}  # never above tolerance
    errs = output_errors(np.array([1.0, 2.0]), np.array([1.0, 2.5]), None)
    assert errs["max_abs"] == 0.5 and errs["rel_l2"] == pytest.approx(0.5 / math.hypot(1.0, 2.5))


def _report(**kw) -> EvalReport:
    base = dict(task="t", task_dir="/t", backend="cpu", candidate={"path": "c.c", "sha256": "ab" * 32},
                seed_source={"path": "s.c", "sha256": "cd" * 32}, eval_seed=42, options={"timing": True},
                goal_spec={"all_correct": True, "min_geomean": 1.5, "min_scenario_ratio": 0.9},
                build={"ok": True, "log": ""})
    base.update(kw)
    return EvalReport(**base)


def _s(name, ratio, correct=True, flags=(), failure=None):
    return ScenarioResult(name, {}, correct, failure=failure, ratio=ratio, ci=[ratio * 0.99, ratio * 1.01] if ratio else None,
                          seed_ms=1.0, cand_ms=1.0 / ratio if ratio else None, flags=list(flags))


def test_figures_and_a_met_goal():
    r = _report(scenarios=[_s("a", 2.0), _s("b", 1.6), _s("c", 1.2)], total_planned=3)
    assert r.geomean == pytest.approx((2.0 * 1.6 * 1.2) ** (1 / 3))
    assert r.min_ratio == 1.2 and r.fast_1 == 1.0 and r.all_correct
    assert r.goal() == (True, [])


def test_every_reason_the_goal_fails_is_listed():
    r = _report(scenarios=[_s("a", 1.2), _s("b", None, correct=False, failure="unwritten: 1 of 4 elements of y"),
                           _s("c", 0.8, flags=["outside_stream"])],
                violations=[{"kind": "symbol", "name": "cblas_sgemm", "rule": "cblas_", "detail": ""}],
                total_planned=3)
    met, reasons = r.goal()
    assert not met
    text = " | ".join(reasons)
    assert "constraint violation: symbol 'cblas_sgemm' matches 'cblas_'" in text
    assert "incorrect on 1/3 scenarios: b (b: unwritten" in text
    assert "outside_stream on c" in text
    assert "geomean 0.980 < goal 1.500" in text
    assert "1 scenario(s) below ratio 0.90; worst c 0.800" in text
    assert r.fast_1 == pytest.approx(1 / 3)


def test_json_round_trip_summary_and_table():
    r = _report(scenarios=[_s("fast", 3.0), _s("slow", 0.5, flags=["noisy"]),
                           _s("bad", None, correct=False, failure="non-finite: 1 NaN/Inf elements in y")],
                total_planned=3)
    r.scenarios[0].errors = {"y": {"rel_l2": math.inf, "max_abs": 0.0}}
    data = json.loads(json.dumps(r.to_json(), allow_nan=False))
    assert data["schema"] == "kernelseek.eval/1" and data["goal"]["met"] is False
    again = EvalReport.from_json(data)
    assert again.geomean == pytest.approx(r.geomean) and again.passed == 2 and again.total == 3
    summary = r.summary()
    assert set(summary) == {"geomean", "all_correct", "passed", "total", "min_ratio", "fast_1", "goal_met",
                            "reasons", "flags", "failing", "build_ok", "violations", "candidate_sha256",
                            "eval_seed", "error", "scenarios", "remeasure", "sandbox"}
    rows = {row["name"]: row for row in summary["scenarios"]}
    assert set(rows) == {"fast", "slow", "bad"} and rows["bad"]["correct"] is False
    assert rows["fast"]["ratio"] == pytest.approx(r.scenarios[[s.name for s in r.scenarios].index("fast")].ratio, abs=1e-4)
    assert summary["failing"] == ["bad"] and summary["flags"] == ["noisy"] and summary["eval_seed"] == 42
    lines = r.text_table().splitlines()
    order = [line.split()[0] for line in lines if line.split() and line.split()[0] in ("fast", "slow", "bad")]
    assert order == ["bad", "slow", "fast"]  # worst first: incorrect, then by ratio
    assert lines[-1].startswith("goal not met: ")


def test_a_build_failure_report_exits_3_and_shows_the_log():
    r = _report(build={"ok": False, "log": "x.c:3: error: expected ';'"}, total_planned=2)
    assert r.exit_code() == 3 and not r.all_correct
    assert "BUILD FAILED" in r.text_table() and "expected ';'" in r.text_table()
    assert r.goal() == (False, ["the candidate did not build"])
