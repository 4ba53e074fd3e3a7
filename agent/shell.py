"""Running the agent's shell commands: a time limit, a kill switch, capped output, a sandbox.

Each command runs under `bash -c` in its own process group (its own session), with stdin closed
and stdout+stderr going to a temporary file (no pipe to fill, no deadlock). On timeout, on a
cancel (the steerer's interrupt) or when the output passes `max_output_bytes`, the whole group is
killed: SIGTERM, then SIGKILL a moment later. Whatever the command left running in its group
when it returns is killed too. The output the agent sees keeps its head and its tail.

Where `bwrap` (bubblewrap) is on PATH the command is confined: the file system is read-only
except the workspace and a private /tmp, credential stores in the home directory (~/.ssh,
~/.aws, the Anthropic config, ...) are hidden, devices stay reachable (GPU tasks), the network
is unshared when the kernel allows it, and the sandbox dies with the runner.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

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


_CREDENTIAL_PATHS = (".config/anthropic", ".anthropic", ".ssh", ".aws", ".config/gcloud", ".azure", ".docker",
                     ".kube", ".netrc", ".git-credentials", ".pgpass", ".config/gh")


def credential_paths(home: Path | None = None) -> list[Path]:
    """Credential stores under the home directory that exist (the sandbox hides them)."""
    home = home or Path.home()
    return [home / p for p in _CREDENTIAL_PATHS if (home / p).exists() and not (home / p).is_symlink()]


class Sandbox:
    """How commands are confined: bubblewrap when available (probed once), else not at all."""

    def __init__(self, mode: str = "auto") -> None:
        self.requested = mode
        self.mode = "none"
        self.network = True
        self.note = ""
        self._probed = False
        self._lock = threading.Lock()

    def _base(self, workspace: str, unshare_net: bool) -> list[str]:
        args = ["bwrap", "--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc",
                "--tmpfs", "/tmp"]
        for hidden in credential_paths():  # empty in the sandbox
            args += ["--tmpfs", str(hidden)] if hidden.is_dir() else ["--dev-bind", "/dev/null", str(hidden)]
        args += ["--bind", workspace, workspace, "--unshare-pid", "--die-with-parent"]
        if unshare_net:
            args.append("--unshare-net")
        return args + ["--chdir", workspace]

    def probe(self, workspace: str | os.PathLike) -> str:
        with self._lock:
            if self._probed:
                return self.mode
            self._probed = True
            if self.requested == "none":
                self.note = "sandbox off (configured)"
                return self.mode
            if shutil.which("bwrap") is None:
                self.note = "bwrap not found: commands run unconfined in the workspace"
                if self.requested == "bwrap":
                    self.note = "sandbox bwrap requested but bwrap is not on PATH: commands run unconfined"
                return self.mode
            ws = str(Path(workspace).resolve())
            for unshare_net in (True, False):
                try:
                    r = subprocess.run(self._base(ws, unshare_net) + ["--", "true"], capture_output=True,
                                       timeout=10, stdin=subprocess.DEVNULL)
                except (OSError, subprocess.TimeoutExpired):
                    continue
                if r.returncode == 0:
                    self.mode = "bwrap"
                    self.network = not unshare_net
                    self.note = "bwrap: workspace read-write, the rest read-only" + (
                        ", no network" if unshare_net else ", network shared (could not unshare it)")
                    return self.mode
            self.note = "bwrap is on PATH but cannot start here (no user namespaces?): commands run unconfined"
            return self.mode

    def wrap(self, command: str, workspace: str | os.PathLike) -> list[str]:
        if self.probe(workspace) == "bwrap":
            ws = str(Path(workspace).resolve())
            return self._base(ws, not self.network) + ["--", "bash", "-c", command]
        return ["bash", "-c", command]


def run_shell(command: str, *, cwd: str | os.PathLike, env: dict[str, str], timeout_s: float,
              cancel: threading.Event | None = None, cap_chars: int = 30_000,
              sandbox: Sandbox | None = None,
              max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES) -> ShellResult:
    """Run `command`; return its capped output and how it ended (never raises for the command)."""
    argv = (sandbox or Sandbox("none")).wrap(command, cwd)
    start = time.monotonic()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True, close_fds=True)
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
