"""Attacks on the verdict, written as an agent would write them, on the cpu tasks.

Each candidate in attacks/ (see eval_attacks.py) tries one way to a "GOAL MET" it did not earn:
take over the process that loads it, compute only on
the calls it guesses are checked, serve cached results, leave work to a thread, read the answers
or the caller's secrets, change the files it is compared with, start processes, load a banned
library at run time, or misreport its own time. Every one runs the real path (`evaluate_isolated`:
the verdict in a child, the candidate in a sandboxed host) and must end with the goal not met and
nothing changed on disk. Probes that would prove an escape return a code of their own (99, 77, 55)
from the entry, so a working escape shows as an incorrect scenario.
"""
from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

from eval_attacks import attack
from evaluator import evaluate_isolated, load_task
from evaluator.sandbox import find_sandbox
from kernels import TASKS_DIR

REPO = Path(__file__).resolve().parents[2]
SMALL = {"softmax-cpu": "^r256_c256$|^r333_c777$", "attention-cpu": "^gqa4_d32_0$|^mqa_d96_decode$"}
SANDBOXES = [k for k in ("bwrap", "unshare") if find_sandbox(k).confines]


def run(task: str, source: Path, **options) -> object:
    options.setdefault("seed", 7)
    options.setdefault("time_budget_s", 0.3)
    return evaluate_isolated(task, source, only=SMALL[task], baselines=False, timeout_s=120, **options)


def not_met(report) -> list[str]:
    met, reasons = report.goal()
    assert not met, report.text_table()
    assert "GOAL MET" not in report.text_table()
    return reasons


def digests(paths: list[Path]) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths if p.is_file()}


@pytest.fixture
def trusted_files(build_cache: Path):
    """The files an attack must not change: the tasks, the evaluator, the build cache."""
    paths = [p for t in ("softmax-cpu", "attention-cpu") for p in (TASKS_DIR / t).iterdir()]
    paths += list((REPO / "evaluator").glob("*.py")) + list((REPO / "evaluator" / "native").iterdir())
    before = digests(paths)
    yield paths
    cache = list(build_cache.glob("build/*/lib.so"))
    assert digests(paths) == before, "a trusted file changed"
    for lib in cache:  # every cached library still matches the hash recorded when it was built
        import json

        meta = json.loads((lib.parent / "build.json").read_text())
        assert hashlib.sha256(lib.read_bytes()).hexdigest() == meta["lib_sha256"], lib


def test_a_constructor_can_neither_report_nor_patch_the_checks(tmp_path, trusted_files):
    report = run("softmax-cpu", attack("softmax_takeover.c", "softmax-cpu", tmp_path))
    reasons = not_met(report)
    # its fake messages reached the only channel it has (the first reply after `started`, to the
    # load its constructor ran in), and were refused for what they are
    assert report.error_kind == "protocol" and report.error.startswith("protocol: message 2 "), report.error
    assert any("evaluation stopped: protocol" in r for r in reasons)
    assert report.exit_code() == 1


@pytest.mark.parametrize("task, name", [("softmax-cpu", "softmax_first_calls.c"),
                                        ("attention-cpu", "attention_first_calls.c")])
def test_work_only_on_the_calls_it_guesses_are_checked_fails_a_timed_call(tmp_path, task, name, trusted_files):
    report = run(task, attack(name, task, tmp_path))
    not_met(report)
    failures = [s.failure for s in report.scenarios if not s.correct]
    # the verified rounds are drawn after the fact; a scenario whose draw happened to land only on
    # rounds it computed (the first calls of a buffer set) may pass, but not the evaluation
    assert failures and all(f.startswith("timed call (round ") for f in failures), failures
    assert "unwritten" in failures[0]  # nothing was written on the timed calls it skipped
    assert report.exit_code() == 1


def test_a_content_memo_never_hits_because_every_round_has_new_inputs(tmp_path, trusted_files):
    report = run("attention-cpu", attack("attention_memo.c", "attention-cpu", tmp_path))
    not_met(report)
    assert report.all_correct
    # served from its cache the timed calls would read 10x and more; they never hit it
    assert all(s.ratio < 1.5 for s in report.scenarios), [(s.name, s.ratio) for s in report.scenarios]


def test_work_left_to_a_thread_after_return_is_caught(tmp_path, trusted_files):
    report = run("softmax-cpu", attack("softmax_late_thread.c", "softmax-cpu", tmp_path))
    not_met(report)
    caught = [s for s in report.scenarios if not s.correct or "outside_call" in s.flags]
    assert caught, report.text_table()
    assert any((s.failure or "").startswith("timed call") or "outside_call" in s.flags for s in caught)


