"""The Slurm launcher: runners as batch jobs, several sessions as one job array.

The session directories are made first, on the shared KERNELSEEK_HOME, then one batch script is
written (`<home>/batches/<batch>/job.sh`: array task i runs the agent on session i) and submitted
with `sbatch --parsable --array=0-(N-1)`. Each session's launch.json records its job id (`812_3`
for array element 3: what `scancel`, `squeue` and `sacct` accept), and slurmstepd's output goes to
`<session>/slurm.out` (the job's last words survive there: `... CANCELLED AT ... DUE TO TIME
LIMIT`). The runner's own output goes to `<session>/runner.log`, as with a local launch.

Options come from the `slurm:` section of the agent config file, then from flags: `gpus`,
`partition`, `time`, `account`, `cpus`, `mem`, `options` (more sbatch arguments), `setup` (shell
lines the job runs first, e.g. `module load cuda`), `python` (the interpreter on the compute
nodes; default: this one, which must then be on the shared file system).
"""
from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from agent.launch import LaunchError
from agent.launchers import Handle, LaunchSpec, LaunchUsageError, Launcher
from agent.launchers.slurm_jobs import JobInfo, SlurmQuery, parse_last_words
from sessions.digest import RunnerView, SessionDigest
from sessions.layout import SessionPaths, kernelseek_home, make_private_dir, read_launch, write_launch

SLURM_OUT = "slurm.out"
# the exit statuses of `kernelseek run` that mean the runner ended the session itself
CLEAN_EXITS = (0, 3, 130)


@dataclass(frozen=True)
class SlurmOptions:
    gpus: str | None = None
    partition: str | None = None
    time: str | None = None
    account: str | None = None
    cpus: int | None = None
    mem: str | None = None
    options: tuple[str, ...] = ()
    setup: tuple[str, ...] = ()
    python: str | None = None

    @classmethod
    def from_mapping(cls, data: object, where: str = "slurm") -> "SlurmOptions":
        """From the config file's `slurm:` section; one clear line for a bad key or value."""
        if data in (None, {}):
            return cls()
        if not isinstance(data, dict):
            raise LaunchUsageError(f"{where}: expected a mapping (gpus, partition, time, account, cpus, mem, "
                              "options, setup, python)")
        known = {f.name for f in fields(cls)}
        values: dict = {}
        for key, value in data.items():
            if key not in known:
                raise LaunchUsageError(f"{where}: unknown setting {key!r} (known: {', '.join(sorted(known))})")
            if key in ("options", "setup"):
                items = [value] if isinstance(value, str) else value
                if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
                    raise LaunchUsageError(f"{where}.{key}: expected a list of strings")
                values[key] = tuple(items)
            elif key == "cpus":
                try:
                    values[key] = int(value)
                except (TypeError, ValueError):
                    raise LaunchUsageError(f"{where}.cpus: expected a number, got {value!r}") from None
            elif value is not None:
                values[key] = str(value)
        return cls(**values)

    def merged(self, **flags) -> "SlurmOptions":
        """These options with the flags given on the command line on top (None: not given)."""
        extra = tuple(flags.pop("options", None) or ())
        out = replace(self, **{k: v for k, v in flags.items() if v is not None})
        return replace(out, options=out.options + extra) if extra else out

    def sbatch_args(self) -> list[str]:
        args = []
        for flag, value in (("--gpus", self.gpus), ("--partition", self.partition), ("--time", self.time),
                            ("--account", self.account), ("--cpus-per-task", self.cpus), ("--mem", self.mem)):
            if value is not None:
                args.append(f"{flag}={value}")
        return args + list(self.options)


