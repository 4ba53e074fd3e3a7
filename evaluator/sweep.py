"""A sweep spread over the node's idle GPUs: `kernelseek eval TASK --gpus N|all`, one report.

The scenarios are dealt to shards, one per GPU, by expected cost (longest first, each to the
least loaded shard); each shard is an ordinary isolated evaluation (`evaluate_isolated` with
`only=` its scenarios and CUDA_VISIBLE_DEVICES its GPU's UUID), so a scenario's seed and candidate
are timed back to back on one GPU as always and every ratio stays a same-GPU ratio. All shards
share one eval seed (a scenario's inputs are those a single-GPU sweep with that seed makes) and
one build: the libraries are built here first and the shards find them in the build cache.
`merge_reports` joins the shards' reports into one `EvalReport`; each scenario says which GPU
measured it (`gpu`: index, UUID, its timing lock's hold).

Idle GPUs: this process's allocation (evaluator.gpus), less the GPUs another process holds (a
session pinned there, another sweep: evaluator.gpu_lock claims), someone computes on (nvidia-smi's
compute processes) or times on right now. The sweep claims its GPUs while it runs; the GPU a
session pinned this process to (`KERNELSEEK_GPU`, set by the session's runner) counts as its own.

Expected cost: the seconds each scenario took the last time this task was swept with the same
settings (remembered in `<cache>/sweeps/`), else a model from the harness's FLOP and byte counts.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import statistics
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.errors import DeviceUnavailable, EvaluatorError, TaskError
from evaluator.gpu_lock import Claim, TimingLock, claim, claimed_by, holder_text
from evaluator.gpus import PINNED_ENV, Gpu, allocation, compute_processes, node_gpus, pin_env
from evaluator.report import EvalReport, ScenarioResult
from evaluator.task import Scenario, Task, load_task

Progress = Callable[[dict[str, Any]], None]
# the cost model (seconds of one scenario) before a sweep of the task was remembered: a fixed part
# (requests, calibrations, verification), the timing budget, the verdict's numpy work per byte the
# kernel moves (inputs made, outputs checked in float64), the fp32 reference kernel's calls
BASE_S = 0.3
VERDICT_BYTES_PER_S = 5e7
REFERENCE_FLOPS_PER_S = 4e12


class NoIdleGpu(DeviceUnavailable):
    """Fewer idle GPUs on this node than the sweep asked for (each busy one named)."""


def parse_gpus(text: str | int | None) -> int | None:
    """`--gpus` as a count (None: all idle). ValueError for anything but `all` or a positive count."""
    if text is None or str(text).strip().lower() == "all":
        return None
    value = int(str(text).strip())
    if value < 1:
        raise ValueError(f"--gpus {text}: give a positive number of GPUs, or all")
    return value


# -- which GPUs --------------------------------------------------------------------------------------

@dataclass
class Picked:
    gpus: list[Gpu]
    claims: list[Claim]
    busy: dict[str, str]  # label -> why it is not idle

    def release(self) -> None:
        for c in self.claims:
            c.release()


def idle_gpus(want: int | None, *, what: str, env: dict[str, str] | None = None) -> Picked:
    """Claim `want` idle GPUs of this process's allocation (None: every idle one). NoIdleGpu when
    there are fewer; the claims are the caller's to release."""
    env = dict(os.environ if env is None else env)
    gpus = allocation(node_gpus(), env)
    if not gpus:
        hidden = "CUDA_VISIBLE_DEVICES hides every GPU" if env.get("CUDA_VISIBLE_DEVICES") is not None \
            else "this node has no GPU (nvidia-smi lists none)"
        raise DeviceUnavailable(f"--gpus needs a GPU: {hidden}")
    own = env.get(PINNED_ENV)
    computing: dict[str, list[str]] = {}
    for p in compute_processes():
        computing.setdefault(p.uuid, []).append(f"{p.name} (pid {p.pid})")
    picked = Picked([], [], {})
    for gpu in gpus:
        if want is not None and len(picked.gpus) == want:
            break
        if gpu.uuid == own:  # the session this runs in holds it for us
            picked.gpus.append(gpu)
            continue
        held = claim(gpu.uuid, what=what)
        if held is None:
            picked.busy[gpu.label] = f"held by {holder_text(claimed_by(gpu.uuid) or {})}"
            continue
        timing = TimingLock(gpu.uuid).holder()
        if computing.get(gpu.uuid) or timing is not None:
            held.release()
            why = f"computing: {', '.join(computing[gpu.uuid][:3])}" if computing.get(gpu.uuid) else \
                f"timing: {holder_text(timing or {})}"
            picked.busy[gpu.label] = why
            continue
        picked.gpus.append(gpu)
        picked.claims.append(held)
    if not picked.gpus or (want is not None and len(picked.gpus) < want):
        picked.release()
        asked = "a GPU" if want is None else f"{want} GPU{'s' if want > 1 else ''}"
        busy = "; ".join(f"{k} {v}" for k, v in picked.busy.items())
        raise NoIdleGpu(f"--gpus: asked for {asked}, {len(picked.gpus)} of {len(gpus)} idle on this node"
                        + (f" ({busy})" if busy else ""))
    return picked


