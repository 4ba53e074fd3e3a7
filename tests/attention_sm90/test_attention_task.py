"""CPU-side tests of the attention task (kernels/attention-fwd-sm90): the spec loads, the
scenarios cover the feature surface, FLOP counts match a brute-force mask count, the numpy
reference matches a per-element loop, and the seed, the reference and the broken candidates build
and pass the constraint check. No GPU needed (nvcc is, for the builds)."""
from __future__ import annotations

import math
import shutil
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from attention_broken import BROKEN, TASK_DIR, feature_used, patched_source
from attention_small import SMALL
from evaluator.harness import Case
from evaluator.task import load_task

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
# the module's tests on one pytest-xdist worker (`loadgroup`): the nvcc builds of `built` are made once
pytestmark = pytest.mark.xdist_group("sm90-builds")


@pytest.fixture(scope="module")
def task():
    return load_task(TASK_DIR)


@pytest.fixture(scope="module")
def shapes(task):
    return {s.name: task.harness.shape_of(s.params) for s in task.scenarios}


# ---- the spec and its scenarios -----------------------------------------------------------------------

def test_task_loads_with_about_180_scenarios_and_20_quick(task):
    assert task.backend == "cuda" and task.arch == "sm_90a" and task.entry == "ks_attention_fwd"
    assert 170 <= len(task.scenarios) <= 200
    assert 15 <= len(task.quick) <= 25
    assert len({s.name for s in task.scenarios}) == len(task.scenarios)


def _features(shape) -> set[str]:
    f = {f"d{shape.d}", shape.dtype, "causal" if shape.causal else "full"}
    group = shape.group
    f.add("mha" if group == 1 else "mqa" if shape.hkv == 1 else f"gqa{group}")
    if shape.page:
        f.add(f"page{shape.page}")
    if shape.wl >= 0 or shape.wr >= 0:
        f.add("window")
    if shape.softcap > 0:
        f.add("softcap")
    if len(set(shape.sq)) > 1:
        f.add("varlen")
    if all(q <= 16 for q in shape.sq) and shape.page:
        f.add("decode")
    if any(1 < q <= 16 for q in shape.sq) and shape.page:
        f.add("multi_token_decode")
    if any(q < k for q, k in zip(shape.sq, shape.sk)) and any(q > 16 for q in shape.sq):
        f.add("chunked")
    if any(q > k for q, k in zip(shape.sq, shape.sk)):
        f.add("rows_without_keys")
    return f


EVERY_FEATURE = {
    "d64", "d96", "d128", "d192", "d256", "bf16", "f16", "causal", "full", "mha", "gqa4", "gqa8",
    "mqa", "page16", "page64", "page256", "window", "softcap", "varlen", "decode",
    "multi_token_decode", "chunked", "rows_without_keys",
}


def test_scenarios_cover_every_feature(shapes):
    seen = Counter(f for shape in shapes.values() for f in _features(shape))
    assert EVERY_FEATURE <= set(seen), f"missing: {EVERY_FEATURE - set(seen)}"
    assert all(seen[f] >= 3 for f in EVERY_FEATURE - {"rows_without_keys"}), seen


def test_quick_subset_touches_every_feature(task, shapes):
    seen = set().union(*(_features(shapes[name]) for name in task.quick))
    assert EVERY_FEATURE <= seen, f"quick misses: {EVERY_FEATURE - seen}"


def test_scenario_names_say_their_dtype_heads_and_mask(shapes):
    for name, shape in shapes.items():
        assert name.endswith("_" + shape.dtype), name
        assert f"h{shape.hq}kv{shape.hkv}" in name, name
        assert f"d{shape.d}" in name, name
        if shape.page:
            assert f"paged{shape.page}" in name, name


