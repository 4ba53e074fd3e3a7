"""One scenario, judged by the verdict: correctness, timing, verification of timed calls, audits.

The candidate runs in the host (evaluator.hosting); here are the inputs it is given, the
references it is held to, the statistics of its times and every check on them:

1. Correctness: two rounds of one seed call and one candidate call each -- the base inputs, then
   the same buffers refreshed by the generator -- with every output fetched whole and checked
   (evaluator.correctness), the seed's error setting the candidate's limit.
2. Timing: a calibration request in which only the seed runs, then the interleaved adaptive loop
   (evaluator.timing). Every timed call is a call like the checked ones: inputs refreshed each
   round from a fresh seed, outputs poisoned, cache flushed, outputs snapshotted into a slot.
3. Verification: after each timing request the verdict may pick one of its rounds (at least one
   per scenario, about two expected), fetches slices of the candidate's and the seed's outputs
   of that round, regenerates the round's inputs itself, computes the reference and checks both.
   A mismatch makes the scenario incorrect, naming the round.
4. Audits (evaluator.audit): the verdict's clock around each request, work left outside the
   call (cuda: off the stream; cpu: threads still busy after it returned), the physical floor.
"""
from __future__ import annotations

import math
import os
import time
import zlib
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from evaluator import audit
from evaluator.correctness import CallOutcome, check_call, error_limits, limit_failure, tolerance_limits
from evaluator.device import case_storage
from evaluator.errors import TaskError
from evaluator.harness import Case, ElementType
from evaluator.host import CAND, SEED, BufferSpec, ScenarioSpec
from evaluator.hosting import CandidateHost
from evaluator.reference import References
from evaluator.report import ScenarioResult
from evaluator.task import Scenario, Task
from evaluator.stats import median
from evaluator.timing import adaptive_ab

if TYPE_CHECKING:
    from evaluator.pipeline import Evaluation

# cpu: other processes using more than this share of the cores while timing makes it `contended`
# (KERNELSEEK_CONTENDED_SHARE overrides it: for test rigs on shared machines, not for measuring)
CONTENDED_SHARE = float(os.environ.get("KERNELSEEK_CONTENDED_SHARE", "0.10"))
# verification: about this many timed rounds per scenario, at least one
VERIFY_TARGET = 2.0
# outputs up to this many elements are fetched whole for a verified round, larger ones in blocks
WHOLE_ELEMENTS = 1 << 16
BLOCK_ELEMENTS = 1024
BLOCKS = 64
# a request of n calls may take n * (call_timeout_s + HOST_CALL_SLACK_S) + HOST_SLACK_S before the
# host counts as hung (the slack is the evaluator's own work around calls: refresh, flush, copies)
HOST_CALL_SLACK_S = 0.5
HOST_SLACK_S = 5.0
CALIBRATION_SHARE = 0.025
# a candidate this many times faster than the seed has this many more of its timed rounds verified
SUSPICIOUS_RATIO = 2.0
SUSPICIOUS_EXTRA = 2
# upstream baselines: timed against the seed in their own host, on this share of the budget
BASELINE_BUDGET_SHARE = 0.25
BASELINE_TARGET_CI = 0.03
BASELINE_WARMUP_S = 0.005
LOAD_WAIT_S = 180.0  # the baseline host's set-up (torch, cuDNN plans) may take this long
# memory for output slots on the host (per scenario): bounds the rounds of one request
SLOT_BYTES = {"cpu": 256 << 20, "cuda": 4 << 30}
MAX_SLOTS = 256


def scenario_rng(eval_seed: int, name: str, trial: int) -> np.random.Generator:
    """The random stream of one scenario's trial: replayable from the eval seed alone."""
    return np.random.default_rng(np.random.SeedSequence([eval_seed, zlib.crc32(name.encode()), trial]))


@dataclass
class Inputs:
    """A scenario's base inputs: one harness case per buffer set, as storage arrays and as bytes."""

    cases: list[Case]
    storages: list[dict[str, np.ndarray]]
    specs: list[BufferSpec]
    outputs: list[BufferSpec]

    def payload(self) -> bytes:
        return b"".join(np.ascontiguousarray(st[s.name]).tobytes() for st in self.storages for s in self.specs)


