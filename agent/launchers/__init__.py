"""Launchers: where a session's runner runs, and how to find it again.

A launcher starts runners (`start(specs) -> handles`); a handle answers for one runner wherever
it is: `alive()`, `describe()` (a `sessions.digest.RunnerView`: where, and the scheduler's state
and reason) and `cancel()`. The session directory stays the whole interface between a runner and
a console; the launcher's record of how it started a runner is `<session>/launch.json`.

- `LocalLauncher`: a detached process on this machine (pid and host recorded).
- `SlurmLauncher`: a batch job, or one job array for several sessions; the session directories
  live on the shared `KERNELSEEK_HOME` and are made before the job is submitted.

`handle_for(paths, digest, record)` finds the handle of any session: from its launch record, else
from where its runner said it runs (session_start's `place`: pid and host, or a Slurm job id).
`describe_all` asks each launcher about many sessions at once (one scheduler query for all jobs).
Stopping a session goes through the session first (a stop line in its inbox, obeyed by the runner
on whichever node it runs); `cancel()` is what follows when the runner does not answer.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from agent.launch import LaunchError
from sessions.digest import RunnerView, SessionDigest
from sessions.layout import SessionPaths

__all__ = ["Handle", "LaunchError", "LaunchSpec", "LaunchUsageError", "Launcher", "describe_all", "handle_for",
           "launcher_named"]


class LaunchUsageError(LaunchError):
    """A launch asked for wrongly (a bad --arms, a bad slurm: setting, no such batch): exit 2."""

    exit_code = 2


@dataclass
class LaunchSpec:
    """One runner to start: its session directory, the `kernelseek run` command line, its arm."""

    session: SessionPaths
    argv: list[str]
    resume: bool = False
    arm: str | None = None
    record: dict = field(default_factory=dict)  # extra facts for launch.json (task, settings, batch)


class Handle(ABC):
    """One session's runner."""

    launcher: str = ""

    def __init__(self, session: SessionPaths) -> None:
        self.session = session

    @abstractmethod
    def alive(self) -> bool | None:
        """True while the runner (or its queued job) exists; None when it cannot be told here."""

    def poll(self) -> bool | None:
        """`alive()` asked afresh (a handle may keep what it last learnt)."""
        return self.alive()

    @abstractmethod
    def describe(self) -> RunnerView:
        """Where it runs and, for a scheduler, the job's state and reason."""

    @abstractmethod
    def cancel(self) -> str:
        """End the runner the hard way (after a stop request went unanswered); says what it did.
        Raises LaunchError when that cannot be done from here."""


class Launcher(ABC):
    name: str = ""

    @abstractmethod
    def start(self, specs: list[LaunchSpec], *, batch: str | None = None) -> list[Handle]:
        """Start the runners (as one job array where the launcher has them)."""

    @abstractmethod
    def handle(self, session: SessionPaths, record: dict, digest: SessionDigest | None = None) -> Handle:
        """The handle of a runner this launcher started (from its launch record)."""

    def describe_all(self, handles: list[Handle]) -> list[RunnerView]:
        return [h.describe() for h in handles]


def launcher_named(name: str, **options) -> Launcher:
    if name == "local":
        from agent.launchers.local import LocalLauncher

        return LocalLauncher()
    if name == "slurm":
        from agent.launchers.slurm import SlurmLauncher

        return SlurmLauncher(**options)
    raise LaunchUsageError(f"no launcher {name!r} (local or slurm)")


def handle_for(session: SessionPaths, digest: SessionDigest, record: dict | None) -> Handle | None:
    """A session's handle: from its launch record, else from its runner's own `place`."""
    kind = (record or {}).get("launcher")
    if kind in ("local", "slurm"):
        return launcher_named(kind).handle(session, record or {}, digest)
    place = digest.place or {}
    if place.get("launcher") == "slurm" and place.get("job_id"):
        from agent.launchers.slurm import SlurmHandle

        return SlurmHandle(session, str(place["job_id"]), record={})
    if digest.pid is not None:
        from agent.launchers.local import LocalHandle

        return LocalHandle(session, digest.pid, digest.host)
    return None


def describe_all(handles: list[Handle | None]) -> list[RunnerView | None]:
    """Views of many handles, asking each launcher once for all of its own."""
    out: list[RunnerView | None] = [None] * len(handles)
    by_kind: dict[str, list[int]] = {}
    for i, h in enumerate(handles):
        if h is not None:
            by_kind.setdefault(h.launcher, []).append(i)
    for kind, idx in by_kind.items():
        views = launcher_named(kind).describe_all([handles[i] for i in idx])
        for i, v in zip(idx, views):
            out[i] = v
    return out
