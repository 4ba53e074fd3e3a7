"""Running the agent's shell commands: a time limit, a kill switch, capped output, a sandbox.

Each command runs under `bash -c` in its own process group (its own session), with stdin closed
and stdout+stderr going to a temporary file (no pipe to fill, no deadlock). On timeout, on a
cancel (the steerer's interrupt) or when the output passes `max_output_bytes`, the whole group is
killed: SIGTERM, then SIGKILL a moment later. Whatever the command left running in its group
when it returns is killed too. The output the agent sees keeps its head and its tail.

With a sandbox (evaluator/sandbox.py: bubblewrap, else util-linux unshare) the command runs in
its own PID and mount namespaces: it sees neither the runner nor anything else of the machine's
processes, the file system is read-only except the workspace (and a scratch directory) with a
private /tmp, credential stores in the home directory (~/.ssh, ~/.aws, the Anthropic config, ...)
are hidden, devices stay reachable (GPU tasks), there is no network, and everything the command
started ends with it (the namespace's first process exits, the kernel kills the rest).
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from evaluator.hosting import visible_dirs
from evaluator.sandbox import (INSTALL_HINT, Confinement, Sandbox, credential_paths, die_with_parent,
                               find_sandbox)

_REPO_ROOT = Path(__file__).resolve().parent.parent

KILL_GRACE_S = 0.3
POLL_S = 0.05
DEFAULT_MAX_OUTPUT_BYTES = 64 << 20


@dataclass
class ShellResult:
    output: str
    exit_code: int | None
    duration_s: float
    timed_out: bool = False
    interrupted: bool = False
    truncated: bool = False
    output_limit: bool = False


def cap_text(text: str, cap: int) -> tuple[str, bool]:
    """Keep the head (a third) and the tail (two thirds) of a text longer than `cap` chars."""
    if len(text) <= cap:
        return text, False
    head = cap // 3
    tail = cap - head
    cut = len(text) - head - tail
    return f"{text[:head]}\n[... {cut} characters cut; head and tail kept ...]\n{text[-tail:]}", True


def _read_capped(f, cap_chars: int) -> tuple[str, bool]:
    """Head and tail of the output file without reading all of a huge one."""
    size = f.seek(0, os.SEEK_END)
    budget = cap_chars * 4  # bytes: enough for cap_chars characters of any UTF-8
    f.seek(0)
    if size <= budget:
        return cap_text(f.read().decode("utf-8", "replace"), cap_chars)
    head = f.read(budget // 3).decode("utf-8", "replace")[: cap_chars // 3]
    f.seek(size - (budget - budget // 3))
    tail = f.read().decode("utf-8", "replace")[-(cap_chars - cap_chars // 3):]
    cut = size - len(head.encode()) - len(tail.encode())
    return f"{head}\n[... about {cut} bytes cut; head and tail kept ...]\n{tail}", True


def kill_group(pgid: int, grace_s: float = KILL_GRACE_S) -> None:
    """SIGTERM a process group, then SIGKILL whatever is left after `grace_s`."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.02)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class SandboxRefused(Exception):
    """No sandbox can be made and the user did not accept running without one."""

    exit_code = 2


def tool_sandbox(config) -> Sandbox:
    """The sandbox the agent's commands run in (`config.sandbox`: auto | bwrap | unshare | none).
    A Sandbox of kind "none" only when `config.unsafe_no_sandbox` accepts it; else SandboxRefused
    with the reason and what to install."""
    sandbox = find_sandbox(config.sandbox)
    if sandbox.confines or config.unsafe_no_sandbox:
        return sandbox
    why = "; ".join(sandbox.problems) if sandbox.problems else "sandbox: none in the config"
    raise SandboxRefused(f"no sandbox for the agent's commands ({why}): {INSTALL_HINT}; or pass "
                         "--unsafe-no-sandbox to run them unconfined (they could then read this "
                         "machine's files and processes)")


