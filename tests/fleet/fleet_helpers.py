"""Helpers for the fleet's tests: scripted models that keep sessions busy or finish them, the real
`kernelseek` command line, and waiting on session logs. (Fixtures are in conftest.py.)"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from agent_helpers import REPO, cli_env, events, of_type, write_config  # noqa: F401  (re-exported)
from fake_anthropic import Reply, by_step, text, tool

# every turn a short bash call: a session that stays alive, cheaply, until stopped or max_turns
WORKER = by_step(Reply(text("Measuring the seed first."), tool("bash", command="sleep 1")),
                 then=Reply(tool("bash", command="sleep 1")))

STEERER = "[Message from the steerer]"


def small_attention_task(where: Path) -> Path:
    """attention-cpu with three smaller scenarios (its kernel, header, seed and harness as they
    are): a full sweep of it takes a fraction of the shipped task's, for tests that run many."""
    import shutil

    import yaml

    dst = where / "attention-cpu-small"
    shutil.copytree(REPO / "kernels" / "attention-cpu", dst, ignore=shutil.ignore_patterns("__pycache__"))
    spec = yaml.safe_load((dst / "task.yaml").read_text())
    spec["scenarios"] = [
        {"name": "gqa4_d64_0", "batch": 1, "heads_q": 8, "heads_kv": 2, "seq_q": 128, "seq_k": 128,
         "head_dim": 64, "causal": 0},
        {"name": "gqa4_d128_1", "batch": 1, "heads_q": 8, "heads_kv": 2, "seq_q": 128, "seq_k": 128,
         "head_dim": 128, "causal": 1},
        {"name": "mqa_d96_decode", "batch": 2, "heads_q": 8, "heads_kv": 1, "seq_q": 16, "seq_k": 512,
         "head_dim": 96, "causal": 1},
    ]
    spec["quick"] = ["gqa4_d64_0", "mqa_d96_decode"]
    (dst / "task.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    from evaluator.pins import write_pins

    write_pins(dst)  # a task of its own: its files pinned as they are now
    return dst


def kernelseek(args: list[str], env: dict, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "console", *args], env=env, cwd=str(REPO), capture_output=True,
                          text=True, timeout=timeout)


def sessions_json(env: dict) -> dict[str, dict]:
    r = kernelseek(["sessions", "--json"], env)
    assert r.returncode == 0, r.stderr
    return {row["name"]: row for row in json.loads(r.stdout)}


def wait_until(predicate, timeout: float = 30.0, step: float = 0.1, what: str = "the condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = predicate()
        if got:
            return got
        time.sleep(step)
    raise AssertionError(f"{what} not reached within {timeout:g} s")


def wait_for_event(session: Path, pred, timeout: float = 30.0) -> dict:
    return wait_until(lambda: next((e for e in events(session) if pred(e)), None), timeout,
                      what=f"an event in {session.name}")


def launch_record(session: Path) -> dict:
    return json.loads((Path(session) / "launch.json").read_text())


def current_job(session: Path) -> str:
    return launch_record(session)["jobs"][-1]["job_id"]
