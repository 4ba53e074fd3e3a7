"""The evaluator on the cpu tasks: timing acceptance and every trick it must catch, with real gcc.

Correctness cases run with timing off (fast); timed cases use the quick subsets and short budgets.
On a machine where other work shares the cores the cpu timings get noisy; the evaluator says so
(flags `noisy`, `contended`), and the seed-vs-seed test then holds it to its own confidence
interval instead of the 1% it meets on a quiet machine.
"""
from __future__ import annotations

import math

import pytest

from eval_plants import candidate, plant, record
from evaluator import evaluate
from evaluator.errors import TaskError

SMALL = "^r256_c256$|^r333_c777$"


@pytest.mark.parametrize("task", ["softmax-cpu", "attention-cpu"])
def test_seed_against_itself_reads_one(task):
    report = evaluate(task, quick=True, seed=11, time_budget_s=2.5, target_ci=0.005)
    assert report.all_correct and report.build_ok and not report.violations
    half = [(s.ci[1] - s.ci[0]) / 2 / s.ratio for s in report.scenarios]
    quiet = all(_settled(s) for s in report.scenarios)
    record(f"cpu seed vs seed {task}", geomean=round(report.geomean, 4), quiet=quiet,
           ratios={s.name: round(s.ratio, 4) for s in report.scenarios},
           half_widths=[round(h, 4) for h in half], pairs=[s.pairs for s in report.scenarios],
           other_load=[s.audit.get("other_load") for s in report.scenarios])
    if quiet:
        assert abs(report.geomean - 1.0) <= 0.01
        # a kernel against itself is not called faster or slower: a 95% interval leaves out the truth
        # one time in twenty, so one or two of six may (P(3 or more) ~ 0.2%), and then by under 1%
        decided = [s for s in report.scenarios if "ambiguous" not in s.flags]
        assert len(decided) <= 2, [(s.name, s.ratio, s.ci) for s in decided]
        assert all(abs(s.ratio - 1.0) <= 0.01 for s in decided), [(s.name, s.ratio, s.ci) for s in decided]
    else:  # cores shared with other work: the answer must sit inside the spread that was reported
        assert abs(math.log(report.geomean)) <= max(0.01, max(half))


def _settled(s) -> bool:
    """The scenario's timing met its CI target on cores nobody else was using."""
    return not {"noisy", "contended"} & set(s.flags)


def _near(s, target: float, tol: float) -> bool:
    """The ratio is within tol of target; on a contended machine, its CI must reach that band."""
    if _settled(s):
        return abs(s.ratio - target) <= tol
    return s.ci[0] <= target + tol and s.ci[1] >= target - tol


def test_planted_2x_slower_reads_half(planted_dir):
    report = evaluate("softmax-cpu", plant("softmax_slow2x", planted_dir), quick=True, seed=12,
                      time_budget_s=1.5)
    ratios = {s.name: round(s.ratio, 3) for s in report.scenarios}
    record("cpu planted 2x slower (softmax)", geomean=round(report.geomean, 4), ratios=ratios)
    assert report.all_correct
    for s in report.scenarios:
        assert _near(s, 0.5, 0.08), (s.name, s.ratio, s.ci, s.flags)
        assert s.ci[1] < 1.0 if _settled(s) else s.ci[0] < 1.0
    met, reasons = report.goal()
    assert not met and any("geomean" in r for r in reasons)


def test_planted_faster_reads_above_one_with_a_ci_excluding_one():
    report = evaluate("softmax-cpu", candidate("softmax_fast.c"), quick=True, seed=13, time_budget_s=1.5)
    rows = {s.name: (round(s.ratio, 3), [round(c, 3) for c in s.ci]) for s in report.scenarios}
    record("cpu planted faster (softmax)", geomean=round(report.geomean, 4), scenarios=rows)
    assert report.all_correct
    for s in report.scenarios:
        if _settled(s):
            assert s.ratio > 1.2 and s.ci[0] > 1.0 and "ambiguous" not in s.flags, (s.name, s.ratio, s.ci)
        else:  # contended: the interval must at least not call it slower
            assert s.ci[1] > 1.0, (s.name, s.ratio, s.ci, s.flags)


