"""The node-local GPU locks with real flock and real processes: a claim names its holder and dies
with it; a timed hold waits for another and says for whom; shared holds share; the lock files
cannot be turned against the user (links, a directory others can swap files in)."""
from __future__ import annotations

import json
import os
import signal
import time

import pytest

from evaluator.gpu_lock import GpuLockError, TimingLock, claim, claimed_by, holder_text, lock_dir
from fleet_helpers import wait_until
from gpu_helpers import hold_in_child, left_of_hold, uuid_of

GPU = uuid_of(3)


def test_a_claim_names_its_holder_and_dies_with_it():
    child = hold_in_child("claim", GPU, 60, what="session attn-3")
    try:
        assert child.first_line == "held"
        holder = claimed_by(GPU)
        assert holder["pid"] == child.pid and holder["what"] == "session attn-3"
        assert holder_text(holder).startswith(f"pid {child.pid}") and "session attn-3" in holder_text(holder)
        assert claim(GPU, what="me") is None  # held: not taken, not waited for
        other = claim(uuid_of(4), what="me")  # another GPU is free
        assert other is not None
        other.release()
    finally:
        os.kill(child.pid, signal.SIGKILL)  # a killed holder leaves nothing locked
        child.wait()
    assert claimed_by(GPU) is None
    mine = claim(GPU, what="me")
    assert mine is not None and claimed_by(GPU)["pid"] == os.getpid()
    second = claim(GPU, what="me again")  # two claims in one process exclude each other too
    assert second is None
    mine.release()
    assert claim(GPU, what="after release") is not None


LOOKER = """
import sys, time
sys.path.insert(0, {repo!r})
from evaluator.gpu_lock import claimed_by
print("looking", flush=True)
end = time.monotonic() + float(sys.argv[1])
n = 0
while time.monotonic() < end:
    claimed_by(sys.argv[2])
    n += 1
print(n, flush=True)
"""


def test_looking_at_a_claim_never_makes_a_claimer_fail():
    import subprocess
    import sys

    from gpu_helpers import REPO

    looker = subprocess.Popen([sys.executable, "-c", LOOKER.format(repo=str(REPO)), "1.5", GPU],
                              stdout=subprocess.PIPE, text=True)
    assert looker.stdout.readline().strip() == "looking"
    claims = 0
    while looker.poll() is None:
        held = claim(GPU, what="runner")
        assert held is not None  # a look (a shared lock for an instant) is no holder
        held.release()
        claims += 1
    looks = int(looker.stdout.read().split()[-1])
    assert claims > 20 and looks > 100


def test_a_timed_hold_waits_for_another_and_says_for_whom():
    seen = []
    child = hold_in_child("timing", GPU, 1.0, what="scenario prefill_d128")
    since = float(child.first_line.split()[1])
    with TimingLock(GPU, on_wait=seen.append).hold("scenario decode_d64") as held:
        mine = held.since
    child_end = float(child.stdout.readline().split()[2])
    child.wait()
    assert seen and seen[0]["what"] == "scenario prefill_d128" and seen[0]["pid"] == child.pid
    assert held.waited_s > 0.5 and "scenario prefill_d128" in held.record()["waited_for"]
    assert mine >= child_end - 0.005 and held.until >= mine  # one after the other, never both
    assert since < child_end
    assert held.record()["lock"] == "exclusive" and held.record()["held"][0] == round(mine, 4)


def test_shared_holds_share_and_an_exclusive_one_waits_for_them():
    waits = []
    child = hold_in_child("shared", GPU, 1.5, what="correctness only")
    with TimingLock(GPU, on_wait=waits.append).hold("checks", exclusive=False) as shared:
        assert shared.waited_s == 0.0 and not waits  # two checkers at once
    asked = time.monotonic()
    with TimingLock(GPU, on_wait=waits.append).hold("timing") as timed:
        pass
    child.wait()
    assert waits and timed.waited_s > 0 and timed.waited_s >= left_of_hold(child, asked)
    assert timed.since >= child.held_until_wall  # nothing held while the shared holder still held


