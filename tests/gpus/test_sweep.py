"""The sharded sweep (evaluator.sweep) on the CPU: the plan balances expected cost, the shards run
real isolated evaluations with one eval seed and their own GPU in CUDA_VISIBLE_DEVICES, and the
merged report is the one a single evaluation gives, each scenario naming the GPU that measured it.
Idle GPUs are picked through a fake nvidia-smi and real locks."""
from __future__ import annotations

import getpass
import threading
import time

import pytest

from evaluator import evaluate_isolated, load_task
from evaluator.errors import EvaluatorError, TaskError
from evaluator.gpu_lock import claim
from evaluator.gpus import Gpu
from evaluator.sweep import (NoIdleGpu, expected_costs, idle_gpus, model_cost, names_regex, parse_gpus,
                             plan_shards, remember_costs, remembered_costs, sweep, sweep_over)
from fleet_helpers import cli_env, kernelseek
from gpu_helpers import hold_in_child, uuid_of

TWO = [Gpu(0, uuid_of(0), "fake"), Gpu(1, uuid_of(1), "fake")]


def test_the_plan_deals_the_longest_first_to_the_least_loaded_and_keeps_the_tasks_order():
    order = [f"s{i}" for i in range(9)]
    costs = dict(zip(order, [1, 9, 1, 1, 5, 4, 1, 1, 3]))  # 26 s
    plan = plan_shards(costs, order, 3)
    assert sorted(n for names, _ in plan for n in names) == sorted(order)  # each once
    loads = [load for _, load in plan]
    assert max(loads) == 9 and sum(loads) == 26  # the 9 s scenario alone bounds the sweep
    for names, load in plan:
        assert names == sorted(names, key=order.index) and load == sum(costs[n] for n in names)
    assert len(plan_shards(costs, order[:2], 4)) == 2  # more GPUs than scenarios: no empty shard
    # a naive deal in the task's order (3 each) would take 15 s on the slowest GPU
    assert max(sum(costs[n] for n in order[i::3]) for i in range(3)) > max(loads)


def test_expected_costs_follow_the_harness_and_what_the_last_sweep_measured(tmp_path):
    task = load_task("attention-fwd-sm90")
    by_name = {s.name: s for s in task.scenarios}
    size = {n: task.harness.flops(dict(s.params)) + task.harness.bytes_moved(dict(s.params)) for n, s in by_name.items()}
    small, big = min(size, key=size.get), max(size, key=size.get)
    assert model_cost(task, by_name[big], 0.3) > model_cost(task, by_name[small], 0.3) > 0.3
    assert model_cost(task, by_name[small], 1.0) - model_cost(task, by_name[small], 0.3) == pytest.approx(0.7)
    scenarios = [by_name[small], by_name[big]]
    options = {"quick": False}
    model = expected_costs(task, scenarios, options, {})
    assert remembered_costs(tmp_path, task, options) == {}
    from evaluator.report import EvalReport, ScenarioResult

    report = EvalReport(task=task.name, task_dir="", backend="cuda", candidate={}, seed_source={}, eval_seed=1,
                        options={}, goal_spec={}, scenarios=[ScenarioResult(small, {}, True, seconds=4.0)])
    remember_costs(tmp_path, task, options, report)
    assert remembered_costs(tmp_path, task, options) == {small: 4.0}
    assert remembered_costs(tmp_path, task, {"quick": True}) == {}  # other settings, other costs
    both = expected_costs(task, scenarios, options, remembered_costs(tmp_path, task, options))
    assert both[small] == 4.0  # as measured; the other scaled like it
    assert both[big] == pytest.approx(model[big] * 4.0 / model[small])


def test_names_regex_selects_exactly_its_names():
    task = load_task("attention-fwd-sm90")
    names = [s.name for s in task.scenarios][3:9]
    assert [s.name for s in task.select(False, names_regex(names))] == names
    assert names_regex(["a.b"]) != names_regex(["axb"]) and "a\\.b" in names_regex(["a.b"])


def test_parse_gpus():
    assert parse_gpus("all") is None and parse_gpus(None) is None and parse_gpus("4") == 4
    for bad in ("0", "-2", "many"):
        with pytest.raises(ValueError):
            parse_gpus(bad)


