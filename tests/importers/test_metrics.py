"""The benchmark extractor: figures a tool output states, and nothing it merely mentions."""
from __future__ import annotations

import pytest

from sessions.importers.metrics import add_inferred_evals, extract_figures, output_worth_reading


@pytest.mark.parametrize("text, geomean, source", [
    ("scenario results...\ngeomean speedup: 1.13x\n", 1.13, "stated"),
    ("Geometric mean: 0.97×", 0.97, "stated"),
    ("geomean (5 scenarios) = 2.5", 2.5, "stated"),
    ("=== softmax ===\nSpeedup: 2.46x\n", 2.46, "speedup"),
    ("new kernel is 1.8x faster than the seed", 1.8, "speedup"),
    ("the candidate ran 2x slower", 0.5, "speedup"),
])
def test_stated_ratios(text, geomean, source):
    fig = extract_figures(text)
    assert fig.geomean == pytest.approx(geomean) and fig.geomean_from == source


def test_several_speedups_are_scenarios_and_their_geomean():
    text = ("=== Vector Addition ===\nSpeedup: 2.00x\n=== Vector Addition ===\nSpeedup: 8.00x\n"
            "=== Matmul ===\nmatmul 256: speedup = 4x\n")
    fig = extract_figures(text)
    assert fig.ratios == {"Vector Addition": 2.0, "Vector Addition #2": 8.0, "matmul 256": 4.0}
    assert fig.geomean == pytest.approx(4.0) and fig.geomean_from == "ratios"
    s = fig.summary()
    assert s["min_ratio"] == 2.0 and s["fast_1"] == 1.0


def test_a_markdown_table_with_a_speedup_column():
    text = ("| Operation | Size | VSLA GPU (μs) | cuBLAS (μs) | Speedup |\n"
            "|-----------|------|---------------|-------------|---------|\n"
            "| vector_add | 64 | 6.34 | 6.17 | 0.97× |\n"
            "| matmul | 256 | 42.13 | 238.15 | 5.65× |\n"
            "| conv | 256 | 0.3 | N/A | N/A |\n")
    fig = extract_figures(text)
    assert fig.ratios == {"vector_add": 0.97, "matmul": 5.65}
    assert fig.summary()["fast_1"] == 0.5


@pytest.mark.parametrize("text, passed, total, ok", [
    ("===== 3 failed, 12 passed in 0.52s =====", 12, 15, False),
    ("============ 40 passed, 2 skipped in 3.10s ============", 40, 40, True),
    ("100% tests passed, 0 tests failed out of 12", 12, 12, True),
    ("--- PASS: TestA (0.00s)\n--- FAIL: TestB (0.01s)\nFAIL\n", 1, 2, False),
    ("Running test: add... PASSED\nRunning test: sub... FAILED\n", 1, 2, False),
    ("7/7 scenarios passed", 7, 7, True),
])
def test_pass_fail_counts(text, passed, total, ok):
    fig = extract_figures(text)
    assert (fig.passed, fig.total, fig.all_correct) == (passed, total, ok)


def test_go_package_lines_and_plain_verdicts():
    assert extract_figures("ok  \tpkg/a\t0.3s\nFAIL\tpkg/b\t1.2s\n").all_correct is False
    assert extract_figures("ok  \tpkg/a\t0.3s\nok  \tpkg/b\t(cached)\n").all_correct is True
    assert extract_figures("correctness: PASS").all_correct is True
    assert extract_figures("All 12 tests passed!").all_correct is True


@pytest.mark.parametrize("text", [
    "Downloading cupy_cuda12x-13.5.1-cp312-cp312-manylinux2014_x86_64.whl",  # "12x" inside a name
    "  Time per iteration: 4.724 μs\n  Throughput: 317.54 MOPS\n  GFLOPS: 85.85",  # times alone
    'printf("  Speedup: %.2fx\\n", speedup);',  # a format string, no number
    "passed_pairs = set()  # tasks that passed before",
    "PASS\nPASS\n",  # bare verdict lines say nothing about what passed
    "speedup: 0x",  # not a positive ratio
    "speedup: 99999x",  # a misread
    "geomean 12 scenarios, see below",
    "ok so the build is done\nok now run it",  # not go test package lines
    "Test result: passed",
])
def test_what_is_not_a_figure(text):
    assert not extract_figures(text)


def call(name, **inp):
    return {"type": "tool_call", "id": "x", "name": name, "input": inp}