# -- the plan ----------------------------------------------------------------------------------------

def settings_key(options: dict[str, Any]) -> str:
    """The options that change how long a scenario takes (remembered costs are kept per key)."""
    keep = ("quick", "timing", "baselines", "time_budget_s", "target_ci", "min_pairs", "max_pairs", "buffer_sets")
    return json.dumps({k: options.get(k) for k in keep}, sort_keys=True)


def _costs_file(cache_dir: Path, task: Task) -> Path:
    return cache_dir / "sweeps" / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', task.name)}.json"


def remembered_costs(cache_dir: Path, task: Task, options: dict[str, Any]) -> dict[str, float]:
    try:
        table = json.loads(_costs_file(cache_dir, task).read_text())
    except (OSError, ValueError):
        return {}
    got = table.get(settings_key(options)) if isinstance(table, dict) else None
    return {k: float(v) for k, v in (got or {}).items() if isinstance(v, (int, float)) and v > 0}


def remember_costs(cache_dir: Path, task: Task, options: dict[str, Any], report: EvalReport) -> None:
    """Keep each evaluated scenario's seconds for the next sweep's plan (best effort)."""
    path = _costs_file(cache_dir, task)
    try:
        table = json.loads(path.read_text())
        table = table if isinstance(table, dict) else {}
    except (OSError, ValueError):
        table = {}
    entry = dict(table.get(settings_key(options)) or {})
    entry.update({s.name: round(s.seconds, 3) for s in report.scenarios if s.seconds > 0})
    table[settings_key(options)] = entry
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(table, indent=1))
        os.replace(tmp, path)
    except OSError:
        pass


def model_cost(task: Task, scenario: Scenario, budget_s: float) -> float:
    """Seconds one scenario is expected to take, from the harness's FLOP and byte counts."""
    params = dict(scenario.params)
    try:
        flops = float(task.harness.flops(params) or 0.0)
        nbytes = float(task.harness.bytes_moved(params) or 0.0)
    except Exception:  # noqa: BLE001 - a harness without counts: every scenario alike
        flops = nbytes = 0.0
    return BASE_S + budget_s + nbytes / VERDICT_BYTES_PER_S + flops / REFERENCE_FLOPS_PER_S


def expected_costs(task: Task, scenarios: list[Scenario], options: dict[str, Any],
                   remembered: dict[str, float]) -> dict[str, float]:
    """Each scenario's expected seconds: remembered where known; the model elsewhere, scaled to
    the remembered ones (the median of their quotients) so both kinds compare."""
    budget = options.get("time_budget_s")
    budget = float(budget if budget is not None else task.timing.budget_s) if options.get("timing", True) else 0.0
    model = {s.name: model_cost(task, s, budget) for s in scenarios}
    both = [remembered[n] / model[n] for n in model if n in remembered and model[n] > 0]
    scale = statistics.median(both) if both else 1.0
    return {n: remembered.get(n, model[n] * scale) for n in model}


def plan_shards(costs: dict[str, float], order: list[str], n: int) -> list[tuple[list[str], float]]:
    """Deal scenarios to `n` shards, longest first, each to the least loaded shard; each shard
    keeps the task's order. [(names, expected seconds)], empty shards dropped."""
    loads = [0.0] * n
    members: list[list[str]] = [[] for _ in range(n)]
    for name in sorted(order, key=lambda x: (-costs[x], order.index(x))):
        k = min(range(n), key=lambda i: (loads[i], i))
        loads[k] += costs[name]
        members[k].append(name)
    rank = {name: i for i, name in enumerate(order)}
    return [(sorted(m, key=rank.__getitem__), loads[i]) for i, m in enumerate(members) if m]


def names_regex(names: list[str]) -> str:
    """An `only=` pattern that selects exactly these scenarios."""
    return "^(?:" + "|".join(re.escape(n) for n in names) + ")$"


# -- running -----------------------------------------------------------------------------------------