def batch_script(entries: list[tuple[SessionPaths, list[str]]], *, setup: tuple[str, ...] = (),
                 note: str = "") -> str:
    """The job script: array task i runs entries[i] (a single job runs entries[0])."""
    lines = ["#!/bin/bash",
             f"# KernelSeek: {len(entries)} session(s), one per array task.{' ' + note if note else ''}",
             "# The session directory is the whole interface: the runner writes events.jsonl there",
             "# and reads inbox.jsonl; its own output goes to runner.log.",
             *setup,
             'case "${SLURM_ARRAY_TASK_ID:-0}" in']
    for i, (session, argv) in enumerate(entries):
        lines.append(f"  {i}) session={shlex.quote(str(session.root))}; "
                     f"cmd=({' '.join(shlex.quote(a) for a in argv)}) ;;")
    lines += ['  *) echo "kernelseek: no session for array task $SLURM_ARRAY_TASK_ID" >&2; exit 2 ;;',
              "esac",
              '"${cmd[@]}" >> "$session/runner.log" 2>&1',
              "rc=$?",
              "# goal met, a limit, a stop: the runner ended its session itself",
              f"case $rc in {'|'.join(str(c) for c in CLEAN_EXITS)}) exit 0 ;; *) exit $rc ;; esac",
              ""]
    return "\n".join(lines)


def parse_submitted(stdout: str) -> str:
    """`sbatch --parsable` prints `jobid` or `jobid;cluster`."""
    jid = stdout.strip().splitlines()[-1].split(";")[0].strip() if stdout.strip() else ""
    if not jid.isdigit():
        raise LaunchError(f"sbatch did not print a job id: {stdout.strip()[:200]!r}")
    return jid


class SlurmHandle(Handle):
    launcher = "slurm"

    def __init__(self, session: SessionPaths, job_id: str, record: dict) -> None:
        super().__init__(session)
        self.job_id = job_id
        self.record = record
        self.info: JobInfo | None = None  # the last answer from the scheduler
        self.asked = False

    def final(self) -> JobInfo | None:
        """The finished state this job was last seen in (kept in the launch record)."""
        for job in reversed(self.record.get("jobs") or []):
            if job.get("job_id") == self.job_id and isinstance(job.get("final"), dict):
                return JobInfo.from_dict(job["final"])
        return None

    def last_words(self) -> JobInfo | None:
        try:
            text = (self.session.root / SLURM_OUT).read_text(errors="replace")[-20000:]
        except OSError:
            return None
        return parse_last_words(self.job_id, text)

    def learn(self, info: JobInfo | None) -> None:
        """Take the scheduler's answer (None: it no longer knows the job); keep a final one."""
        if info is None:
            info = self.final()
            if info is None:
                info = self.last_words()
                if info is not None:  # the scheduler has forgotten the job: its last words stay
                    self._keep_final(info)
        elif not info.active and self.final() is None:
            self._keep_final(info)
        self.info = info
        self.asked = True

    def _keep_final(self, info: JobInfo) -> None:
        record = read_launch(self.session) or self.record
        for job in reversed(record.get("jobs") or []):
            if job.get("job_id") == self.job_id:
                job["final"] = info.to_dict()
                try:
                    write_launch(self.session, record)
                except OSError:
                    pass  # a read-only view of someone's sessions: the scheduler is asked again
                self.record = record
                return

    def alive(self) -> bool | None:
        if not self.asked:
            known = self.final()
            self.learn(known if known is not None else SlurmQuery().jobs([self.job_id]).get(self.job_id))
        if self.info is None:
            return None
        return self.info.active

    def poll(self) -> bool | None:
        self.asked = False
        return self.alive()

    def describe(self) -> RunnerView:
        alive = self.alive()
        i = self.info
        node = i.node if i else None
        where = f"job {self.job_id}" + (f" on {node}" if node else "")
        if i is None:
            return RunnerView("slurm", where, None, job_id=self.job_id,
                              reason="Slurm no longer knows this job (no accounting, past MinJobAge)")
        return RunnerView("slurm", where, alive, job_id=self.job_id, state=i.state, reason=i.reason, node=node,
                          gpus=i.gpus, exit_code=i.exit_code, source=i.source)

    def cancel(self) -> str:
        if shutil.which("scancel") is None:
            raise LaunchError("scancel is not on PATH: cancel the job from a machine with Slurm's commands")
        r = subprocess.run(["scancel", self.job_id], capture_output=True, text=True, timeout=30)
        if r.returncode != 0 and "already completing or completed" not in r.stderr:
            raise LaunchError(f"scancel {self.job_id}: {r.stderr.strip() or r.returncode}")
        self.info, self.asked = None, False
        return f"cancelled Slurm job {self.job_id}"


