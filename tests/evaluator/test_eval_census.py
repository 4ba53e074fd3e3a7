"""The launch census without a GPU: finding CUPTI, building the library against this machine's
headers, attributing records to call windows (records injected as CUPTI would hand them over),
the host's windows around real calls, the reply's schema, and the verdict's reading of it.

The census on a GPU (a side stream caught on every call pattern, its cost per call, an honest
seed with nothing off the stream) is in test_eval_attacks_gpu.py and test_eval_cuda_gpu.py.
"""
from __future__ import annotations

import ctypes
import shutil
from pathlib import Path

import pytest

from evaluator.census import Census, CensusUnavailable, census_library, find_cupti, record_types
from evaluator.host import CAND, SEED, BufferSpec, HostCore, ScenarioSpec
from evaluator.native import host_cpu_library
from evaluator.protocol import Message, ProtocolError, check_reply
from evaluator.report import EvalReport, ScenarioResult
from evaluator.scenario import CensusTally

CTX, STREAM = 1, 7


@pytest.fixture(scope="module")
def census_lib(tmp_path_factory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    try:
        return census_library(tmp_path_factory.mktemp("census-cache"))
    except CensusUnavailable as exc:
        pytest.skip(f"no CUPTI on this machine: {exc}")


@pytest.fixture
def census(census_lib) -> Census:
    c = Census.load(str(census_lib))
    c.context_id, c.stream_id = CTX, STREAM
    c.attribute()  # nothing left over from another test
    return c


def test_the_record_structures_are_read_from_the_header_of_each_cupti_version():
    new = open_header_like("CUpti_ActivityKernel10", "CUpti_ActivityMemcpy6")
    old = open_header_like("CUpti_ActivityKernel9", "CUpti_ActivityMemcpy5")
    assert record_types(new)["KS_KERNEL_T"] == "CUpti_ActivityKernel10"
    assert record_types(old) == {"KS_KERNEL_T": "CUpti_ActivityKernel9", "KS_MEMCPY_T": "CUpti_ActivityMemcpy5",
                                 "KS_MEMSET_T": "CUpti_ActivityMemset4", "KS_PEER_T": "CUpti_ActivityMemcpyPtoP4"}
    with pytest.raises(CensusUnavailable, match="MEMSET"):
        record_types(new.replace("CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_GONE"))


def open_header_like(kernel: str, memcpy: str) -> str:
    """The parts of cupti_activity.h the builder reads, as two CUPTI versions write them."""
    return f"""
  /**
   * A host<->host, host<->device, or device<->device memory copy.
   * The corresponding activity record structure is \\ref
   * {memcpy}.
   */
  CUPTI_ACTIVITY_KIND_MEMCPY   = 1,
  /**
   * A memory set executing on the GPU. The corresponding activity
   * record structure is \\ref CUpti_ActivityMemset4.
   */
  CUPTI_ACTIVITY_KIND_MEMSET   = 2,
  /**
   * A kernel executing on the GPU. The corresponding activity record structure
   * is \\ref {kernel}.
   */
  CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL = 10,
  /** peer to peer: \\ref CUpti_ActivityMemcpyPtoP4. */
  CUPTI_ACTIVITY_KIND_MEMCPY2 = 22,
"""


def test_cupti_is_found_through_cuda_home_and_its_absence_names_where_it_looked(tmp_path):
    fake = tmp_path / "cuda-99.0"
    (fake / "include").mkdir(parents=True)
    (fake / "lib64").mkdir()
    for h in ("cupti.h", "cuda.h"):
        (fake / "include" / h).write_text("/* */\n")
    (fake / "lib64" / "libcupti.so.99").write_bytes(b"")
    found = find_cupti({"CUDA_HOME": str(fake), "PATH": str(tmp_path)})
    assert found.include == fake / "include" and found.library.name == "libcupti.so.99"
    empty = tmp_path / "nothing"
    empty.mkdir()
    try:
        find_cupti({"CUDA_HOME": str(empty), "PATH": str(empty)})
    except CensusUnavailable as exc:
        assert str(empty) in str(exc)  # only reached where no system CUDA exists either


def test_the_census_builds_here_against_this_machines_cupti(census_lib):
    assert census_lib.is_file()
    lib = ctypes.CDLL(str(census_lib))
    for symbol in ("ks_census_start", "ks_census_attribute", "ks_census_flush", "ks_census_now"):
        assert hasattr(lib, symbol)


def test_each_record_goes_to_the_call_whose_window_holds_its_start(census):
    # call 0: two own operations first (poison, flush), the kernel, one own snapshot last
    census.open(head=2, start=100)
    census.close(tail=1)
    census.windows[-1].end = 200
    # call 1: no own operations; work on a private stream that outlives nothing
    census.open(head=0, start=300)
    census.close(tail=0)
    census.windows[-1].end = 400
    for start, end in ((110, 115), (116, 120), (121, 150), (151, 160)):
        census.inject("memset" if start < 121 else "kernel" if start == 121 else "memcpy", CTX, STREAM, start, end)
    census.inject("kernel", CTX, 13, 305, 390, name="rmsnorm_kernel")
    census.inject("kernel", 2, STREAM, 310, 320, name="other_context")  # another context: not our stream
    census.inject("memset", CTX, STREAM, 250, 255)  # between calls on our stream: the evaluator's own
    census.inject("kernel", CTX, 21, 260, 270, name="persistent")  # between calls off the stream
    got = census.attribute()
    assert got.on == [4, 0] and got.off == [0, 2]
    assert got.span_ms[0] == pytest.approx(29e-6)  # the kernel only: 121..150 ns
    assert got.span_ms[1] == pytest.approx(85e-6)  # both off-stream records: 305..390
    assert got.stray_off == 1
    assert "persistent" in got.what and "stream 21" in got.what
    assert census.attribute().on == []  # attributed records are forgotten


def test_a_window_whose_own_operations_do_not_add_up_has_no_span(census):
    census.open(head=3, start=100)
    census.close(tail=1)
    census.windows[-1].end = 200
    census.inject("kernel", CTX, STREAM, 110, 120)
    got = census.attribute()
    assert got.on == [1] and got.off == [0] and got.span_ms == [0.0] and got.short == 1


def cpu_core(census: Census, tmp_path: Path, build_cache: Path) -> HostCore:
    """A cpu host core with a census attached by hand and a candidate that is a Python callback."""
    core = HostCore("cpu", str(host_cpu_library(build_cache)), threads=1)
    core.census = census
    core.fields = tuple(__import__("evaluator.abi", fromlist=["ParamField"]).ParamField(*f)
                        for f in (("x", "in", "f32"), ("y", "out", "f32"), ("n", "scalar", "i32")))
    spec = ScenarioSpec("s", [BufferSpec("x", "f32", (64,))], [BufferSpec("y", "f32", (64,))], {"n": 64}, 1, 8)
    core.prepare(spec, memoryview(bytes(256)))
    return core


def test_the_host_opens_a_window_per_call_and_reports_what_ran_off_the_stream(census, tmp_path, build_cache):
    core = cpu_core(census, tmp_path, build_cache)
    proto = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
    calls = {"n": 0}

    def candidate(params, stream):
        calls["n"] += 1
        if calls["n"] % 3 == 0:  # a side stream on one call in three
            t = census.now()
            census.inject("kernel", CTX, 99, t, t + 10, name="side")
        return 0

    def seed(params, stream):
        return 0

    core.fns = [proto(candidate), proto(seed)]
    records = core.rounds([(0, [CAND, SEED])] * 6, [None] * 6, flush=True, check_inputs=False)
    att = core.attribution
    assert len(records) == 12 and len(att.on) == 12
    assert att.off == [1 if i % 6 == 4 else 0 for i in range(12)]  # calls 3 and 6 of the candidate
    assert att.stray_off == 0 and "side" in att.what
    reply = {"kind": "rounds_done", "seq": 1, "returned": [0] * 12, "event_ms": [0.1] * 12, "wall_ms": [0.2] * 12,
             "other_cpu_ms": [0.0] * 12, "outside_ms": [0.0] * 12, "libs": []} | att.to_reply()
    out = check_reply(1, Message(reply), "rounds_done", 1, calls=12, census=True)
    assert out["census"]["off"] == att.off
    with pytest.raises(ProtocolError, match="census_off"):
        check_reply(1, Message(reply | {"census_off": [0] * 11}), "rounds_done", 1, calls=12, census=True)
    with pytest.raises(ProtocolError, match="unexpected field"):
        check_reply(1, Message(reply), "rounds_done", 1, calls=12, census=False)
    core.close()


def test_the_verdict_fails_work_off_the_stream_and_reads_the_seed_as_its_control():
    def tally(cand_off: list[int], seed_off: list[int], stray: int = 0) -> CensusTally:
        t = CensusTally()
        n = len(cand_off)
        census = {"on": [3] * 2 * n, "off": [x for pair in zip(cand_off, seed_off) for x in pair],
                  "span_ms": [0.01] * 2 * n, "stray": stray, "dropped": 0, "what": "kernel 'k' on stream 13",
                  "short": 0, "ms": 0.5}
        t.add(census, [CAND, SEED] * n, [0.012] * 2 * n)
        return t

    honest = tally([0] * 40, [0] * 40)
    entry, problem = honest.verdict()
    assert problem is None and entry["calls"] == 40 and entry["cost_ms_per_call"] == pytest.approx(0.5 / 80)
    one_call = tally([0] * 39 + [1], [0] * 40)
    assert "1 launch(es) off the evaluator's stream in 1 of 40 calls" in one_call.verdict()[1]
    assert "outside any call" in tally([0] * 40, [0] * 40, stray=2).verdict()[1]
    noisy_machine = tally([1] * 40, [1] * 40)  # the seed too: nothing the candidate adds
    assert noisy_machine.verdict()[1] is None
    assert "the seed's calls had 40" in tally([2] * 40, [1] * 40).verdict()[1]


def test_the_report_names_the_census_finding():
    s = ScenarioResult("r1", {}, correct=True, ratio=9.0, ci=[8.0, 10.0], flags=["outside_stream"],
                       audit={"census_problem": "the launch census saw 3 launch(es) off the evaluator's stream"})
    report = EvalReport(task="t", task_dir=".", backend="cuda", candidate={}, seed_source={}, eval_seed=1,
                        options={}, goal_spec={"min_geomean": 1.0}, total_planned=1, build={"ok": True},
                        scenarios=[s])
    met, reasons = report.goal()
    assert not met and any("outside_stream on r1 (r1: the launch census saw 3" in r for r in reasons)
    assert report.exit_code() == 1
