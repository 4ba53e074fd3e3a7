"""The evaluation pipeline, in this process: build, constraints, correctness, timing, report.

`evaluate()` is what the child process of `evaluate_isolated()` runs; call it directly only with
trusted code (a segfaulting kernel takes the caller with it). Everything that goes wrong with the
candidate ends up in the report; a bad task or missing file raises TaskError, a missing GPU
DeviceUnavailable.
"""
from __future__ import annotations

import hashlib
import secrets
import time
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from evaluator.build import BuildResult, build, default_cache_dir
from evaluator.constraints import Violation, check_binary, check_source, exported_functions
from evaluator.correctness import CallOutcome, check_call, error_limits, tolerance_limits
from evaluator.device import BufferSet, Device, Guard, KernelFn, case_storage
from evaluator.errors import KernelFault, TaskError
from evaluator.harness import ELEMENT_TYPES, Case, poison_mask, to_values
from evaluator.report import EvalReport, ScenarioResult
from evaluator.task import Scenario, Task, load_task
from evaluator.timing import adaptive_ab

Progress = Callable[[dict[str, Any]], None]
LATE_WRITE_WAIT_S = 0.02
# a candidate's audit gap (wall - events) beyond the seed's by this much is work off the stream
AUDIT_SLACK_MS = 0.01
AUDIT_SLACK_FRACTION = 0.25
# cpu: other processes using more than this share of the cores while timing makes it `contended`
CONTENDED_SHARE = 0.10


@dataclass
class EvalOptions:
    """What one evaluation does; None means the task's own setting (task.yaml `timing`)."""

    quick: bool = False
    only: str | None = None
    seed: int | None = None
    timing: bool = True
    baselines: bool | None = None
    time_budget_s: float | None = None
    target_ci: float | None = None
    min_pairs: int | None = None
    max_pairs: int | None = None
    buffer_sets: int | None = None
    call_timeout_s: float | None = None
    cache_dir: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def evaluate(task: Task | str | Path, candidate: str | Path | None = None, *,
             progress: Progress | None = None, guard: Guard | None = None, **options: Any) -> EvalReport:
    """Evaluate `candidate` (default: the task's seed) against the task's seed. See EvalOptions."""
    opts = EvalOptions(**options)
    task = load_task(task)
    return Evaluation(task, candidate, opts, progress, guard).run()


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def scenario_rng(eval_seed: int, name: str, trial: int) -> np.random.Generator:
    """The random stream of one scenario's trial: replayable from the eval seed alone."""
    return np.random.default_rng(np.random.SeedSequence([eval_seed, zlib.crc32(name.encode()), trial]))


