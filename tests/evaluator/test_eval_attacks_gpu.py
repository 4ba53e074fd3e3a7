"""Timing attacks on the cuda tasks, as an agent would write them; each must end with the goal not
met. On a GPU node (`gpu` marker): work on a private stream on some calls only, or only on small
scenarios (where a fixed slack would hide it), and nothing at all on the timed calls. Everything
runs the real path: the verdict in a child, the candidate in a sandboxed host.

Without a GPU, `test_every_cuda_attack_builds` still compiles each of them with nvcc (skipped when
nvcc is missing), so a GPU run never fails on a typo.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from eval_attacks import ATTACKS, HEADER, RENAME, attack
from eval_plants import record
from evaluator import evaluate_isolated, load_task
from evaluator.build import build

RMS_SMALL = "^r1024_c1024$|^r333_c1000$|^r8192_c4096$"
ATTN = "^decode_paged16_d128_b32_k512-2k_h8kv1_bf16$|^prefill_d128_b2x1024_h8kv8_causal_bf16$"
CUDA_ATTACKS = sorted(p.name for p in ATTACKS.glob("*.cu"))
TASK_OF = {"rmsnorm": "rmsnorm-cuda", "attention": "attention-fwd-sm90"}


def _task(name: str) -> str:
    return TASK_OF[name.split("_", 1)[0]]


@pytest.mark.parametrize("name", CUDA_ATTACKS)
def test_every_cuda_attack_builds(tmp_path, build_cache, name):
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed")
    task = load_task(_task(name))
    if task.name == "attention-fwd-sm90":
        # the attack's own code, against a declaration of the seed's entry (the seed itself takes
        # a quarter of a minute to build and is built by the task's own tests)
        _, renamed = RENAME[task.name]
        source = tmp_path / name
        source.write_text(f'#include "{HEADER[task.name]}"\n{renamed.replace("static ", "")}const AttnParams*, void*);\n'
                          + (ATTACKS / name).read_text())
        proc = subprocess.run(["nvcc", "-c", "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-I", str(task.dir),
                               str(source), "-o", str(tmp_path / "attack.o")], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return
    result = build(task, attack(name, task.name, tmp_path), build_cache)
    assert result.ok, result.log[-3000:]


def _run(name: str, tmp_path: Path, only: str, **options):
    task = _task(name)
    report = evaluate_isolated(task, attack(name, task, tmp_path), only=only, seed=31, baselines=False,
                               timeout_s=600, **options)
    met, reasons = report.goal()
    record(f"cuda attack: {name}", met=met, reasons=reasons[:3],
           scenarios={s.name: (s.correct, s.failure, s.flags, s.audit.get("gap")) for s in report.scenarios})
    print(report.text_table())
    assert not met and "GOAL MET" not in report.text_table()
    return report


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["rmsnorm_side_stream_some.cu", "rmsnorm_side_stream_small.cu",
                                  "rmsnorm_legacy_stream_some.cu", "attention_side_stream_some.cu"])
def test_work_off_the_stream_is_caught_on_every_call_pattern(tmp_path, name):
    only = ATTN if name.startswith("attention") else RMS_SMALL
    report = _run(name, tmp_path, only, time_budget_s=0.5)
    census = report.host.get("census") or {}
    assert census.get("on"), f"the launch census did not run on this GPU: {census.get('note')}"
    small = {"r1024_c1024", "r333_c1000"} if "small" in name else {s.name for s in report.scenarios}
    for s in report.scenarios:
        if s.name in small:  # the census names the launches off the stream, whatever else caught it
            assert "outside_stream" in s.flags and "census_problem" in s.audit, \
                (s.name, s.flags, s.audit.get("census"), s.failure)
            assert s.audit["census"]["off_stream"] > 0
        else:
            assert not s.audit.get("census", {}).get("off_stream"), (s.name, s.audit.get("census"))
    record(f"cuda census: {name}", census={s.name: s.audit.get("census_problem") for s in report.scenarios})
    assert report.exit_code() == 1


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["rmsnorm_skip_timed.cu", "attention_skip_timed.cu"])
def test_nothing_on_the_timed_calls_fails_a_verified_one(tmp_path, name):
    only = ATTN if name.startswith("attention") else RMS_SMALL
    report = _run(name, tmp_path, only, time_budget_s=0.3)
    failures = [s.failure for s in report.scenarios if not s.correct]
    assert failures and all(f.startswith("timed call (round ") for f in failures), failures
    assert report.exit_code() == 1
