"""Isolation: a crashing, hanging or overrunning kernel yields a report, never a dead caller; the
candidate runs in a host whose environment holds nothing of the caller's secrets."""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import time

import pytest

from eval_plants import plant
from evaluator import evaluate, evaluate_isolated
from evaluator.errors import TaskError
from kernels import TASKS_DIR

SMALL = "^r256_c256$|^r333_c777$"


def test_a_segfault_is_a_crash_report_naming_the_scenario(planted_dir):
    events = []
    report = evaluate_isolated("softmax-cpu", plant("softmax_segfault", planted_dir), only=SMALL, seed=1,
                               timing=False, progress=events.append)
    assert report.error_kind == "crash" and "SIGSEGV" in report.error
    assert "r256_c256" in report.error and "candidate" in report.error
    assert report.scenarios[0].name == "r256_c256" and not report.scenarios[0].correct
    assert "Segmentation fault" in (report.log_tail or "")  # faulthandler's trace from the host
    assert report.build_ok and report.exit_code() == 1  # a crash is a failure a script can see
    met, reasons = report.goal()
    assert not met and any("SIGSEGV" in r for r in reasons)
    assert any(e["event"] == "scenario" for e in events)


def test_a_hang_returns_within_the_call_limit(planted_dir):
    t0 = time.monotonic()
    report = evaluate_isolated("softmax-cpu", plant("softmax_hang", planted_dir), only=SMALL, seed=2,
                               timing=False, call_timeout_s=1.0)
    assert time.monotonic() - t0 < 15
    assert report.error_kind == "hang" and "call_timeout_s" in report.error and "r256_c256" in report.error
    assert not report.scenarios[0].correct


def test_the_parent_kills_an_evaluation_that_outlives_its_limit(planted_dir):
    t0 = time.monotonic()
    report = evaluate_isolated("softmax-cpu", plant("softmax_hang", planted_dir), only=SMALL, seed=3,
                               timing=False, call_timeout_s=600, timeout_s=4)
    assert time.monotonic() - t0 < 12
    assert report.error_kind == "timeout" and "time limit" in report.error
    children = [p for p in os.listdir("/proc") if p.isdigit() and _parent_of(p) == os.getpid()]
    assert not children  # the whole process group was killed and reaped


def _processes_naming(needle: str) -> list[int]:
    """Live processes whose command line or mapped files name `needle` (zombies excluded)."""
    out = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                named = needle.encode() in fh.read()
            if not named:
                with open(f"/proc/{pid}/maps") as fh:
                    named = needle in fh.read()
        except (OSError, IndexError):
            continue
        if named:
            out.append(int(pid))
    return out


def test_a_killed_verdict_leaves_no_candidate_host_behind(planted_dir, tmp_path):
    # the attack: a kernel that never returns, and a verdict killed from outside (here the parent's time
    # limit; an agent's tool timeout or an OOM kill are the same) before its own call limit ends the host.
    # The host runs in a session of its own: killing the verdict's process group does not reach it, and a
    # host left behind would spin on a shared GPU node for as long as the node is up.
    cache = tmp_path / "orphan-cache"
    report = evaluate_isolated("softmax-cpu", plant("softmax_hang", planted_dir), only=SMALL, seed=4,
                               timing=False, call_timeout_s=600, timeout_s=4, cache_dir=str(cache))
    assert report.error_kind == "timeout"
    deadline = time.monotonic() + 10
    while _processes_naming(str(cache)) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = _processes_naming(str(cache))
    for pid in left:  # (do not leave them spinning if the defence is broken)
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    assert not left, f"candidate host processes outlived their verdict: {left}"