class Evaluation:
    """One evaluation's state; `run()` walks the pipeline and returns the report."""

    def __init__(self, task: Task, candidate: str | Path | None, opts: EvalOptions,
                 progress: Progress | None, guard: Guard | None) -> None:
        self.task, self.opts = task, opts
        self.progress = progress or (lambda event: None)
        self.guard = guard or Guard()
        self.candidate = Path(candidate).resolve() if candidate else task.seed
        if not self.candidate.is_file():
            raise TaskError(f"candidate file not found: {self.candidate}")
        self.scenarios = task.select(opts.quick, opts.only)
        self.eval_seed = opts.seed if opts.seed is not None else secrets.randbits(32)
        self.cache_dir = Path(opts.cache_dir) if opts.cache_dir else default_cache_dir()
        t = task.timing
        self.timing = replace(t, **{k: v for k, v in (
            ("budget_s", opts.time_budget_s), ("target_ci", opts.target_ci),
            ("min_pairs", opts.min_pairs), ("max_pairs", opts.max_pairs),
            ("buffer_sets", opts.buffer_sets), ("call_timeout_s", opts.call_timeout_s)) if v is not None})
        self.use_baselines = opts.baselines if opts.baselines is not None else not opts.quick
        self.device: Device | None = None
        self.peaks: dict[str, float] = {}

    # the pipeline -------------------------------------------------------------------------
    def run(self) -> EvalReport:
        task, t0 = self.task, time.time()
        report = EvalReport(
            task=task.name, task_dir=str(task.dir), backend=task.backend,
            candidate={"path": str(self.candidate), "sha256": sha256_file(self.candidate)},
            seed_source={"path": str(task.seed), "sha256": sha256_file(task.seed)},
            eval_seed=self.eval_seed,
            options=self.opts.to_json() | {"timing_spec": asdict(self.timing), "baselines": self.use_baselines},
            goal_spec=asdict(task.goal), roofline=task.roofline, total_planned=len(self.scenarios), started_at=t0,
        )
        try:
            self._run(report)
        except KernelFault as exc:  # its message names the call that left the error
            report.error, report.error_kind = f"{exc} (a sticky CUDA error: the evaluation stopped)", "fault"
        finally:
            if self.device is not None:
                self.device.close()
            report.duration_s = time.time() - t0
        return report

    def _run(self, report: EvalReport) -> None:
        task = self.task
        if task.backend == "cuda":  # no GPU: say so before spending time on builds
            self.device = self._device()
        cand, seed, ref = self._builds()
        report.build, report.seed_build = cand.to_json(), seed.to_json(with_log=False)
        report.reference_build = ref.to_json(with_log=False) if ref else None
        text = self.candidate.read_text(encoding="utf-8", errors="replace")
        violations = check_source(text, cand.flags, cand.includes, task.constraints)
        if cand.ok:
            violations += check_binary(cand, task.constraints)
            if task.entry not in exported_functions(Path(cand.lib or "")):
                report.build["ok"] = False
                report.build["log"] += f"\nthe library does not export the entry `{task.entry}` (extern \"C\")"
        report.violations = [v.to_json() for v in _unique(violations)]
        if not report.build_ok:
            return
        self.device = device = self.device or self._device()
        try:
            cand_fn = device.load(str(cand.lib), task.entry)
        except OSError as exc:
            report.build["ok"] = False
            report.build["log"] += f"\ncannot load the library: {exc}"
            return
        try:
            seed_fn = device.load(str(seed.lib), task.entry)
            ref_fn = device.load(str(ref.lib), task.reference.entry or "") if ref else None
        except (OSError, AttributeError) as exc:
            raise TaskError(f"task {task.name}: cannot load its seed or reference: {exc}") from None
        report.device = device.info()
        try:
            self.peaks = device.peaks(self.cache_dir, task.roofline) if task.backend == "cuda" \
                else device.peaks(self.cache_dir)
        except KernelFault:
            raise
        except Exception as exc:  # noqa: BLE001 - peaks only feed the % column
            self.peaks = {"error": str(exc)}
        report.device["peaks"] = self.peaks
        self.progress({"event": "head", "report": report.to_json()})
        self.progress({"event": "start", "total": len(self.scenarios), "names": [s.name for s in self.scenarios],
                       "eval_seed": self.eval_seed})
        for index, scenario in enumerate(self.scenarios):
            runner = ScenarioRun(self, scenario, index, cand_fn, seed_fn, ref_fn)
            try:
                result = runner.run()
            except KernelFault as exc:
                runner.result.failure = f"fault: {exc}"
                report.scenarios.append(runner.result)
                raise
            report.scenarios.append(result)
            self.progress({"event": "scenario_done", "index": index, "name": scenario.name,
                           "result": result.to_json()})

    def _builds(self) -> tuple[BuildResult, BuildResult, BuildResult | None]:
        task = self.task
        jobs = {"candidate": self.candidate, "seed": task.seed}
        if task.reference.kind == "kernel" and task.reference.source:
            jobs["reference"] = task.reference.source
        unique = {path: None for path in jobs.values()}
        with ThreadPoolExecutor(max_workers=len(unique)) as pool:
            futures = {path: pool.submit(build, task, path, self.cache_dir) for path in unique}
        results = {role: futures[path].result() for role, path in jobs.items()}
        for role, result in results.items():
            self.progress({"event": "build", "role": role, "ok": result.ok, "cached": result.cached,
                           "seconds": result.seconds})
        for role in ("seed", "reference"):
            r = results.get(role)
            if r is not None and not r.ok:
                raise TaskError(f"task {task.name}: its {role} does not build:\n{r.log[-2000:]}")
        return results["candidate"], results["seed"], results.get("reference")

    def _device(self) -> Device:
        if self.task.backend == "cuda":
            from evaluator.backend_cuda import CudaDevice

            return CudaDevice(self.guard)
        from evaluator.backend_cpu import CpuDevice

        return CpuDevice(self.guard, self.cache_dir)


