"""Helpers for the fleet's tests: scripted models that keep sessions busy or finish them, the real
`kernelseek` command line, and waiting on session logs. (Fixtures are in conftest.py.)"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agent_helpers import REPO, cli_env, events, of_type, small_attention_task, write_config  # noqa: F401  (re-exported)
from fake_anthropic import Reply, by_step, text, tool
from waiting import wait_until  # noqa: F401  (re-exported)

# every turn a short bash call: a session that stays alive, cheaply, until stopped or max_turns
WORKER = by_step(Reply(text("Measuring the seed first."), tool("bash", command="sleep 1")),
                 then=Reply(tool("bash", command="sleep 1")))

STEERER = "[Message from the steerer]"


def kernelseek(args: list[str], env: dict, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "console", *args], env=env, cwd=str(REPO), capture_output=True,
                          text=True, timeout=timeout)


def sessions_json(env: dict) -> dict[str, dict]:
    r = kernelseek(["sessions", "--json"], env)
    assert r.returncode == 0, r.stderr
    return {row["name"]: row for row in json.loads(r.stdout)}


def wait_for_event(session: Path, pred, timeout: float = 30.0) -> dict:
    return wait_until(lambda: next((e for e in events(session) if pred(e)), None), timeout,
                      what=f"an event in {session.name}")


def launch_record(session: Path) -> dict:
    return json.loads((Path(session) / "launch.json").read_text())


def current_job(session: Path) -> str:
    return launch_record(session)["jobs"][-1]["job_id"]
