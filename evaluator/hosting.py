"""The verdict's side of the candidate host: start it (sandboxed), ask, and trust nothing it says.

`CandidateHost` is what the verdict (evaluator.pipeline) talks to: load, prepare a scenario,
run rounds, fetch slot bytes, baselines, close. Two implementations:

- `ProcessHost`: `python -m evaluator host` in a child process, inside the sandbox
  (evaluator.sandbox: bubblewrap or unshare; PID and mount namespaces, the file system read-only
  but for a scratch directory, credential stores hidden, no network), with a scrubbed
  environment, confined further by itself before it opens a candidate library
  (evaluator.confine). Every reply is checked against its schema (evaluator.protocol) and timed
  by the verdict's own clock; a host that dies, hangs or says something malformed ends the
  evaluation with a `HostFailure` naming what happened.
- `LocalHost`: the same work in this process (evaluator.host.HostCore), replies passed through
  the same checks. For trusted code only (tests, `evaluate(..., host="local")`).
"""
from __future__ import annotations

import contextlib
import fcntl
import mmap
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.host import HostCore, ScenarioSpec
from evaluator.machine import descendants
from evaluator.protocol import (HostGone, HostReportedError, HostTimeout, Message, ProtocolError, Reader,
                                check_reply, encode, write_message)

_REPO_ROOT = Path(__file__).resolve().parent.parent
# environment variables a host keeps (everything else, credentials included, is dropped)
HOST_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES",
            "CUDA_DEVICE_ORDER", "CUDA_HOME", "CUDA_PATH", "NVIDIA_VISIBLE_DEVICES", "OMP_NUM_THREADS",
            "OMP_PROC_BIND", "OMP_PLACES", "GOMP_CPU_AFFINITY", "PYTHONHASHSEED", "VIRTUAL_ENV",
            "KERNELSEEK_FLUSH_BYTES")
HIGH_FD = 100  # the protocol's descriptors sit above what the sandbox's shell prologue uses
BULK_MIN = 1 << 16  # payloads from this size on cross through the shared buffer
LOAD_TIMEOUT_S = 180.0
FETCH_TIMEOUT_S = 120.0


