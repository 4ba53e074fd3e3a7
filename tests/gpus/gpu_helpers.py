"""Helpers for tests/gpus: a fake node's GPU list (read by fake_bin/nvidia-smi) and a process
that holds a GPU lock until it is told to stop (a runner elsewhere on the node)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
FAKE_BIN = HERE / "fake_bin"


def uuid_of(i: int) -> str:
    return f"GPU-{i:08x}-1111-2222-3333-{0xabcdef000000 + i:012x}"


class FakeGpus:
    """The GPUs fake_bin/nvidia-smi reports, and the processes it says compute on them."""

    def __init__(self, path: Path, n: int, name: str = "NVIDIA H200", fail: str | None = None) -> None:
        self.path = path
        self.gpus = [{"index": i, "uuid": uuid_of(i), "name": name, "memory_mib": 143771} for i in range(n)]
        self.apps: list[dict] = []
        self.fail = fail
        self.write()

    @property
    def uuids(self) -> list[str]:
        return [g["uuid"] for g in self.gpus]

    def write(self) -> None:
        self.path.write_text(json.dumps({"gpus": self.gpus, "apps": self.apps, "fail": self.fail}))

    def computing(self, index: int, pid: int = 4242, name: str = "train.py") -> None:
        self.apps.append({"uuid": uuid_of(index), "pid": pid, "name": name})
        self.write()

    def calls(self) -> list[str]:
        p = Path(str(self.path) + ".calls")
        return p.read_text().splitlines() if p.exists() else []

    @staticmethod
    def env_path() -> str:
        return os.environ.get("PATH", "/usr/bin:/bin")

    def env(self, base: dict | None = None) -> dict:
        """An environment for a child process that sees these GPUs."""
        env = dict(os.environ if base is None else base)
        env["KS_FAKE_GPUS"] = str(self.path)
        if not env.get("PATH", "").startswith(str(FAKE_BIN)):
            env["PATH"] = f"{FAKE_BIN}:{env.get('PATH', '')}"
        return env


HOLDER = r"""
import sys, time
sys.path.insert(0, {repo!r})
from evaluator.gpu_lock import TimingLock, claim
kind, uuid, seconds, what = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
if kind == "claim":
    held = claim(uuid, what=what)
    print("held" if held else "refused", flush=True)
    time.sleep(seconds)
else:
    with TimingLock(uuid).hold(what, exclusive=(kind == "timing")) as h:
        print("held", round(h.since, 4), flush=True)
        time.sleep(seconds)
    print("let go", round(time.time(), 4), flush=True)
"""


def hold_in_child(kind: str, uuid: str, seconds: float, what: str = "a test holder",
                  env: dict | None = None) -> subprocess.Popen:
    """A process that takes a `claim`, or a `timing` / `shared` hold, for `seconds` (once it has
    printed `held`, it holds it)."""
    started, started_wall = time.monotonic(), time.time()  # the hold begins after this, so it ends after started + seconds
    proc = subprocess.Popen([sys.executable, "-c", HOLDER.format(repo=str(REPO)), kind, uuid, str(seconds), what],
                            stdout=subprocess.PIPE, text=True, env=env)
    first = proc.stdout.readline().strip()
    assert first.startswith(("held", "refused")), first
    proc.first_line = first  # type: ignore[attr-defined]
    proc.held_until = started + seconds  # type: ignore[attr-defined]  # (at the earliest)
    proc.held_until_wall = started_wall + seconds  # type: ignore[attr-defined]  # (the same, by the wall clock)
    return proc


def left_of_hold(child: subprocess.Popen, at: float) -> float:
    """The least of a child's hold still to come at `at` (monotonic): what a waiter then waits at
    least, less 0.6 s for starting to wait and polling: a loaded machine that comes to the waiter late
    shortens it (a 2-core box at load 2.5 came 0.23 s late; at load 3, with the full suite beside
    other work, 0.42 s). That the waiter held nothing before the child's hold ended is exact:
    `held_until_wall` against the waiter's own record."""
    return max(0.0, child.held_until - at - 0.6)  # type: ignore[attr-defined]
