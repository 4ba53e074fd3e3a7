"""Where sessions live and what a session directory holds.

    <session>/
      events.jsonl     append-only; the one source of truth
      inbox.jsonl      console -> runner: human messages waiting to be delivered
      workspace/       the agent's working copy
      evals/NNNN.json  full evaluator reports
      writer.lock      who writes the session (pid and host); the lock itself is an flock on events.jsonl

The sessions root is `--sessions-dir`, else `$KERNELSEEK_HOME/sessions`, else
`$XDG_DATA_HOME/kernelseek/sessions` (default `~/.local/share/kernelseek/sessions`).
"""
from __future__ import annotations

import json
import os
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from sessions.log import SessionError, lock_is_held


def kernelseek_home() -> Path:
    env = os.environ.get("KERNELSEEK_HOME")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(xdg) / "kernelseek"


def sessions_root(override: str | os.PathLike | None = None) -> Path:
    return Path(override).expanduser() if override else kernelseek_home() / "sessions"


@dataclass(frozen=True)
class SessionPaths:
    root: Path

    @property
    def name(self) -> str:
        return self.root.name

    @property
    def events(self) -> Path:
        return self.root / "events.jsonl"

    @property
    def inbox(self) -> Path:
        return self.root / "inbox.jsonl"

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def evals(self) -> Path:
        return self.root / "evals"

    @property
    def lock(self) -> Path:
        return self.root / "writer.lock"

    def eval_report(self, n: int) -> Path:
        return self.evals / f"{n:04d}.json"

    def next_eval_report(self) -> Path:
        self.evals.mkdir(parents=True, exist_ok=True)
        taken = [int(p.stem) for p in self.evals.glob("[0-9][0-9][0-9][0-9].json")]
        return self.eval_report(max(taken, default=0) + 1)

    def is_running(self) -> bool:
        """Whether a runner writes the session: its flock on events.jsonl, or (the log moved
        away under it) the one it also holds on writer.lock."""
        return lock_is_held(self.events) or lock_is_held(self.lock)


def new_session_name(task: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", task.strip("/").split("/")[-1]) or "session"
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{slug}"


def create_session(root: str | os.PathLike | None = None, *, task: str = "session",
                   path: str | os.PathLike | None = None) -> SessionPaths:
    """Make a new session directory (given `path`, or a fresh name under `root`)."""
    if path is not None:
        target = Path(path).expanduser()
        if (target / "events.jsonl").exists() and (target / "events.jsonl").stat().st_size > 0:
            raise SessionError(f"{target} already holds a session (use --resume to continue it)")
    else:
        base = sessions_root(root)
        target = base / new_session_name(task)
        n = 1
        while target.exists():
            n += 1
            target = base / f"{new_session_name(task)}-{n}"
    sp = SessionPaths(target)
    for d in (sp.root, sp.workspace, sp.evals):
        d.mkdir(parents=True, exist_ok=True)
    return sp


def resolve_session(arg: str | os.PathLike, root: str | os.PathLike | None = None) -> SessionPaths:
    """A session given as a directory, its events.jsonl, or a name under the sessions root."""
    p = Path(arg).expanduser()
    if p.is_file() and p.name == "events.jsonl":
        return SessionPaths(p.parent)
    if p.is_dir() and (p / "events.jsonl").exists():
        return SessionPaths(p)
    under = sessions_root(root) / str(arg)
    if under.is_dir() and (under / "events.jsonl").exists():
        return SessionPaths(under)
    if p.is_dir():
        raise SessionError(f"{p}: not a session (no events.jsonl)")
    raise SessionError(f"no session {str(arg)!r} (looked at {p} and under {sessions_root(root)})")


@dataclass
class SessionInfo:
    name: str
    path: str
    task: str | None
    model: str | None
    agent: str | None
    started: float | None
    last_t: float | None
    status: str  # running | ended: <reason> | stopped
    events: int
    best_geomean: float | None

    @property
    def started_text(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(self.started)) if self.started else "?"

    def to_dict(self) -> dict:
        return asdict(self)


def first_event(events_path: str | os.PathLike) -> dict:
    """The first event of a session's log (its session_start), reading one line; {} when there is
    none or it cannot be read."""
    try:
        with open(events_path, "rb") as f:
            first = json.loads(f.readline() or b"{}")
    except (OSError, ValueError):
        return {}
    return first if isinstance(first, dict) else {}


def _first_and_tail(path: Path, tail_bytes: int = 1 << 16) -> tuple[dict | None, list[dict], int]:
    """The first event, the events in the last `tail_bytes`, and an estimate of the count."""
    first = None
    tail: list[dict] = []
    size = path.stat().st_size
    with open(path, "rb") as f:
        line = f.readline()
        try:
            first = json.loads(line)
        except ValueError:
            first = None
        f.seek(max(0, size - tail_bytes))
        chunk = f.read()
    lines = chunk.split(b"\n")
    if size > tail_bytes:
        lines = lines[1:]
    for raw in lines:
        try:
            ev = json.loads(raw)
        except ValueError:
            continue
        if isinstance(ev, dict):
            tail.append(ev)
    count = (tail[-1].get("seq", -1) + 1) if tail and isinstance(tail[-1].get("seq"), int) else len(tail)
    return first if isinstance(first, dict) else None, tail, count


def session_info(sp: SessionPaths) -> SessionInfo:
    first, tail, count = _first_and_tail(sp.events)
    status = "stopped"
    best = None
    last_t = None
    for ev in tail:
        last_t = ev.get("t", last_t)
        if ev.get("type") == "eval_result":
            s = ev.get("summary") or {}
            b = s.get("best_geomean", s.get("geomean") if s.get("all_correct") else None)
            if isinstance(b, (int, float)):
                best = max(best or 0.0, float(b))
        if ev.get("type") == "session_end":
            status = f"ended: {ev.get('reason')}"
    if sp.is_running():
        status = "running"
    first = first or {}
    return SessionInfo(
        name=sp.name, path=str(sp.root), task=first.get("task"), model=first.get("model"),
        agent=first.get("agent"), started=first.get("t"), last_t=last_t, status=status,
        events=count, best_geomean=best,
    )


def list_sessions(root: str | os.PathLike | None = None) -> list[SessionInfo]:
    """Sessions directly under the root, newest first."""
    base = Path(root) if root else sessions_root()
    if not base.is_dir():
        return []
    infos = []
    for d in base.iterdir():
        if d.is_dir() and (d / "events.jsonl").is_file():
            try:
                infos.append(session_info(SessionPaths(d)))
            except OSError:
                continue
    infos.sort(key=lambda i: i.started or 0.0, reverse=True)
    return infos