class ScenarioRun:
    """Correctness then timing of one scenario."""

    def __init__(self, ev: Evaluation, scenario: Scenario, index: int, cand: KernelFn, seed: KernelFn,
                 ref: KernelFn | None) -> None:
        self.ev, self.scenario, self.index = ev, scenario, index
        self.task, self.device = ev.task, ev.device
        assert self.device is not None
        self.cand, self.seed, self.ref = cand, seed, ref
        self.types = self.task.element_types(scenario.params)
        self.etypes = {f.name: self.types[f.name] for f in self.task.buffers("out")}
        self._ref_bufs: BufferSet | None = None
        self.result = ScenarioResult(scenario.name, dict(scenario.params), correct=False)

    def note(self, phase: str) -> None:
        self.ev.progress({"event": "scenario", "index": self.index, "name": self.scenario.name, "phase": phase})

    def fresh(self, trial: int) -> tuple[Case, dict[str, np.ndarray]]:
        rng = scenario_rng(self.ev.eval_seed, self.scenario.name, trial)
        case = self.task.harness.make_case(dict(self.scenario.params), rng)
        return case, case_storage(self.task, case, self.scenario.name, self.types)

    def run(self) -> ScenarioResult:
        t0 = time.perf_counter()
        try:
            if self.correctness() and self.ev.opts.timing:
                self.time_it()
        finally:
            self.result.seconds = round(time.perf_counter() - t0, 3)
        return self.result

    # correctness --------------------------------------------------------------------------
    def correctness(self) -> bool:
        res, tol = self.result, self.scenario.tolerance
        case, storage = self.fresh(0)
        self.case0 = case
        self.bufs = bufs = BufferSet(self.device, self.task, case, storage, self.types)
        outcomes = []
        for trial in (0, 1):
            if trial == 1:
                case, storage = self.fresh(1)
                bufs.write_inputs(storage)
            refs = self.reference(case, bufs)
            self.note("correctness: seed" + (" (second call)" if trial else ""))
            seed = self.call(self.seed, bufs, refs, case.masks, tolerance_limits(tol, list(self.etypes)), "seed")
            if seed.failure and "seed_incorrect" not in res.flags:
                res.flags.append("seed_incorrect")
            limits = error_limits(tol, seed.errors)
            self.note("correctness: candidate" + (" (second call)" if trial else ""))
            cand = self.call(self.cand, bufs, refs, case.masks, limits, "candidate")
            if trial == 0:
                res.errors, res.seed_errors, res.limits = cand.errors, seed.errors, limits
            outcomes.append(cand)
            if cand.failure:
                res.failure = cand.failure if trial == 0 else \
                    f"second call with new inputs (same buffers): {cand.failure}"
                return False
        res.correct = True
        return True

    def call(self, fn: KernelFn, bufs: BufferSet, refs: dict[str, np.ndarray], masks: dict[str, np.ndarray],
             limits: dict[str, dict[str, float]], who: str) -> CallOutcome:
        device = self.device
        bufs.poison()
        returned = device.call(fn, bufs.params, f"{who} on {self.scenario.name} (correctness)",
                               self.ev.timing.call_timeout_s)
        outputs = bufs.outputs()
        late = False
        if device.kind == "cpu" and who == "candidate":
            time.sleep(LATE_WRITE_WAIT_S)
            again = bufs.outputs()
            late = any(not np.array_equal(outputs[k].view(np.uint8), again[k].view(np.uint8)) for k in outputs)
        outcome = check_call(returned, outputs, self.etypes, refs, masks, bufs.modified_inputs(), limits)
        if late:
            if "late_writes" not in self.result.flags:
                self.result.flags.append("late_writes")
            outcome.failure = outcome.failure or "late writes: outputs changed after the entry returned"
        return outcome

    def reference(self, case: Case, bufs: BufferSet) -> dict[str, np.ndarray]:
        """Reference outputs in float64: harness.reference (numpy) or the fp32 reference kernel."""
        task = self.task
        if self.ref is None:
            values = {name: to_values(arr, self.types[name]) for name, arr in bufs.host_inputs.items()}
            exact = Case(values, dict(case.outputs), dict(case.scalars), dict(case.masks))
            refs = task.harness.reference(exact)
        else:
            if self._ref_bufs is None:
                f32 = self.types | {name: ELEMENT_TYPES["f32"] for name in self.etypes}
                self._ref_bufs = BufferSet(self.device, task, case, {}, f32, share_inputs=bufs)
            rb = self._ref_bufs
            rb.poison()
            returned = self.device.call(self.ref, rb.params, f"reference on {self.scenario.name}",
                                        self.ev.timing.call_timeout_s)
            raw = rb.outputs()
            for name, arr in raw.items():
                bad = poison_mask(arr) | ~np.isfinite(arr)
                mask = case.masks.get(name)
                if mask is not None:  # elements the task does not require (e.g. lse = -inf rows)
                    bad &= mask
                if returned != 0 or bad.any():
                    raise TaskError(f"task {task.name}: its reference kernel left {name} unwritten or "
                                    f"non-finite on {self.scenario.name} (returned {returned})")
            refs = raw
        out = {}
        for name in self.etypes:
            if name not in refs:
                raise TaskError(f"task {task.name}: the reference gives no output {name}")
            arr = np.asarray(refs[name], dtype=np.float64)
            if arr.shape != tuple(case.outputs[name]):
                raise TaskError(f"task {task.name}: reference {name} has shape {arr.shape}, "
                                f"expected {tuple(case.outputs[name])}")
            out[name] = arr
        return out

    # timing -------------------------------------------------------------------------------
    def time_it(self) -> None:
        res, spec, device = self.result, self.ev.timing, self.device
        self.note("timing")
        sets, cases = [self.bufs], [self.case0]
        for k in range(1, max(1, spec.buffer_sets)):
            case, storage = self.fresh(100 + k)
            sets.append(BufferSet(device, self.task, case, storage, self.types))
            cases.append(case)
        calls: list[list[Callable[[], Any]]] = [
            [partial(self.cand, s.params) for s in sets],
            [partial(self.seed, s.params) for s in sets],
        ]
        names = self._baselines(sets, cases, calls)
        if device.kind == "cpu":
            device.contention_start()
        timed = adaptive_ab(
            lambda plan: device.run_rounds(calls, plan, spec.call_timeout_s),
            len(calls), len(sets), budget_s=spec.budget_s, target_ci=spec.target_ci,
            min_pairs=spec.min_pairs, max_pairs=spec.max_pairs, baseline_names=tuple(names),
        )
        res.seed_ms, res.cand_ms = timed.seed_ms, timed.cand_ms
        res.ratio, res.ci, res.pairs = timed.ratio, [timed.ci[0], timed.ci[1]], timed.pairs
        res.flags.extend(f for f in timed.flags if f not in res.flags)
        res.baselines.update(timed.baselines)
        self._rates()
        if device.kind == "cuda":
            self._audit(calls, len(sets))
        else:
            share = device.contention()
            if share is not None:
                res.audit = {"other_load": round(share, 3)}
                if share > CONTENDED_SHARE:
                    res.flags.append("contended")

    def _baselines(self, sets: list[BufferSet], cases: list[Case], calls: list[list[Callable[[], Any]]]) -> list[str]:
        hook = getattr(self.task.harness, "baselines", None)
        if not (self.ev.use_baselines and callable(hook) and self.device.kind == "cuda"):
            return []
        per_set: list[dict[str, Callable[[], Any]]] = []
        try:
            for bufs, case in zip(sets, cases):
                per_set.append(dict(hook(case, self.device.arrays(bufs), self.device.stream_handle)))
            names = sorted(set.intersection(*(set(d) for d in per_set)))
            for name in names:  # one untimed call each: a baseline that fails is reported, not timed
                try:
                    per_set[0][name]()
                    self.device.sync_all(f"baseline {name}", self.ev.timing.call_timeout_s)
                except KernelFault:
                    raise
                except Exception as exc:  # noqa: BLE001
                    self.result.baselines[name] = {"error": f"{type(exc).__name__}: {exc}"}
        except KernelFault:
            raise
        except Exception as exc:  # noqa: BLE001 - upstream code is optional and may be missing
            self.result.baselines["(hook)"] = {"error": f"{type(exc).__name__}: {exc}"}
            return []
        names = [n for n in names if n not in self.result.baselines]
        for name in names:
            calls.append([d[name] for d in per_set])
        return names

    def _rates(self) -> None:
        res, h, params = self.result, self.task.harness, dict(self.scenario.params)
        if not res.cand_ms:
            return
        flops, nbytes = float(h.flops(params) or 0), float(h.bytes_moved(params) or 0)
        seconds = res.cand_ms * 1e-3
        res.tflops = flops / seconds / 1e12 if flops else None
        res.gbps = nbytes / seconds / 1e9 if nbytes else None
        for entry in res.baselines.values():  # upstream kernels on the same FLOP and byte counts
            ms = entry.get("ms")
            if isinstance(ms, (int, float)) and ms > 0:
                if flops:
                    entry["tflops"] = flops / (ms * 1e-3) / 1e12
                if nbytes:
                    entry["gbps"] = nbytes / (ms * 1e-3) / 1e9
        peak_key, achieved = {
            "memory": ("memory_gbps", res.gbps), "fp32": ("fp32_tflops", res.tflops),
            "bf16_tensor": ("bf16_tensor_tflops", res.tflops), "fp16_tensor": ("fp16_tensor_tflops", res.tflops),
        }[self.task.roofline]
        peak = self.ev.peaks.get(peak_key)
        if achieved and isinstance(peak, (int, float)) and peak > 0:
            res.pct_peak = 100.0 * achieved / peak
            if res.pct_peak > 105.0:
                res.flags.append("above_roofline")

    def _audit(self, calls: list[list[Callable[[], Any]]], n_sets: int) -> None:
        pick = int(scenario_rng(self.ev.eval_seed, self.scenario.name, 999).integers(n_sets))
        timeout = self.ev.timing.call_timeout_s
        cand_event, cand_wall = self.device.audit(calls[0][pick], timeout)
        seed_event, seed_wall = self.device.audit(calls[1][pick], timeout)
        self.result.audit = {"cand_event_ms": cand_event, "cand_wall_ms": cand_wall,
                             "seed_event_ms": seed_event, "seed_wall_ms": seed_wall}
        if outside_stream(cand_event, cand_wall, seed_event, seed_wall):
            self.result.flags.append("outside_stream")


