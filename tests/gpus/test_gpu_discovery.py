"""Which GPUs a node has and which this process may use: nvidia-smi's lists, CUDA_VISIBLE_DEVICES
in every form CUDA reads, Slurm's allocation (renumbered inside a job's cgroup or not)."""
from __future__ import annotations

import pytest

from evaluator.gpus import (AllocationError, Gpu, GpuQueryError, allocation, format_uuid, node_gpus, node_index,
                            parse_compute_apps, parse_gpu_list, pin_env, visible_entries)
from gpu_helpers import uuid_of

# as `nvidia-smi --query-gpu=index,uuid,name,memory.total --format=csv,noheader,nounits` prints them
SMI = """0, GPU-5d5b9f1e-2c61-7a3e-9c1f-0a1b2c3d4e5f, NVIDIA H200, 143771
1, GPU-6e6c0a2f-3d72-8b4f-ad20-1b2c3d4e5f60, NVIDIA H200, [N/A]
No devices were found
"""
NODE = [Gpu(i, uuid_of(i), "NVIDIA H200") for i in range(8)]


def test_nvidia_smis_lines_are_read_and_anything_else_is_skipped():
    gpus = parse_gpu_list(SMI)
    assert [g.index for g in gpus] == [0, 1]
    assert gpus[0].uuid.startswith("GPU-5d5b") and gpus[0].memory_mib == 143771 and gpus[1].memory_mib is None
    assert gpus[0].label == "GPU 0" and Gpu(None, "MIG-abc").label == "MIG-abc"
    apps = parse_compute_apps(f"{uuid_of(1)}, 4242, /usr/bin/python3, 1024\n[Not Supported]\n")
    assert [(a.uuid, a.pid, a.name) for a in apps] == [(uuid_of(1), 4242, "/usr/bin/python3")]


def test_cuda_visible_devices_as_cuda_reads_it():
    assert visible_entries({}) is None  # unset: every GPU
    assert visible_entries({"CUDA_VISIBLE_DEVICES": ""}) == []
    assert visible_entries({"CUDA_VISIBLE_DEVICES": "-1"}) == []
    assert visible_entries({"CUDA_VISIBLE_DEVICES": "NoDevFiles"}) == []
    assert visible_entries({"CUDA_VISIBLE_DEVICES": "2, 0"}) == ["2", "0"]
    assert visible_entries({"CUDA_VISIBLE_DEVICES": "1,-1,3"}) == ["1"]  # CUDA stops at the first it cannot read


def test_the_allocation_keeps_the_order_given_and_matches_indices_and_uuids():
    assert allocation(NODE, {}) == NODE
    assert [g.index for g in allocation(NODE, {"CUDA_VISIBLE_DEVICES": "5,2"})] == [5, 2]
    assert [g.index for g in allocation(NODE, {"CUDA_VISIBLE_DEVICES": uuid_of(6)})] == [6]
    assert [g.index for g in allocation(NODE, {"CUDA_VISIBLE_DEVICES": uuid_of(3)[:12]})] == [3]  # abbreviated
    assert allocation(NODE, {"CUDA_VISIBLE_DEVICES": ""}) == []
    with pytest.raises(AllocationError, match="no GPU '9'"):
        allocation(NODE, {"CUDA_VISIBLE_DEVICES": "9"})
    with pytest.raises(AllocationError, match="no GPU 'GPU-0000'"):  # ambiguous: several start so
        allocation(NODE, {"CUDA_VISIBLE_DEVICES": "GPU-0000"})


def test_slurm_jobs_record_the_nodes_numbers_renumbered_or_not():
    # confined to its two GPUs, the job sees them as 0 and 1; Slurm's list has the node's 5 and 7
    inside = [Gpu(0, uuid_of(5)), Gpu(1, uuid_of(7))]
    env = {"CUDA_VISIBLE_DEVICES": "0,1", "SLURM_JOB_GPUS": "5,7", "SLURM_JOB_ID": "81"}
    assert [(g.index, g.uuid) for g in allocation(inside, env)] == [(5, uuid_of(5)), (7, uuid_of(7))]
    # unconfined, the job sees the whole node and CUDA_VISIBLE_DEVICES holds the node's numbers
    env = {"CUDA_VISIBLE_DEVICES": "5", "SLURM_JOB_GPUS": "5", "SLURM_JOB_ID": "81"}
    assert [g.index for g in allocation(NODE, env)] == [5]


def test_a_uuid_from_cuda_reads_like_nvidia_smis():
    raw = bytes([0x5D, 0x5B, 0x9F, 0x1E, 0x2C, 0x61, 0x7A, 0x3E, 0x9C, 0x1F, 0x0A, 0x1B, 0x2C, 0x3D, 0x4E, 0x5F])
    assert format_uuid(raw) == "GPU-5d5b9f1e-2c61-7a3e-9c1f-0a1b2c3d4e5f"
    signed = [b - 256 if b > 127 else b for b in raw]  # a binding that hands out C chars
    assert format_uuid(bytes(b & 0xFF for b in signed)) == format_uuid(raw)


def test_node_gpus_asks_nvidia_smi_and_says_when_it_fails(fake_gpus):
    fake = fake_gpus(4)
    assert [g.uuid for g in node_gpus()] == fake.uuids
    fake.fail = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
    fake.write()
    with pytest.raises(GpuQueryError, match="couldn't communicate with the NVIDIA driver"):
        node_gpus()


def test_without_nvidia_smi_cuda_python_lists_the_devices_or_there_are_none(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no nvidia-smi
    try:
        from cuda.bindings import driver as cu

        has_driver = cu.cuInit(0)[0] == cu.CUresult.CUDA_SUCCESS and cu.cuDeviceGetCount()[1] > 0
    except Exception:  # noqa: BLE001 - no driver library
        has_driver = False
    gpus = node_gpus()
    if has_driver:  # the fallback: CUDA's devices by cuDeviceGetUuid, numbered by CUDA's ordinal
        assert gpus and all(g.uuid.startswith("GPU-") and len(g.uuid) == 40 for g in gpus)
        assert [g.index for g in gpus] == list(range(len(gpus)))
    else:
        assert gpus == []


def test_a_pinned_process_knows_its_gpus_number_without_asking_nvidia_smi(fake_gpus, monkeypatch):
    fake = fake_gpus(4)
    for k, v in pin_env(Gpu(2, fake.uuids[2])).items():
        monkeypatch.setenv(k, v)
    assert node_index(fake.uuids[2]) == 2 and fake.calls() == []
    assert node_index(fake.uuids[3]) == 3 and fake.calls()  # another GPU: nvidia-smi says
    node_index.cache_clear()