@pytest.mark.parametrize("tool, worth", [
    (call("Bash", command="cd build && ./bench --quick"), True),
    (call("Bash", command="export PATH=/usr/local/cuda/bin:$PATH && python3 bench.py"), True),
    (call("exec_command", cmd="pytest -q tests"), True),
    (call("Bash", command="cat src/kernel.cu"), False),
    (call("exec_command", cmd="sed -n '1,200p' src/softmax.py"), False),
    (call("Bash", command="cat results/run3.md"), True),
    (call("Bash", command="grep -rn speedup ."), False),
    (call("Bash", command="git diff"), False),
    (call("Read", file_path="/w/bench/reports/run_20250716.md"), True),
    (call("Read", file_path="/w/STATUS.md"), False),
    (call("Edit", file_path="/w/bench/reports/x.md"), False),
    (None, False),
])
def test_which_outputs_are_measurements(tool, worth):
    assert output_worth_reading(tool) is worth


def test_inferred_evals_follow_their_result_and_track_the_best():
    def ev(kind, **f):
        return {"v": 1, "seq": 0, "t": 1.0, "type": kind, **f}
    events = [
        ev("session_start", task="t"),
        ev("tool_call", id="a", name="Bash", input={"command": "./bench"}),
        ev("tool_result", id="a", output="geomean: 1.10x\n== 5 passed in 1.00s =="),
        ev("tool_call", id="b", name="Bash", input={"command": "./bench"}),
        ev("tool_result", id="b", output="geomean: 0.90x\n== 1 failed, 4 passed in 1.00s =="),
        ev("tool_call", id="c", name="Read", input={"file_path": "src/k.cu"}),
        ev("tool_result", id="c", output="// speedup: 3.0x in the old version"),
        ev("session_end", reason="completed"),
    ]
    out = add_inferred_evals(events)
    evals = [e for e in out if e["type"] == "eval_result"]
    assert [(e["call_id"], e["summary"]["geomean"], e["summary"]["all_correct"], e["summary"]["best_geomean"])
            for e in evals] == [("a", 1.1, True, 1.1), ("b", 0.9, False, 1.1)]
    assert all(e["inferred"] is True for e in evals)
    assert [e["seq"] for e in out] == list(range(len(out)))
    assert out[out.index(evals[0]) - 1]["id"] == "a"


# -- results in the agent's own words (issue #12) ---------------------------------------------------

from sessions.importers.metrics import add_inferred_evals, extract_text_figures  # noqa: E402


@pytest.mark.parametrize("text,expect", [
    ("178/180 correct — just bf16 rounding, safe to ignore.", {"passed": 178, "total": 180, "all_correct": False}),
    ("The new kernel is 1.31x faster than the seed.", {"geomean": 1.31}),
    ("Speedup: 5.76× faster than cuBLAS!", {"geomean": 5.76}),
    ("It runs 2x slower than before.", {"geomean": 0.5}),
    ("All 12 tests pass.", {"passed": 12, "total": 12, "all_correct": True}),
    ("3 tests failed on the odd shapes.", {"all_correct": False}),
])
def test_results_the_agent_states_in_prose(text, expect):
    s = extract_text_figures(text).summary()
    for k, v in expect.items():
        assert s[k] == pytest.approx(v) if isinstance(v, float) else s[k] == v, (text, s)


def test_a_throughput_beside_a_peak_is_a_share_of_the_peak():
    s = extract_text_figures("We reach 310 TFLOP/s, against a theoretical peak of 790.").summary()
    assert s["scenarios"] == [{"name": "We reach", "pct_peak": 39.2}]
    assert not extract_text_figures("We reach 310 TFLOP/s on the big shape.")  # no peak: nothing to set it against


@pytest.mark.parametrize("text", [
    "We need a 2x speedup to meet the goal.",  # a target
    "This is 30-40× faster than cuFFT.",  # a range
    "The 30× speedup was actually measuring the error path.",  # a retraction
    "I reduced the 3x3 grid to 2x2 tiles.",  # shapes
    "Could it be 2x faster with TMA?",  # a question
    "The tile is 128x64 and the grid 4x8.",
])
def test_mentions_that_are_not_results(text):
    assert not extract_text_figures(text), text


def test_text_results_follow_their_text_and_say_where_they_came_from():
    events = [{"v": 1, "seq": 0, "t": 1.0, "type": "session_start", "task": "t"},
              {"v": 1, "seq": 1, "t": 2.0, "type": "assistant_text", "text": "178/180 correct — just rounding."},
              {"v": 1, "seq": 2, "t": 3.0, "type": "assistant_text", "text": "Looks fine.", "sidechain": True}]
    out = add_inferred_evals(events)
    assert [e["type"] for e in out] == ["session_start", "assistant_text", "eval_result", "assistant_text"]
    ev = out[2]
    assert ev["source"] == "text" and ev["inferred"] and "call_id" not in ev and ev["summary"]["passed"] == 178
    assert [e["seq"] for e in out] == [0, 1, 2, 3]
    assert len(add_inferred_evals(events, text=False)) == 3