def _parent_of(pid: str) -> int:
    """The parent of an evaluator child process (-1 for any other process)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            if b"evaluator" not in fh.read():
                return -1
        with open(f"/proc/{pid}/stat") as fh:
            return int(fh.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


def test_isolated_and_in_process_agree_and_progress_reaches_the_parent():
    events = []
    isolated = evaluate_isolated("softmax-cpu", only=SMALL, seed=4, timing=False, progress=events.append)
    local = evaluate("softmax-cpu", only=SMALL, seed=4, timing=False)
    assert isolated.error is None and isolated.all_correct
    assert [s.errors for s in isolated.scenarios] == [s.errors for s in local.scenarios]
    kinds = [e["event"] for e in events]
    assert kinds.count("build") == 2 and "start" in kinds and kinds.count("scenario_done") == 2
    assert kinds.index("start") < kinds.index("scenario_done")


def test_user_errors_surface_in_the_parent(tmp_path):
    with pytest.raises(TaskError, match="candidate file not found"):
        evaluate_isolated("softmax-cpu", tmp_path / "missing.c")
    folder = tmp_path / "softmax-cpu"
    shutil.copytree(TASKS_DIR / "softmax-cpu", folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "seed.c").write_text("this is not C\n")
    with pytest.raises(TaskError, match=r"seed.c: content does not match its pin"):
        evaluate_isolated(folder, only=SMALL, timing=False)
    (folder / "PINNED").unlink()  # a task being written need not be pinned yet
    with pytest.raises(TaskError, match="its seed does not build"):
        evaluate_isolated(folder, only=SMALL, timing=False)


def test_cancel_kills_a_running_evaluation_and_reports_it(planted_dir):
    import threading

    cancel = threading.Event()
    threading.Timer(1.0, cancel.set).start()
    t0 = time.monotonic()
    report = evaluate_isolated("softmax-cpu", plant("softmax_hang", planted_dir), only=SMALL, seed=4,
                               timing=False, call_timeout_s=600, cancel=cancel)
    assert time.monotonic() - t0 < 5
    assert report.error_kind == "cancelled" and "cancelled" in report.error
    children = [p for p in os.listdir("/proc") if p.isdigit() and _parent_of(p) == os.getpid()]
    assert not children


def test_the_candidate_sees_none_of_the_callers_secrets(tmp_path):
    # the caller's environment goes to the verdict; the host keeps an allow-list of it only, so a
    # candidate that looks for a credential finds nothing (it reports what it saw as its exit code)
    seed = (TASKS_DIR / "softmax-cpu" / "seed.c").read_text().replace("int ks_softmax(", "static int seed_softmax(")
    probe = tmp_path / "probe.c"
    probe.write_text(
        "#include <stdlib.h>\n" + seed
        + "int ks_softmax(const SoftmaxParams* p, void* stream) {\n"
        + '  if (getenv("KS_TEST_SECRET") || getenv("ANTHROPIC_API_KEY")) return 42;\n'
        + "  return seed_softmax(p, stream);\n}\n")
    env = dict(os.environ, KS_TEST_SECRET="hunter2-hunter2", ANTHROPIC_API_KEY="sk-ant-test")
    report = evaluate_isolated("softmax-cpu", probe, only=SMALL, seed=5, timing=False, env=env)
    assert report.all_correct, [s.failure for s in report.scenarios]


def test_the_flush_cap_is_a_cap_and_reaches_the_host_with_no_secret(monkeypatch, tmp_path):
    # KERNELSEEK_FLUSH_BYTES (set by tests/conftest.py for tests that only pass through the evaluator)
    # can only shrink the cold-cache flush, never grow it; junk leaves it whole
    from evaluator.machine import flush_bytes
    from evaluator.hosting import host_environment

    monkeypatch.delenv("KERNELSEEK_FLUSH_BYTES", raising=False)
    assert flush_bytes(64 << 20) == 128 << 20
    for value, want in [("1048576", 1 << 20), (str(1 << 40), 128 << 20), ("0", 128 << 20), ("-5", 128 << 20),
                        ("lots", 128 << 20), ("", 128 << 20)]:
        monkeypatch.setenv("KERNELSEEK_FLUSH_BYTES", value)
        assert flush_bytes(64 << 20) == want, value
    env = host_environment({"KERNELSEEK_FLUSH_BYTES": "1048576", "ANTHROPIC_API_KEY": "sk-ant-x"}, tmp_path)
    assert env["KERNELSEEK_FLUSH_BYTES"] == "1048576" and "ANTHROPIC_API_KEY" not in env
    # a capped flush is no longer a cold-cache measurement: the report's device says so
    from evaluator.backend_cpu import CpuDevice

    monkeypatch.setenv("KERNELSEEK_FLUSH_BYTES", "1048576")
    assert CpuDevice().info()["flush_bytes"] == 1 << 20
    monkeypatch.delenv("KERNELSEEK_FLUSH_BYTES")
    assert "flush_bytes" not in CpuDevice().info()
