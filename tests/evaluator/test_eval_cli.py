"""`kernelseek eval`: the progress and table a person sees, the JSON report, and the exit codes."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from eval_plants import plant
from kernels import TASKS_DIR

REPO = Path(__file__).resolve().parents[2]


def ks(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "console", "eval", *args], capture_output=True, text=True,
                          cwd=REPO, timeout=timeout)


def test_quick_eval_prints_a_table_and_writes_json_to_stdout():
    r = ks("softmax-cpu", "--quick", "--budget", "0.2", "--seed", "5", "--json", "-")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["schema"] == "kernelseek.eval/1" and report["eval_seed"] == 5
    assert [s["name"] for s in report["scenarios"]] == ["r256_c2048", "r2048_c256", "r1000_c1000"]
    assert report["all_correct"] and report["geomean"] > 0
    # the table and verdict go to stderr when stdout carries the JSON
    assert "eval seed 5" in r.stderr and "geomean" in r.stderr and "goal not met" in r.stderr
    assert "r1000_c1000" in r.stderr


def test_json_to_a_file_and_the_table_on_stdout(tmp_path):
    out = tmp_path / "report.json"
    r = ks("softmax-cpu", "--only", "^r256_c256$", "--budget", "0.2", "--json", str(out))
    assert r.returncode == 0, r.stderr
    assert json.loads(out.read_text())["total"] == 1
    assert "r256_c256" in r.stdout and "passed 1/1" in r.stdout


def test_a_candidate_that_does_not_build_exits_3_with_the_compiler_output(build_cache, planted_dir):
    r = ks("softmax-cpu", "--candidate", str(plant("softmax_syntax_error", planted_dir)), "--quick")
    assert r.returncode == 3
    assert "the candidate did not build" in r.stdout and "error:" in r.stdout


def test_an_unknown_task_is_one_line_and_exit_2():
    r = ks("no-such-task")
    assert r.returncode == 2
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert lines[-1].startswith("kernelseek eval: error: unknown task 'no-such-task'")
    assert "Traceback" not in r.stderr


def test_a_bad_task_yaml_is_one_line_naming_file_and_line(tmp_path):
    folder = tmp_path / "broken"
    shutil.copytree(TASKS_DIR / "softmax-cpu", folder, ignore=shutil.ignore_patterns("__pycache__"))
    yaml_path = folder / "task.yaml"
    yaml_path.write_text(yaml_path.read_text().replace("backend: cpu", "backend: tpu"))
    r = ks(str(folder))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"{yaml_path}:2: backend: 'tpu' is not one of: cuda, cpu" in r.stderr


def _cuda_driver_works() -> bool:
    try:
        from cuda.bindings import driver

        return driver.cuInit(0)[0] == driver.CUresult.CUDA_SUCCESS
    except Exception:  # no driver library: what this test is about
        return False


def test_a_cuda_task_without_a_gpu_says_so_in_one_line():
    if _cuda_driver_works():
        pytest.skip("this machine has a CUDA driver and GPU")
    r = ks("rmsnorm-cuda", "--quick")
    assert r.returncode == 4 and "Traceback" not in r.stderr
    assert "kernelseek eval: error: this task needs a CUDA GPU" in r.stderr
