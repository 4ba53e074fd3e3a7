"""Isolation: the verdict in a child process with time limits; the candidate in a sandboxed host.

The parent starts `python -m evaluator child --fd N` (the verdict: evaluator.pipeline) in a new
process group, writes the request as JSON on its stdin, and reads JSON lines from a dedicated pipe
(fd N): progress events, the partial report once the builds are done, each finished scenario, then
the report. The verdict never loads candidate code: it starts a candidate host in the sandbox
(evaluator.hosting), so a crashing, hanging or hostile kernel ends in a report the verdict wrote.

Inside the verdict a watchdog thread ends the process with a `hang` message when one of its own
steps (its reference kernel, a copy) outlives `call_timeout_s`, and a heartbeat thread writes
every few seconds. The parent kills the process group when the child is silent for
`stall_timeout_s` or runs past `timeout_s`, and turns a death of the verdict by signal into a
`crash` report naming the scenario and phase in flight.
"""
from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from evaluator.device import Guard
from evaluator.errors import DeviceUnavailable, TaskError
from evaluator.pipeline import EvalOptions, sha256_file
from evaluator.report import EvalReport, ScenarioResult
from evaluator.task import Task, load_task

EXIT_HANG = 86
HEARTBEAT_S = 2.0
LOG_TAIL = 4000
_REPO_ROOT = Path(__file__).resolve().parent.parent


class Watchdog(Guard):
    """A Guard whose watched steps have deadlines; on overrun it reports and ends the process.
    Each thread has its own watched step (the peaks are measured beside the builds)."""

    def __init__(self, on_overrun: Callable[[str, float], None], poll_s: float = 0.05) -> None:
        super().__init__()
        self._state: dict[int, tuple[str, float, float]] = {}  # thread -> (what, deadline, seconds)
        self._on_overrun = on_overrun
        self._poll = poll_s
        threading.Thread(target=self._loop, name="ks-watchdog", daemon=True).start()

    @contextlib.contextmanager
    def watch(self, what: str, seconds: float) -> Iterator[None]:
        me = threading.get_ident()
        previous, prev_activity = self._state.get(me), self.activity
        self._state[me] = (what, time.monotonic() + seconds, seconds)
        self.activity = what
        try:
            yield
        finally:
            if previous is None:
                self._state.pop(me, None)
            else:
                self._state[me] = previous
            self.activity = prev_activity

    def _loop(self) -> None:
        while True:
            time.sleep(self._poll)
            now = time.monotonic()
            for state in list(self._state.values()):
                if now > state[1]:
                    try:
                        self._on_overrun(state[0], state[2])
                    finally:
                        os._exit(EXIT_HANG)


def default_timeout(task: Task, options: EvalOptions) -> float:
    """A backstop for the whole evaluation: builds, then each scenario's budget and calls."""
    n = len(task.select(options.quick, options.only))
    budget = options.time_budget_s if options.time_budget_s is not None else task.timing.budget_s
    call = options.call_timeout_s if options.call_timeout_s is not None else task.timing.call_timeout_s
    return 300.0 + n * (budget + 4 * call + 20.0)


def evaluate_isolated(task: Task | str | Path, candidate: str | Path | None = None, *,
                      timeout_s: float | None = None, stall_timeout_s: float = 60.0,
                      progress: Callable[[dict[str, Any]], None] | None = None,
                      python: str | None = None, env: dict[str, str] | None = None,
                      cancel: threading.Event | None = None, **options: Any) -> EvalReport:
    """Evaluate in a child process; a crash, hang or device fault comes back as a report.

    `env` is the child's environment (default: this process's); the candidate's code runs in
    that child, so callers holding credentials pass a scrubbed one. Setting `cancel` kills the
    child's process group and returns a report with error_kind `cancelled`.
    Raises TaskError / DeviceUnavailable for user errors, like `evaluate`."""
    task = load_task(task)
    opts = EvalOptions(**options)
    if opts.host is None:
        opts.host = "process"
    cand = Path(candidate).resolve() if candidate else task.seed
    if not cand.is_file():
        raise TaskError(f"candidate file not found: {cand}")
    limit = timeout_s if timeout_s is not None else default_timeout(task, opts)
    request = {"task": str(task.dir), "candidate": str(cand), "options": opts.to_json()}
    parent = _Parent(task, cand, opts, limit, stall_timeout_s, progress or (lambda e: None))
    parent.cancel = cancel
    return parent.run(request, python or sys.executable, env)


