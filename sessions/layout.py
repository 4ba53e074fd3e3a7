"""Where sessions live and what a session directory holds.

    <session>/
      events.jsonl     append-only; the one source of truth
      inbox.jsonl      console -> runner: human messages waiting to be delivered
      workspace/       the agent's working copy
      evals/NNNN.json  full evaluator reports
      writer.lock      held (flock) by the one runner writing the session
      launch.json      how the runner was started: local (pid, host) or a Slurm job (sessions
                       started by a launcher; agent/launchers writes it)
      runner.log       the runner's own output when it was started detached

Session directories are private to their user (0700), or shared with one group the user names
(0770, setgid): the inbox is a door into an agent that runs shell commands, so a runner refuses a
session directory or inbox that anyone else can write (`require_private`).

The sessions root is `--sessions-dir`, else `$KERNELSEEK_HOME/sessions`, else
`$XDG_DATA_HOME/kernelseek/sessions` (default `~/.local/share/kernelseek/sessions`).
"""
from __future__ import annotations

import grp
import json
import os
import re
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from sessions.digest import DigestReader, SessionDigest
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

    @property
    def launch(self) -> Path:
        return self.root / "launch.json"

    def eval_report(self, n: int) -> Path:
        return self.evals / f"{n:04d}.json"

    def next_eval_report(self) -> Path:
        self.evals.mkdir(parents=True, exist_ok=True)
        taken = [int(p.stem) for p in self.evals.glob("[0-9][0-9][0-9][0-9].json")]
        return self.eval_report(max(taken, default=0) + 1)

    def is_running(self) -> bool:
        return lock_is_held(self.lock)


def new_session_name(task: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", task.strip("/").split("/")[-1]) or "session"
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{slug}"


def create_session(root: str | os.PathLike | None = None, *, task: str = "session",
                   path: str | os.PathLike | None = None, group: str | None = None) -> SessionPaths:
    """Make a new session directory (given `path`, or a fresh name under `root`), private to
    this user (0700), or shared with `group` (0770 and setgid, so its files keep the group)."""
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
    sp.root.parent.mkdir(parents=True, exist_ok=True)
    make_private_dir(sp.root, group=group)
    for d in (sp.workspace, sp.evals):
        d.mkdir(exist_ok=True)
    return sp


def make_private_dir(path: Path, *, group: str | None = None) -> None:
    """Create `path` (or tighten it) as 0700, or 0770+setgid owned by `group`."""
    path.mkdir(parents=True, exist_ok=True)
    if group:
        try:
            gid = grp.getgrnam(group).gr_gid
        except KeyError:
            raise SessionError(f"no group named {group!r} on this machine") from None
        os.chown(path, -1, gid)
        os.chmod(path, 0o2770)
    else:
        os.chmod(path, 0o700)


def _writable_by_others(path: Path, group: str | None, *, own: bool = True) -> str | None:
    """Why `path` lets someone other than its owner write it (None if nobody else can). With
    `own` False (the directory above a session) only a world-writable one is refused."""
    st = path.stat()
    mode = stat.S_IMODE(st.st_mode)
    sticky = stat.S_ISDIR(st.st_mode) and mode & stat.S_ISVTX
    if not own:
        return f"is writable by everyone (mode {mode & 0o7777:04o}): chmod o-w {path}" \
            if mode & 0o002 and not sticky else None
    if st.st_uid != os.getuid():
        return f"is owned by uid {st.st_uid}, not by you (uid {os.getuid()})"
    if mode & 0o002 and not sticky:
        return f"is writable by everyone (mode {mode & 0o7777:04o}): chmod o-w {path}"
    if mode & 0o020 and not sticky:
        try:
            gname = grp.getgrgid(st.st_gid).gr_name
        except KeyError:
            gname = str(st.st_gid)
        if gname != group:
            named = f" (the session's group is {group})" if group else ""
            return (f"is writable by group {gname} (mode {mode & 0o7777:04o}){named}: chmod g-w {path}, "
                    f"or name the group with --group {gname}")
    return None


def private_problems(paths: SessionPaths, *, group: str | None = None) -> list[str]:
    """What lets another user write this session's directory or inbox (empty when nothing)."""
    problems = []
    checks = [(paths.root, "the session directory", True), (paths.inbox, "the inbox", True),
              (paths.root.parent, "the directory holding the session", False)]
    for p, what, own in checks:
        try:
            why = _writable_by_others(p, group, own=own)
        except FileNotFoundError:
            continue
        if why:
            problems.append(f"{what} {p} {why}")
    return problems


def require_private(paths: SessionPaths, *, group: str | None = None) -> None:
    """Refuse (SessionError, one line) a session that someone else could steer through its inbox."""
    problems = private_problems(paths, group=group)
    if problems:
        raise SessionError(f"refusing to run: {problems[0]} (anyone who can write it can make the agent "
                           "run commands as you)")


def read_launch(paths: SessionPaths) -> dict | None:
    """The session's launch record (None when it was not started by a launcher)."""
    try:
        data = json.loads(paths.launch.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_launch(paths: SessionPaths, record: dict) -> None:
    """Replace the launch record atomically (readers on other nodes never see half of it)."""
    tmp = paths.launch.with_name(f".launch.json.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, paths.launch)


def resolve_session(arg: str | os.PathLike, root: str | os.PathLike | None = None) -> SessionPaths:
    """A session given as a directory, its events.jsonl, or a name under the sessions root."""
    p = Path(arg).expanduser()
    if p.is_file() and p.name == "events.jsonl":
        return SessionPaths(p.parent)
    if is_session_dir(p):
        return SessionPaths(p)
    under = sessions_root(root) / str(arg)
    if is_session_dir(under):
        return SessionPaths(under)
    if p.is_dir():
        raise SessionError(f"{p}: not a session (no events.jsonl)")
    raise SessionError(f"no session {str(arg)!r} (looked at {p} and under {sessions_root(root)})")


def is_session_dir(d: Path) -> bool:
    """A session directory: one with a log, or one a launcher made for a runner not started yet."""
    return d.is_dir() and ((d / "events.jsonl").is_file() or (d / "launch.json").is_file())


def session_dirs(root: str | os.PathLike | None = None) -> list[SessionPaths]:
    """Every session directly under the sessions root (in no particular order)."""
    base = Path(root) if root else sessions_root()
    try:
        entries = list(os.scandir(base))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [SessionPaths(Path(e.path)) for e in entries if e.is_dir() and is_session_dir(Path(e.path))]


@dataclass
class ListedSession:
    paths: SessionPaths
    digest: SessionDigest
    undelivered: int
    launch: dict | None

    @property
    def sort_time(self) -> float:
        launched = (self.launch or {}).get("created_t")
        return self.digest.started or (launched if isinstance(launched, (int, float)) else 0.0)


def first_event(events_path: str | os.PathLike) -> dict:
    """The first event of a session's log (its session_start), reading one line; {} when there is
    none or it cannot be read."""
    try:
        with open(events_path, "rb") as f:
            first = json.loads(f.readline() or b"{}")
    except (OSError, ValueError):
        return {}
    return first if isinstance(first, dict) else {}


def list_sessions(root: str | os.PathLike | None = None) -> list[ListedSession]:
    """Every session under the root with its digest, newest first."""
    out = []
    for sp in session_dirs(root):
        reader = DigestReader(sp.root)
        try:
            reader.refresh()
        except OSError:
            continue
        out.append(ListedSession(sp, reader.digest, len(reader.undelivered()), read_launch(sp)))
    out.sort(key=lambda s: (s.sort_time, s.paths.name), reverse=True)
    return out