def test_a_sweep_over_two_gpus_is_the_single_evaluation_split_and_merged():
    envs, events = [], []

    def evaluate(*a, **kw):
        envs.append((kw["env"]["CUDA_VISIBLE_DEVICES"], kw["only"], kw["seed"]))
        return evaluate_isolated(*a, **kw)

    t0 = time.monotonic()
    merged = sweep_over("softmax-cpu", None, TWO, quick=True, timing=False, seed=11, evaluate=evaluate,
                        progress=events.append)
    wall = time.monotonic() - t0
    single = evaluate_isolated("softmax-cpu", None, quick=True, timing=False, seed=11)
    task = load_task("softmax-cpu")
    order = [s.name for s in task.select(quick=True)]
    assert [s.name for s in merged.scenarios] == order == [s.name for s in single.scenarios]
    assert merged.eval_seed == single.eval_seed == 11 and merged.total == single.total == len(order) == 3
    assert merged.all_correct and merged.error is None
    for m, s in zip(merged.scenarios, single.scenarios):  # the same inputs, so the same errors
        for out, errs in s.errors.items():
            assert m.errors[out]["rel_l2"] == pytest.approx(errs["rel_l2"], rel=1e-9, abs=1e-15)
    # each shard on its own GPU, with its own scenarios, one seed for all
    assert sorted(e[0] for e in envs) == [uuid_of(0), uuid_of(1)] and {e[2] for e in envs} == {11}
    by_gpu = {e[0]: {s.name for s in task.select(True, e[1])} for e in envs}
    assert not (by_gpu[uuid_of(0)] & by_gpu[uuid_of(1)])
    for s in merged.scenarios:
        assert s.name in by_gpu[s.gpu["uuid"]] and s.gpu["index"] == int(s.gpu["uuid"][4:12], 16)
    shards = merged.options["shards"]
    assert [sh["gpu"]["index"] for sh in shards] == [0, 1] and sum(sh["scenarios"] for sh in shards) == merged.total
    assert merged.options["only"] is None and merged.device["gpus"][1]["uuid"] == uuid_of(1)
    assert merged.duration_s == pytest.approx(wall, abs=0.5)
    # the progress of one evaluation: builds once, one start, every scenario done once at its index
    kinds = [e["event"] for e in events]
    assert kinds.count("start") == 1 and kinds.count("shard_start") == 2 and kinds.count("head") == 0
    assert sorted(e["role"] for e in events if e["event"] == "build") == ["candidate", "seed"]
    done = sorted(e["index"] for e in events if e["event"] == "scenario_done")
    assert done == list(range(merged.total))
    # and it reads back
    from evaluator.report import EvalReport

    again = EvalReport.from_json(merged.to_json())
    assert [s.gpu for s in again.scenarios] == [s.gpu for s in merged.scenarios]


def test_a_shard_that_died_is_named_and_its_scenarios_are_missing():
    def evaluate(*a, **kw):
        report = evaluate_isolated(*a, **kw)
        if kw["env"]["CUDA_VISIBLE_DEVICES"] == uuid_of(1):  # as a crashed verdict's report reads
            report.scenarios = report.scenarios[:1]
            report.error, report.error_kind = "the evaluation process died with SIGSEGV in scenario x", "crash"
        return report

    merged = sweep_over("softmax-cpu", None, TWO, quick=True, timing=False, seed=3, evaluate=evaluate)
    assert merged.error.startswith("GPU 1: the evaluation process died with SIGSEGV") and merged.error_kind == "crash"
    assert len(merged.scenarios) < merged.total and not merged.all_correct
    met, reasons = merged.goal()
    assert not met and any("GPU 1" in r for r in reasons)
    assert merged.exit_code() == 1


def test_a_shard_that_cannot_start_stops_the_others_and_its_error_is_raised():
    cancelled = threading.Event()

    def evaluate(*a, **kw):
        if kw["env"]["CUDA_VISIBLE_DEVICES"] == uuid_of(1):
            raise TaskError("task softmax-cpu: its seed does not build")
        assert kw["cancel"].wait(10)  # the other shard is told to stop
        cancelled.set()
        return evaluate_isolated(*a, **{**kw, "timing": False})

    t0 = time.monotonic()
    with pytest.raises(TaskError, match="does not build"):
        sweep_over("softmax-cpu", None, TWO, timing=False, seed=3, evaluate=evaluate)
    assert cancelled.is_set() and time.monotonic() - t0 < 30


def test_two_shards_never_share_a_gpu_and_a_cpu_task_is_not_swept():
    with pytest.raises(EvaluatorError, match="named twice"):
        sweep_over("softmax-cpu", None, [TWO[0], TWO[0]], timing=False)
    with pytest.raises(TaskError, match="runs on the CPU"):
        sweep("softmax-cpu", gpus=2)


def test_idle_gpus_leave_out_the_held_the_computing_and_the_timing_ones_and_say_why(fake_gpus):
    fake = fake_gpus(4)
    session = hold_in_child("claim", fake.uuids[1], 60, what="session attn-1")
    timing = hold_in_child("timing", fake.uuids[3], 60, what="scenario prefill")
    fake.computing(2, pid=999, name="train.py")
    try:
        picked = idle_gpus(None, what="a sweep")
        assert [g.index for g in picked.gpus] == [0]
        me = getpass.getuser()
        assert picked.busy == {"GPU 1": f"held by pid {session.pid} ({me}): session attn-1",
                               "GPU 2": "computing: train.py (pid 999)",
                               "GPU 3": f"timing: pid {timing.pid} ({me}): scenario prefill"}
        assert claim(fake.uuids[0], what="x") is None  # the sweep holds what it took
        picked.release()
        with pytest.raises(NoIdleGpu, match=r"asked for 2 GPUs, 1 of 4 idle.*GPU 1 held by pid.*session attn-1"):
            idle_gpus(2, what="a sweep")
        # inside that session (its runner pinned it to GPU 1) the sweep may use GPU 1
        own = idle_gpus(None, what="a sweep", env={"KERNELSEEK_GPU": fake.uuids[1], "PATH": fake.env()["PATH"],
                                                   "KS_FAKE_GPUS": str(fake.path),
                                                   "CUDA_VISIBLE_DEVICES": fake.uuids[1]})
        assert [g.index for g in own.gpus] == [1]
        own.release()
    finally:
        for p in (session, timing):
            p.kill()
            p.wait()


def test_eval_gpus_errors_a_user_can_make_are_one_line(tmp_path):
    env = cli_env(None, tmp_path)
    r = kernelseek(["eval", "softmax-cpu", "--gpus", "2"], env)
    assert r.returncode == 2 and "runs on the CPU" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    r = kernelseek(["eval", "rmsnorm-cuda", "--gpus", "none"], env)
    assert r.returncode == 2 and "--gpus none: give a number of GPUs or all" in r.stderr, r.stderr