def test_a_timing_holder_is_seen_and_a_free_lock_is_not():
    lock = TimingLock(GPU)
    assert lock.holder() is None
    child = hold_in_child("timing", GPU, 30, what="scenario x")
    try:
        assert lock.holder()["what"] == "scenario x"
    finally:
        child.kill()
        child.wait()
    assert lock.holder() is None


def test_a_link_planted_where_a_lock_file_goes_is_refused_and_its_target_untouched(tmp_path):
    target = tmp_path / "victim.txt"
    target.write_text("keep me")
    os.symlink(target, lock_dir() / f"{GPU}.claim")
    with pytest.raises(GpuLockError, match="a link where a GPU lock file should be"):
        claim(GPU, what="me")
    assert target.read_text() == "keep me"
    os.link(target, lock_dir() / f"{GPU}.timing")  # a second name of someone's file
    with pytest.raises(GpuLockError, match="one name"):
        with TimingLock(GPU).hold("x"):
            pass
    assert target.read_text() == "keep me"


def test_a_lock_directory_others_can_swap_files_in_is_refused(tmp_path, monkeypatch):
    d = tmp_path / "locks"
    d.mkdir()
    os.chmod(d, 0o777)  # world-writable, no sticky bit
    monkeypatch.setenv("KERNELSEEK_GPU_LOCKS", str(d))
    with pytest.raises(GpuLockError, match="chmod \\+t"):
        claim(GPU, what="me")
    os.chmod(d, 0o1777)
    assert claim(GPU, what="me") is not None


def test_what_a_holder_wrote_is_data_whatever_it_is():
    child = hold_in_child("claim", GPU, 30, what="x")
    try:
        path = lock_dir() / f"{GPU}.claim"
        for junk in (b"\x00\xff not json", json.dumps({"pid": {"nested": 1}, "what": ["a"], "user": "ann"}).encode()):
            path.write_bytes(junk)
            holder = claimed_by(GPU)
            assert isinstance(holder, dict) and "nested" not in str(holder)
            assert holder_text(holder)  # something to say, never a crash
    finally:
        child.kill()
        child.wait()
    wait_until(lambda: claimed_by(GPU) is None)


class _Driver:
    """The two cuda-python calls the verdict's hook makes, for a device with this UUID."""

    class CUresult:
        CUDA_SUCCESS = 0

    def __init__(self, raw: bytes) -> None:
        self.raw = raw

    def cuDeviceGetUuid(self, dev):  # noqa: N802 - cuda-python's name
        return 0, type("CUuuid", (), {"bytes": self.raw})()

    def cuDeviceGetPCIBusId(self, n, dev):  # noqa: N802
        return 0, b"0000:19:00.0\0\0"