def test_shapes_depend_on_the_scenario_only(task):
    scenario = next(s for s in task.scenarios if s.name.startswith("decode_paged16"))
    h = task.harness
    a = h.make_case(dict(scenario.params), np.random.default_rng(1))
    b = h.make_case(dict(scenario.params), np.random.default_rng(2))
    for name in ("cu_seqlens_q", "cu_seqlens_k", "seqused_k", "block_table"):
        assert np.array_equal(a.inputs[name], b.inputs[name])
    assert a.inputs["q"].shape == b.inputs["q"].shape and a.scalars == b.scalars
    assert not np.array_equal(a.inputs["k"], b.inputs["k"])


def test_block_tables_are_in_bounds_and_never_share_a_block(shapes):
    for name, shape in shapes.items():
        if not shape.page:
            continue
        t = shape.block_table
        assert t.min() >= 0 and t.max() < shape.num_blocks, name
        used = [t[b, : max(1, -(-k // shape.page))] for b, k in enumerate(shape.sk)]
        flat = np.concatenate(used)
        assert len(set(flat.tolist())) == len(flat), name


def test_every_scenario_attends_something_and_fits_in_int32(task, shapes):
    h = task.harness
    for s in task.scenarios:
        shape = shapes[s.name]
        assert h.attended_pairs(shape) > 0, s.name
        assert shape.total_q * shape.hq * shape.d < 2**31, s.name


# ---- FLOP counts ------------------------------------------------------------------------------------

def test_flops_match_a_brute_force_mask_count(task, shapes):
    h = task.harness
    checked = 0
    for s in task.scenarios:
        shape = shapes[s.name]
        if sum(q * k for q, k in zip(shape.sq, shape.sk)) > 6_000_000:
            continue
        pairs = sum(int(h.mask_matrix(shape, b).sum()) for b in range(shape.batch))
        assert h.flops(s.params) == 4.0 * pairs * shape.d * shape.hq, s.name
        checked += 1
    for name, params in SMALL.items():
        shape = h.shape_of(params)
        pairs = sum(int(h.mask_matrix(shape, b).sum()) for b in range(shape.batch))
        assert h.flops(params) == 4.0 * pairs * shape.d * shape.hq, name
    assert checked >= 60


def test_flops_of_known_shapes(task):
    h = task.harness
    causal = {"batch": 1, "sq": 1024, "sk": 1024, "heads": "h8kv8", "d": 128, "causal": "causal"}
    assert h.flops(causal) == 4 * (1024 * 1025 // 2) * 128 * 8
    assert h.flops(causal | {"causal": "full"}) == 4 * 1024 * 1024 * 128 * 8
    # window of 128 to the left, causal: row i sees min(i, 128) + 1 keys
    assert h.flops(causal | {"wl": 128}) == 4 * sum(min(i, 128) + 1 for i in range(1024)) * 128 * 8
    # decode: one query sees every key; bottom-right alignment makes causal a no-op
    decode = {"batch": 2, "sq": 1, "sk": "100,300", "heads": "h8kv1", "d": 64, "causal": "causal", "page": 16}
    assert h.flops(decode) == 4 * 400 * 64 * 8


# ---- the numpy reference against a per-element loop ----------------------------------------------------

def _loop_reference(case: Case) -> dict[str, np.ndarray]:
    """attention.h's definition, one query row and one key at a time, in plain Python floats."""
    s, inp = case.scalars, case.inputs
    hq, hkv = s["num_heads_q"], s["num_heads_kv"]
    q, k, v = inp["q"], inp["k"], inp["v"]
    o = np.zeros(q.shape)
    lse = np.full((hq, q.shape[0]), -math.inf)
    for b in range(s["batch"]):
        q0, lq = int(inp["cu_seqlens_q"][b]), int(inp["cu_seqlens_q"][b + 1] - inp["cu_seqlens_q"][b])
        lk = int(inp["seqused_k"][b]) if s["paged"] else int(inp["cu_seqlens_k"][b + 1] - inp["cu_seqlens_k"][b])

        def key_row(j):
            if s["paged"]:
                block = int(inp["block_table"][b, j // s["page_size"]])
                return k[block, j % s["page_size"]], v[block, j % s["page_size"]]
            return k[int(inp["cu_seqlens_k"][b]) + j], v[int(inp["cu_seqlens_k"][b]) + j]

        for h in range(hq):
            g = h // (hq // hkv)
            for i in range(lq):
                pos = i + lk - lq
                scores, values = [], []
                for j in range(lk):
                    if s["causal"] and j > pos:
                        continue
                    if s["window_left"] >= 0 and j < pos - s["window_left"]:
                        continue
                    if s["window_right"] >= 0 and j > pos + s["window_right"]:
                        continue
                    kr, vr = key_row(j)
                    x = s["softmax_scale"] * sum(float(a) * float(c) for a, c in zip(q[q0 + i, h], kr[g]))
                    if s["softcap"] > 0:
                        x = s["softcap"] * math.tanh(x / s["softcap"])
                    scores.append(x)
                    values.append(vr[g])
                if not scores:
                    continue
                m = max(scores)
                w = [math.exp(x - m) for x in scores]
                total = sum(w)
                o[q0 + i, h] = sum(wi * np.asarray(vi, dtype=np.float64) for wi, vi in zip(w, values)) / total
                lse[h, q0 + i] = m + math.log(total)
    return {"o": o, "lse": lse}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_numpy_reference_matches_a_per_element_loop(task, name):
    params = dict(SMALL[name]) | {"d": 8}  # the definition does not care; keeps the loop fast
    case = task.harness.make_case(params, np.random.default_rng(7))
    got = task.harness.reference(case)
    want = _loop_reference(case)
    assert np.allclose(got["o"], want["o"], rtol=1e-9, atol=1e-9)
    finite = np.isfinite(want["lse"])
    assert np.array_equal(finite, np.isfinite(got["lse"]))
    assert np.array_equal(finite, case.masks["lse"])
    assert np.allclose(got["lse"][finite], want["lse"][finite], rtol=1e-9, atol=1e-9)


def test_rows_without_keys_get_zero_output_and_unmasked_lse_elsewhere(task):
    case = task.harness.make_case(SMALL["q_longer_than_k"] | {"d": 8}, np.random.default_rng(0))
    ref = task.harness.reference(case)
    # sequence 0: 30 queries over 20 keys, causal bottom-right: the first 10 rows see nothing
    assert np.all(ref["o"][:10] == 0) and np.all(np.isneginf(ref["lse"][:, :10]))
    assert np.all(np.isfinite(ref["lse"][:, 10:30]))
    assert not case.masks["lse"][:, :10].any() and case.masks["lse"][:, 10:30].all()


# ---- broken candidates: each patch applies, and each one's feature is used somewhere ---------------------------

def test_broken_candidates_are_the_seed_with_their_patch():
    seed = (TASK_DIR / "seed.cu").read_text()
    for b in BROKEN:  # each patch still finds its text in the seed exactly once
        text = patched_source(b, seed)
        assert text != seed and b.path.read_text() == text
        assert len(text.splitlines()) - len(seed.splitlines()) <= 2 + sum(new.count("\n") for _, new in b.patches)


def test_each_feature_is_used_by_some_scenarios_and_not_by_others(task, shapes):
    h = task.harness
    for b in BROKEN:
        used = [n for n, shape in shapes.items() if feature_used(h, shape, b.feature)]
        assert 5 <= len(used) < len(shapes) - 20, (b.feature, len(used))
    # the bottom-right rule makes causal decode (one query) a no-op; a window wider than the
    # sequence changes nothing: the bugs must not be expected to show there
    assert not feature_used(h, shapes["decode_paged16_d128_b32_k512-2k_h8kv1_bf16"], "causal")
    assert not feature_used(h, shapes["edge_window_wider_than_seq_d128_b2x1024_h8kv8_causal_bf16"], "window")
    assert not feature_used(h, shapes["decode_paged16_d128_b32_k512-2k_h16kv1_bf16"], "gqa")  # MQA
    assert feature_used(h, shapes["decode_paged16_d128_b16_k512-2k_h16kv2_bf16"], "gqa")


# ---- baselines: only where SDPA means what we mean --------------------------------------------------------

def test_sdpa_baselines_only_where_semantics_match(task, shapes):
    h = task.harness
    supported = [n for n in shapes if h.sdpa_support(task.scenarios[[s.name for s in task.scenarios].index(n)].params) is None]
    assert any(n.startswith("prefill_") for n in supported)
    assert any(n.startswith("decode_dense_") for n in supported)
    for n in supported:
        shape = shapes[n]
        assert not shape.page and shape.wl < 0 and shape.wr < 0 and shape.softcap == 0
        assert len(set(shape.sq)) == 1 and len(set(shape.sk)) == 1
        assert not shape.causal or shape.sq[0] in (1, shape.sk[0])
    for s in task.scenarios:  # the hook agrees, without importing torch for what it declines
        if h.sdpa_support(s.params) is not None:
            case = h.make_case(dict(s.params), np.random.default_rng(0))
            assert h.baselines(case, {}, 0) == {}, s.name


def test_harness_imports_no_torch():
    code = ("import sys; sys.path.insert(0, '.'); from evaluator.task import load_task; "
            f"t = load_task('{TASK_DIR}'); t.harness; print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=TASK_DIR.parent.parent)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


# ---- builds and constraints ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def built(task):
    from evaluator.build import build, default_cache_dir

    cache = default_cache_dir()  # the evaluator's own content-hashed cache: reruns are instant
    # the broken candidates are built (and their machine code checked) by the GPU tests, which run
    # them: five more nvcc builds here cost a CPU-only CI run ~40 s for what those tests check again
    sources = {"seed": task.seed, "reference": task.reference.source}
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {name: pool.submit(build, task, path, cache) for name, path in sources.items()}
    return {name: (sources[name], f.result()) for name, f in futures.items()}


@needs_nvcc
def test_header_matches_the_params_of_task_yaml(task):
    from evaluator.abi import check_header

    assert check_header(task) == []


def test_broken_candidates_pass_the_source_constraints(task):
    # what makes them a test of correctness rather than of the constraints (their builds and machine
    # code are checked by tests/attention_sm90/test_attention_gpu.py, which runs them)
    from evaluator.constraints import check_source

    for b in BROKEN:
        assert check_source(b.path.read_text(), [], [], task.constraints) == [], b.name


@needs_nvcc
def test_seed_and_reference_build_and_pass_the_constraints(task, built):
    from evaluator.constraints import check_binary, check_source, exported_functions
    from pathlib import Path

    for name, (source, result) in built.items():
        assert result.ok, f"{name}:\n{result.log[-3000:]}"
        entry = task.reference.entry if name == "reference" else task.entry
        assert entry in exported_functions(Path(result.lib)), name
        violations = check_source(Path(source).read_text(), result.flags, result.includes, task.constraints)
        violations += check_binary(result, task.constraints)
        assert violations == [], (name, [str(v) for v in violations])


@needs_nvcc
def test_seed_uses_tensor_cores_and_does_not_spill(task, built, tmp_path):
    """mma.sync in the seed's machine code, no local memory: the baseline is a fair one."""
    proc = subprocess.run(
        ["nvcc", "-O3", "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-cubin", "-Xptxas", "-v",
         "-keep", "-keep-dir", str(tmp_path), "-I", str(TASK_DIR), str(task.seed), "-o", str(tmp_path / "seed.cubin")],
        capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    spill_lines = [line for line in proc.stderr.splitlines() if "spill" in line]
    assert len(spill_lines) == 10  # 5 head dims x 2 dtypes
    assert all(" 0 bytes spill stores" in line and "0 bytes stack frame" in line for line in spill_lines), spill_lines
    ptx = "".join(p.read_text() for p in tmp_path.glob("*.ptx"))
    assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in ptx
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ptx
