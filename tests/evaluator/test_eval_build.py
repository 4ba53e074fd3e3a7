"""Builds and constraint checks: caching by content, kept compiler output, and the symbol, library,
include and flag checks on real gcc and nvcc output (nvcc builds run without a GPU: this is what
CI checks of the cuda task)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from eval_plants import plant
from evaluator.build import build, source_flags
from evaluator.constraints import check_binary, check_source, exported_functions, strip_comments
from evaluator.task import load_task

needs_nvcc = pytest.mark.skipif(not shutil.which("nvcc"), reason="nvcc not installed")


def test_builds_are_cached_by_content_and_flags(tmp_path, build_cache):
    task = load_task("softmax-cpu")
    src = tmp_path / "cand.c"
    src.write_text(task.seed.read_text())
    first = build(task, src, tmp_path / "cache")
    again = build(task, src, tmp_path / "cache")
    assert first.ok and not first.cached and again.cached and again.lib == first.lib
    src.write_text("// kernelseek-flags: -O2 -DKS_X=1\n" + task.seed.read_text())
    flagged = build(task, src, tmp_path / "cache")
    assert flagged.key != first.key and flagged.flags == ["-O2", "-DKS_X=1"]
    assert "-DKS_X=1" in flagged.command


def test_a_failed_build_is_cached_with_its_log(tmp_path, planted_dir):
    task = load_task("softmax-cpu")
    src = plant("softmax_syntax_error", planted_dir)
    first = build(task, src, tmp_path / "cache")
    again = build(task, src, tmp_path / "cache")
    assert not first.ok and "error:" in first.log and "[gcc exited with 1]" in first.log
    assert again.cached and again.log == first.log


def test_source_flags_and_comment_stripping():
    assert source_flags("// kernelseek-flags: -O2 '-DX=a b'\nint x;\n//kernelseek-flags: -lm") == ["-O2", "-DX=a b", "-lm"]
    text = 'int a; // dlopen here\n/* dlsym\n */ const char* s = "// not a comment";\n'
    stripped = strip_comments(text)
    assert "dlopen" not in stripped and "dlsym" not in stripped and '"// not a comment"' in stripped
    assert stripped.count("\n") == text.count("\n")


def test_source_rules_see_code_not_comments():
    rules = load_task("softmax-cpu").constraints
    quiet = check_source("// we never call dlopen\nint f(void) { return 0; }\n", [], [], rules)
    loud = check_source("#include <stdio.h>\nvoid* h(void) { return dlopen(0, 0); }\n", [], [], rules)
    assert quiet == []
    assert [(v.kind, v.name, v.detail) for v in loud] == [("source", "dlopen", "line 2")]
    inc = check_source('#include <cblas.h>\n', ["-Ofast", "-fplugin=x.so"], [], rules)
    assert {(v.kind, v.name) for v in inc} == {("include", "cblas.h"), ("flag", "-fplugin=x.so")}


@needs_nvcc
def test_cuda_task_builds_with_nvcc_and_its_symbols_pass_without_a_gpu(build_cache):
    task = load_task("rmsnorm-cuda")
    for source, entry in ((task.seed, task.entry), (task.reference.source, task.reference.entry)):
        result = build(task, source, build_cache)
        assert result.ok, result.log
        assert "-gencode=arch=compute_90a,code=sm_90a" in result.command
        assert entry in exported_functions(Path(result.lib))
        assert any("rmsnorm" in name for name in result.device_symbols)
        assert check_binary(result, task.constraints) == []
        assert check_source(source.read_text(), result.flags, result.includes, task.constraints) == []


@needs_nvcc
@pytest.mark.parametrize("name, expected", [
    ("rmsnorm_banned_lib", {("library", "libz.so.1")}),
    ("rmsnorm_banned_symbol", {("symbol", "cublasCreate_v2"), ("device_symbol", "cutlass::scale(float, float)")}),
])
def test_cuda_banned_library_and_symbols_are_caught_at_build_time(build_cache, planted_dir, name, expected):
    task = load_task("rmsnorm-cuda")
    result = build(task, plant(name, planted_dir), build_cache)
    assert result.ok, result.log
    found = {(v.kind, v.name) for v in check_binary(result, task.constraints)}
    assert expected <= found


def test_cpu_banned_symbol_and_library_in_the_binary(build_cache, planted_dir):
    task = load_task("softmax-cpu")
    lib = build(task, plant("softmax_banned_lib", planted_dir), build_cache)
    sym = build(task, plant("softmax_banned_symbol", planted_dir), build_cache)
    assert ("library", "libz.so.1") in {(v.kind, v.name) for v in check_binary(lib, task.constraints)}
    hits = [v for v in check_binary(sym, task.constraints) if v.kind == "symbol"]
    assert [(v.name, v.rule, v.detail) for v in hits] == [("cblas_sgemm", "cblas_", "undefined (called)")]