@dataclass
class Shard:
    gpu: Gpu
    names: list[str]
    planned_s: float
    report: EvalReport | None = None
    error: BaseException | None = None
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"gpu": self.gpu.to_json(), "scenarios": len(self.names), "planned_s": round(self.planned_s, 2),
                "seconds": round(self.seconds, 2)}


def sweep(task: Task | str | Path, candidate: str | Path | None = None, *, gpus: int | None = None,
          progress: Progress | None = None, env: dict[str, str] | None = None,
          cancel: threading.Event | None = None, **options: Any) -> EvalReport:
    """Evaluate over `gpus` idle GPUs of this node (None: all idle ones): one merged report."""
    task = load_task(task)
    picked = pick_for_sweep(task, gpus, env=env)
    try:
        return sweep_over(task, candidate, picked.gpus, progress=progress, env=env, cancel=cancel, **options)
    finally:
        picked.release()


def pick_for_sweep(task: Task, gpus: int | None, env: dict[str, str] | None = None) -> Picked:
    """The idle GPUs a sweep of `task` takes (claimed: release them). TaskError for a cpu task."""
    if task.backend != "cuda":
        raise TaskError(f"--gpus spreads a cuda task's scenarios over GPUs; {task.name} runs on the CPU")
    return idle_gpus(gpus, what=f"kernelseek eval {task.name} --gpus", env=env)


def sweep_over(task: Task | str | Path, candidate: str | Path | None, gpus: list[Gpu], *,
               progress: Progress | None = None, env: dict[str, str] | None = None,
               cancel: threading.Event | None = None, evaluate: Callable[..., EvalReport] | None = None,
               **options: Any) -> EvalReport:
    """The sweep on these GPUs (distinct ones: two shards never share a GPU). `evaluate` is
    `evaluate_isolated` unless a caller has its own; options are its options."""
    from evaluator.build import build, default_cache_dir
    from evaluator.isolate import evaluate_isolated

    task = load_task(task)
    evaluate = evaluate or evaluate_isolated
    if len({g.uuid for g in gpus}) != len(gpus):
        raise EvaluatorError("--gpus: a GPU is named twice; two shards on one GPU would take turns, not speed up")
    if not gpus:
        raise DeviceUnavailable("--gpus: no GPU to sweep on")
    say = _Relay(progress)
    t0, started = time.monotonic(), time.time()
    quick, only = bool(options.get("quick")), options.get("only")
    scenarios = task.select(quick, only)
    names = [s.name for s in scenarios]
    eval_seed = options.get("seed") if options.get("seed") is not None else secrets.randbits(32)
    cache_dir = Path(options.get("cache_dir") or default_cache_dir())
    cand = Path(candidate).resolve() if candidate else task.seed
    if not cand.is_file():
        raise TaskError(f"candidate file not found: {cand}")

    # build once, before fanning out: the shards find every library in the build cache
    jobs = {"candidate": cand, "seed": task.seed}
    if task.reference.kind == "kernel" and task.reference.source:
        jobs["reference"] = task.reference.source
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        built = {role: pool.submit(build, task, path, cache_dir) for role, path in jobs.items()}
    for role, future in built.items():
        r = future.result()
        say({"event": "build", "role": role, "ok": r.ok, "cached": r.cached, "seconds": r.seconds})
    if not built["candidate"].result().ok:
        gpus = gpus[:1]  # nothing will be timed: one shard reports the build

    costs = expected_costs(task, scenarios, options, remembered_costs(cache_dir, task, options))
    plan = plan_shards(costs, names, len(gpus))
    shards = [Shard(gpu, members, planned) for gpu, (members, planned) in zip(gpus, plan)]
    say({"event": "start", "total": len(names), "names": names, "eval_seed": eval_seed,
         "gpus": [s.gpu.to_json() for s in shards]})

    stop = threading.Event()
    rest = {k: v for k, v in options.items() if k not in ("only", "seed", "quick")}

    def run(shard: Shard) -> None:
        shard_env = {**(os.environ if env is None else env), **pin_env(shard.gpu)}
        tick = time.monotonic()
        try:
            shard.report = evaluate(task, cand, quick=quick, only=names_regex(shard.names), seed=eval_seed,
                                    env=shard_env, cancel=stop, progress=say.of(shard, names), **rest)
        except BaseException as exc:  # noqa: BLE001 - the first one is raised once all have stopped
            shard.error = exc
            stop.set()
        shard.seconds = time.monotonic() - tick

    threads = [threading.Thread(target=run, args=(s,), name=f"ks-shard-{s.gpu.label}", daemon=True) for s in shards]
    for th in threads:
        th.start()
    for th in threads:
        while th.is_alive():
            th.join(0.2)
            if cancel is not None and cancel.is_set():
                stop.set()
    failed = next((s.error for s in shards if s.error is not None), None)
    if failed is not None:
        raise failed
    report = merge_reports(task, shards, names=names, only=only, eval_seed=eval_seed,
                           started_at=started, wall_s=time.monotonic() - t0)
    if report.error is None and options.get("timing", True):
        remember_costs(cache_dir, task, options, report)
    return report