def sandbox_note(sandbox: Sandbox) -> str:
    """What session_start says about confinement: starts with "unsandboxed" when there is none."""
    if sandbox.confines:
        return sandbox.note
    note = sandbox.note or "no sandbox"
    return note if note.startswith("unsandboxed") else f"unsandboxed: {note}"


@lru_cache(maxsize=1)
def own_code_dirs() -> tuple[Path, ...]:
    """KernelSeek's checkout and its interpreter's prefixes, where the sandbox's private /tmp would
    hide them (a clone under /tmp): a confined command still runs our Python and sees the
    repository read-only, as it does anywhere else."""
    return visible_dirs((_REPO_ROOT, Path(sys.prefix), Path(sys.base_prefix)))


def tool_confinement(workspace: str | os.PathLike, writable: tuple = (), readable: tuple = (), *,
                     network: bool = False) -> Confinement:
    """What an agent's command may touch: its workspace (and `writable` extras) read-write;
    everything else read-only, `readable` (the task folder) and our own code visible even where
    they lie under the private /tmp; credential stores hidden."""
    ws = Path(workspace).resolve()
    return Confinement(writable=(ws, *(Path(w).resolve() for w in writable)),
                       readable=(*(Path(r).resolve() for r in readable), *own_code_dirs()),
                       hidden=tuple(credential_paths()), network=network, chdir=ws)


def run_shell(command: str, *, cwd: str | os.PathLike, env: dict[str, str], timeout_s: float,
              cancel: threading.Event | None = None, cap_chars: int = 30_000,
              sandbox: Sandbox | None = None, writable: tuple = (), readable: tuple = (),
              max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES) -> ShellResult:
    """Run `command`; return its capped output and how it ended (never raises for the command).
    With a `sandbox` it runs confined (`tool_confinement(cwd, writable, readable)`); without, as it is."""
    argv = ["bash", "-c", command]
    if sandbox is not None and sandbox.confines:
        argv = sandbox.wrap(argv, tool_confinement(cwd, writable, readable))
    start = time.monotonic()
    with tempfile.TemporaryFile() as out:
        # die_with_parent: a runner killed with -9 takes the command (or the sandbox) with it
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True, close_fds=True,
                                preexec_fn=die_with_parent)
        timed_out = interrupted = output_limit = False
        try:
            while True:
                try:
                    proc.wait(timeout=POLL_S)
                    break
                except subprocess.TimeoutExpired:
                    pass
                if cancel is not None and cancel.is_set():
                    interrupted = True
                elif time.monotonic() - start > timeout_s:
                    timed_out = True
                elif os.fstat(out.fileno()).st_size > max_output_bytes:
                    output_limit = True
                if interrupted or timed_out or output_limit:
                    kill_group(proc.pid)
                    proc.wait()
                    break
        finally:
            if proc.poll() is None:  # an exception above (KeyboardInterrupt): never leave it running
                kill_group(proc.pid, grace_s=0.0)
                proc.wait()
            kill_group(proc.pid, grace_s=0.0)  # background jobs it left in its group
        duration = time.monotonic() - start
        text, truncated = _read_capped(out, cap_chars)
    code = proc.returncode
    notes = []
    if timed_out:
        notes.append(f"[timed out after {timeout_s:g} s; the command and its children were killed]")
    if interrupted:
        notes.append("[interrupted by the steerer; the command and its children were killed]")
    if output_limit:
        notes.append(f"[killed: output passed {max_output_bytes >> 20} MiB]")
    if not (timed_out or interrupted or output_limit):
        if code is not None and code < 0:
            try:
                notes.append(f"[killed by {signal.Signals(-code).name}]")
            except ValueError:
                notes.append(f"[killed by signal {-code}]")
        elif code:
            notes.append(f"[exit code {code}]")
    if not text.strip() and not notes:
        notes.append("[no output]")
    if notes:
        text = (text.rstrip("\n") + "\n" if text.strip() else "") + "\n".join(notes)
    return ShellResult(output=text, exit_code=code, duration_s=duration, timed_out=timed_out,
                       interrupted=interrupted, truncated=truncated, output_limit=output_limit)
