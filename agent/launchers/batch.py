"""Launching sessions: one, N alike (`--count`), or N over arms (`--arms autopilot,none`).

An arm is a named set of agent settings; the sessions of a batch are dealt to the arms in turn
(session i gets arm i mod A), so `--count 8 --arms autopilot,none` is four of each. Arm syntax:
arms separated by commas, settings of one arm joined by `+`:

    autopilot                     the bank answers decision points itself
    none                          nothing changed (the baseline)
    model=claude-sonnet-4-5       another model
    autopilot+grace=0             settings combined
    max-turns=40 | max-cost=5 | max-hours=2 | config=FILE
    agent=claude-code             Claude Code instead of the native agent

A batch (more than one session) gets a manifest, `<home>/batches/<batch>/batch.json`, listing its
sessions, their arms and job ids: `kernelseek compare --arms-of JOB|BATCH` reads it.
"""
from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

from agent.launch import LaunchError, run_argv
from agent.launchers import Handle, LaunchSpec, LaunchUsageError, launcher_named
from sessions.layout import (SessionPaths, create_session, kernelseek_home, make_private_dir,
                             new_session_name, sessions_root)

_ARM_KEYS = {"model": str, "grace": float, "max-turns": int, "max-cost": float, "max-hours": float,
             "config": str, "agent": str}
AGENTS = ("native", "claude-code")


@dataclass(frozen=True)
class Arm:
    label: str
    settings: dict  # run_argv keyword settings this arm sets


def parse_arms(text: str) -> list[Arm]:
    """`autopilot,none` -> two arms. One clear line (LaunchError) for anything else."""
    arms = []
    for label in (a.strip() for a in text.split(",")):
        if not label:
            raise LaunchUsageError(f"--arms {text!r}: an empty arm (arms are separated by commas)")
        settings: dict = {}
        for part in label.split("+"):
            key, eq, value = part.strip().partition("=")
            if not eq and key in ("autopilot", "none"):
                if key == "autopilot":
                    settings["autopilot"] = True
                continue
            if key == "autopilot" and value.lower() in ("on", "off", "true", "false", "1", "0", "yes", "no"):
                settings["autopilot"] = value.lower() in ("on", "true", "1", "yes")
                continue
            if key not in _ARM_KEYS or not eq:
                raise LaunchUsageError(f"--arms: cannot read {part!r} (an arm is autopilot, none, or KEY=VALUE "
                                  f"with KEY one of {', '.join(sorted(_ARM_KEYS))}, joined by +)")
            if key == "agent" and value not in AGENTS:
                raise LaunchUsageError(f"--arms: agent={value}: the agents are {', '.join(AGENTS)}")
            try:
                settings[key.replace("-", "_")] = _ARM_KEYS[key](value)
            except ValueError:
                raise LaunchUsageError(f"--arms: {key} needs a {_ARM_KEYS[key].__name__}, not {value!r}") from None
        arms.append(Arm(label, settings))
    if len({a.label for a in arms}) != len(arms):
        raise LaunchUsageError(f"--arms {text!r}: an arm is named twice")
    return arms


@dataclass
class Launched:
    sessions: list[SessionPaths]
    handles: list[Handle]
    arms: list[str | None]
    batch: str | None = None
    manifest: Path | None = None


def _batch_dirs(base: Path, task: str, count: int) -> tuple[str, list[Path]]:
    """A batch name and `count` free sibling directories named <batch>-0 ... <batch>-<count-1>."""
    stem = new_session_name(task)
    for attempt in range(1, 1000):
        batch = stem if attempt == 1 else f"{stem}-b{attempt}"
        dirs = [base / f"{batch}-{i}" for i in range(count)]
        if not any(d.exists() for d in dirs) and not (kernelseek_home() / "batches" / batch).exists():
            return batch, dirs
    raise LaunchError(f"no free batch name under {base}")