def test_the_verdict_holds_the_lock_for_its_scenarios_and_records_each_ones_gpu_and_the_wait(fake_gpus):
    """Evaluation.gpu_hold with a device whose driver answers like cuda-python (no GPU here)."""
    from evaluator.gpus import format_uuid
    from evaluator.pipeline import EvalOptions, Evaluation
    from evaluator.report import ScenarioResult
    from evaluator.task import load_task

    fake = fake_gpus(4)
    raw = bytes.fromhex(fake.uuids[2][4:].replace("-", ""))
    assert format_uuid(raw) == fake.uuids[2]
    events = []
    ev = Evaluation(load_task("rmsnorm-cuda"), None, EvalOptions(), events.append, None)
    ev.device = type("Device", (), {"cu": _Driver(raw), "dev": 0})()
    child = hold_in_child("timing", fake.uuids[2], 1.5, what="scenario of another evaluation")
    first, second = ScenarioResult("r1024_c4096", {}, correct=False), ScenarioResult("r8192_c1024", {}, correct=False)
    asked = time.monotonic()
    with ev.gpu_hold("timing rmsnorm-cuda"):
        with ev.gpu_hold("scenario r1024_c4096", first):  # inside the evaluation's hold: noted, not locked again
            time.sleep(0.05)
        assert TimingLock(fake.uuids[2]).holder()["what"] == "timing rmsnorm-cuda"  # held between scenarios too
        with ev.gpu_hold("scenario r8192_c1024", second):
            pass
    child.wait()
    assert TimingLock(fake.uuids[2]).holder() is None
    for r in (first, second):
        assert r.gpu["uuid"] == fake.uuids[2] and r.gpu["index"] == 2 and r.gpu["lock"] == "exclusive"
    assert first.gpu["held"][1] - first.gpu["held"][0] >= 0.05 and first.gpu["held"][1] <= second.gpu["held"][0]
    assert first.gpu["waited_s"] > 0 and first.gpu["waited_s"] >= left_of_hold(child, asked)
    assert first.gpu["held"][0] >= child.held_until_wall  # the first scenario ran after the other's hold
    assert "scenario of another evaluation" in first.gpu["waited_for"]
    assert "waited_s" not in second.gpu  # the wait is told once, on the scenario that came after it
    assert [e["event"] for e in events] == ["gpu_wait", "gpu_lock"]
    assert events[0]["message"].startswith("GPU 2 is busy (pid ")
    assert "this evaluation waits for it (timing rmsnorm-cuda)" in events[0]["message"]
    checks = Evaluation(load_task("rmsnorm-cuda"), None, EvalOptions(timing=False), events.append, None)
    checks.device = ev.device
    other = ScenarioResult("x", {}, correct=False)
    with checks.gpu_hold("checking rmsnorm-cuda"), checks.gpu_hold("scenario x", other):
        assert TimingLock(fake.uuids[2]).holder() is None  # a shared hold leaves room for other checks
    assert other.gpu["lock"] == "shared" and "waited_s" not in other.gpu


def test_a_wait_before_the_first_scenario_is_told_on_that_scenario():
    """A verdict that waited while measuring its peaks (a hold of its own, before the scenarios)
    still says on its first scenario that it waited, and for whom; the second says nothing."""
    from types import SimpleNamespace

    from evaluator.gpu_lock import VerdictGpu

    events: list = []
    gpu = VerdictGpu({"uuid": GPU, "index": 3}, events.append)
    child = hold_in_child("timing", GPU, 1.5, what="another session's timing")
    asked = time.monotonic()
    with gpu.hold("measuring the device's peaks"):
        pass
    child.wait()
    first, second = SimpleNamespace(gpu=None), SimpleNamespace(gpu=None)
    with gpu.hold("timing rmsnorm"):
        for result in (first, second):
            with gpu.hold("scenario", result=result):
                pass
    assert [e["event"] for e in events] == ["gpu_wait", "gpu_lock"]
    assert first.gpu["waited_s"] > 0 and first.gpu["waited_s"] >= left_of_hold(child, asked)
    assert first.gpu["held"][0] >= child.held_until_wall
    assert "another session's timing" in first.gpu["waited_for"]
    assert "waited_s" not in second.gpu and second.gpu["lock"] == "exclusive" and second.gpu["index"] == 3


def test_two_waits_before_a_scenario_name_both_holders():
    """Waiting for one holder (while measuring peaks) and then for another (before timing) tells
    both on the first scenario: the first is not overwritten by the second (seen on the H200, where
    another evaluation's wait hid the session whose timing held the GPU first)."""
    from types import SimpleNamespace

    from evaluator.gpu_lock import VerdictGpu

    gpu = VerdictGpu({"uuid": GPU, "index": 3}, lambda e: None)
    child = hold_in_child("timing", GPU, 0.6, what="another session's timing")
    with gpu.hold("measuring the device's peaks"):
        pass
    child.wait()
    child = hold_in_child("timing", GPU, 0.6, what="a third session's timing")
    first = SimpleNamespace(gpu=None)
    with gpu.hold("timing rmsnorm"):
        with gpu.hold("scenario", result=first):
            pass
    child.wait()
    said = first.gpu["waited_for"]
    assert "another session's timing" in said and "a third session's timing" in said, said
    assert first.gpu["waited_s"] > 0.6
