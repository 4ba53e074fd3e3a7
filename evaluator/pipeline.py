"""The verdict: build, constraints, then each scenario through a candidate host, then the report.

This process never loads candidate code. It checks the task's pinned files (evaluator.pins),
builds seed, reference and candidate (cached libraries checked by hash), checks the constraints,
starts a candidate host (evaluator.hosting) that loads the seed and the candidate, and for each
scenario makes the inputs, computes the references (numpy, or the reference kernel in its own
CUDA context), and judges what the host reports (evaluator.scenario). It keeps the statistics and
writes the report and the goal verdict.

`evaluate()` runs the verdict in this process; by default its host is in this process too
(`host="local"`: trusted code only, a crashing kernel takes the caller with it). The isolated path
(`evaluate_isolated`, evaluator.isolate) runs this in a child with a sandboxed host
(`host="process"`). A bad task or missing file raises TaskError, a missing GPU DeviceUnavailable.
"""
from __future__ import annotations

import contextlib
import secrets
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from evaluator.build import BuildResult, build, default_cache_dir, file_sha256
from evaluator.constraints import (Violation, check_binary, check_source, exported_functions,
                                   runtime_library_violations)
from evaluator.device import Device, Guard
from evaluator.errors import KernelFault, TaskError
from evaluator.hosting import CandidateHost, HostFailure, LocalHost, ProcessHost, scratch_dir
from evaluator.machine import cores, machine_busy_s, mem_total, own_cpu_s, process_cpu_s
from evaluator.pins import verify_pins
from evaluator.reference import KernelReferences, NumpyReferences, References
from evaluator.report import EvalReport
from evaluator.scenario import Inputs, ScenarioRun, make_inputs, scenario_rng
from evaluator.task import Scenario, Task, load_task

Progress = Callable[[dict[str, Any]], None]
HOST_DATA_HEADROOM = 32 << 30  # cuda host: private memory it may add after CUDA started (RLIMIT_DATA)
HOST_FILE_BYTES = 64 << 20
__all__ = ["EvalOptions", "Evaluation", "check_reference", "evaluate", "scenario_rng", "sha256_file"]
sha256_file = file_sha256


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
    host: str | None = None  # local (this process; trusted code) | process (a sandboxed child)
    sandbox: str = "auto"  # for host=process: auto | bwrap | unshare | none
    overlap: bool | None = None  # check correctness while timing (None: on cuda, where it costs no cores)
    census: bool = True  # cuda: the launch census (CUPTI) in the candidate host, where it works

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def evaluate(task: Task | str | Path, candidate: str | Path | None = None, *,
             progress: Progress | None = None, guard: Guard | None = None, **options: Any) -> EvalReport:
    """Evaluate `candidate` (default: the task's seed) against the task's seed, in this process.
    See EvalOptions; `host="process"` puts the candidate in a sandboxed child all the same."""
    opts = EvalOptions(**options)
    if opts.host is None:
        opts.host = "local"
    task = load_task(task)
    return Evaluation(task, candidate, opts, progress, guard).run()


