"""Task specs: the shipped tasks load, scenarios expand, and a bad task.yaml names file, line, field."""
from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from evaluator.abi import check_header, layout
from evaluator.errors import TaskError
from evaluator.task import load_task
from kernels import TASKS_DIR

SHIPPED = ["softmax-cpu", "attention-cpu", "rmsnorm-cuda"]


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_tasks_load_with_harness_and_quick_subset(name):
    task = load_task(name)
    assert task.name == name and task.dir == TASKS_DIR / name
    assert task.quick and set(task.quick) <= {s.name for s in task.scenarios}
    for fn in ("make_case", "flops", "bytes_moved", "reference"):
        assert callable(getattr(task.harness, fn))


@pytest.mark.parametrize("name", SHIPPED)
def test_headers_match_the_params_in_task_yaml(name):
    task = load_task(name)
    if task.backend == "cuda" and not shutil.which("nvcc"):
        pytest.skip("nvcc not installed")
    assert check_header(task) == []


def test_a_header_that_disagrees_with_task_yaml_is_caught(tmp_path):
    folder = _copy_task(tmp_path, "softmax-cpu")
    header = folder / "softmax.h"
    header.write_text(header.read_text().replace("    int rows;\n    int cols;", "    long rows;\n    int cols;"))
    problems = check_header(load_task(folder))
    assert problems and any(p.startswith("cols:") for p in problems)


def test_grid_expansion_order_names_fixed_and_exclude():
    task = load_task("rmsnorm-cuda")
    names = [s.name for s in task.scenarios]
    # rows x cols, last axis fastest, minus the excluded combination, then the explicit ones
    assert names[:3] == ["r1024_c1024", "r1024_c4096", "r1024_c8192"]
    assert "r8192_c8192" not in names and names[-2:] == ["r333_c1000", "r2048_c4095"]
    assert len(names) == 3 * 3 - 1 + 2
    assert all(s.params["eps"] == 1e-6 for s in task.scenarios[:8])


def test_select_quick_and_only():
    task = load_task("softmax-cpu")
    assert [s.name for s in task.select(quick=True)] == [s.name for s in task.scenarios if s.name in task.quick]
    assert [s.name for s in task.select(only="c16384")] == ["r64_c16384"]
    with pytest.raises(TaskError, match="no scenario"):
        task.select(only="nothing-like-this")
    with pytest.raises(TaskError, match="bad regular expression"):
        task.select(only="(")


def test_task_by_path_and_unknown_name(tmp_path):
    assert load_task(TASKS_DIR / "softmax-cpu").name == "softmax-cpu"
    assert load_task(TASKS_DIR / "softmax-cpu" / "task.yaml").name == "softmax-cpu"
    with pytest.raises(TaskError, match="unknown task 'nope'.*softmax-cpu") as exc:
        load_task("nope")
    assert exc.value.exit_code == 2


def test_params_layout_follows_c_alignment():
    task = load_task("attention-cpu")
    lay = layout(task.params)
    assert lay["q"] == 0 and lay["o"] == 24 and lay["batch"] == 32 and lay["scale"] == 60
    assert lay["sizeof"] == 64