@pytest.mark.parametrize("name, expect", [
    ("softmax_unwritten", "unwritten: 1 of 65536 elements of y (first at (255, 255))"),
    ("softmax_inplace", "inputs modified by the call: x"),
    ("softmax_cached", "second call with new inputs (same buffers)"),
    ("softmax_nan", "non-finite: 1 NaN/Inf elements in y"),
    ("softmax_late", "unwritten"),
])
def test_correctness_tricks_are_caught(planted_dir, name, expect):
    report = evaluate("softmax-cpu", plant(name, planted_dir), only=SMALL, seed=14, timing=False)
    first = report.scenarios[0]
    record(f"cpu caught: {name}", failure=first.failure, flags=first.flags)
    assert report.build_ok and not first.correct
    assert expect in first.failure
    assert not report.goal()[0]
    if name == "softmax_late":
        assert "late_writes" in first.flags


def test_a_second_call_with_new_inputs_is_what_catches_the_cache(planted_dir):
    report = evaluate("softmax-cpu", plant("softmax_cached", planted_dir), only=SMALL, seed=15, timing=False)
    s = report.scenarios[0]
    assert s.errors["y"]["rel_l2"] < 1e-6  # the first call was right ...
    assert s.failure.startswith("second call")  # ... the second served the stale answer


@pytest.mark.parametrize("name, kind, what", [
    ("softmax_banned_lib", "library", "libz.so.1"),
    ("softmax_banned_symbol", "symbol", "cblas_sgemm"),
    ("softmax_macro_include", "include", "dlfcn.h"),
    ("softmax_bad_flag", "flag", "-Wl,-z,now"),
])
def test_constraint_violations_fail_the_goal_and_name_the_thing(planted_dir, name, kind, what):
    report = evaluate("softmax-cpu", plant(name, planted_dir), only=SMALL, seed=16, timing=False)
    record(f"cpu caught: {name}", violations=report.summary()["violations"])
    hits = [v for v in report.violations if v["kind"] == kind and what in v["name"]]
    assert hits, report.violations
    assert report.all_correct  # the kernel computes the right thing; the constraint fails the goal
    met, reasons = report.goal()
    assert not met and any(what in r for r in reasons)


def test_a_build_failure_keeps_the_compiler_output(planted_dir):
    report = evaluate("softmax-cpu", plant("softmax_syntax_error", planted_dir), only=SMALL, seed=17)
    assert not report.build_ok and report.exit_code() == 3
    assert "error:" in report.build["log"] and "softmax_syntax_error.c" in report.build["log"]
    assert report.scenarios == [] and report.goal()[1][0] == "the candidate did not build"


def test_a_library_without_the_entry_is_a_build_failure(planted_dir):
    report = evaluate("softmax-cpu", plant("softmax_no_entry", planted_dir), only=SMALL, seed=18)
    assert not report.build_ok and "does not export the entry `ks_softmax`" in report.build["log"]


def test_attention_cpu_causal_gqa_scenarios_are_correct_and_timed():
    report = evaluate("attention-cpu", only="gqa2_d128_odd|gqa4_d32_0", seed=19, time_budget_s=0.3)
    assert report.all_correct
    for s in report.scenarios:
        assert s.errors["o"]["rel_l2"] < 2e-6 and s.cand_ms > 0 and s.tflops > 0


def test_fresh_inputs_each_evaluation_and_replay_by_seed():
    a = evaluate("softmax-cpu", only=SMALL, seed=7, timing=False)
    b = evaluate("softmax-cpu", only=SMALL, seed=7, timing=False)
    c = evaluate("softmax-cpu", only=SMALL, timing=False)
    assert a.scenarios[0].errors == b.scenarios[0].errors  # same seed, same inputs
    assert c.eval_seed != 7 and c.scenarios[0].errors != a.scenarios[0].errors


def test_missing_candidate_is_a_task_error(tmp_path):
    with pytest.raises(TaskError, match="candidate file not found") as exc:
        evaluate("softmax-cpu", tmp_path / "nope.c")
    assert exc.value.exit_code == 2


def test_checks_that_overlap_the_timing_still_fail_a_wrong_kernel_and_void_its_times(planted_dir):
    # (the default on cuda: the float64 checks run while the host times on the GPU)
    good = evaluate("softmax-cpu", only=SMALL, seed=20, time_budget_s=0.2, overlap=True)
    assert good.all_correct and all(s.ratio for s in good.scenarios)
    bad = evaluate("softmax-cpu", plant("softmax_unwritten", planted_dir), only=SMALL, seed=20, time_budget_s=0.2,
                   overlap=True)
    for s in bad.scenarios:
        assert not s.correct and s.failure.startswith("unwritten: 1 of")
        assert s.ratio is None and s.cand_ms is None  # the times of an incorrect kernel are dropped
