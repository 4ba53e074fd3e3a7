"""Pinning a session's runner to a GPU (agent.launchers.place) on a fake node: a free GPU each,
refused (naming the holders) when none is free, never shared unless asked; Slurm's allocation."""
from __future__ import annotations

import subprocess
import sys

import pytest

from agent.launch import LaunchError
from agent.launchers.place import (GpuPolicyError, NoFreeGpu, check_free, pin_runner, placed, release_pin,
                                   runner_place)
from evaluator.gpu_lock import claim, claimed_by
from gpu_helpers import REPO, hold_in_child, uuid_of

PIN = r"""
import sys, time
sys.path.insert(0, {repo!r})
from agent.launchers.place import pin_runner, NoFreeGpu
try:
    p = pin_runner("cuda", "auto", what="session s" + sys.argv[1])
    print(p.gpu.index, p.gpu.uuid, flush=True)
except NoFreeGpu as exc:
    print("refused", exc, flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_a_cuda_session_is_pinned_to_a_free_gpu_and_its_place_says_which(fake_gpus):
    fake = fake_gpus(4)
    env: dict = {}
    p = pin_runner("cuda", None, what="session attn-1", env=env)
    assert p.gpu.index == 0 and p.gpu.uuid == fake.uuids[0] and placed() is p
    assert env["CUDA_VISIBLE_DEVICES"] == fake.uuids[0] and env["KERNELSEEK_GPU"] == fake.uuids[0]
    assert claimed_by(fake.uuids[0])["what"] == "session attn-1"
    place = runner_place({})
    assert place["gpu"] == {"index": 0, "uuid": fake.uuids[0], "name": "NVIDIA H200", "memory_mib": 143771}
    release_pin()
    assert claimed_by(fake.uuids[0]) is None and "gpu" not in runner_place({})


def test_nothing_is_pinned_for_a_cpu_task_with_none_or_on_a_node_without_gpus(fake_gpus, tmp_path, monkeypatch):
    fake_gpus(2)
    assert pin_runner("cpu", "auto", env={}) is None
    assert pin_runner("cuda", "none", env={}) is None
    monkeypatch.setenv("KS_FAKE_GPUS", str(tmp_path / "none.json"))
    (tmp_path / "none.json").write_text('{"gpus": []}')
    env: dict = {}
    assert pin_runner("cuda", "auto", env=env) is None and "CUDA_VISIBLE_DEVICES" not in env


def test_four_runners_at_once_take_four_gpus_and_a_fifth_is_refused_naming_the_holders(fake_gpus):
    fake_gpus(4)
    procs = [subprocess.Popen([sys.executable, "-c", PIN.format(repo=str(REPO)), str(i), "30"],
                              stdout=subprocess.PIPE, text=True) for i in range(4)]
    try:
        got = [p.stdout.readline().split() for p in procs]
        assert sorted(int(g[0]) for g in got) == [0, 1, 2, 3]  # distinct, whoever came first
        with pytest.raises(NoFreeGpu) as err:
            pin_runner("cuda", "auto", env={})
        text = str(err.value)
        assert "no free GPU" in text and "--gpu none" in text
        for i, p in enumerate(procs):
            assert f"pid {p.pid}" in text and f"session s{i}" in text
        assert err.value.exit_code == 4
    finally:
        for p in procs:
            p.kill()
            p.wait()
    assert pin_runner("cuda", "auto", env={}).gpu.index == 0  # their locks died with them


def test_a_gpu_someone_computes_on_is_not_free(fake_gpus):
    fake = fake_gpus(2)
    fake.computing(0, pid=777, name="train.py")
    assert pin_runner("cuda", "auto", env={}).gpu.index == 1
    release_pin()
    fake.computing(1, pid=778)
    with pytest.raises(NoFreeGpu, match=r"GPU 0 computing: train.py \(pid 777\)"):
        pin_runner("cuda", "auto", env={})


def test_asking_for_one_gpu_by_index_or_uuid(fake_gpus):
    fake = fake_gpus(4)
    assert pin_runner("cuda", "2", env={}).gpu.index == 2
    release_pin()
    assert pin_runner("cuda", fake.uuids[3][:14], env={}).gpu.index == 3
    release_pin()
    with pytest.raises(GpuPolicyError, match="--gpu 7: no such GPU here"):
        pin_runner("cuda", "7", env={})
    child = hold_in_child("claim", fake.uuids[1], 30, what="session other")
    try:
        with pytest.raises(NoFreeGpu, match="GPU 1 is held by pid .*session other"):
            pin_runner("cuda", "1", env={})
    finally:
        child.kill()
        child.wait()


def test_a_resumed_session_gets_its_gpu_back_when_it_is_free(fake_gpus):
    fake = fake_gpus(4)
    assert pin_runner("cuda", "auto", prefer=fake.uuids[2], env={}).gpu.index == 2
    release_pin()
    other = claim(fake.uuids[2], what="someone else")
    assert pin_runner("cuda", "auto", prefer=fake.uuids[2], env={}).gpu.index == 0  # taken: another one
    other.release()


def test_under_slurm_a_runner_takes_only_what_its_job_was_given(fake_gpus):
    fake_gpus(4)
    job = {"SLURM_JOB_ID": "812", "SLURMD_NODENAME": "gpu-a1"}
    assert pin_runner("cuda", "auto", env=dict(job)) is None  # no GPU asked of Slurm: none taken
    env = {**job, "SLURM_JOB_GPUS": "2", "CUDA_VISIBLE_DEVICES": "2"}
    p = pin_runner("cuda", "auto", env=env)
    assert p.gpu.index == 2 and env["CUDA_VISIBLE_DEVICES"] == p.gpu.uuid
    place = runner_place(env)
    assert place["launcher"] == "slurm" and place["gpus"] == "2" and place["gpu"]["index"] == 2


def test_a_launch_of_more_sessions_than_free_gpus_is_refused_before_anything_starts(fake_gpus):
    fake = fake_gpus(4)
    check_free("cuda", 4, "auto", env={})
    check_free("cpu", 40, "auto", env={})  # cpu tasks take no GPU
    check_free("cuda", 40, "none", env={})
    child = hold_in_child("claim", fake.uuids[0], 30, what="session busy-0")
    try:
        with pytest.raises(NoFreeGpu, match=r"5 sessions need 5 free GPUs; 3 of 4 are free .*GPU 0 held by pid"):
            check_free("cuda", 5, "auto", env={})
        with pytest.raises(NoFreeGpu, match="session busy-0"):
            check_free("cuda", 1, "0", env={})
        with pytest.raises(GpuPolicyError, match="pins one session"):
            check_free("cuda", 2, "1", env={})
    finally:
        child.kill()
        child.wait()


def test_an_unusable_lock_directory_is_one_clear_line(fake_gpus, tmp_path, monkeypatch):
    fake_gpus(1)
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("KERNELSEEK_GPU_LOCKS", str(tmp_path / "file"))
    with pytest.raises(LaunchError, match="KERNELSEEK_GPU_LOCKS"):
        pin_runner("cuda", "auto", env={})