def make_inputs(task: Task, scenario: Scenario, eval_seed: int, sets: int) -> Inputs:
    """Cases for trial 0 (set 0) and the extra timing sets (trials 100 + k), checked for shape."""
    types = task.element_types(scenario.params)
    cases, storages = [], []
    for k in range(max(1, sets)):
        case = task.harness.make_case(dict(scenario.params), scenario_rng(eval_seed, scenario.name, 0 if k == 0 else 100 + k))
        storage = case_storage(task, case, scenario.name, types)
        if storages:
            for name, arr in storage.items():
                if arr.shape != storages[0][name].shape:
                    raise TaskError(f"{task.name}: harness gave input {name} shape {storages[0][name].shape} "
                                    f"then {arr.shape}: shapes must not depend on rng")
        cases.append(case)
        storages.append(storage)
    fixed = {f.name for f in task.params if getattr(f, "refresh", True) is False}
    specs = [BufferSpec(f.name, types[f.name].name, tuple(storages[0][f.name].shape), f.name not in fixed)
             for f in task.buffers("in")]
    outputs = [BufferSpec(f.name, types[f.name].name, tuple(int(x) for x in cases[0].outputs[f.name]))
               for f in task.buffers("out")]
    return Inputs(cases, storages, specs, outputs)


@dataclass
class Sample:
    """A verified timed round: which, the elements fetched, and the bytes of both contestants."""

    round: int
    set: int
    seed: int
    positions: dict[str, np.ndarray]
    cand: dict[str, bytes]
    seed_out: dict[str, bytes]
    fetch_ms: tuple[float, float]


@dataclass
class CensusTally:
    """What the launch census saw over a scenario's calls (checked and timed), per contestant."""

    calls: dict[int, int] = field(default_factory=lambda: {CAND: 0, SEED: 0})
    off: dict[int, int] = field(default_factory=lambda: {CAND: 0, SEED: 0})  # records off the stream
    calls_off: dict[int, int] = field(default_factory=lambda: {CAND: 0, SEED: 0})  # calls with any
    stray: int = 0  # off-stream records outside every call window
    dropped: int = 0
    short: int = 0  # calls whose own records were not all in (late or lost): their spans are unknown
    spans: list[float] = field(default_factory=list)  # the candidate's device span per call
    events: list[float] = field(default_factory=list)  # ... and its event time on the same calls
    cost_ms: float = 0.0  # the host's flushes and attribution
    what: str = ""

    def add(self, census: dict[str, Any] | None, contestants: list[int], event_ms: list[float]) -> None:
        if census is None:
            return
        for k, who in enumerate(contestants):
            if who not in (CAND, SEED):
                continue
            self.calls[who] += 1
            if census["off"][k]:
                self.off[who] += census["off"][k]
                self.calls_off[who] += 1
            if who == CAND and census["span_ms"][k] > 0:
                self.spans.append(census["span_ms"][k])
                self.events.append(event_ms[k])
        self.stray += census["stray"]
        self.dropped += census["dropped"]
        self.short += census["short"]
        self.cost_ms += census["ms"]
        self.what = self.what or census["what"]

    def vouches(self) -> bool:
        """Did the census see all of the candidate's calls whole (every call's own records in,
        none lost) and nothing of it off the stream? A candidate that turned CUPTI off for its
        context, or lost records, gets no such word."""
        return (self.calls[CAND] > 0 and not self.dropped and not self.short and not self.off[CAND]
                and not self.stray and len(self.spans) == self.calls[CAND])

    def verdict(self) -> tuple[dict[str, Any], str | None]:
        """(the audit's census entry, the problem in words or None). Work of the candidate off the
        evaluator's stream is a problem on any call; the seed's calls are the control: should the
        census see work off the stream there too (something on this machine it cannot tell from a
        candidate's), only what the candidate has beyond the seed counts."""
        calls = self.calls[CAND] + self.calls[SEED]
        entry: dict[str, Any] = {
            "calls": self.calls[CAND], "off_stream": self.off[CAND], "calls_off_stream": self.calls_off[CAND],
            "seed_off_stream": self.off[SEED], "outside_calls": self.stray, "dropped": self.dropped,
            "incomplete_calls": self.short,
            "cost_ms_per_call": round(self.cost_ms / calls, 6) if calls else None,
        }
        if self.spans:
            entry["span_ms"] = round(median(self.spans), 6)
            entry["event_ms"] = round(median(self.events), 6)
        if self.what:
            entry["first_off_stream"] = self.what
        mine = self.off[CAND] + self.stray
        if not mine or mine <= self.off[SEED]:
            return entry, None
        where = (f"{self.off[CAND]} launch(es) off the evaluator's stream in {self.calls_off[CAND]} of "
                 f"{self.calls[CAND]} calls" if self.off[CAND] else "")
        if self.stray:
            where += (" and " if where else "") + f"{self.stray} outside any call"
        control = f"; the seed's calls had {self.off[SEED]}" if self.off[SEED] else ""
        return entry, f"the launch census saw {where} ({self.what or 'no detail'}){control}"