class _Parent:
    def __init__(self, task: Task, cand: Path, opts: EvalOptions, limit: float, stall: float,
                 progress: Callable[[dict[str, Any]], None]) -> None:
        self.task, self.cand, self.opts = task, cand, opts
        self.limit, self.stall, self.progress = limit, stall, progress
        self.head: dict[str, Any] | None = None
        self.done: list[dict[str, Any]] = []
        self.current: dict[str, Any] | None = None
        self.final: dict[str, Any] | None = None
        self.fatal: dict[str, Any] | None = None
        self.cancel: threading.Event | None = None
        # waiting for a GPU another evaluation times on is not this evaluation's time
        self.waited_s = 0.0
        self.waiting_since: float | None = None

    def run(self, request: dict[str, Any], python: str, base_env: dict[str, str] | None = None) -> EvalReport:
        read_fd, write_fd = os.pipe()
        env = dict(os.environ if base_env is None else base_env)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(_REPO_ROOT), env.get("PYTHONPATH")) if p)
        env.setdefault("PYTHONUNBUFFERED", "1")
        t0 = time.monotonic()
        with tempfile.TemporaryFile() as log:
            proc = subprocess.Popen(
                [python, "-m", "evaluator", "child", "--fd", str(write_fd)],
                stdin=subprocess.PIPE, stdout=log, stderr=log, pass_fds=(write_fd,),
                start_new_session=True, env=env, cwd=str(_REPO_ROOT),
            )
            os.close(write_fd)
            try:
                assert proc.stdin is not None
                proc.stdin.write(json.dumps(request).encode())
                proc.stdin.close()
            except BrokenPipeError:
                pass
            stopped = self._pump(read_fd, proc, t0)
            os.close(read_fd)
            if stopped:
                _kill_group(proc)
            returncode = proc.wait()
            log.seek(0)
            tail = log.read().decode("utf-8", "replace")[-LOG_TAIL:]
        return self._report(stopped, returncode, tail, time.monotonic() - t0)

    def _pump(self, fd: int, proc: subprocess.Popen[bytes], t0: float) -> str | None:
        """Read the child's lines until it closes the pipe; the reason it was stopped, if it was."""
        sel = selectors.DefaultSelector()
        sel.register(fd, selectors.EVENT_READ)
        buf = b""
        last = time.monotonic()
        try:
            while True:
                now = time.monotonic()
                if self.cancel is not None and self.cancel.is_set():
                    return "cancelled"
                if now - t0 - self.waited_s - (now - self.waiting_since if self.waiting_since else 0.0) > self.limit:
                    return f"the evaluation ran past its time limit of {self.limit:.0f} s"
                if now - last > self.stall:
                    return f"the child was silent for {self.stall:.0f} s (hung with the interpreter locked)"
                if not sel.select(timeout=0.2):
                    continue
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return None
                last = time.monotonic()
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    if line.strip():
                        self._handle(json.loads(line))
        finally:
            sel.close()

    def _handle(self, msg: dict[str, Any]) -> None:
        kind = msg.get("event")
        if kind == "alive":
            return
        if kind == "head":
            self.head = msg["report"]
            return
        if kind == "report":
            self.final = msg["report"]
            return
        if kind == "fatal":
            self.fatal = msg
            return
        if kind == "gpu_wait":
            self.waiting_since = time.monotonic()
        elif kind == "gpu_lock" and self.waiting_since is not None:
            self.waited_s += time.monotonic() - self.waiting_since
            self.waiting_since = None
        if kind == "scenario":
            self.current = msg
        elif kind == "scenario_done":
            self.done.append(msg["result"])
            self.current = None
        self.progress(msg)

    def _report(self, stopped: str | None, returncode: int, tail: str, seconds: float) -> EvalReport:
        if self.final is not None and not stopped:
            return EvalReport.from_json(self.final)
        fatal = self.fatal or {}
        if fatal.get("error_kind") == "task":
            raise TaskError(fatal["error"])
        if fatal.get("error_kind") == "device":
            raise DeviceUnavailable(fatal["error"])
        report = self._skeleton()
        where = ""
        if self.current:
            where = f" in scenario {self.current['name']} ({self.current['phase']})"
        if fatal:
            report.error, report.error_kind = fatal["error"], fatal.get("error_kind", "internal")
        elif stopped == "cancelled":
            report.error, report.error_kind = f"the evaluation was cancelled{where}", "cancelled"
        elif stopped:
            report.error = f"{stopped}{where}"
            report.error_kind = "timeout" if "time limit" in stopped else "hang"
        elif returncode < 0:
            name = signal.Signals(-returncode).name if -returncode in signal.valid_signals() else str(-returncode)
            report.error, report.error_kind = f"the evaluation process died with {name}{where}", "crash"
        else:
            report.error = f"the evaluation process exited with status {returncode} without a report{where}"
            report.error_kind = "crash"
        if self.current and report.error_kind in ("crash", "hang", "timeout", "fault"):
            sc = next((s for s in self.task.scenarios if s.name == self.current["name"]), None)
            report.scenarios.append(ScenarioResult(
                self.current["name"], dict(sc.params) if sc else {}, correct=False,
                failure=f"{report.error_kind}: {report.error}"))
        report.log_tail = tail or None
        report.duration_s = seconds
        return report

    def _skeleton(self) -> EvalReport:
        if self.head is not None:
            report = EvalReport.from_json(self.head)
        else:
            report = EvalReport(
                task=self.task.name, task_dir=str(self.task.dir), backend=self.task.backend,
                candidate={"path": str(self.cand), "sha256": sha256_file(self.cand)},
                seed_source={"path": str(self.task.seed), "sha256": sha256_file(self.task.seed)},
                eval_seed=self.opts.seed if self.opts.seed is not None else -1,
                options=self.opts.to_json(), goal_spec={},
                build={"ok": True, "log": "(the child stopped before it reported its builds)"},
                total_planned=len(self.task.select(self.opts.quick, self.opts.only)),
                started_at=time.time(),
            )
        report.scenarios = [ScenarioResult.from_json(d) for d in self.done]
        return report


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()