class Evaluation:
    """One evaluation's state; `run()` walks the pipeline and returns the report."""

    def __init__(self, task: Task, candidate: str | Path | None, opts: EvalOptions,
                 progress: Progress | None, guard: Guard | None, python: str | None = None,
                 host_env: dict[str, str] | None = None) -> None:
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
        self.peaks: dict[str, Any] = {}
        self.host: CandidateHost | None = None
        self.baseline_host: CandidateHost | None = None
        self.overlap: ThreadPoolExecutor | None = None
        self.python = python or sys.executable
        self.host_env = host_env
        self.helper: Any = None  # cpu: the verdict's CpuHelper (regenerates inputs); cuda: the generator
        self.ref_fn: Any = None
        self._log: Any = None
        self._scratch: Path | None = None
        self._own_libs: list[str] = []
        self._report: EvalReport | None = None
        self.census_note = "no launch census"
        self._stamp: Any = None  # the wire helper's stamp (False: it does not build here)
        self._gpu: Any = None  # cuda: the opened GPU and its timing lock (evaluator.gpu_lock.VerdictGpu)

    @property
    def compute_peak_key(self) -> str:
        """The compute peak a scenario's FLOPs are held to (physics)."""
        return {"bf16_tensor": "bf16_tensor_tflops", "fp16_tensor": "fp16_tensor_tflops"}.get(
            self.task.roofline, "fp32_tflops")

    # the pipeline -------------------------------------------------------------------------
    def run(self) -> EvalReport:
        task, t0 = self.task, time.time()
        pinned = verify_pins(task.dir, required=_shipped(task))
        report = EvalReport(
            task=task.name, task_dir=str(task.dir), backend=task.backend,
            candidate={"path": str(self.candidate), "sha256": file_sha256(self.candidate)},
            seed_source={"path": str(task.seed), "sha256": file_sha256(task.seed)},
            eval_seed=self.eval_seed,
            options=self.opts.to_json() | {"timing_spec": asdict(self.timing), "baselines": self.use_baselines},
            goal_spec=asdict(task.goal), roofline=task.roofline, total_planned=len(self.scenarios), started_at=t0,
        )
        report.pinned = pinned
        self._report = report
        try:
            self._run(report)
        except KernelFault as exc:  # the verdict's own context broke (its reference kernel)
            report.error, report.error_kind = f"{exc} (a sticky CUDA error: the evaluation stopped)", "fault"
        except HostFailure as exc:
            report.error, report.error_kind = self._host_error(exc, report), exc.kind
            report.log_tail = self._log_tail() or exc.log_tail
        finally:
            for host in (self.host, self.baseline_host):
                if host is not None:
                    host.close()
            if report.log_tail is None and (report.error or not report.all_correct):
                report.log_tail = self._log_tail()  # the candidate's own prints, when something failed
            if self.device is not None:
                self.device.close()
            self._cleanup()
            report.duration_s = time.time() - t0
        return report

    def _host_error(self, exc: HostFailure, report: EvalReport) -> str:
        where = getattr(self, "_where", "")
        return f"{exc}{where}"

    def _run(self, report: EvalReport) -> None:
        """Builds, peaks and the hosts' start-up run side by side (cuda: the GPU measures its peaks
        and the hosts make their contexts while the compilers work); then constraints, loading,
        the scenarios. `report.timeline` says where the wall time went."""
        task, clock = self.task, time.perf_counter()
        timeline = report.timeline

        def lap(name: str) -> None:
            nonlocal clock
            now = time.perf_counter()
            timeline[name] = round(timeline.get(name, 0.0) + now - clock, 3)
            clock = now

        if task.backend == "cuda":  # no GPU: say so before spending time on builds
            self.device = self._device()
        started = self._start_hosts()
        peaks = self._peaks_beside() if task.backend == "cuda" else None
        lap("start")
        try:
            cand, seed, ref, helper_lib = self._builds()
        except BaseException:
            if peaks is not None:  # the device is closed after this: its thread must be done with it
                wait([peaks])
            raise
        lap("builds")
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
        lap("constraints")
        if not report.build_ok:
            if peaks is not None:
                peaks.result()  # the GPU is the verdict's again before it is closed
            return
        self.device = self.device or self._device()
        if ref is not None:
            try:
                self.ref_fn = self.device.load(str(ref.lib), task.reference.entry or "")
            except (OSError, AttributeError) as exc:
                raise TaskError(f"task {task.name}: cannot load its reference: {exc}") from None
        report.device = self.device.info()
        self._where = " (loading the seed and the candidate)"
        fields = [[f.name, f.kind, f.dtype] for f in task.params]
        self.host = started.get("host") or self._start_host()
        self.host.load(backend=task.backend, helper=str(helper_lib), libs=[str(cand.lib), str(seed.lib)],
                       entry=task.entry, fields=fields, census=started.get("census"), confine=self._limits())
        if self._wants_baselines():
            # upstream ops (torch, cuDNN) never share the candidate's process: they would be code
            # it could find and call. They run in a host of their own, timed against the seed.
            self.baseline_host = started.get("baseline_host") or self._start_host()
            self.baseline_host.load(backend=task.backend, helper=str(helper_lib), libs=[str(seed.lib), str(seed.lib)],
                                    entry=task.entry, fields=fields, task_dir=str(task.dir), confine=self._limits())
        elif started.get("baseline_host") is not None:
            started["baseline_host"].close()
        census = self.host.census if started.get("census") else {"on": False, "note": self.census_note}
        report.host = {"kind": self.host.sandbox, "note": self.host.sandbox_note, "confined": self.host.confined,
                       "census": census}
        self._own_libs = [str(cand.lib), str(seed.lib)]
        self.runtime_libraries(self.host.loaded_libs, report)
        self._where = ""
        lap("hosts")
        try:
            self.peaks = peaks.result() if peaks is not None else self._peaks()
        except KernelFault:
            raise
        except Exception as exc:  # noqa: BLE001 - peaks only feed the % column and physics
            self.peaks = {"error": str(exc)}
        report.device["peaks"] = self.peaks
        lap("peaks")
        self.progress({"event": "head", "report": report.to_json()})
        self.progress({"event": "start", "total": len(self.scenarios), "names": [s.name for s in self.scenarios],
                       "eval_seed": self.eval_seed})
        # one hold of the GPU for all the scenarios: what one scenario sends ahead stays inside it
        with self.gpu_hold(f"{'timing' if self.opts.timing else 'checking'} {task.name}"):
            self._scenarios(report)
        lap("scenarios")

    def _start_hosts(self) -> dict[str, Any]:
        """Sandboxed hosts are started now, so their interpreters, CUDA contexts and (baselines)
        torch come up while the verdict builds: {host, baseline_host, census}. The launch census
        library is built first (a cuda host starts it before its context)."""
        out: dict[str, Any] = {}
        process = (self.opts.host or "local") == "process"
        if self.task.backend != "cuda":
            self.census_note = "no launch census (a cpu task: the host's clock covers its threads)"
        elif not process:  # in this process the census would count the verdict's own work too
            self.census_note = "no launch census (the candidate runs in this process: trusted code only)"
        elif not self.opts.census:
            self.census_note = "no launch census (turned off)"
        else:
            from evaluator.census import CensusUnavailable, census_library

            try:
                out["census"] = str(census_library(self.cache_dir))
            except CensusUnavailable as exc:
                self.census_note = f"no launch census: {exc}"
        if not process:
            return out
        host = self._start_host()
        host.start(backend=self.task.backend, census=out.get("census"))
        out["host"] = host
        if self._wants_baselines():
            self.baseline_host = self._start_host()  # closed with the evaluation, whatever happens
            self.baseline_host.start(backend=self.task.backend, task_dir=str(self.task.dir))
            out["baseline_host"] = self.baseline_host
        self.host = host
        return out

    def _peaks_beside(self) -> Future[dict[str, Any]]:
        """The device's peaks, measured in a thread of their own while the CPU builds."""
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ks-peaks")
        device = self.device

        def measure() -> dict[str, Any]:
            device.bind_thread()  # type: ignore[union-attr]
            return self._peaks()
        future = pool.submit(measure)
        pool.shutdown(wait=False)
        return future

    def _scenarios(self, report: EvalReport) -> None:
        """Each scenario in turn; on cuda the next scenario's inputs are made while this one runs
        (numpy in a thread; the GPU work stays in order), and once this one's timed work is done
        the baseline host starts setting the next one up (ScenarioRun.baselines_ahead)."""
        sets = max(1, self.timing.buffer_sets)
        prefetch = ThreadPoolExecutor(max_workers=1) if self.task.backend == "cuda" else None
        # cuda: the verdict's numpy work overlaps the host's GPU timing (cpu: it would share the
        # cores the kernels are timed on)
        overlap = self.opts.overlap if self.opts.overlap is not None else self.task.backend == "cuda"
        # four threads: each correctness round's seed and candidate checks, two rounds in flight
        self.overlap = ThreadPoolExecutor(max_workers=4, thread_name_prefix="ks-check") if overlap else None
        ahead: Future[Inputs] | None = None
        upcoming: ScenarioRun | None = None

        def make_run(index: int, inputs: Inputs) -> ScenarioRun:
            scenario = self.scenarios[index]
            return ScenarioRun(self, scenario, index, inputs, self.host, self._references(scenario, inputs))

        def set_up_next(index: int) -> None:
            """Called by run `index` when its timed work is over: the next run, its baselines sent ahead."""
            nonlocal upcoming
            if ahead is None or self.baseline_host is None:
                return
            upcoming = make_run(index + 1, ahead.result())
            upcoming.ahead = upcoming.baselines_ahead()
        try:
            for index, scenario in enumerate(self.scenarios):
                if upcoming is not None and upcoming.index == index:
                    run, upcoming = upcoming, None
                else:
                    run = make_run(index, ahead.result() if ahead is not None else
                                   make_inputs(self.task, scenario, self.eval_seed, sets))
                if prefetch is not None and index + 1 < len(self.scenarios):
                    ahead = prefetch.submit(make_inputs, self.task, self.scenarios[index + 1], self.eval_seed, sets)
                else:
                    ahead = None
                run.after_timing = lambda index=index: set_up_next(index)
                self._where = f" in scenario {scenario.name}"
                try:
                    with self.gpu_hold(f"scenario {scenario.name}", run.result):
                        result = run.run()
                except (KernelFault, HostFailure) as exc:
                    run.result.failure = f"{getattr(exc, 'kind', 'fault')}: {exc}"
                    report.scenarios.append(run.result)
                    raise
                report.scenarios.append(result)
                self.progress({"event": "scenario_done", "index": index, "name": scenario.name,
                               "result": result.to_json()})
        finally:
            for pool in (prefetch, self.overlap):
                if pool is not None:
                    pool.shutdown(wait=True, cancel_futures=True)

    # parts ---------------------------------------------------------------------------------
    @contextlib.contextmanager
    def gpu_hold(self, what: str, result: Any = None, exclusive: bool | None = None) -> Iterator[None]:
        """cuda: hold the GPU's timing lock (evaluator.gpu_lock.VerdictGpu) around `what`,
        exclusively when this evaluation times, shared when it only checks; inside a hold, note
        `what`'s span. `result` records the GPU and the hold."""
        if self._gpu is None and self.task.backend == "cuda" and self.device is not None:
            from evaluator.gpu_lock import VerdictGpu

            self._gpu = VerdictGpu.of(self.device, self.progress) or False
        if not self._gpu:
            yield
            return
        if self._report is not None:
            self._report.device["gpu"] = dict(self._gpu.ident)
        with self._gpu.hold(what, exclusive=self.opts.timing if exclusive is None else exclusive, result=result):
            yield

    def runtime_libraries(self, paths: list[str], report: EvalReport | None = None) -> None:
        """Record code the host mapped at run time that the build did not link (a violation)."""
        if not paths:
            return
        report = report or self._report
        found = runtime_library_violations(paths, self.task.constraints, self._own_libs, self.task.backend,
                                           writable=(str(self._scratch),) if self._scratch else ())
        have = {(v["kind"], v["name"]) for v in report.violations}
        report.violations += [v.to_json() for v in found if (v.kind, v.name) not in have]

    def _wants_baselines(self) -> bool:
        return (self.use_baselines and self.opts.timing and self.task.backend == "cuda"
                and callable(getattr(self.task.harness, "baselines", None)))

    def _limits(self) -> dict[str, Any]:
        """The host's resource limits: CPU seconds for the whole evaluation on every core,
        file size, private memory (cpu: most of the machine; cuda: what CUDA took plus headroom)."""
        from evaluator.isolate import default_timeout

        cpu_s = int(default_timeout(self.task, self.opts) * cores()) + 60
        if self.task.backend == "cuda":
            return {"cpu_s": cpu_s, "file_bytes": HOST_FILE_BYTES, "data_bytes": 0, "data_headroom": HOST_DATA_HEADROOM}
        return {"cpu_s": cpu_s, "file_bytes": HOST_FILE_BYTES, "data_bytes": int(mem_total() * 0.75)}

    def _start_host(self) -> CandidateHost:
        if (self.opts.host or "local") == "local":
            return LocalHost()
        from evaluator.sandbox import credential_paths, find_sandbox
        import tempfile

        sandbox = find_sandbox(self.opts.sandbox)
        if self._scratch is None:
            self._scratch = scratch_dir()
        if self._log is None:
            self._log = tempfile.TemporaryFile()
        if self._stamp is None:
            from evaluator.native import wire_stamp

            self._stamp = wire_stamp(self.cache_dir) or False
        return ProcessHost(sandbox=sandbox, python=self.python, scratch=self._scratch, log=self._log,
                           env=self.host_env, hidden=tuple(credential_paths()),
                           readable=(self.cache_dir, self.task.dir), stamp=self._stamp or None)

    def _log_tail(self) -> str | None:
        if self._log is None:
            return None
        self._log.seek(0)
        text = self._log.read().decode("utf-8", "replace")[-4000:]
        return text or None

    def _cleanup(self) -> None:
        import shutil

        if self._log is not None:
            self._log.close()
            self._log = None
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def _native(self) -> Path:
        """Build (once per machine) the evaluator's helpers: the host's, and the verdict's copy of
        the input generator."""
        from evaluator import native

        try:
            if self.task.backend == "cpu":
                lib = native.host_cpu_library(self.cache_dir)
                self.helper = native.CpuHelper(lib)
                return lib
            cc = self.device.info()["cc"].replace(".", "")  # type: ignore[union-attr]
            lib = native.gen_cuda_library(self.cache_dir, f"{cc}a" if cc == "90" else cc)
        except native.NativeBuildError as exc:
            raise TaskError(f"the evaluator's own helper does not build here: {exc}") from None
        import ctypes

        self.helper = ctypes.CDLL(str(lib))
        self.helper.ks_refresh_async.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_longlong, ctypes.c_int,
                                                 ctypes.c_ulonglong, ctypes.c_void_p]
        return lib

    def _references(self, scenario: Scenario, inputs: Inputs) -> References:
        types = self.task.element_types(scenario.params)
        if self.ref_fn is None:
            return NumpyReferences(self.task, scenario, types, inputs.specs, self.helper)
        return KernelReferences(self.task, scenario, types, inputs.specs, self.device, self.helper, self.ref_fn,
                                self.timing.call_timeout_s)

    def _peaks(self) -> dict[str, Any]:
        assert self.device is not None
        if self.task.backend == "cuda":
            with self.gpu_hold("measuring the device's peaks", exclusive=True):  # measured once per GPU model: a timing like any other
                peaks = dict(self.device.peaks(self.cache_dir, "memory"))
                peaks |= self.device.peaks(self.cache_dir, "fp32")
                if self.task.roofline not in ("memory", "fp32"):
                    peaks |= self.device.peaks(self.cache_dir, self.task.roofline)
            return peaks
        return self.device.peaks(self.cache_dir)

    def machine_mark(self) -> tuple[float | None, float, float] | None:
        """cpu: the machine's busy time, ours and the host's, now (for machine_share)."""
        if self.task.backend != "cpu":
            return None
        return machine_busy_s(), own_cpu_s() + process_cpu_s(self.host.pids() if self.host else []), time.monotonic()

    def machine_share(self, mark: tuple[float | None, float, float] | None) -> float | None:
        """Share of the cores that processes other than this evaluation used since the mark."""
        if mark is None or mark[0] is None:
            return None
        busy = machine_busy_s()
        if busy is None:
            return None
        ours = own_cpu_s() + process_cpu_s(self.host.pids() if self.host else []) - mark[1]
        wall = time.monotonic() - mark[2]
        return max(0.0, ((busy - mark[0]) - ours) / (wall * cores())) if wall > 0 else None

    def _builds(self) -> tuple[BuildResult, BuildResult, BuildResult | None, Path | None]:
        """Candidate, seed, reference and the evaluator's own helper, built in parallel."""
        task = self.task
        jobs = {"candidate": self.candidate, "seed": task.seed}
        if task.reference.kind == "kernel" and task.reference.source:
            jobs["reference"] = task.reference.source
        unique = {path: None for path in jobs.values()}
        with ThreadPoolExecutor(max_workers=len(unique) + 1) as pool:
            futures = {path: pool.submit(build, task, path, self.cache_dir) for path in unique}
            helper = pool.submit(self._native)
        results = {role: futures[path].result() for role, path in jobs.items()}
        for role, result in results.items():
            self.progress({"event": "build", "role": role, "ok": result.ok, "cached": result.cached,
                           "seconds": result.seconds})
        for role in ("seed", "reference"):
            r = results.get(role)
            if r is not None and not r.ok:
                raise TaskError(f"task {task.name}: its {role} does not build:\n{r.log[-2000:]}")
        return results["candidate"], results["seed"], results.get("reference"), helper.result()

    def _device(self) -> Device:
        if self.task.backend == "cuda":
            from evaluator.backend_cuda import CudaDevice

            return CudaDevice(self.guard)
        from evaluator.backend_cpu import CpuDevice

        return CpuDevice(self.guard, self.cache_dir)


