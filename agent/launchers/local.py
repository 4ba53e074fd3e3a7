"""The local launcher: each runner a detached process on this machine (`kernelseek steer`'s way).

A pid means something only on its own host, so the record holds both; from another host a
handle can say where the runner is but not whether it lives (the log's last event and its
lock say that), and it cannot signal it: stopping goes through the session's inbox.
"""
from __future__ import annotations

import os
import signal
import socket
import time

from agent.launch import LaunchError, spawn_runner
from agent.launchers import Handle, LaunchSpec, Launcher
from sessions.digest import RunnerView, SessionDigest
from sessions.layout import SessionPaths, read_launch, write_launch


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _mentions(pid: int, what: str) -> bool:
    try:
        return what.encode() in open(f"/proc/{pid}/cmdline", "rb").read()
    except OSError:
        return False


class LocalHandle(Handle):
    launcher = "local"

    def __init__(self, session: SessionPaths, pid: int, host: str | None) -> None:
        super().__init__(session)
        self.pid = pid
        self.host = host or socket.gethostname()

    @property
    def here(self) -> bool:
        return self.host == socket.gethostname()

    def alive(self) -> bool | None:
        proc = getattr(self, "process", None)
        if proc is not None:  # started by this process: its Popen knows (and reaps it)
            return proc.poll() is None
        if not self.here:
            return None
        if not _pid_alive(self.pid):
            return False
        # the pid may have been reused: it is our runner if it holds the session's lock or names it
        return self.session.is_running() or _mentions(self.pid, self.session.name)

    def describe(self) -> RunnerView:
        return RunnerView("local", f"pid {self.pid} on {self.host}", self.alive(), node=self.host)

    def cancel(self) -> str:
        if not self.here:
            raise LaunchError(f"the runner is pid {self.pid} on {self.host}, not on this machine: "
                              "stop it from there (it also obeys the stop request in its inbox)")
        if not self.alive():
            return f"the runner (pid {self.pid}) is gone already"
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            return f"the runner (pid {self.pid}) is gone already"
        except PermissionError:
            raise LaunchError(f"not allowed to signal the runner (pid {self.pid})") from None
        return f"sent SIGTERM to the runner (pid {self.pid})"


class LocalLauncher(Launcher):
    name = "local"

    def start(self, specs: list[LaunchSpec], *, batch: str | None = None) -> list[Handle]:
        handles = []
        host = socket.gethostname()
        for spec in specs:
            proc = spawn_runner(spec.argv, spec.session.root)
            record = read_launch(spec.session) or {"launcher": "local", "created_t": round(time.time(), 3),
                                                   **spec.record}
            record.setdefault("jobs", []).append({"pid": proc.pid, "host": host, "argv": spec.argv,
                                                   "started_t": round(time.time(), 3), "resume": spec.resume})
            record["launcher"] = "local"
            if spec.arm is not None:
                record["arm"] = spec.arm
            if batch:
                record["batch"] = batch
            write_launch(spec.session, record)
            handle = LocalHandle(spec.session, proc.pid, host)
            handle.process = proc  # steer keeps the Popen (to tell the console, and to reap it)
            handles.append(handle)
        return handles

    def handle(self, session: SessionPaths, record: dict, digest: SessionDigest | None = None) -> Handle:
        jobs = record.get("jobs") or []
        last = jobs[-1] if jobs else {}
        pid, host = last.get("pid"), last.get("host")
        # a runner resumed by hand (`kernelseek run --resume`) is newer than the record
        if digest is not None and digest.pid is not None and digest.resumes and digest.pid != pid:
            pid, host = digest.pid, digest.host
        if not isinstance(pid, int):
            raise LaunchError(f"{session.launch}: no pid recorded")
        return LocalHandle(session, pid, host)