def launch(task: str, *, on: str = "local", count: int = 1, arms: list[Arm] | None = None,
           settings: dict | None = None, sessions_dir: str | os.PathLike | None = None,
           session: str | os.PathLike | None = None, group: str | None = None, launcher_options: dict | None = None,
           python: str | None = None) -> Launched:
    """Make the session directories (private, on the sessions root), then start their runners."""
    settings = {k: v for k, v in (settings or {}).items() if v is not None}
    arms = arms or []
    count = max(count, len(arms), 1)
    if session is not None and count > 1:
        raise LaunchUsageError("--session names one session; --count and --arms make their own")
    if on == "local":  # runners on this node: as many free GPUs as sessions, or nothing starts
        from agent.launchers.place import check_free
        from evaluator.task import load_task
        from kernels import TASKS_DIR

        check_free(load_task(task, TASKS_DIR).backend, count, settings.get("gpu"))
    base = sessions_root(sessions_dir)
    batch = None
    if count > 1:
        batch, dirs = _batch_dirs(base, task, count)
        paths = [create_session(path=d, task=task, group=group) for d in dirs]
    else:
        paths = [create_session(sessions_dir, task=task, path=session, group=group)]
    labels: list[str | None] = [arms[i % len(arms)].label if arms else None for i in range(count)]
    specs = []
    for i, sp in enumerate(paths):
        mine = {**settings, **(arms[i % len(arms)].settings if arms else {})}
        argv = run_argv(task, session=sp.root, sessions_dir=sessions_dir, group=group, python=python, **mine)
        specs.append(LaunchSpec(sp, argv, arm=labels[i],
                                record={"task": task, "settings": _plain(mine), "index": i}))
    try:
        handles = launcher_named(on, **(launcher_options or {})).start(specs, batch=batch)
    except BaseException:
        for sp in paths:  # nothing ran in them: leave no empty sessions behind
            _remove_if_unused(sp)
        raise
    manifest = write_manifest(batch, task, on, paths, labels, handles, arms) if batch else None
    return Launched(paths, handles, labels, batch, manifest)


def _remove_if_unused(sp: SessionPaths) -> None:
    import shutil

    if not (sp.events.exists() or sp.launch.exists() or any(sp.workspace.iterdir()) or any(sp.evals.iterdir())):
        shutil.rmtree(sp.root, ignore_errors=True)


def relaunch(paths: SessionPaths, *, on: str, settings: dict | None = None,
             sessions_dir: str | os.PathLike | None = None, group: str | None = None,
             launcher_options: dict | None = None, python: str | None = None) -> Handle:
    """`--resume` through a launcher: a new runner (a new job) carries the session on."""
    settings = {k: v for k, v in (settings or {}).items() if v is not None}
    argv = run_argv(resume=paths.root, sessions_dir=sessions_dir, group=group, python=python, **settings)
    (handle,) = launcher_named(on, **(launcher_options or {})).start([LaunchSpec(paths, argv, resume=True)])
    return handle


def _plain(settings: dict) -> dict:
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in settings.items()}


def write_manifest(batch: str, task: str, on: str, paths: list[SessionPaths], labels: list[str | None],
                   handles: list[Handle], arms: list[Arm]) -> Path:
    where = kernelseek_home() / "batches" / batch
    make_private_dir(where.parent)
    make_private_dir(where)
    job_ids = [getattr(h, "job_id", None) for h in handles]
    data = {
        "batch": batch, "task": task, "launcher": on, "created_t": round(time.time(), 3),
        "job_id": job_ids[0].split("_")[0] if job_ids and job_ids[0] else None,
        "arms": [{"label": a.label, "settings": _plain(a.settings)} for a in arms],
        "sessions": [{"path": str(p.root), "arm": label, "job_id": jid}
                     for p, label, jid in zip(paths, labels, job_ids)],
    }
    path = where / "batch.json"
    path.write_text(json.dumps(data, indent=1) + "\n")
    return path


def find_batch(ref: str) -> dict:
    """A batch manifest by batch name, by its Slurm job id, or by one of its array elements' ids."""
    root = kernelseek_home() / "batches"
    direct = root / ref / "batch.json"
    candidates = [direct] if direct.is_file() else sorted(root.glob("*/batch.json"))
    job = re.sub(r"_\d+$", "", ref)
    for path in candidates:
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if path == direct or str(data.get("job_id")) == job:
            data["manifest"] = str(path)
            return data
    raise LaunchUsageError(f"no batch {ref!r} under {root} (give a batch name or the job id `run --count/--arms` printed)")