def _shipped(task: Task) -> bool:
    """Is this one of the tasks shipped with KernelSeek (under kernels/)?"""
    from evaluator.task import SHIPPED_TASKS_DIR

    return task.dir.resolve().parent == SHIPPED_TASKS_DIR.resolve()


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
    from evaluator.harness import Case, to_values
    from evaluator.reference import check_reference_outputs

    task = load_task(task)
    ev = Evaluation(task, None, EvalOptions(seed=seed, cache_dir=cache_dir), None, None)
    ev.device = ev._device()
    try:
        _, _, ref, _ = ev._builds()
        if ref is None:
            raise TaskError(f"task {task.name} has no reference kernel")
        ev.ref_fn = ev.device.load(str(ref.lib), task.reference.entry or "")
        out = {}
        for scenario in task.scenarios:
            if names is not None and scenario.name not in names:
                continue
            inputs = make_inputs(task, scenario, seed, 1)
            refs = ev._references(scenario, inputs)
            refs.prepare(inputs.cases, inputs.storages)
            try:
                kernel = refs.compute(0, None)
            finally:
                refs.release()
            case, types = inputs.cases[0], task.element_types(scenario.params)
            values = {n: to_values(a, types[n]) for n, a in inputs.storages[0].items()}
            exact = Case(values, dict(case.outputs), dict(case.scalars), dict(case.masks))
            numpy_ref = check_reference_outputs(task, scenario.name, task.harness.reference(exact), case, list(kernel))
            out[scenario.name] = {k: output_errors(kernel[k], numpy_ref[k], case.masks.get(k)) for k in kernel}
        return out
    finally:
        ev.device.close()

