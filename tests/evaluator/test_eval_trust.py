"""The trust boundary's parts, each on its own: the generator both sides share, the protocol's
checks, the syscall filter, pinned task files, the hashed build cache, the timing audits and the
re-measure verdict."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from evaluator import audit
from evaluator.build import build
from evaluator.errors import TaskError
from evaluator.harness import bf16_bits
from evaluator.native import CpuHelper, gen_cuda_library, host_cpu_library, refresh_numpy
from evaluator.pins import verify_pins, write_pins
from evaluator.protocol import HostReportedError, Message, ProtocolError, Reader, check_reply, write_message
from evaluator.report import EvalReport, ScenarioResult
from evaluator.task import load_task
from kernels import TASKS_DIR

REPO = Path(__file__).resolve().parents[2]


# ---- the generator -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def helper(build_cache):
    return CpuHelper(host_cpu_library(build_cache))


def test_the_generator_in_c_and_in_numpy_agree_bit_for_bit(helper):
    rng = np.random.default_rng(3)
    edge16 = np.array([6e-8, 1e-7, 6.1e-5, 65504, -65504, 0.0, -0.0, 3e-5, 1.0, -1.0], np.float16)
    bases = {"f32": (rng.standard_normal(40_003) * 3).astype(np.float32), "f64": rng.standard_normal(1_001),
             "f16": np.concatenate([rng.standard_normal(20_000).astype(np.float16), edge16]),
             "bf16": bf16_bits(rng.standard_normal(20_000).astype(np.float32)),
             "i32": rng.integers(-5, 5, 999).astype(np.int32)}
    for name, base in bases.items():
        for seed in (0, 1, 2**63 + 12345, 2**64 - 1):
            got = helper.refresh_array(base, name, seed)
            assert np.array_equal(got.view(np.uint8), refresh_numpy(base, name, seed).view(np.uint8)), (name, seed)
        if name != "i32":  # fresh values every round, of the same size; integers stay as they are
            a, b = helper.refresh_array(base, name, 1), helper.refresh_array(base, name, 2)
            assert not np.array_equal(a, b) and not np.array_equal(a, base)
        else:
            assert np.array_equal(helper.refresh_array(base, name, 1), base)
    f = refresh_numpy(bases["f32"], "f32", 9) / bases["f32"]
    assert 0.874 < np.abs(f).min() and np.abs(f).max() < 1.126 and 0.45 < (f < 0).mean() < 0.55


def test_snapshots_copy_everything_and_the_pool_accounts_for_other_threads(helper):
    src = np.random.default_rng(1).integers(0, 255, 3 * 4096 + 77, dtype=np.uint8)
    dst = np.zeros_like(src)
    helper.snapshot(dst.ctypes.data, src.ctypes.data, src.nbytes, 12345)
    assert np.array_equal(src, dst)
    before = helper.other_cpu_ns()
    deadline = time.monotonic() + 10.0

    def busy():  # until this thread has had 80 ms of CPU (however loaded the machine), not 0.2 s of wall
        start = time.thread_time()
        while time.thread_time() - start < 0.08 and time.monotonic() < deadline:
            pass

    t = threading.Thread(target=busy)
    t.start()
    t.join()
    assert helper.other_cpu_ns() - before > 50e6  # a thread that is not the evaluator's was busy


def test_the_generator_builds_for_the_gpu(build_cache):
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed")
    assert gen_cuda_library(build_cache, "90a").is_file()


# ---- the protocol --------------------------------------------------------------------------------------

def _reply(header: dict, payload: bytes = b"") -> Message:
    return Message(header, payload)


GOOD_ROUNDS = {"kind": "rounds_done", "seq": 3, "returned": [0, 0], "event_ms": [1.0, 2.0], "wall_ms": [1.5, 2.5],
               "other_cpu_ms": [0.0, 0.0], "outside_ms": [0.1, 0.1], "libs": []}


@pytest.mark.parametrize("change, message", [
    ({"seq": 2}, "answers request 2, expected 3"),
    ({"kind": "prepared"}, "is a 'prepared' reply, expected 'rounds_done'"),
    ({"event_ms": [1.0]}, "field 'event_ms' has 1 items, expected 2"),
    ({"event_ms": [1.0, "inf"]}, "event_ms[1] is 'inf', expected a finite number"),
    ({"wall_ms": [1.0, -2.0]}, "wall_ms[1] is -2.0"),
    ({"returned": [0, 1.5]}, "returned[1] is 1.5, expected an integer"),
    ({"libs": "libz.so"}, "field 'libs' is not a list"),
    ({"extra": 1}, "unexpected field(s) ['extra']"),
])
def test_every_reply_is_held_to_its_schema(change, message):
    with pytest.raises(ProtocolError, match=f"protocol: message 12 \\(.*\\): .*{__import__('re').escape(message)}"):
        check_reply(12, _reply(GOOD_ROUNDS | change), "rounds_done", 3, calls=2)
    assert check_reply(12, _reply(GOOD_ROUNDS), "rounds_done", 3, calls=2)["event_ms"] == [1.0, 2.0]


CENSUS = {"census_on": [3, 3], "census_off": [0, 0], "census_span_ms": [0.1, 0.1], "census_stray": 0,
          "census_dropped": 0, "census_what": "", "census_short": 0, "census_ms": 0.4}


def test_the_census_comes_after_the_timed_reply_and_is_held_to_its_schema():
    """A timed request's reply carries no census (its flush stays outside the verdict's clock around
    the calls); the `census` request that follows carries it, one count per call."""
    with pytest.raises(ProtocolError, match="unexpected field"):
        check_reply(12, _reply(GOOD_ROUNDS | CENSUS), "rounds_done", 3, calls=2, census=True, census_later=True)
    assert "census" not in check_reply(12, _reply(GOOD_ROUNDS), "rounds_done", 3, calls=2, census=True,
                                       census_later=True)
    done = {"kind": "census_done", "seq": 4} | CENSUS
    assert check_reply(13, _reply(done), "census_done", 4, calls=2)["census"]["on"] == [3, 3]
    with pytest.raises(ProtocolError, match="census_on"):
        check_reply(13, _reply(done | {"census_on": [3]}), "census_done", 4, calls=2)


def test_malformed_frames_name_the_message():
    r, w = os.pipe()
    os.write(w, b'{"kind": "bye", "seq": 1}\n' + b"not json\n" + b'[1, 2]\n' + b'{"kind": "data", "seq": 4, "payload": 9}\nabc')
    os.close(w)
    reader = Reader(r)
    assert reader.read().kind == "bye"
    with pytest.raises(ProtocolError, match="protocol: message 2 is not valid JSON"):
        reader.read()
    with pytest.raises(ProtocolError, match="protocol: message 3 is not a JSON object"):
        reader.read()
    with pytest.raises(ProtocolError, match="protocol: message 4 was cut off \\(3 of 9 payload bytes\\)"):
        reader.read()
    os.close(r)


def test_data_must_be_exactly_what_was_asked_and_errors_are_reported():
    ok = check_reply(1, _reply({"kind": "data", "seq": 1, "nbytes": 4}, b"abcd"), "data", 1, nbytes=4)
    assert ok["payload"] == b"abcd"
    with pytest.raises(ProtocolError, match="carries 3 bytes \\(says 3\\), expected 4"):
        check_reply(1, _reply({"kind": "data", "seq": 1, "nbytes": 3}, b"abc"), "data", 1, nbytes=4)
    with pytest.raises(HostReportedError, match="illegal address") as exc:
        check_reply(2, _reply({"kind": "error", "seq": 1, "error_kind": "fault", "error": "illegal address"}),
                    "rounds_done", 1, calls=1)
    assert exc.value.kind == "fault"


def test_a_frame_round_trips_through_a_pipe():
    r, w = os.pipe()
    write_message(w, {"kind": "data", "seq": 5, "nbytes": 3}, b"xyz")
    os.close(w)
    msg = Reader(r).read()
    assert msg.header["payload"] == 3 and msg.payload == b"xyz"
    os.close(r)


# ---- the syscall filter --------------------------------------------------------------------------------

def test_the_filter_refuses_processes_and_keeps_threads():
    code = (
        "import os, threading, subprocess\n"
        "from evaluator.confine import confine, Limits\n"
        "print(confine(Limits(cpu_s=60, file_bytes=1 << 20, data_bytes=None))['seccomp'])\n"
        "t = threading.Thread(target=lambda: print('thread')); t.start(); t.join()\n"
        "for what, f in [('fork', os.fork), ('spawn', lambda: os.posix_spawn('/bin/true', ['true'], {})),\n"
        "                ('exec', lambda: os.execv('/bin/true', ['true'])), ('setsid', os.setsid),\n"
        "                ('run', lambda: subprocess.run(['true']))]:\n"
        "    try:\n"
        "        f(); print(what, 'ALLOWED')\n"
        "    except OSError as e: print(what, e.errno)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60).stdout
    assert out.split() == ["True", "thread", "fork", "1", "spawn", "1", "exec", "1", "setsid", "1", "run", "1"], out


# ---- pinned task files and the build cache ---------------------------------------------------------------

def test_every_shipped_task_is_pinned_and_matches():
    for folder in sorted(p.parent for p in TASKS_DIR.glob("*/task.yaml")):
        assert verify_pins(folder, required=True), folder


def test_a_changed_missing_or_extra_file_is_an_error_naming_it(tmp_path):
    folder = tmp_path / "softmax-cpu"
    shutil.copytree(TASKS_DIR / "softmax-cpu", folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "seed.c").write_text((folder / "seed.c").read_text() + "\n")
    with pytest.raises(TaskError, match=r"seed.c: content does not match its pin"):
        verify_pins(folder, required=False)
    write_pins(folder)
    (folder / "math.h").write_text("/* shadows <math.h>: the folder is on the include path */\n")
    with pytest.raises(TaskError, match=r"math.h: not pinned"):
        verify_pins(folder, required=False)
    (folder / "math.h").unlink()
    (folder / "harness.py").unlink()
    with pytest.raises(TaskError, match=r"harness.py: pinned in PINNED but missing"):
        verify_pins(folder, required=False)
    (folder / "PINNED").unlink()
    assert verify_pins(folder, required=False) is False
    with pytest.raises(TaskError, match="PINNED: missing"):
        verify_pins(folder, required=True)


def test_a_cached_library_whose_bytes_changed_is_rebuilt(tmp_path):
    task = load_task("softmax-cpu")
    first = build(task, task.seed, tmp_path)
    assert first.ok and not first.cached and first.lib_sha256
    Path(first.lib).write_bytes(Path(first.lib).read_bytes() + b"tampered")
    again = build(task, task.seed, tmp_path)
    assert again.ok and not again.cached  # the altered library was not used
    assert json.loads((Path(again.lib).parent / "build.json").read_text())["lib_sha256"] == again.lib_sha256
    assert build(task, task.seed, tmp_path).cached


# ---- the audits --------------------------------------------------------------------------------------------

def test_reported_times_must_fit_the_verdicts_clock():
    assert audit.bracket_problem(10.0, [4.0, 5.0], [3.0, 4.0]) is None
    assert "12.000 ms of calls" in audit.bracket_problem(10.0, [6.0, 6.0], [3.0, 4.0])
    assert "on its events but" in audit.bracket_problem(10.0, [4.0, 5.0], [4.5, 4.0])


def test_time_hidden_from_the_reported_walls_is_caught_and_a_requests_fixed_cost_is_not():
    """A host that leaves 2 ms per call out of its reported walls is caught, whether its requests
    hold 2 calls or 40; an honest request's fixed cost (1.3 ms, the H200's attention sweep at 2
    calls a request: 0.65 ms per call beyond a 6-call calibration) is not."""
    calibration = [0.05, 0.06]
    honest = audit.unexplained_time([0.05 + 1.3 / 2] * 5, calibration, 0.12, calls_per_request=2)
    assert honest[0] < honest[1]
    for calls in (2, 40):
        hidden = audit.unexplained_time([0.05 + 2.0] * 5, calibration, 0.12, calls_per_request=calls)
        assert hidden[0] > hidden[1], (calls, hidden)
    big = audit.unexplained_time([0.05 + 0.6 * 8.0] * 5, calibration, 8.0, calls_per_request=2)
    assert big[0] > big[1]  # hiding 60% of an 8 ms kernel


def test_work_off_the_stream_counts_on_every_call_pattern():
    rng = np.random.default_rng(2)
    seed = list(0.040 + rng.normal(0, 0.002, 2000))
    clean = list(0.040 + rng.normal(0, 0.002, 2000))
    assert not audit.gap_excess(clean, seed, 0.005).flagged  # honest: a 5 us kernel, no excess
    # a 5 us kernel that puts 5 us of work off the stream on one call in four
    some = [g + (0.005 if i % 4 == 0 else 0.0) for i, g in enumerate(clean)]
    assert audit.gap_excess(some, seed, 0.005).flagged
    # and one that does it on one call in fifty but twenty times as long
    rare = [g + (0.1 if i % 50 == 0 else 0.0) for i, g in enumerate(clean)]
    assert audit.gap_excess(rare, seed, 0.005).flagged


def test_the_gap_check_leans_on_a_census_that_saw_every_call_and_only_then():
    """The H200's honest 10 us attention kernels read up to 12 us more wall-minus-event per call
    than the seed's copy of themselves; with a census that saw each call whole that is no finding,
    without one (or with records lost, or work off the stream) the fine floor stays."""
    from evaluator.scenario import CAND, SEED, CensusTally

    honest_cand, seed = [0.075 + 0.0005 * (i % 3) for i in range(53)], [0.063 + 0.0005 * (i % 3) for i in range(53)]
    assert audit.gap_excess(honest_cand, seed, 0.0097).flagged
    assert not audit.gap_excess(honest_cand, seed, 0.0097, audit.GAP_FLOOR_CENSUS_MS).flagged
    hidden = [g + 0.03 for g in honest_cand]  # 30 us more per call still shows
    assert audit.gap_excess(hidden, seed, 0.0097, audit.GAP_FLOOR_CENSUS_MS).flagged
    whole = {"on": [1, 1], "off": [0, 0], "span_ms": [0.01, 0.01], "stray": 0, "dropped": 0, "what": "",
             "short": 0, "ms": 0.1}
    tally = CensusTally()
    tally.add(whole, [SEED, CAND], [0.01, 0.01])
    assert tally.vouches()
    for bad in ({"short": 1}, {"dropped": 2}, {"span_ms": [0.01, 0.0]}, {"off": [0, 1]}, {"stray": 1}):
        t = CensusTally()
        t.add(whole | bad, [SEED, CAND], [0.01, 0.01])
        assert not t.vouches(), bad
    assert not CensusTally().vouches()  # no census: the fine floor


def test_the_physical_floor_takes_the_tighter_of_both_limits():
    # an attention decode step: few FLOPs, many bytes -- the memory bound decides
    floor = audit.physical_floor(flops=2e9, nbytes=2e9, peak_tflops=700, peak_gbps=4000)
    assert floor.bound == "memory" and floor.floor_ms == pytest.approx(0.5)
    assert audit.impossible(0.2, floor) and not audit.impossible(0.3, floor)
    floor = audit.physical_floor(flops=7e12, nbytes=1e9, peak_tflops=700, peak_gbps=4000)
    assert floor.bound == "compute" and floor.floor_ms == pytest.approx(10.0)
    assert audit.impossible(7.9, floor) and not audit.impossible(8.1, floor)


# ---- the verdict: contention and intervals that straddle the goal are not a decision ------------------

def _report(scenarios, **kw) -> EvalReport:
    base = dict(task="t", task_dir="/t", backend="cpu", candidate={"path": "c.c", "sha256": "0" * 64},
                seed_source={"path": "s.c", "sha256": "1" * 64}, eval_seed=1, options={"timing": True},
                goal_spec={"all_correct": True, "min_geomean": 1.5}, build={"ok": True, "log": ""},
                total_planned=len(scenarios))
    return EvalReport(**(base | kw), scenarios=scenarios)


def _s(name, ratio, ci, flags=()):
    return ScenarioResult(name, {}, correct=True, ratio=ratio, ci=list(ci), flags=list(flags), seed_ms=1.0, cand_ms=0.5)


def test_contention_and_a_straddled_goal_mean_re_measure():
    decided = _report([_s("a", 2.0, (1.95, 2.05)), _s("b", 1.9, (1.85, 1.95))])
    assert decided.goal() == (True, []) and decided.summary()["remeasure"] == []
    loaded = _report([_s("a", 2.0, (1.95, 2.05), ["contended"]), _s("b", 1.9, (1.85, 1.95))])
    met, reasons = loaded.goal()
    assert not met and reasons[0].startswith("re-measure: contended on a")
    assert loaded.summary()["remeasure"] == reasons and loaded.exit_code() == 0
    assert loaded.exit_code(require_goal=True) == 1
    close = _report([_s("a", 1.6, (1.2, 2.1)), _s("b", 1.55, (1.1, 2.0))])
    met, reasons = close.goal()
    assert not met and "does not exclude missing it" in reasons[0]
    assert close.to_json()["goal"]["remeasure"] == reasons
    # the coarse bracket alone (census whole, gap clean) never meets the goal: it is measured again
    once = _report([_s("a", 2.0, (1.95, 2.05), ["timing_unconfirmed"]), _s("b", 1.9, (1.85, 1.95))])
    met, reasons = once.goal()
    assert not met and reasons[0].startswith("re-measure: timing_unconfirmed on a")


def test_integrity_flags_fail_the_goal_and_the_exit_code():
    r = _report([_s("a", 40.0, (39.0, 41.0), ["impossible"])])
    r.scenarios[0].physics = {"floor_ms": 1.0, "bound": "memory", "margin": 2.0}
    met, reasons = r.goal()
    assert not met and "impossible on a (a: 0.5 ms, but the measured peaks need at least 1 ms (memory bound" in reasons[0]
    assert r.exit_code() == 1