class HostFailure(Exception):
    """The host cannot go on: kind is crash | hang | fault | protocol | setup | internal."""

    def __init__(self, kind: str, message: str, log_tail: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.log_tail = log_tail


@dataclass
class Rounds:
    """A rounds reply, checked, and the verdict's own wall clock around it."""

    returned: list[int]
    event_ms: list[float]
    wall_ms: list[float]
    other_cpu_ms: list[float]
    outside_ms: list[float]
    modified: list[list[str]] | None
    late: list[bool] | None
    libs: list[str]  # shared libraries the host mapped since its previous reply (run-time loads)
    verdict_ms: float  # request sent -> reply arrived, by the verdict's clock
    census: dict[str, Any] | None = None  # the launch census of these calls (evaluator.census), when on


class Pending:
    """A request sent and not answered yet: `result()` waits for its reply (replies come in order)."""

    def __init__(self, host: CandidateHost, seq: int, make: Any) -> None:
        self.host, self.seq, self.make = host, seq, make

    def result(self, timeout_s: float) -> Any:
        out, ms = self.host._receive(self.seq, timeout_s)
        return self.make(out, ms)


class SharedBuffer:
    """A sealed memfd the verdict maps and the host maps too: large inputs and outputs cross here
    instead of through the pipe. It can only grow (F_SEAL_SHRINK: a host cannot truncate it under
    the verdict's mapping), and the verdict copies out of it once per reply."""

    def __init__(self) -> None:
        self.fd = os.memfd_create("ks-bulk", os.MFD_ALLOW_SEALING | os.MFD_CLOEXEC)
        fcntl.fcntl(self.fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK)
        self.size = 0
        self.map: mmap.mmap | None = None

    def room(self, nbytes: int) -> int:
        """Grow to hold nbytes (in 64 MiB steps); the size the host must map."""
        if nbytes > self.size:
            size = -(-nbytes // (64 << 20)) * (64 << 20)
            os.ftruncate(self.fd, size)
            if self.map is not None:
                self.map.close()
            self.map = mmap.mmap(self.fd, size)
            self.size = size
        return self.size

    def put(self, data: bytes) -> int:
        size = self.room(len(data))
        assert self.map is not None
        self.map[:len(data)] = data
        return size

    def take(self, nbytes: int) -> bytes:
        assert self.map is not None
        return self.map[:nbytes]

    def close(self) -> None:
        if self.map is not None:
            self.map.close()
        os.close(self.fd)


class CandidateHost:
    """start -> load -> (prepare -> rounds/fetch...)* -> close. Subclasses supply `_send` and
    `_receive`; a request may be sent ahead (`*_async`) and its reply read later, in order, so the
    verdict works while the host does (untimed work only: timed requests are asked and awaited)."""

    sandbox = "in-process"
    sandbox_note = ""
    confined: dict[str, Any] = {}
    census: dict[str, Any] = {}  # the launch census: {on, note} (cuda hosts)
    # kernel threads rest between calls (OMP_WAIT_POLICY=PASSIVE), so CPU time there means work
    passive_threads = True
    loaded_libs: list[str] = []  # what loading the seed and the candidate mapped (checked by the verdict)

    def __init__(self) -> None:
        self.seq = 0
        self.inputs: set[str] = set()
        self.bulk: SharedBuffer | None = None
        self.waiting: dict[int, tuple[str, dict[str, Any], int]] = {}  # seq -> (expected kind, checks, sent ns)
        self.answered: dict[int, tuple[dict[str, Any], float]] = {}

    def _send(self, header: dict[str, Any], payload: bytes | None, expect: str, **spec: Any) -> int:
        raise NotImplementedError

    def _receive(self, seq: int, timeout_s: float) -> tuple[dict[str, Any], float]:
        raise NotImplementedError

    def _ask(self, header: dict[str, Any], payload: bytes | None, expect: str, timeout_s: float,
             **spec: Any) -> tuple[dict[str, Any], float]:
        return self._receive(self._send(header, payload, expect, **spec), timeout_s)

    def drain(self, timeout_s: float = LOAD_TIMEOUT_S) -> None:
        """Read every reply still owed (before a timed request: the host must be idle)."""
        for seq in sorted(self.waiting):
            self.answered[seq] = self._receive(seq, timeout_s)

    def start(self, *, backend: str, census: str | None = None, task_dir: str | None = None) -> Pending:
        """Start the backend (CUDA context, the census, torch for baselines) while the verdict builds."""
        seq = self._send({"kind": "start", "backend": backend, "census": census, "task_dir": task_dir}, None,
                         "started")

        def done(out: dict[str, Any], _ms: float) -> dict[str, Any]:
            self.census = out["census"]
            return out
        return Pending(self, seq, done)

    def load(self, *, backend: str, helper: str, libs: list[str], entry: str, fields: list[list[str]],
             threads: int | None = None, task_dir: str | None = None, census: str | None = None,
             confine: dict[str, Any] | None = None) -> dict[str, Any]:
        out, _ = self._ask({"kind": "load", "backend": backend, "helper": helper, "libs": libs, "entry": entry,
                            "fields": fields, "threads": threads, "task_dir": task_dir, "census": census,
                            "confine": confine}, None, "loaded", LOAD_TIMEOUT_S)
        self.confined = out["confined"]
        self.census = out["census"]
        self.loaded_libs = out["libs"]
        return out

    def prepare(self, spec: ScenarioSpec, payload: bytes, timeout_s: float = LOAD_TIMEOUT_S) -> None:
        self.prepare_async(spec, payload).result(timeout_s)

    def prepare_async(self, spec: ScenarioSpec, payload: bytes) -> Pending:
        self.drain()  # the shared buffer is about to be written: nothing may still read it
        self.inputs = {b.name for b in spec.inputs}
        header: dict[str, Any] = {"kind": "prepare", "spec": spec.to_json()}
        if self.bulk is not None and len(payload) >= BULK_MIN:
            header |= {"bulk": len(payload), "bulk_size": self.bulk.put(payload)}
            payload = None
        return Pending(self, self._send(header, payload, "prepared"), lambda out, ms: None)

    def rounds(self, plan: list[tuple[int, list[int]]], seeds: list[int | None], *, flush: bool,
               check_inputs: bool, timeout_s: float) -> Rounds:
        """A timed request: the verdict's clock brackets the calls alone; the launch census (its
        flush and attribution, a cost that does not grow with the calls) is asked for after."""
        census = bool(self.census.get("on"))
        r = self.rounds_async(plan, seeds, flush=flush, check_inputs=check_inputs,
                              census_later=census).result(timeout_s)
        if census:
            out, _ = self._ask({"kind": "census"}, None, "census_done", timeout_s, calls=len(r.wall_ms))
            r.census = out["census"]
        return r

    def rounds_async(self, plan: list[tuple[int, list[int]]], seeds: list[int | None], *, flush: bool,
                     check_inputs: bool, census_later: bool = False) -> Pending:
        calls = sum(len(order) for _, order in plan)
        census = bool(self.census.get("on"))
        seq = self._send({"kind": "rounds", "plan": [[s, list(o)] for s, o in plan], "seeds": seeds,
                          "flush": flush, "check_inputs": check_inputs, "census_later": census_later}, None,
                         "rounds_done", calls=calls, with_modified=check_inputs, inputs=self.inputs, census=census,
                         census_later=census_later)

        def done(out: dict[str, Any], ms: float) -> Rounds:
            return Rounds(out["returned"], out["event_ms"], out["wall_ms"], out["other_cpu_ms"], out["outside_ms"],
                          out.get("modified"), out.get("late"), out["libs"], ms, out.get("census"))
        return Pending(self, seq, done)

    def fetch(self, slot: int, output: str, blocks: list[tuple[int, int]] | None, nbytes: int) -> tuple[bytes, float]:
        self.drain()
        header: dict[str, Any] = {"kind": "fetch", "slot": slot, "output": output,
                                  "blocks": None if blocks is None else [list(b) for b in blocks]}
        shared = self.bulk is not None and nbytes >= BULK_MIN
        if shared:
            header["bulk_size"] = self.bulk.room(nbytes)
        out, ms = self._ask(header, None, "data", FETCH_TIMEOUT_S, nbytes=nbytes, bulk=shared)
        if out.get("bulk"):
            return self.bulk.take(nbytes), ms  # a copy, taken once: what the host says is fixed here
        return out["payload"], ms

    def baselines(self) -> tuple[list[str], dict[str, str]]:
        return self.baselines_async().result(LOAD_TIMEOUT_S)

    def baselines_async(self) -> Pending:
        seq = self._send({"kind": "baselines"}, None, "baselines_ready")
        return Pending(self, seq, lambda out, ms: (out["names"], out["errors"]))

    def close(self) -> None:
        raise NotImplementedError

    def pids(self) -> list[int]:
        """Processes whose CPU time is the host's (for the contention measure)."""
        return []


def _failure_of(exc: HostReportedError) -> HostFailure:
    return HostFailure(exc.kind, str(exc))


class LocalHost(CandidateHost):
    """HostCore in this process; replies still go through encode and check_reply. A request runs
    when it is sent (there is no other process to work beside the verdict)."""

    def __init__(self) -> None:
        super().__init__()
        self.core: HostCore | None = None
        self.reader_count = 0
        self.sandbox_note = "in-process host (trusted code only): no sandbox"
        self.passive_threads = os.environ.get("OMP_WAIT_POLICY", "").upper() == "PASSIVE"
        self.early: Any = None  # what `start` set up (evaluator.host.Early)

    def _send(self, header: dict[str, Any], payload: bytes | None, expect: str, **spec: Any) -> int:
        from evaluator.host import load_core, start_core

        self.seq += 1
        seq = self.seq
        t0 = time.perf_counter()
        kind = header["kind"]
        try:
            if kind == "start":
                self.early = start_core(header)
                reply, data = {"kind": "started", "census": {"on": self.early.census is not None,
                                                             "note": self.early.census_note}}, None
            elif kind == "load":
                header = dict(header, confine=None)
                self.core, confined, libs = load_core(header, self.early)
                reply = {"kind": "loaded", "threads": getattr(getattr(self.core.backend, "helper", None),
                                                              "threads", 1), "confined": confined, "libs": [],
                         "census": self.core.census_state()}
                data = None
            else:
                assert self.core is not None
                reply, data = _dispatch(self.core, header, payload)
        except HostFailure:
            raise
        except Exception as exc:  # noqa: BLE001 - what a process host would send as an error reply
            from evaluator.errors import KernelFault

            kind_ = "fault" if isinstance(exc, KernelFault) else "setup" if kind in ("start", "load") else "internal"
            raise HostFailure(kind_, f"{type(exc).__name__}: {exc}") from None
        ms = (time.perf_counter() - t0) * 1e3
        reply["seq"] = seq
        line, *rest = encode(reply, data)
        self.reader_count += 1
        import json

        msg = Message(json.loads(bytes(line)), bytes(rest[0]) if rest else b"")
        try:
            self.answered[seq] = (check_reply(self.reader_count, msg, expect, seq, **spec), ms)
        except HostReportedError as exc:
            raise _failure_of(exc) from None
        except ProtocolError as exc:
            raise HostFailure("protocol", str(exc)) from None
        return seq

    def _receive(self, seq: int, timeout_s: float) -> tuple[dict[str, Any], float]:
        return self.answered.pop(seq)

    def close(self) -> None:
        if self.core is not None:
            self.core.close()
            self.core = None


def _dispatch(core: HostCore, h: dict[str, Any], payload: bytes | None) -> tuple[dict[str, Any], bytes | None]:
    kind = h["kind"]
    if kind == "prepare":
        core.prepare(ScenarioSpec.from_json(h["spec"]), memoryview(payload or b""))
        return {"kind": "prepared"}, None
    if kind == "census":
        return {"kind": "census_done", **core.census_now()}, None
    if kind == "rounds":
        records = core.rounds([(int(s), list(o)) for s, o in h["plan"]], h["seeds"], h["flush"], h["check_inputs"],
                              bool(h.get("census_later")))
        # in-process, what the verdict itself maps would show: run-time loads are checked only in
        # a host of its own
        reply: dict[str, Any] = {"kind": "rounds_done", "libs": []}
        for key in ("returned", "event_ms", "wall_ms", "other_cpu_ms", "outside_ms"):
            reply[key] = [getattr(r, key) for r in records]
        if h["check_inputs"]:
            reply["modified"] = [r.modified for r in records]
            reply["late"] = [r.late for r in records]
        if core.attribution is not None:
            reply |= core.attribution.to_reply()
        return reply, None
    if kind == "fetch":
        data = core.fetch(h["slot"], h["output"], None if h["blocks"] is None else [tuple(b) for b in h["blocks"]])
        return {"kind": "data", "nbytes": len(data)}, data
    if kind == "baselines":
        names, errors = core.baselines()
        return {"kind": "baselines_ready", "names": names, "errors": errors}, None
    raise RuntimeError(f"unknown request {kind}")


class ProcessHost(CandidateHost):
    """`python -m evaluator host` in a child process, sandboxed when a sandbox works here."""

    def __init__(self, *, sandbox: Any, python: str, scratch: Path, log: Any, env: dict[str, str] | None = None,
                 hidden: tuple[Path, ...] = (), readable: tuple[Path, ...] = (), stamp: Any = None) -> None:
        super().__init__()
        from evaluator.sandbox import Confinement

        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        self.bulk = SharedBuffer()
        child_bulk = fcntl.fcntl(self.bulk.fd, fcntl.F_DUPFD, HIGH_FD)
        # the host's ends above the fds the sandbox prologue uses; ours close-on-exec
        child_req = fcntl.fcntl(req_r, fcntl.F_DUPFD, HIGH_FD)
        child_rep = fcntl.fcntl(rep_w, fcntl.F_DUPFD, HIGH_FD)
        for fd in (req_r, rep_w):
            os.close(fd)
        with contextlib.suppress(OSError):
            fcntl.fcntl(rep_r, 1031, 1 << 20)  # F_SETPIPE_SZ: fewer wake-ups for large payloads
            fcntl.fcntl(req_w, 1031, 1 << 20)
        argv = [python, "-m", "evaluator", "host", "--requests", str(child_req), "--replies", str(child_rep),
                "--bulk", str(child_bulk)]
        self.sandbox = sandbox.kind
        self.sandbox_note = sandbox.note
        seen = visible_dirs(readable + (_REPO_ROOT, Path(sys.prefix), Path(sys.base_prefix)))
        wrapped = sandbox.wrap(argv, Confinement(writable=(scratch,), readable=seen, hidden=hidden, chdir=scratch))
        self.proc = subprocess.Popen(
            wrapped, stdin=subprocess.DEVNULL, stdout=log, stderr=log, pass_fds=(child_req, child_rep, child_bulk),
            env=host_environment(env, scratch), cwd=str(scratch), start_new_session=True)
        for fd in (child_req, child_rep, child_bulk):
            os.close(fd)
        self.req_fd, self.rep_fd = req_w, rep_r
        self.reader = Reader(rep_r)
        self.log = log
        self._dead: HostFailure | None = None
        self.stamp = stamp  # native.wire_stamp(): waits for a descriptor outside the interpreter lock

    def _send(self, header: dict[str, Any], payload: bytes | None, expect: str, **spec: Any) -> int:
        if self._dead is not None:
            raise self._dead
        self.seq += 1
        seq = self.seq
        self.waiting[seq] = (expect, spec | {"what": header["kind"]}, time.perf_counter_ns())
        try:
            write_message(self.req_fd, dict(header, seq=seq), payload)
        except (BrokenPipeError, OSError):
            raise self._fail(self._death(header["kind"])) from None
        return seq

    def _receive(self, seq: int, timeout_s: float) -> tuple[dict[str, Any], float]:
        """The reply to `seq`, reading (and keeping) the replies owed before it. The verdict's clock
        stops when the reply arrives (stamped outside the interpreter lock where the wire helper
        is built: a busy thread of the verdict must not lengthen what it measures)."""
        if seq in self.answered:
            return self.answered.pop(seq)
        if self._dead is not None:
            raise self._dead
        deadline = time.monotonic() + timeout_s
        while seq not in self.answered:
            head = min(self.waiting)
            expect, spec, sent = self.waiting.pop(head)
            what = spec.pop("what")
            try:
                arrived = self._wait_readable(deadline)
                msg = self.reader.read(deadline=deadline)
                ms = ((arrived or time.perf_counter_ns()) - sent) / 1e6
                self.answered[head] = (check_reply(self.reader.count, msg, expect, head, **spec), ms)
            except HostReportedError as exc:
                raise self._fail(_failure_of(exc)) from None
            except ProtocolError as exc:
                raise self._fail(HostFailure("protocol", str(exc))) from None
            except HostTimeout:
                raise self._fail(HostFailure("hang", f"the candidate host did not answer `{what}` within "
                                                      f"{timeout_s:g} s (each call may take call_timeout_s)")) from None
            except (HostGone, BrokenPipeError):
                raise self._fail(self._death(what)) from None
        return self.answered.pop(seq)

    def _wait_readable(self, deadline: float) -> int | None:
        """perf_counter_ns when a reply starts to arrive (None: no stamp helper, or bytes already read)."""
        if self.stamp is None or self.reader.buf:
            return None
        left_ms = max(0, int((deadline - time.monotonic()) * 1e3))
        at = self.stamp(self.rep_fd, left_ms)
        if at == 0:
            raise HostTimeout()
        return at if at > 0 else None

    def _death(self, what: str) -> HostFailure:
        try:
            rc = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            return HostFailure("crash", f"the candidate host closed its replies during `{what}` but did not exit")
        sig = -rc if rc < 0 else rc - 128 if rc > 128 and (rc - 128) in signal.valid_signals() else None
        if sig:
            name = signal.Signals(sig).name if sig in signal.valid_signals() else str(sig)
            return HostFailure("crash", f"the candidate host died with {name} during `{what}`")
        return HostFailure("crash", f"the candidate host exited with status {rc} during `{what}`")

    def _fail(self, failure: HostFailure) -> HostFailure:
        self._dead = failure
        self.kill()
        return failure

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)

    def close(self) -> None:
        # a polite close when it is idle; a host still busy with something (a start the evaluation
        # no longer needs) is simply ended
        if self._dead is None and self.proc.poll() is None and not self.waiting:
            with contextlib.suppress(HostFailure):
                self._ask({"kind": "close"}, None, "bye", 30.0)
        self.kill()
        for fd in (self.req_fd, self.rep_fd):
            with contextlib.suppress(OSError):
                os.close(fd)
        if self.bulk is not None:
            self.bulk.close()
            self.bulk = None

    def pids(self) -> list[int]:
        return descendants(self.proc.pid) + [self.proc.pid]


def visible_dirs(paths: tuple[Path, ...]) -> tuple[Path, ...]:
    """Of the directories the host must read, those the sandbox's private /tmp and /dev/shm would
    hide (nested ones once)."""
    out: list[Path] = []
    for p in sorted({Path(p).resolve() for p in paths if Path(p).is_dir()}):
        if any(p == root or root in p.parents for root in (Path("/tmp"), Path("/dev/shm"))) and \
                not any(q in p.parents for q in out):
            out.append(p)
    return tuple(out)


def host_environment(base: dict[str, str] | None, scratch: Path) -> dict[str, str]:
    """The host's environment: an allow-list of the caller's (no credentials), plus what the host
    needs: the evaluator on PYTHONPATH, a scratch HOME and TMPDIR, and kernel threads that sleep
    when idle (OMP_WAIT_POLICY=PASSIVE) so CPU time between calls means work."""
    source = os.environ if base is None else base
    env = {k: source[k] for k in HOST_ENV if k in source}
    env.update(PYTHONPATH=str(_REPO_ROOT), PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1",
               HOME=str(scratch), TMPDIR=str(scratch), OMP_WAIT_POLICY="PASSIVE",
               OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return env


def scratch_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="ks-host-"))