@dataclass
class _Tally:
    """What the timing requests reported, per contestant."""

    gaps: dict[int, list[float]] = field(default_factory=lambda: {CAND: [], SEED: []})
    other_cpu: dict[int, float] = field(default_factory=lambda: {CAND: 0.0, SEED: 0.0})
    outside: dict[int, float] = field(default_factory=lambda: {CAND: 0.0, SEED: 0.0})
    unexplained: list[float] = field(default_factory=list)
    request_calls: list[int] = field(default_factory=list)  # calls in each timed request
    calibration: list[float] = field(default_factory=list)
    problem: str | None = None
    failure: str | None = None


class ScenarioRun:
    """Correctness, timing, verification and audits of one scenario against one host."""

    def __init__(self, ev: Evaluation, scenario: Scenario, index: int, inputs: Inputs, host: CandidateHost,
                 refs: References) -> None:
        self.ev, self.scenario, self.index = ev, scenario, index
        self.task, self.host, self.refs, self.inputs = ev.task, host, refs, inputs
        self.types: dict[str, ElementType] = self.task.element_types(scenario.params)
        self.etypes = {f.name: self.types[f.name] for f in self.task.buffers("out")}
        self.result = ScenarioResult(scenario.name, dict(scenario.params), correct=False)
        self.rng = np.random.default_rng()
        self.sets = len(inputs.cases)
        out_bytes = sum(o.nbytes for o in inputs.outputs)
        self.slots = int(max(2, min(MAX_SLOTS, SLOT_BYTES[self.task.backend] // max(1, out_bytes))))
        self.samples: list[Sample] = []
        self.tally = _Tally()
        self.round = 0
        self.last_request: list[tuple[int, int, int, dict[int, int]]] = []
        self.phase_s: dict[str, float] = {}
        self.judgement: Judgement | None = None  # the correctness checks (cuda: beside the timing)
        self.seed_wall_ms = 0.0  # the seed's slowest correctness call: sizes the calibration
        self.judged_once = False
        self.census = CensusTally()
        self.ahead: tuple[Any, Any] | None = None  # the baseline host's prepare and set-up, sent ahead
        self.after_timing: Any = None  # called once nothing of this scenario is timed any more

    def note(self, phase: str) -> None:
        self.ev.progress({"event": "scenario", "index": self.index, "name": self.scenario.name, "phase": phase})

    def _seed(self) -> int:
        return int(self.rng.integers(0, 2**63, dtype=np.int64)) | (int(self.rng.integers(0, 2)) << 63)

    def spec(self) -> ScenarioSpec:
        """What a host is told of this scenario (its base inputs travel beside it)."""
        return ScenarioSpec(self.scenario.name, self.inputs.specs, self.inputs.outputs,
                            dict(self.inputs.cases[0].scalars), self.sets, self.slots)

    def deadline(self, calls: int) -> float:
        """How long a request of `calls` calls may take before the host counts as hung."""
        return calls * (self.ev.timing.call_timeout_s + HOST_CALL_SLACK_S) + HOST_SLACK_S

    def run(self) -> ScenarioResult:
        t0 = time.perf_counter()
        try:
            tick = time.perf_counter()
            if self.ahead is None:  # (unless the previous scenario sent it already)
                self.ahead = self.baselines_ahead()
            pending = self.host.prepare_async(self.spec(), self.inputs.payload())
            self.refs.prepare(self.inputs.cases, self.inputs.storages)  # beside the host's uploads
            pending.result(HOST_SLACK_S + 60.0)
            self.phase_s["prepare"] = time.perf_counter() - tick
            tick = time.perf_counter()
            pool = self.ev.overlap if self.ev.opts.timing else None
            self.judgement = Judgement(self.scenario, self.etypes, self.inputs.cases[0], pool)
            self.correctness_rounds()
            self.phase_s["correctness"] = time.perf_counter() - tick
            if pool is not None:
                # cuda: the float64 checks (numpy, threads of this process) run while the host
                # times on the GPU; a failure they find stops the timing at its next request
                self.time_it()
                self.timed_work_done()
                tick = time.perf_counter()
                self._apply(self.judgement.result())
                self.phase_s["judge"] = time.perf_counter() - tick
            else:
                tick = time.perf_counter()
                self._apply(self.judgement.result())
                self.phase_s["judge"] = time.perf_counter() - tick
                if self.result.correct and self.ev.opts.timing:
                    self.time_it()
            self.timed_work_done()
            self._census_verdict()
        finally:
            self.refs.release()
            self.result.seconds = round(time.perf_counter() - t0, 3)
            self.result.phases = {k: round(v, 3) for k, v in self.phase_s.items()}
        return self.result

    def timed_work_done(self) -> None:
        """Nothing of this scenario is timed any more (the baselines included): the next one's
        set-up may start on the GPU beside what is left here (verification, checks)."""
        hook, self.after_timing = self.after_timing, None
        if hook is not None:
            hook()

    def baselines_ahead(self) -> tuple[Any, Any] | None:
        """Send the baseline host this scenario's inputs and its set-up (the hook, one untimed call
        of each upstream op) now: it works while the candidate is checked; its timing waits."""
        host = self.ev.baseline_host
        if host is None or not self.ev.opts.timing:
            return None
        return host.prepare_async(self.spec(), self.inputs.payload()), host.baselines_async()

    def _census_verdict(self) -> None:
        """The launch census over every checked and timed call: work off the stream fails the goal."""
        if not (self.census.calls[CAND] or self.census.calls[SEED]):
            return
        entry, problem = self.census.verdict()
        self.result.audit["census"] = entry
        if problem:
            if "outside_stream" not in self.result.flags:
                self.result.flags.append("outside_stream")
            self.result.audit["census_problem"] = problem

    # correctness --------------------------------------------------------------------------------
    def correctness_rounds(self) -> list[Checked]:
        """Both correctness rounds (seed then candidate; the base inputs, then the same buffers
        refreshed), their outputs fetched whole, their references computed by the verdict while
        the host runs the calls; each round's checks start as soon as it is fetched."""
        out = []
        for trial, seed in ((0, None), (1, self._seed())):
            self.note("correctness" + (" (second call)" if trial else ""))
            pending = self.host.rounds_async([(0, [SEED, CAND])], [seed], flush=True, check_inputs=True)
            refs = self.refs.compute(0, seed)
            r = pending.result(self.deadline(2))
            self.ev.runtime_libraries(r.libs)
            self.census.add(r.census, [SEED, CAND], r.event_ms)
            self.seed_wall_ms = max(self.seed_wall_ms, r.wall_ms[0])
            checked = Checked(trial, refs, r, self._fetch_whole(0), self._fetch_whole(1))
            assert self.judgement is not None
            self.judgement.add(checked)
            out.append(checked)
        return out

    def _apply(self, verdict: dict[str, Any]) -> None:
        """Fold a correctness judgement into the result (in the thread that owns the result). A
        correctness failure is the one reported and voids the times; without one, the scenario is
        correct unless the timing already found it wrong (a timed call, a verified round)."""
        res = self.result
        for flag in verdict["flags"]:
            if flag not in res.flags:
                res.flags.append(flag)
        res.errors, res.seed_errors, res.limits = verdict["errors"], verdict["seed_errors"], verdict["limits"]
        if verdict["failure"]:
            res.correct, res.failure = False, verdict["failure"]
            # the times of an incorrect kernel mean nothing
            res.seed_ms = res.cand_ms = res.ratio = res.ci = res.tflops = res.gbps = res.pct_peak = None
            res.pairs, res.baselines, res.physics = 0, {}, None
            res.flags = [f for f in res.flags if f in ("seed_incorrect", "late_writes")]
        elif not self.judged_once:
            res.correct = True

    def _fetch_whole(self, slot: int) -> dict[str, np.ndarray]:
        out = {}
        for spec in self.inputs.outputs:
            data, _ = self.host.fetch(slot, spec.name, None, spec.nbytes)
            out[spec.name] = np.frombuffer(data, dtype=self.etypes[spec.name].storage).reshape(spec.shape).copy()
        return out

    # timing ---------------------------------------------------------------------------------------
    def time_it(self) -> None:
        res, spec, ev = self.result, self.ev.timing, self.ev
        if self.ahead is not None and ev.baseline_host is not None:
            tick = time.perf_counter()
            ev.baseline_host.drain()  # timing needs a quiet GPU: the baseline host's set-up is done first
            self.phase_s["baselines"] = self.phase_s.get("baselines", 0.0) + time.perf_counter() - tick
        tick = time.perf_counter()
        self.note("timing")
        self.calibrate()
        mark = ev.machine_mark()
        try:
            timed = adaptive_ab(
                self.run_rounds, 2, self.sets, budget_s=spec.budget_s, target_ci=spec.target_ci,
                min_pairs=spec.min_pairs, max_pairs=spec.max_pairs, max_batch=max(1, self.slots // 2),
            )
        except _Stop:  # a timed call returned an error, or the correctness checks failed: times void
            if self.tally.failure:
                res.correct, res.failure = False, self.tally.failure
                self.judged_once = True
            self.phase_s["timing"] = time.perf_counter() - tick
            return
        share = ev.machine_share(mark)
        # at least one verified round, and more from a kernel that reads much faster than the seed
        # (the slots still hold the last request's outputs)
        wanted = (0 if self.samples else 1) + (SUSPICIOUS_EXTRA if timed.ratio > SUSPICIOUS_RATIO else 0)
        for which in self.rng.permutation(len(self.last_request))[:wanted]:
            self.sample(int(which))
        self.calibrate()  # a second calibration after: the spread between the two is the noise
        self.phase_s["timing"] = time.perf_counter() - tick
        res.seed_ms, res.cand_ms = timed.seed_ms, timed.cand_ms
        res.ratio, res.ci, res.pairs = timed.ratio, [timed.ci[0], timed.ci[1]], timed.pairs
        res.flags.extend(f for f in timed.flags if f not in res.flags)
        if self.judgement is not None and self.judgement.failed():
            return  # the correctness checks failed while it was timed: nothing more to learn
        if ev.baseline_host is not None and self.ahead is not None:
            self.time_baselines(ev.baseline_host, self.ahead)
        self.timed_work_done()
        self.verify()
        self._rates()
        self._audit(share)

    def time_baselines(self, host: CandidateHost, ahead: tuple[Any, Any]) -> None:
        """Upstream ops against the seed, in their own host (the same inputs; a quarter of the
        budget); each one's ratio to the candidate follows through the seed:
        t_base / t_cand = (t_base / t_seed) * (t_seed / t_cand)."""
        tick = time.perf_counter()
        res, spec = self.result, self.ev.timing
        self.note("baselines")
        ahead[0].result(LOAD_WAIT_S)
        names, errors = ahead[1].result(LOAD_WAIT_S)
        for name, message in errors.items():
            res.baselines[name] = {"error": message}
        if names:
            def rounds(plan: list[tuple[int, list[int]]]) -> list[list[float]]:
                mapped = [(s, [SEED if c == 0 else c + 1 for c in order]) for s, order in plan]
                r = host.rounds(mapped, [self._seed() for _ in plan], flush=True, check_inputs=False,
                                timeout_s=self.deadline(sum(len(o) for _, o in plan)))
                rows, k = [], 0
                for _, order in plan:
                    row = [0.0] * len(order)
                    for c in order:
                        row[c] = r.event_ms[k]
                        k += 1
                    rows.append(row)
                return rows

            # each op already ran once untimed, on a GPU the candidate's timing kept busy: a short warm-up
            timed = adaptive_ab(rounds, 1 + len(names), self.sets, budget_s=BASELINE_BUDGET_SHARE * spec.budget_s,
                                target_ci=BASELINE_TARGET_CI, min_pairs=min(5, spec.min_pairs),
                                max_pairs=spec.max_pairs, baseline_names=tuple(names[1:]),
                                max_batch=max(1, self.slots), warmup_s=BASELINE_WARMUP_S)
            per_seed = {names[0]: (timed.seed_ms, timed.ratio)}
            per_seed |= {name: (b["ms"], b["ratio"]) for name, b in timed.baselines.items()}
            for name, (ms, vs_seed) in per_seed.items():
                res.baselines[name] = {"ms": ms, "ratio": vs_seed * (res.ratio or 0.0), "vs_seed": vs_seed}
        self.phase_s["baselines"] = self.phase_s.get("baselines", 0.0) + time.perf_counter() - tick

    def calibrate(self) -> None:
        """A request of seed calls only (both slots of each round): the host's own overhead. One
        to three rounds, at most about 2.5% of the budget each time."""
        budget_ms = self.ev.timing.budget_s * 1e3
        rounds = max(1, min(self.slots // 2, 3, int(CALIBRATION_SHARE * budget_ms / max(2 * self.seed_wall_ms, 1e-3))))
        plan = [(i % self.sets, [SEED, SEED]) for i in range(rounds)]
        r = self.host.rounds(plan, [self._seed() for _ in plan], flush=True, check_inputs=False,
                             timeout_s=self.deadline(2 * rounds))
        self.ev.runtime_libraries(r.libs)
        self.census.add(r.census, [c for _, order in plan for c in order], r.event_ms)
        self.tally.calibration.append(audit.per_call_unexplained(r.verdict_ms, r.wall_ms))
        problem = audit.bracket_problem(r.verdict_ms, r.wall_ms, r.event_ms)
        self.tally.problem = self.tally.problem or problem

    def run_rounds(self, plan: list[tuple[int, list[int]]]) -> list[list[float]]:
        """adaptive_ab's callback: the plan's rounds in requests of at most slots/2 rounds."""
        rows: list[list[float]] = []
        per = max(1, self.slots // 2)
        for start in range(0, len(plan), per):
            rows += self._request(plan[start:start + per])
        if self.tally.failure or (self.judgement is not None and self.judgement.failed()):
            raise _Stop()
        return rows

    def _request(self, chunk: list[tuple[int, list[int]]]) -> list[list[float]]:
        n = max(len(order) for _, order in chunk)
        seeds = [self._seed() for _ in chunk]
        calls = sum(len(o) for _, o in chunk)
        r = self.host.rounds(chunk, seeds, flush=True, check_inputs=False,
                             timeout_s=self.deadline(calls))
        self.ev.runtime_libraries(r.libs)
        self.census.add(r.census, [c for _, order in chunk for c in order], r.event_ms)
        t = self.tally
        t.problem = t.problem or audit.bracket_problem(r.verdict_ms, r.wall_ms, r.event_ms)
        t.unexplained.append(audit.per_call_unexplained(r.verdict_ms, r.wall_ms))
        t.request_calls.append(len(r.wall_ms))
        rows, k, slot = [], 0, 0
        self.last_request = []
        for (set_index, order), seed in zip(chunk, seeds):
            row = [0.0] * n
            slots: dict[int, int] = {}
            for c in order:
                row[c] = r.event_ms[k]
                if c in (CAND, SEED):
                    if r.returned[k] != 0 and c == CAND and t.failure is None:
                        t.failure = f"timed call (round {self.round}) returned {r.returned[k]} (0 means success)"
                    slots[c] = slot
                    slot += 1
                    t.gaps[c].append(r.wall_ms[k] - r.event_ms[k])
                    t.other_cpu[c] += r.other_cpu_ms[k]
                    t.outside[c] += r.outside_ms[k]
                k += 1
            rows.append(row)
            self.last_request.append((self.round, set_index, seed, slots))
            self.round += 1
        p = min(1.0, VERIFY_TARGET * (r.verdict_ms / 1e3) / max(self.ev.timing.budget_s, 1e-3))
        if self.rng.random() < p:
            self.sample(int(self.rng.integers(len(self.last_request))))
        return rows

    # verification ---------------------------------------------------------------------------------
    def _positions(self, spec: BufferSpec) -> np.ndarray | None:
        """Element indices to fetch of one output (None = all of it): random blocks plus both ends."""
        if spec.count <= WHOLE_ELEMENTS:
            return None
        blocks = spec.count // BLOCK_ELEMENTS
        chosen = set(self.rng.choice(blocks, size=min(BLOCKS, blocks), replace=False).tolist()) | {0, blocks - 1}
        idx = [np.arange(b * BLOCK_ELEMENTS, (b + 1) * BLOCK_ELEMENTS) for b in sorted(chosen)]
        tail = np.arange(blocks * BLOCK_ELEMENTS, spec.count)  # a ragged tail is always checked
        return np.concatenate(idx + [tail]).astype(np.int64)

    def sample(self, which: int) -> None:
        round_index, set_index, seed, slots = self.last_request[which]
        positions: dict[str, np.ndarray] = {}
        got: dict[int, dict[str, bytes]] = {CAND: {}, SEED: {}}
        ms = {CAND: 0.0, SEED: 0.0}
        for spec in self.inputs.outputs:
            pos = self._positions(spec)
            size = self.etypes[spec.name].size
            if pos is None:
                blocks, nbytes = None, spec.nbytes
            else:
                starts = pos[::BLOCK_ELEMENTS]
                blocks = [(int(s) * size, min(BLOCK_ELEMENTS, spec.count - int(s)) * size) for s in starts]
                nbytes = sum(length for _, length in blocks)
                positions[spec.name] = pos
            for c in (CAND, SEED):
                data, took = self.host.fetch(slots[c], spec.name, blocks, nbytes)
                got[c][spec.name] = data
                ms[c] += took
        self.samples.append(Sample(round_index, set_index, seed, positions, got[CAND], got[SEED], (ms[CAND], ms[SEED])))

    def verify(self) -> None:
        """Check every sampled timed round against the reference the verdict computes for it."""
        if not self.samples:
            return
        tick = time.perf_counter()
        self.note("verifying timed calls")
        res, tol = self.result, self.scenario.tolerance
        for s in self.samples:
            refs = self.refs.compute(s.set, s.seed)
            mask_full = self.inputs.cases[s.set].masks
            outs: dict[int, dict[str, np.ndarray]] = {CAND: {}, SEED: {}}
            ref_s, masks = {}, {}
            for spec in self.inputs.outputs:
                pos = s.positions.get(spec.name)
                dtype = self.etypes[spec.name].storage
                for c, data in ((CAND, s.cand), (SEED, s.seed_out)):
                    arr = np.frombuffer(data[spec.name], dtype=dtype)
                    outs[c][spec.name] = arr.reshape(spec.shape) if pos is None else arr
                ref = refs[spec.name]
                ref_s[spec.name] = ref if pos is None else ref.reshape(-1)[pos]
                m = mask_full.get(spec.name)
                if m is not None:
                    masks[spec.name] = m if pos is None else m.reshape(-1)[pos]
            seed_res = check_call(0, outs[SEED], self.etypes, ref_s, masks, [], tolerance_limits(tol, list(self.etypes)),
                                  index_of=s.positions)
            if seed_res.failure and "seed_incorrect" not in res.flags:
                res.flags.append("seed_incorrect")
            cand = check_call(0, outs[CAND], self.etypes, ref_s, masks, [], error_limits(tol, seed_res.errors),
                              index_of=s.positions)
            if cand.failure:
                res.correct = False
                res.failure = f"timed call (round {s.round}, set {s.set}): {cand.failure}"
                self.judged_once = True
                break
        res.audit["verified_rounds"] = [s.round for s in self.samples]
        res.audit["fetch_ms"] = {"cand": round(sum(s.fetch_ms[0] for s in self.samples), 3),
                                 "seed": round(sum(s.fetch_ms[1] for s in self.samples), 3)}
        self.phase_s["verify"] = time.perf_counter() - tick
        if self.tally.failure and not self.judged_once:
            res.correct, res.failure = False, self.tally.failure
            self.judged_once = True

    # figures and audits -------------------------------------------------------------------------------
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
        peaks = self.ev.peaks
        peak_key, achieved = {
            "memory": ("memory_gbps", res.gbps), "fp32": ("fp32_tflops", res.tflops),
            "bf16_tensor": ("bf16_tensor_tflops", res.tflops), "fp16_tensor": ("fp16_tensor_tflops", res.tflops),
        }[self.task.roofline]
        peak = peaks.get(peak_key)
        if achieved and isinstance(peak, (int, float)) and peak > 0:
            res.pct_peak = 100.0 * achieved / peak
            if res.pct_peak > 105.0:
                res.flags.append("above_roofline")
        compute = peaks.get(self.ev.compute_peak_key)
        floor = audit.physical_floor(flops, nbytes, compute if _num(compute) else None,
                                     peaks.get("memory_gbps") if _num(peaks.get("memory_gbps")) else None)
        if floor is not None:
            res.physics = floor.to_json() | {"cand_ms": res.cand_ms}
            if peaks.get("contended"):  # peaks read on a busy machine are low: only far beyond them is proof
                floor.margin *= audit.CONTENDED_PEAK_MARGIN
                res.physics["margin"] = floor.margin
            if audit.impossible(res.cand_ms, floor):
                res.flags.append("impossible")
            elif peaks.get("contended") and audit.impossible(res.cand_ms * audit.CONTENDED_PEAK_MARGIN, floor):
                res.flags.append("impossible_unconfirmed")

    def _audit(self, share: float | None) -> None:
        """Flags from what the timing requests reported. On a contended cpu machine the checks that
        rest on small time differences only record their figures: the scenario is `contended`,
        which already keeps the goal from being met (re-measure), and noise must not accuse."""
        res, t = self.result, self.tally
        res.audit["verified"] = len(self.samples)
        contended = share is not None and share > CONTENDED_SHARE
        if share is not None:
            res.audit["other_load"] = round(share, 3)
            if contended:
                res.flags.append("contended")
        if t.problem:  # a reported time the verdict's clock contradicts outright
            res.flags.append("timing_inconsistent")
            res.audit["timing_problem"] = t.problem
        excess = audit.unexplained_time(t.unexplained, t.calibration, res.cand_ms or 0.0,
                                        float(np.median(t.request_calls)) if t.request_calls else 1.0)
        vouched = self.census.vouches()
        floor = audit.GAP_FLOOR_CENSUS_MS if vouched else audit.GAP_FLOOR_MS
        gap = audit.gap_excess(t.gaps[CAND], t.gaps[SEED], res.cand_ms or 0.0, floor)
        if excess is not None:
            res.audit["unexplained_ms_per_call"] = round(excess[0], 6)
            res.audit["unexplained_threshold_ms"] = round(excess[1], 6)
            if excess[0] > excess[1] and not contended and "timing_inconsistent" not in res.flags:
                res.audit["timing_problem"] = (f"the verdict's clock saw {excess[0]:.4f} ms per call more than the "
                                               f"host reported, beyond the seed-only calibration")
                # the coarse bracket alone, with a census that saw every call whole and a clean gap:
                # not a decision either way (the goal waits for a measurement that decides it)
                alone = vouched and gap is not None and not gap.flagged
                res.flags.append("timing_unconfirmed" if alone else "timing_inconsistent")
        if gap is not None:
            res.audit["gap"] = gap.to_json()
            if gap.flagged and self.task.backend == "cuda":
                res.flags.append("outside_stream")  # work finished after the call's end event
            elif gap.flagged and not contended and "timing_inconsistent" not in res.flags:
                # cpu: wall and event come from one clock around one call; only a host that
                # misreports one of them makes the candidate's differ from the seed's
                res.flags.append("timing_inconsistent")
                res.audit["timing_problem"] = (f"each call's wall time exceeds its reported time by "
                                               f"{gap.excess:+.4f} ms more than the seed's")
        if self.task.backend == "cpu":
            shares = {c: audit.outside_call_share([t.other_cpu[c]], [t.outside[c]]) for c in (CAND, SEED)}
            res.audit["outside_cpu_share"] = {"cand": _r(shares[CAND]), "seed": _r(shares[SEED])}
            if self.host.passive_threads and any(v is not None and v > audit.OUTSIDE_CPU_SHARE
                                                 for v in shares.values()):
                res.flags.append("outside_call")


@dataclass
class Checked:
    """One correctness round's raw facts: its reference, the host's reply, both outputs."""

    trial: int
    refs: dict[str, np.ndarray]
    reply: Any
    seed_out: dict[str, np.ndarray]
    cand_out: dict[str, np.ndarray]


class Judgement:
    """The correctness verdict of the two rounds, computed as they arrive: each round's seed and
    candidate outputs are checked at once (pure numpy, on `pool`'s threads, or here when None);
    the candidate's error limits, which the seed's error sets, are applied when they are joined."""

    def __init__(self, scenario: Scenario, etypes: dict[str, ElementType], case: Case, pool: Any) -> None:
        self.scenario, self.etypes, self.case, self.pool = scenario, etypes, case, pool
        self.parts: list[tuple[Checked, Any, Any]] = []
        self._result: dict[str, Any] | None = None

    def add(self, c: Checked) -> None:
        r = c.reply
        tol = self.scenario.tolerance
        seed = self._submit(check_call, r.returned[0], c.seed_out, self.etypes, c.refs, self.case.masks, r.modified[0],
                            tolerance_limits(tol, list(self.etypes)))
        cand = self._submit(check_call, r.returned[1], c.cand_out, self.etypes, c.refs, self.case.masks, r.modified[1],
                            {})
        self.parts.append((c, seed, cand))

    def _submit(self, fn: Any, *args: Any) -> Future[Any]:
        if self.pool is not None:
            return self.pool.submit(fn, *args)
        done: Future[Any] = Future()
        done.set_result(fn(*args))
        return done

    def done(self) -> bool:
        return all(f.done() for _, a, b in self.parts for f in (a, b))

    def failed(self) -> bool:
        """Known to have failed (without waiting for checks still running)."""
        return self.done() and bool(self.result()["failure"])

    def result(self) -> dict[str, Any]:
        if self._result is None:
            self._result = self._join()
        return self._result

    def _join(self) -> dict[str, Any]:
        tol = self.scenario.tolerance
        out: dict[str, Any] = {"flags": [], "failure": None, "errors": {}, "seed_errors": {}, "limits": {}}
        for c, seed_f, cand_f in self.parts:
            r = c.reply
            seed_res, cand = seed_f.result(), cand_f.result()
            if seed_res.failure and "seed_incorrect" not in out["flags"]:
                out["flags"].append("seed_incorrect")
            limits = error_limits(tol, seed_res.errors)
            cand = CallOutcome(cand.failure or limit_failure(cand.errors, limits), cand.errors)
            if r.late and r.late[1]:
                if "late_writes" not in out["flags"]:
                    out["flags"].append("late_writes")
                cand.failure = cand.failure or "late writes: outputs changed after the entry returned"
            if c.trial == 0:
                out["errors"], out["seed_errors"], out["limits"] = cand.errors, seed_res.errors, limits
            if cand.failure and out["failure"] is None:
                out["failure"] = cand.failure if c.trial == 0 else \
                    f"second call with new inputs (same buffers): {cand.failure}"
        return out


def judge(scenario: Scenario, etypes: dict[str, ElementType], case: Case, rounds: list[Checked]) -> dict[str, Any]:
    """The correctness verdict of the two rounds (pure: numpy only, no host, no device): the
    seed against the tolerance, the candidate against the limits the seed's error sets."""
    j = Judgement(scenario, etypes, case, None)
    for c in rounds:
        j.add(c)
    return j.result()


class _Stop(Exception):
    """A timed call failed: stop timing this scenario."""


def _num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 and math.isfinite(v)


def _r(v: float | None) -> float | None:
    return None if v is None else round(v, 4)