class SlurmLauncher(Launcher):
    name = "slurm"

    def __init__(self, options: SlurmOptions | None = None) -> None:
        self.options = options or SlurmOptions()

    def start(self, specs: list[LaunchSpec], *, batch: str | None = None) -> list[Handle]:
        if not specs:
            return []
        if shutil.which("sbatch") is None:
            raise LaunchError("sbatch is not on PATH: --on slurm needs Slurm's client commands "
                              "(run from a login node of the cluster)")
        argv = [self._with_python(s.argv) for s in specs]
        if len(specs) > 1:
            # array task i writes its slurmstepd output into session i: the sessions must be named
            # <prefix><i> (the caller makes them so) for one --output pattern to reach each
            prefix = os.path.commonprefix([s.session.root.name for s in specs])
            names = [f"{prefix}{i}" for i in range(len(specs))]
            if [s.session.root.name for s in specs] != names or len({s.session.root.parent for s in specs}) != 1:
                raise LaunchUsageError("the sessions of one array must be siblings named <prefix>0 ... <prefix>N-1")
            output = str(specs[0].session.root.parent / f"{prefix}%a" / SLURM_OUT)
        else:
            output = str(specs[0].session.root / SLURM_OUT)
        where = self._script_dir(specs, batch)
        script = where / "job.sh"
        if script.exists():
            script = where / f"job-{time.strftime('%Y%m%d-%H%M%S')}.sh"
        script.write_text(batch_script(list(zip([s.session for s in specs], argv)), setup=self.options.setup,
                                       note=f"Batch {batch}." if batch else ""))
        os.chmod(script, 0o700)
        name = f"ks-{batch or specs[0].session.name}"[:64]
        cmd = ["sbatch", "--parsable", f"--job-name={name}", f"--output={output}", "--open-mode=append",
               *(([f"--array=0-{len(specs) - 1}"]) if len(specs) > 1 else []), *self.options.sbatch_args(),
               str(script)]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            raise LaunchError(f"sbatch refused the job: {r.stderr.strip() or r.stdout.strip() or r.returncode}")
        jid = parse_submitted(r.stdout)
        host = socket.gethostname()
        handles = []
        for i, (spec, args) in enumerate(zip(specs, argv)):
            job_id = f"{jid}_{i}" if len(specs) > 1 else jid
            record = read_launch(spec.session) or {"created_t": round(time.time(), 3), **spec.record}
            record["launcher"] = "slurm"
            if spec.arm is not None:
                record["arm"] = spec.arm
            if batch:
                record["batch"] = batch
            record.setdefault("jobs", []).append({
                "job_id": job_id, "submitted_t": round(time.time(), 3), "host": host, "script": str(script),
                "sbatch": cmd[1:-1], "argv": args, "resume": spec.resume})
            write_launch(spec.session, record)
            handles.append(SlurmHandle(spec.session, job_id, record))
        return handles

    def _with_python(self, argv: list[str]) -> list[str]:
        if self.options.python and argv and argv[0] == sys.executable:
            return [self.options.python, *argv[1:]]
        return argv

    def _script_dir(self, specs: list[LaunchSpec], batch: str | None) -> Path:
        if batch:
            where = kernelseek_home() / "batches" / batch
            make_private_dir(where.parent)
            make_private_dir(where)
            return where
        return specs[0].session.root

    def handle(self, session: SessionPaths, record: dict, digest: SessionDigest | None = None) -> Handle:
        jobs = [j for j in record.get("jobs") or [] if j.get("job_id")]
        if not jobs:
            raise LaunchError(f"{session.launch}: no Slurm job recorded")
        return SlurmHandle(session, str(jobs[-1]["job_id"]), record)

    def describe_all(self, handles: list[Handle]) -> list[RunnerView]:
        ids = [h.job_id for h in handles if isinstance(h, SlurmHandle) and h.final() is None]
        found = SlurmQuery().jobs(ids) if ids else {}
        for h in handles:
            if isinstance(h, SlurmHandle):
                h.learn(found.get(h.job_id))
        return [h.describe() for h in handles]