def _copy_task(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    shutil.copytree(TASKS_DIR / name, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


BASE = """\
backend: cpu
header: softmax.h
struct: SoftmaxParams
entry: ks_softmax
seed: seed.c
params:
  - {name: x, in: f32}
  - {name: y, out: f32}
  - {name: rows, scalar: i32}
  - {name: cols, scalar: i32}
scenarios:
  - grid: {rows: [4, 8], cols: [16]}
    name: "r{rows}_c{cols}"
  - {name: one, rows: 3, cols: 5}
tolerances: {rel_l2: 1.0e-5}
goal: {min_geomean: 1.2}
"""


@pytest.mark.parametrize("edit, line, field, words", [
    (lambda t: t.replace("backend: cpu", "backend: fpga"), 1, "backend", "not one of"),
    (lambda t: t + "colour: blue\n", 17, "colour", "unknown field"),
    (lambda t: t.replace("{name: y, out: f32}", "{name: y, out: f32, in: f32}"), 8, "params[1]", "exactly one"),
    (lambda t: t.replace("{name: y, out: f32}", "{name: y, out: f17}"), 8, "params[1].out", "not one of"),
    (lambda t: t.replace("cols: [16]", "cols: 16"), 12, "scenarios[0].grid.cols", "expected a non-empty list"),
    (lambda t: t.replace('name: "r{rows}_c{cols}"', 'name: "r{rowz}"'), 13, "scenarios[0].name", "cannot format"),
    (lambda t: t.replace("{name: one, rows: 3, cols: 5}", "{name: r4_c16, rows: 3, cols: 5}"), 14, "scenarios[1]", "duplicate scenario"),
    (lambda t: t + "quick: [r4_c16, zz*]\n", 17, "quick[1]", "matches no scenario"),
    (lambda t: t.replace("tolerances: {rel_l2: 1.0e-5}", "tolerances: {rel_l2: -1}"), 15, "tolerances.rel_l2", "must be > 0"),
    (lambda t: t.replace("tolerances: {rel_l2: 1.0e-5}", "tolerances: {seed_factor: 2}"), 15, "tolerances", "needs rel_l2 or max_abs"),
    (lambda t: t.replace("seed: seed.c", "seed: missing.c"), 5, "seed", "file not found"),
    (lambda t: t.replace("entry: ks_softmax\n", ""), 1, "entry", "missing"),
    (lambda t: t + "constraints: {banned_symbols: ['(']}\n", 17, "constraints.banned_symbols[0]", "bad regular expression"),
    (lambda t: t + "timing: {min_pairs: 2.5}\n", 17, "timing.min_pairs", "expected an integer"),
    (lambda t: t.replace("backend: cpu", "backend: cpu\nbackend: cuda"), 2, "", "duplicate key"),
    (lambda t: t.replace("  - {name: one, rows: 3, cols: 5}", "  - {name: one, rows: [3, cols: 5}"), 14, "", ""),
])
def test_bad_task_yaml_names_file_line_and_field(tmp_path, edit, line, field, words):
    folder = _copy_task(tmp_path, "softmax-cpu")
    path = folder / "task.yaml"
    path.write_text(edit(BASE))
    with pytest.raises(TaskError) as exc:
        load_task(folder)
    message = str(exc.value)
    assert message.startswith(f"{path}:{line}: "), message
    assert field in message and words in message
    assert "\n" not in message


def test_the_base_of_those_cases_is_valid(tmp_path):
    folder = _copy_task(tmp_path, "softmax-cpu")
    (folder / "task.yaml").write_text(BASE)
    task = load_task(folder)
    assert [s.name for s in task.scenarios] == ["r4_c16", "r8_c16", "one"]
    assert task.quick == ("r4_c16", "r8_c16", "one")  # no quick list: the first three


def test_floats_written_without_a_dot_are_floats(tmp_path):
    folder = _copy_task(tmp_path, "softmax-cpu")
    (folder / "task.yaml").write_text(BASE.replace("rel_l2: 1.0e-5", "rel_l2: 1e-5"))
    assert load_task(folder).scenarios[0].tolerance.rel_l2 == 1e-5


def test_a_broken_harness_is_a_task_error(tmp_path):
    folder = _copy_task(tmp_path, "softmax-cpu")
    (folder / "harness.py").write_text(textwrap.dedent("""
        def make_case(scenario, rng):
            pass
    """))
    with pytest.raises(TaskError, match="missing function.*flops"):
        load_task(folder).harness


SCALE_H = """typedef struct { const void* x; void* y; int n; int wide; } ScaleParams;
int ks_scale(const ScaleParams* p, void* stream);
"""
SCALE_C = """#include "scale.h"
int ks_scale(const ScaleParams* p, void* stream) {
    (void)stream;
    for (int i = 0; i < p->n; ++i) {
        if (p->wide) ((double*)p->y)[i] = ((const double*)p->x)[i] / 3.0;
        else ((float*)p->y)[i] = ((const float*)p->x)[i] / 3.0f;
    }
    return 0;
}
"""
SCALE_HARNESS = """import numpy as np
from evaluator.harness import Case
def make_case(s, rng):
    return Case({"x": rng.standard_normal(s["n"])}, {"y": (s["n"],)}, {"n": s["n"], "wide": int(s["dtype"] == "f64")})
def flops(s): return s["n"]
def bytes_moved(s): return 16 * s["n"]
def reference(case): return {"y": case.inputs["x"].astype(np.float64) / 3}
"""
SCALE_YAML = """backend: cpu
header: scale.h
struct: ScaleParams
entry: ks_scale
seed: seed.c
params:
  - {name: x, in: $dtype}
  - {name: y, out: $dtype}
  - {name: n, scalar: i32}
  - {name: wide, scalar: i32}
scenarios:
  - grid: {dtype: [f32, f64], n: [1000]}
    name: "{dtype}_{n}"
tolerances: {rel_l2: 1.0e-6}
goal: {min_geomean: 1.0}
"""


def _scale_task(tmp_path: Path, yaml_text: str = SCALE_YAML) -> Path:
    folder = tmp_path / "scale"
    folder.mkdir()
    (folder / "scale.h").write_text(SCALE_H)
    (folder / "seed.c").write_text(SCALE_C)
    (folder / "harness.py").write_text(SCALE_HARNESS)
    (folder / "task.yaml").write_text(yaml_text)
    return folder


def test_buffer_dtypes_can_follow_a_scenario_parameter(tmp_path):
    from evaluator import evaluate

    task = load_task(_scale_task(tmp_path))
    assert {s.name: task.element_types(s.params)["y"].name for s in task.scenarios} == {"f32_1000": "f32", "f64_1000": "f64"}
    report = evaluate(task, seed=3, timing=False)
    assert report.all_correct
    # the f64 run really moved doubles: its error is at double precision, the f32 one's is not
    errs = {s.name: s.errors["y"]["rel_l2"] for s in report.scenarios}
    assert errs["f64_1000"] < 1e-15 < errs["f32_1000"]


def test_a_dtype_reference_every_scenario_must_define(tmp_path):
    folder = _scale_task(tmp_path, SCALE_YAML.replace("grid: {dtype: [f32, f64], n: [1000]}",
                                                      "grid: {dtype: [f32, f99], n: [1000]}"))
    with pytest.raises(TaskError, match=r"task.yaml:7: params\[0\].in: \$dtype: scenario f99_1000 has dtype='f99'"):
        load_task(folder)