# the child side ---------------------------------------------------------------------------
def child_main(fd: int) -> int:
    """Run one evaluation requested on stdin; write JSON lines to fd. Exit code 0 = report sent."""
    import faulthandler
    import traceback

    from evaluator.pipeline import Evaluation

    out = os.fdopen(fd, "w", buffering=1, encoding="utf-8")
    lock = threading.Lock()

    def send(msg: dict[str, Any]) -> None:
        line = json.dumps(msg, allow_nan=False, default=str)
        with lock:
            out.write(line + "\n")
            out.flush()

    def overrun(what: str, seconds: float) -> None:
        send({"event": "fatal", "error_kind": "hang",
              "error": f"{what} did not finish within {seconds:g} s (call_timeout_s)"})

    def heartbeat() -> None:
        while True:
            time.sleep(HEARTBEAT_S)
            send({"event": "alive"})

    faulthandler.enable(file=sys.stderr, all_threads=True)
    request = json.loads(sys.stdin.read())
    guard = Watchdog(overrun)
    threading.Thread(target=heartbeat, name="ks-heartbeat", daemon=True).start()
    try:
        opts = EvalOptions(**request["options"])
        task = load_task(request["task"])
        evaluation = Evaluation(task, request["candidate"], opts, send, guard)
        report = evaluation.run()
        send({"event": "report", "report": report.to_json()})
        return 0
    except (TaskError, DeviceUnavailable) as exc:
        kind = "device" if isinstance(exc, DeviceUnavailable) else "task"
        send({"event": "fatal", "error_kind": kind, "error": str(exc)})
        return exc.exit_code
    except Exception as exc:  # noqa: BLE001 - a bug in the evaluator still yields a report
        traceback.print_exc()
        send({"event": "fatal", "error_kind": "internal", "error": f"{type(exc).__name__}: {exc}"})
        return 70