def outside_stream(cand_event: float, cand_wall: float, seed_event: float, seed_wall: float) -> bool:
    """Did the candidate's wall-clock time exceed its event time by more than the seed's overhead?"""
    extra = (cand_wall - cand_event) - (seed_wall - seed_event)
    return extra > max(AUDIT_SLACK_MS, AUDIT_SLACK_FRACTION * cand_event)


def _unique(violations: list[Violation]) -> list[Violation]:
    seen, out = set(), []
    for v in violations:
        if (v.kind, v.name) not in seen:
            seen.add((v.kind, v.name))
            out.append(v)
    return out


def check_reference(task: Task | str | Path, names: list[str] | None = None, seed: int = 0,
                    cache_dir: str | None = None) -> dict[str, dict[str, dict[str, float]]]:
    """Errors of a cuda task's reference kernel against harness.reference (float64) on some
    scenarios: {scenario: {output: {rel_l2, max_abs}}}. For task authors and the tests."""
    from evaluator.correctness import output_errors

    task = load_task(task)
    ev = Evaluation(task, None, EvalOptions(seed=seed, cache_dir=cache_dir), None, None)
    _, _, ref = ev._builds()
    if ref is None:
        raise TaskError(f"task {task.name} has no reference kernel")
    ev.device = ev._device()
    try:
        ref_fn = ev.device.load(str(ref.lib), task.reference.entry or "")
        out = {}
        for scenario in task.scenarios:
            if names is not None and scenario.name not in names:
                continue
            run = ScenarioRun(ev, scenario, 0, ref_fn, ref_fn, ref_fn)
            case, storage = run.fresh(0)
            bufs = BufferSet(ev.device, task, case, storage, run.types)
            kernel = run.reference(case, bufs)
            run.ref = None
            numpy_ref = run.reference(case, bufs)
            out[scenario.name] = {k: output_errors(kernel[k], numpy_ref[k], case.masks.get(k)) for k in kernel}
        return out
    finally:
        ev.device.close()
