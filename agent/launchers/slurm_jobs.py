"""What Slurm says about jobs: their state, reason, node and GPUs, from whichever source answers.

Clusters differ in what they keep. With accounting (slurmdbd) `sacct` knows every job forever and
says who cancelled it; without it, `squeue --states=all` and `scontrol show job` know a finished job
only for MinJobAge (300 s by default). After that, the job's own output file still holds
slurmstepd's last words (`*** JOB 812 ON gpu7 CANCELLED AT ... DUE TO TIME LIMIT ***`), and the
launcher keeps the last state it saw in the session's launch record. `query_jobs` asks in that
order and says which source answered; the parsers are pure and tested on real output.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

Run = Callable[[list[str]], subprocess.CompletedProcess]

ACTIVE = frozenset(("PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED",
                    "REQUEUE_HOLD", "REQUEUE_FED", "RESIZING", "SIGNALING", "STAGE_OUT", "STOPPED",
                    "RESV_DEL_HOLD"))


@dataclass(frozen=True)
class JobInfo:
    job_id: str  # as users name it: 812, or 812_3 for an array element
    state: str  # Slurm's word: PENDING, RUNNING, COMPLETED, CANCELLED, TIMEOUT, NODE_FAIL, ...
    reason: str | None = None
    node: str | None = None
    exit_code: str | None = None
    gpus: str | None = None  # allocated GPU indices on the node, e.g. "0,2"
    source: str = ""  # sacct | squeue | scontrol | output | record

    @property
    def active(self) -> bool:
        return self.state in ACTIVE

    def to_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if v not in (None, "")}

    @classmethod
    def from_dict(cls, d: dict) -> "JobInfo | None":
        if not isinstance(d, dict) or not d.get("job_id") or not d.get("state"):
            return None
        return cls(**{k: str(v) for k, v in d.items() if k in cls.__dataclass_fields__})


def _clean(value: str | None) -> str | None:
    value = (value or "").strip()
    return None if value in ("", "None", "(null)", "N/A", "Unknown") else value


def expand_ids(job_id: str) -> list[str]:
    """`812_[2-4,7%2]` -> 812_2, 812_3, 812_4, 812_7 (pending array elements squeue folds)."""
    m = re.fullmatch(r"(\d+)_\[([0-9,\-]+)(?:%\d+)?\]", job_id)
    if not m:
        return [job_id]
    out = []
    for part in m.group(2).split(","):
        lo, _, hi = part.partition("-")
        if lo.isdigit():
            out += [f"{m.group(1)}_{i}" for i in range(int(lo), int(hi or lo) + 1)]
    return out


def _rows(text: str, fields: int):
    """The `|`-separated rows of a listing that have at least `fields` fields and a job id."""
    for line in text.splitlines():
        parts = line.strip().split("|")
        if len(parts) >= fields and parts[0]:
            yield parts


def parse_squeue(text: str) -> dict[str, JobInfo]:
    """Lines of `squeue -h --states=all -o '%i|%T|%r|%N'`."""
    out = {}
    for parts in _rows(text, 4):
        for jid in expand_ids(parts[0]):
            out[jid] = JobInfo(jid, parts[1].strip(), _clean(parts[2]), _clean(parts[3]), source="squeue")
    return out


_PAIR = re.compile(r"(?:^|\s)([A-Za-z_][\w:/]*)=(\S*)")
_GRES_IDX = re.compile(r"gpu(?::[^:(\s]+)?:\d+\(IDX:([0-9,\-]+)\)")


def parse_scontrol(text: str) -> dict[str, JobInfo]:
    """Lines of `scontrol -o -d show job [ID]` (one job per line)."""
    out = {}
    for line in text.splitlines():
        kv = dict(_PAIR.findall(line))
        if "JobId" not in kv or "JobState" not in kv:
            continue
        task = kv.get("ArrayTaskId")
        if kv.get("ArrayJobId") and task:
            ids = expand_ids(f"{kv['ArrayJobId']}_[{task}]") if not task.isdigit() else [f"{kv['ArrayJobId']}_{task}"]
        else:
            ids = [kv["JobId"]]
        gres = _GRES_IDX.search(line)
        for jid in ids:
            out[jid] = JobInfo(jid, kv["JobState"], _clean(kv.get("Reason")), _clean(kv.get("NodeList")),
                               _clean(kv.get("ExitCode")), gres.group(1) if gres else None, source="scontrol")
    return out


SACCT_FIELDS = "JobID,State,Reason,ExitCode,NodeList"


def parse_sacct(text: str) -> dict[str, JobInfo]:
    """Lines of `sacct -n -P -X -o JobID,State,Reason,ExitCode,NodeList`."""
    out = {}
    for parts in _rows(text, 5):
        words = parts[1].split()
        state = words[0] if words else "?"
        by = " ".join(words[1:])  # "by 1234": who cancelled it
        reason = _clean(parts[2])
        if by:
            reason = f"{by}" + (f", {reason}" if reason else "")
        for jid in expand_ids(parts[0]):
            out[jid] = JobInfo(jid, state, reason, _clean(parts[4]), _clean(parts[3]), source="sacct")
    return out


_LAST_WORDS = re.compile(r"\*\*\* JOB (\S+) ON (\S+) CANCELLED AT (\S+)(?: DUE TO ([A-Z ]+?))? \*\*\*")
_DUE_TO = {"TIME LIMIT": "TIMEOUT", "NODE FAILURE": "NODE_FAIL", "PREEMPTION": "PREEMPTED"}


def parse_last_words(job_id: str, text: str) -> JobInfo | None:
    """slurmstepd's line in a job's output file, when Slurm ended the job (the last one wins)."""
    found = None
    for m in _LAST_WORDS.finditer(text):
        due = m.group(4)
        state = _DUE_TO.get(due or "", "CANCELLED")
        found = JobInfo(job_id, state, f"{'due to ' + due.lower() if due else 'cancelled'} at {m.group(3)}",
                        m.group(2), source="output")
    if found is None and "oom_kill event" in text:
        found = JobInfo(job_id, "OUT_OF_MEMORY", "the job's memory limit was hit", source="output")
    return found


def _run(argv: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=30)


class SlurmQuery:
    """Asks the cluster about jobs with as few commands as possible (one per source)."""

    def __init__(self, run: Run = _run) -> None:
        self.run = run
        self.sacct_works: bool | None = None if shutil.which("sacct") else False

    def jobs(self, ids: Iterable[str]) -> dict[str, JobInfo]:
        want = sorted({i for i in ids if i})
        if not want:
            return {}
        found: dict[str, JobInfo] = {}
        if self.sacct_works is not False:
            r = self._call(["sacct", "-n", "-P", "-X", "-o", SACCT_FIELDS, "-j", ",".join(want)])
            if r is not None and r.returncode == 0:
                self.sacct_works = True
                found.update({k: v for k, v in parse_sacct(r.stdout).items() if k in want})
            elif r is None or "disabled" in (r.stderr or "") or "slurmdbd" in (r.stderr or ""):
                self.sacct_works = False
        missing = [i for i in want if i not in found or found[i].active]
        if missing:
            r = self._call(["squeue", "-h", "--states=all", "-o", "%i|%T|%r|%N", "-j", ",".join(missing)])
            if r is not None and r.returncode == 0:
                found.update({k: v for k, v in parse_squeue(r.stdout).items() if k in want})
        # scontrol for the exit code of finished jobs (asked once: the launcher keeps a finished
        # job's state). A job squeue does not list is unknown to scontrol too (the same memory).
        for jid in [i for i in want if i in found and not found[i].active and found[i].exit_code is None]:
            r = self._call(["scontrol", "-o", "-d", "show", "job", jid])
            if r is not None and r.returncode == 0:
                got = parse_scontrol(r.stdout).get(jid)
                if got is not None:
                    old = found[jid]
                    found[jid] = replace(old, gpus=old.gpus or got.gpus, exit_code=got.exit_code)
        return found

    def _call(self, argv: list[str]) -> subprocess.CompletedProcess | None:
        if shutil.which(argv[0]) is None:
            return None
        try:
            return self.run(argv)
        except (OSError, subprocess.SubprocessError):
            return None