class _Relay:
    """The shards' progress as one evaluation's: one `start`, builds once, indices over the
    whole sweep, each scenario naming its GPU; calls serialised (the shards are threads)."""

    def __init__(self, progress: Progress | None) -> None:
        self.progress = progress
        self.lock = threading.Lock()

    def __call__(self, event: dict[str, Any]) -> None:
        if self.progress is not None:
            with self.lock:
                self.progress(event)

    def of(self, shard: Shard, names: list[str]) -> Progress:
        index = {n: i for i, n in enumerate(names)}
        gpu = shard.gpu.to_json()

        def relay(event: dict[str, Any]) -> None:
            kind = event.get("event")
            if kind in ("build", "head"):
                return
            if kind == "start":
                self({"event": "shard_start", "gpu": gpu, "total": event.get("total"), "names": event.get("names")})
                return
            event = dict(event, gpu=event.get("gpu") or gpu)
            if "name" in event and event["name"] in index:
                event["index"] = index[event["name"]]
            self(event)
        return relay


def merge_reports(task: Task, shards: list[Shard], *, names: list[str], only: str | None, eval_seed: int,
                  started_at: float, wall_s: float) -> EvalReport:
    """One report of the shards' reports: scenarios in the task's order, each with its GPU."""
    reports = [(s, s.report) for s in shards if s.report is not None]
    if not reports:
        raise EvaluatorError("the sweep produced no report")
    base = reports[0][1]
    rank = {n: i for i, n in enumerate(names)}
    scenarios: list[ScenarioResult] = []
    violations: list[dict[str, Any]] = []
    errors, kinds, tails = [], [], []
    for shard, rep in reports:
        for s in rep.scenarios:
            s.gpu = _with_gpu(s.gpu, shard.gpu)
            scenarios.append(s)
        for v in rep.violations:
            if not any((v.get("kind"), v.get("name")) == (w.get("kind"), w.get("name")) for w in violations):
                violations.append(v)
        if rep.error:
            errors.append(f"{shard.gpu.label}: {rep.error}")
            kinds.append(rep.error_kind)
            if rep.log_tail:
                tails.append(f"[{shard.gpu.label}]\n{rep.log_tail}")
    scenarios.sort(key=lambda s: rank.get(s.name, len(rank)))
    device = dict(base.device)
    device.pop("gpu", None)
    device["gpus"] = [s.gpu.to_json() for s in shards]
    options = dict(base.options, only=only, shards=[s.to_json() for s in shards])
    pinned = [rep.pinned for _, rep in reports]
    return EvalReport(
        task=base.task, task_dir=base.task_dir, backend=base.backend, candidate=base.candidate,
        seed_source=base.seed_source, eval_seed=eval_seed, options=options, goal_spec=base.goal_spec,
        roofline=base.roofline, device=device, build=base.build, seed_build=base.seed_build,
        reference_build=base.reference_build, violations=violations, scenarios=scenarios,
        total_planned=len(names), error="; ".join(errors) or None, error_kind=kinds[0] if kinds else None,
        log_tail="\n".join(tails)[-8000:] or None, started_at=started_at, duration_s=wall_s,
        pinned=all(p is True for p in pinned) if all(p is not None for p in pinned) else None, host=base.host,
    )


def _with_gpu(recorded: dict[str, Any] | None, gpu: Gpu) -> dict[str, Any]:
    """The verdict's record of the GPU, with the node's index where it could not tell it."""
    out = dict(recorded or {})
    if out.get("uuid") in (None, gpu.uuid):
        out["uuid"] = gpu.uuid
        if out.get("index") is None and gpu.index is not None:
            out["index"] = gpu.index
    return out


__all__ = ["NoIdleGpu", "Picked", "Shard", "expected_costs", "idle_gpus", "merge_reports", "model_cost",
           "names_regex", "parse_gpus", "pick_for_sweep", "plan_shards", "remember_costs", "remembered_costs", "sweep", "sweep_over"]
