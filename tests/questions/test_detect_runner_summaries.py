"""The detectors on evaluation summaries in the shape the evaluator and the runner write them.

`EvalReport.summary()` (evaluator/report.py) plus the runner's `quick`, `only`, `file`,
`best_geomean` (agent/evaluation.py); flags come as "name xN". Taken from a real run of the
softmax-cpu seed; the figures are changed per test.
"""
from __future__ import annotations

from qevents import fired, started


def summary(geomean=1.0, all_correct=True, passed=3, total=3, flags=(), failing=(), build_ok=True, error=None,
            quick=False, only=None):
    return {
        "geomean": geomean, "all_correct": all_correct, "passed": passed, "total": total, "min_ratio": geomean,
        "fast_1": 0.6667, "goal_met": False, "reasons": ["geomean 1.000 < goal 1.500"], "flags": list(flags),
        "failing": list(failing), "build_ok": build_ok, "violations": [],
        "candidate_sha256": "d8ffa88ab485", "eval_seed": 3631304738, "error": error,
        "quick": quick, "only": only, "file": "workspace/softmax.c", "best_geomean": None,
    }


_edits = iter(range(1, 1_000_000))


def evaluate(log, call_id=None, candidate_hash=None, **kw):
    """An evaluation of a freshly edited candidate (a new hash) unless told otherwise."""
    return log.add("eval_result", summary=summary(**kw), report="evals/0001.json", n=1,
                   candidate_hash=candidate_hash or f"h{next(_edits)}", call_id=call_id, purpose="tool")


def test_roofline_flag_with_a_count():
    log = started()
    evaluate(log, geomean=1.1, flags=["ambiguous x3", "noisy x3"])
    evaluate(log, geomean=1.12, flags=["above_roofline x1", "noisy x2"])
    (dp,) = fired(log.events, "suspicious_win")
    assert "above the roofline" in dp.evidence
    log2 = started()
    evaluate(log2, geomean=1.12, flags=["roofline_checked x3"])  # another flag that merely starts alike
    assert fired(log2.events, "suspicious_win") == []


def test_a_failed_build_is_no_correctness_break():
    log = started()
    evaluate(log, geomean=1.2)
    evaluate(log, geomean=None, all_correct=False, passed=0, build_ok=False)
    log.text("The mismatch is just floating-point noise.")
    assert fired(log.events, "correctness_break") == []
    log.add("eval_result", summary=summary(geomean=None, all_correct=False, passed=2, failing=["r256_c2048"]))
    log.text("The mismatch is just floating-point noise.")
    assert len(fired(log.events, "correctness_break")) == 1


def test_quick_runs_compare_with_quick_runs():
    log = started()
    evaluate(log, geomean=1.20)
    evaluate(log, geomean=1.25, quick=True)  # the first quick run compares with the last full one
    evaluate(log, geomean=1.26)
    evaluate(log, geomean=1.27, quick=True)
    assert fired(log.events, "suspicious_win") == [] and fired(log.events, "regression") == []
    evaluate(log, geomean=1.05, quick=True)  # -17% against the last quick run
    (dp,) = fired(log.events, "regression")
    assert "1.27x -> 1.05x" in dp.evidence


def test_a_run_over_some_scenarios_does_not_compare_geomeans():
    log = started()
    evaluate(log, geomean=1.1)
    evaluate(log, geomean=1.6, total=1, passed=1, only="r256")
    evaluate(log, geomean=0.8, total=1, passed=1, only="r1024")
    assert fired(log.events, "suspicious_win") == [] and fired(log.events, "regression") == []


def test_interrupted_evaluation_is_ignored():
    log = started()
    evaluate(log, geomean=1.2)
    log.add("eval_result", summary={"interrupted": True, "quick": False, "only": None}, interrupted=True)
    log.text("The optimization is complete.")
    (dp,) = fired(log.events, "completion_claim")
    assert dp.detail["geomean"] == 1.2  # the facts are the last real evaluation's


def test_an_evaluation_error_seen_in_its_tool_result_counts_once():
    log = started()
    for i in range(2):  # the evaluate tool: its result shows the crash, and so does the summary
        log.call("evaluate", {"quick": True}, "evaluation stopped: CUDA_ERROR_ILLEGAL_ADDRESS in ks_run")
        evaluate(log, call_id=f"call{i + 1}", geomean=None, all_correct=False, passed=0,
                 error="CUDA_ERROR_ILLEGAL_ADDRESS in ks_run")
    assert fired(log.events, "loop") == []  # two crashes, not four
    log.call("evaluate", {"quick": True}, "evaluation stopped: CUDA_ERROR_ILLEGAL_ADDRESS in ks_run")
    (dp,) = fired(log.events, "loop")
    assert "CUDA_ERROR_ILLEGAL_ADDRESS" in dp.evidence


def test_stop_gate_verdict_on_a_turn_end():
    log = started()
    log.call("evaluate", {}, "geomean 1.10 ...")
    evaluate(log, geomean=1.1)
    log.text("I think this is a good place to stop.")
    log.add("stop_check", goal_met=False, reasons=["geomean 1.100 < goal 1.500"], blocked=True, eval_seq=3,
            summary=summary(geomean=1.1))
    (dp,) = fired(log.events, "completion_claim")
    assert dp.detail["reasons"] == ["geomean 1.100 < goal 1.500"] and "goal not met" in dp.evidence