def test_a_thread_busy_between_calls_is_caught(tmp_path, trusted_files):
    report = run("softmax-cpu", attack("softmax_busy_thread.c", "softmax-cpu", tmp_path))
    reasons = not_met(report)
    assert all("outside_call" in s.flags for s in report.scenarios), [s.flags for s in report.scenarios]
    assert any(r.startswith("outside_call on") and "of a core busy between calls" in r for r in reasons)
    assert report.exit_code() == 1


def test_the_answers_and_the_callers_secrets_are_out_of_reach(tmp_path, trusted_files):
    env = dict(os.environ, KS_TEST_SECRET="hunter2")
    report = run("softmax-cpu", attack("softmax_read_reference.c", "softmax-cpu", tmp_path), env=env)
    not_met(report)
    # 99 would mean it saw the verdict, the test runner, or a secret: it computed instead
    assert report.all_correct, [s.failure for s in report.scenarios]


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_trusted_files_the_cache_and_home_stay_unwritten(tmp_path, build_cache, sandbox, trusted_files):
    task = load_task("softmax-cpu")
    home_file = Path.home() / f".kernelseek-attack-{os.getpid()}"
    source = attack("softmax_write_files.c", "softmax-cpu", tmp_path, SEED=str(task.seed),
                    HARNESS=str(task.dir / "harness.py"), TASK_YAML=str(task.dir / "task.yaml"),
                    EVALUATOR_SOURCE=str(REPO / "evaluator" / "pipeline.py"), CACHE=str(build_cache),
                    HOME_FILE=str(home_file))
    try:
        report = run("softmax-cpu", source, sandbox=sandbox)
        assert not home_file.exists()
    finally:
        home_file.unlink(missing_ok=True)
    not_met(report)
    assert report.host["kind"] == sandbox
    assert report.all_correct, [s.failure for s in report.scenarios]  # 77: a write went through


def _processes(*needles: str) -> set[str]:
    """Processes whose command line holds a needle, less those another pytest-xdist worker's
    running tests started (a host this test leaked is an orphan, under no worker)."""
    out = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if any(n in cmd for n in needles) and not _under_another_worker(int(entry)):
                out.add(f"{entry}: {cmd}")
    return out


def _under_another_worker(pid: int) -> bool:
    """Whether pid descends from a sibling of this process under pytest-xdist's controller."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return False
    controller, me = os.getppid(), os.getpid()
    while pid > 1 and pid != me:
        try:
            parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            return False
        if parent == controller:
            return True
        pid = parent
    return False


@pytest.mark.parametrize("sandbox", SANDBOXES + ["none"])
def test_no_process_can_be_started_and_nothing_outlives_the_evaluation(tmp_path, sandbox, trusted_files):
    marker = f"ks-spawn-{os.getpid()}-{sandbox}"
    before = _processes("evaluator host")
    report = run("softmax-cpu", attack("softmax_spawn.c", "softmax-cpu", tmp_path, MARK=marker), sandbox=sandbox)
    not_met(report)
    assert report.all_correct, [s.failure for s in report.scenarios]  # 55: a process was created
    assert report.host["confined"]["seccomp"] is True
    for _ in range(20):  # a host being torn down may take a moment to leave /proc
        left = _processes(marker) | (_processes("evaluator host") - before)
        if not left:
            break
        time.sleep(0.1)
    assert not left
    if sandbox == "none":
        assert "unsandboxed" in report.text_table()


def test_a_library_opened_at_run_time_is_a_violation(tmp_path, trusted_files):
    report = run("softmax-cpu", attack("softmax_dlopen.c", "softmax-cpu", tmp_path))
    reasons = not_met(report)
    hits = [v for v in report.violations if v["kind"] == "library"]
    assert hits and "mapped at run time" in hits[0]["detail"], report.violations
    assert any("constraint violation: library" in r for r in reasons)
    assert report.exit_code() == 1


def test_a_host_that_misreports_its_time_is_caught(tmp_path, trusted_files):
    report = run("softmax-cpu", attack("softmax_impossible.c", "softmax-cpu", tmp_path), time_budget_s=0.5)
    reasons = not_met(report)
    flagged = [s for s in report.scenarios if {"timing_inconsistent", "impossible"} & set(s.flags)]
    assert flagged, report.text_table()
    assert any(r.startswith(("timing_inconsistent on", "impossible on")) for r in reasons)
    assert report.exit_code() == 1


def test_no_blas_is_mapped_where_the_candidate_runs(tmp_path, trusted_files):
    # (a BLAS already in the process could be found and called without linking it)
    report = run("softmax-cpu", attack("softmax_find_blas.c", "softmax-cpu", tmp_path), timing=False)
    assert report.all_correct, (report.scenarios[0].failure, report.log_tail)
