"""Helpers for the runner's tests: a runner in this process or as the real `kernelseek run` child
process, and reading the session log. (Fixtures are in conftest.py; tests import these by name,
never from `conftest`, which pytest may have bound to another folder's conftest.)"""
from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path


HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from fake_anthropic import FakeAnthropic  # noqa: E402

REPO = HERE.parent.parent
API_KEY = "sk-ant-test-SECRET-9f8e7d6c5b4a3210"
# fast settings: tiny timing budgets, the quick subset at the stop gate, short retry waits
FAST = dict(eval_time_budget_s=0.02, eval_min_pairs=3, gate_quick=True, retry_base_s=0.01,
            retry_cap_s=0.05, delta_interval_s=0.1)


def _native(settings: dict):
    from agent.config import load_config
    from agent.model import ModelClient, client_secrets, make_client
    from agent.native import NativeAgent
    from agent.secrets import secret_values
    from agent.shell import tool_sandbox

    config = load_config(None, **{**FAST, **settings})
    client = make_client(config)
    return dict(agent=NativeAgent(ModelClient(client, config), config), config=config,
                secrets=secret_values(extra=client_secrets(client)), sandbox=tool_sandbox(config))


def make_runner(task: str, session_dir: Path, **settings):
    """A session host with the native agent in this process (the SDK reads the environment the
    `fake` fixture set); the sandbox is the machine's (CI installs bubblewrap)."""
    from agent.host import SessionHost

    return SessionHost.create(task, session_dir=session_dir, **_native(settings))


def resume_runner(session_dir: Path, **settings):
    """`--resume` in this process."""
    from agent.host import SessionHost

    return SessionHost.resume(session_dir, **_native(settings))


def run_in_thread(runner) -> tuple[threading.Thread, dict]:
    box: dict = {}
    t = threading.Thread(target=lambda: box.setdefault("reason", runner.run()), daemon=True)
    t.start()
    return t, box


def events(session: Path) -> list[dict]:
    from sessions.log import read_events

    return read_events(Path(session) / "events.jsonl").events


def of_type(evs: list[dict], kind: str) -> list[dict]:
    return [e for e in evs if e.get("type") == kind]


def wait_for_event(session: Path, pred, timeout: float = 20.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for ev in events(session):
            if pred(ev):
                return ev
        time.sleep(0.02)
    raise AssertionError(f"no matching event within {timeout} s")


def strip_cache(messages: list[dict]) -> list[dict]:
    """Messages without cache_control markers (breakpoints move as the conversation grows)."""
    out = json.loads(json.dumps(messages))
    for m in out:
        for b in m["content"] if isinstance(m["content"], list) else []:
            b.pop("cache_control", None)
    return out


def task_copy(tmp_path: Path, name: str, *, scenarios: list | None = None, quick: list | None = None,
              folder: str | None = None, **goal) -> Path:
    """A copy of a shipped task with another goal (so a test can make the goal reachable), and
    other scenarios or quick subset where given."""
    import yaml

    src = REPO / "kernels" / name
    dst = tmp_path / (folder or f"task-{name}")
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
    spec = yaml.safe_load((dst / "task.yaml").read_text())
    spec["goal"].update(goal)
    if scenarios is not None:
        spec["scenarios"] = scenarios
    if quick is not None:
        spec["quick"] = quick
    (dst / "task.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    from evaluator.pins import write_pins

    write_pins(dst)  # the copy is a task of its own: its files pinned as they are now
    return dst


# attention-cpu's quick scenarios by name, at a fraction of their size: a sweep takes a fraction
# of the shipped task's (its kernel, header, seed and harness as they are)
SMALL_ATTENTION = [
    {"name": "gqa4_d64_0", "batch": 1, "heads_q": 8, "heads_kv": 2, "seq_q": 128, "seq_k": 128,
     "head_dim": 64, "causal": 0},
    {"name": "gqa4_d128_1", "batch": 1, "heads_q": 8, "heads_kv": 2, "seq_q": 128, "seq_k": 128,
     "head_dim": 128, "causal": 1},
    {"name": "mqa_d96_decode", "batch": 2, "heads_q": 8, "heads_kv": 1, "seq_q": 16, "seq_k": 512,
     "head_dim": 96, "causal": 1},
]


def small_attention_task(where: Path, quick: list | None = None, **goal) -> Path:
    """attention-cpu with three smaller scenarios, for tests that evaluate it (many times)."""
    return task_copy(where, "attention-cpu", scenarios=SMALL_ATTENTION, folder="attention-cpu-small",
                     quick=quick or ["gqa4_d64_0", "mqa_d96_decode"], **goal)


def cli_env(server: FakeAnthropic | None, home: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["KERNELSEEK_HOME"] = str(home)
    env["PYTHONPATH"] = str(REPO)
    if server is not None:
        env.update(server.env(API_KEY))
    env.update(extra)
    return env


def write_config(path: Path, **settings) -> Path:
    import yaml

    path.write_text(yaml.safe_dump({**FAST, **settings}))
    return path


def kernelseek(args: list[str], env: dict, **kw) -> subprocess.Popen:
    """The real `kernelseek` command line as a child process (stdout and stderr piped)."""
    kw = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True, **kw}
    return subprocess.Popen([sys.executable, "-m", "console", *args], env=env, cwd=str(REPO), **kw)


def _key_forms(key: str) -> list[bytes]:
    raw = key.encode()
    forms = [raw, raw[::-1], base64.b64encode(raw), raw.hex().encode()]
    # base64 of a longer text holds the key's encoding at one of three alignments
    for shift in range(3):
        forms.append(base64.b64encode(b"x" * shift + raw)[4:-4])
    return forms


def assert_no_key_in(data: bytes, where: str, key: str = API_KEY) -> None:
    """The test key is not in `data`: not plain, reversed, hex or base64 (at any alignment), nor in
    any base64-looking run decoded."""
    for form in _key_forms(key):
        assert form not in data, f"{where} holds the key ({form[:12]!r}...)"
    # decode every base64-looking run and look again
    for run in re.findall(rb"[A-Za-z0-9+/=]{40,}", data):
        try:
            decoded = base64.b64decode(run + b"=" * (-len(run) % 4), validate=False)
        except ValueError:
            continue
        assert key.encode() not in decoded and key.encode()[::-1] not in decoded, where


def processes_with(marker: str) -> list[int]:
    """Pids of the processes (other than this one) whose command line holds `marker`."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


def data_block(text: str, tag: str) -> list[dict]:
    """The JSON lines between `<tag>` and `</tag>` of a model request (agent.opinion.data_line)."""
    return [json.loads(line) for line in text.split(f"<{tag}>\n", 1)[1].split(f"\n</{tag}>", 1)[0].splitlines()]

