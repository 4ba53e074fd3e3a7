"""Decision-point detectors: pure functions over the event stream, run one event at a time.

`Detectors(config).feed(event)` returns the decision points that event raises, as they arise:
new points and updates of earlier ones (`DecisionPoint.updates`; see `questions.moments`: one
moment, one alarm). `detect(events, config)` is the same fold over a whole log with the updates
applied, so a live runner, the console and an offline re-run (``kernelseek detect``) agree by
construction. Nothing here reads a clock or a file: time is the events' own `t`.
`decision_point` events already in a log are ignored (a detector never feeds on its own output),
so re-running over a log the runner annotated gives the same points.

Kinds (see `sessions.events.DECISION_KINDS`; the table in docs/questions.md says exactly when):

- start: the session began (once).
- stall: the best correct geomean has not improved by `stall_min_gain` over the last
  `stall_evals` evaluations, or `stall_minutes` of active time, or `stall_tool_calls` calls; one
  open point whose count grows until progress is made or a human speaks.
- loop: the same action with the same outcome, the same error, A/B alternation (`questions.loops`);
  one open point per pattern whose count grows; repeats whose evaluations moved are not loops.
- limit_claim: the agent asserts a hardware or theoretical limit (`claims.limit_claim`); stronger
  when the evaluator shows the kernel well below the measured peak.
- completion_claim: the agent says it is done, or ends its turn after working (`questions.turns`).
- agent_question: the agent's turn ends by asking the human, or it calls a tool that asks.
- risky_action: the agent is about to revert work, destroy shared state, get round a safeguard
  (`questions.actions`), edit what the human said not to touch, or cut the task down around
  something it says is missing.
- suspicious_win: a geomean jump of `win_geomean_jump` or a scenario jump of
  `win_scenario_jump` in one evaluation, or a scenario above the roofline.
- correctness_break: failures after a correct state explained away; failures in the agent's own
  words excused ("178/180 correct — just rounding"); a claim of being done while the latest
  evaluation fails; an edit of a reference, harness or tolerance.
- regression: a correct evaluation slower than the previous correct one by `regression_drop`
  in geomean, or by `regression_scenario_drop` on a scenario.
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterable, Mapping

from questions import actions, claims
from questions.decision import ConfigError, DecisionPoint, DetectorConfig
from questions.event_reading import (CD_PREFIX, CHAINED, PATH_KEYS, TOL_ASSIGN, WRITE_CMD, canonical, command_text,
                                     edit_ops, error_signature, eval_correct, failing_text, fx, has_flag, num,
                                     per_scenario)
from questions.loops import LoopWatch
from questions.moments import MomentBook, fold
from questions.turns import TurnWatch

__all__ = ["ConfigError", "DecisionPoint", "DetectorConfig", "Detectors", "detect", "eval_correct"]


class Detectors:
    """All detectors over one event stream. Feed events in log order; never shared between logs."""

    def __init__(self, config: DetectorConfig | None = None) -> None:
        self.config = cfg = config or DetectorConfig()
        cfg.check()
        self.enabled = frozenset(cfg.kinds)
        self._tamper_rx = re.compile(cfg.tamper_paths)
        self._ignore_cmd_rx = re.compile(cfg.loop_ignore_commands)
        self._ignore_tools = frozenset(t.lower() for t in cfg.loop_ignore_tools)
        self._handlers = {
            "assistant_text": self._on_text,
            "thinking": self._on_thinking,
            "tool_call": self._on_tool_call,
            "tool_result": self._on_tool_result,
            "eval_result": self._on_eval,
            "eval_start": self._on_eval_start,
            "human_message": self._on_human,
            "stop_check": self._on_stop_check,
            "session_end": self._on_session_end,
        }
        self.events = 0
        self._started = False
        self._ended = False
        self._conversation = False  # a foreign transcript: a human answers every turn
        self._book = MomentBook()
        self.loops = LoopWatch(cfg, self._fire, self._book.close)
        self.turns = TurnWatch(cfg, self._fire, self._goal_facts)
        # evaluations
        # per timing mode ("full" or "quick": a quick run's numbers only compare with quick ones)
        self._best: dict[str, float] = {}
        self._prev_geomean: dict[str, float] = {}
        self._mode = "full"
        self._full_total: int | None = None  # the most scenarios an evaluation has covered
        self._prev_ratios: dict[str, float] = {}
        self._last_eval_hash: str | None = None  # the candidate the previous evaluation measured
        self._last_summary: dict | None = None
        self._last_eval_sig: tuple | None = None  # what the previous evaluation said (moved or not)
        self._last_pct: dict[str, float] = {}
        self._status: bool | None = None  # the latest known correctness (evaluations or tests)
        self._failing = ""  # what the latest failing evaluation said
        self._measuring = False  # an evaluation (timed, or failing) has happened
        # stall window
        self._w_evals = 0
        self._w_calls = 0
        self._w_active = 0.0
        self._last_t: float | None = None
        # limit claims
        self._calls_since_limit: int | None = None
        # correctness break
        self._break: dict | None = None  # open window: {"seq", "evidence", "texts"}
        # tool calls waiting for their results: id -> (action hash, read-only, shown)
        self._pending: dict[Any, tuple[int, bool, str]] = {}
        # what the human said not to edit
        self._forbidden: list[actions.Prohibition] = []
        self._asked_publish = False  # the human's latest message asks for a push, a PR, a comment, ...

    # -- the fold ---------------------------------------------------------------------------------------

    def feed(self, event: Mapping) -> list[DecisionPoint]:
        """The decision points this event raises and the earlier points it updates (usually none)."""
        kind = event.get("type")
        if kind == "decision_point" or kind == "assistant_delta":
            return []
        out: list[DecisionPoint] = []
        seq = event.get("seq")
        seq = seq if isinstance(seq, int) and not isinstance(seq, bool) else None
        self.events += 1
        if not self._started:
            self._started = True
            self._begin(event)
            self._fire(out, "start", self._start_evidence(event), seq, seq, {"task": event.get("task")}, 0.5)
        handler = self._handlers.get(kind)
        if handler is not None and not (event.get("sidechain") and kind in _MAIN_ONLY):
            handler(event, seq, out)
        t = event.get("t")
        if isinstance(t, (int, float)) and not isinstance(t, bool):
            self._advance_time(float(t), seq, out)
        return self._book.settle(out) if out else out

    def feed_many(self, events: Iterable[Mapping]) -> list[DecisionPoint]:
        out: list[DecisionPoint] = []
        for ev in events:
            out.extend(self.feed(ev))
        return out

    def _fire(self, out: list, kind: str, evidence: str, about_seq, at_seq, detail: dict,
              strength: float, count: int = 1) -> None:
        if kind in self.enabled:
            out.append(DecisionPoint(kind, evidence, about_seq, detail, max(0.0, min(1.0, strength)), at_seq,
                                     count=count))

    # -- start -------------------------------------------------------------------------------------------

    def _begin(self, event: Mapping) -> None:
        """What kind of log this is: a conversation (a foreign transcript) or a runner's session."""
        agent = str(event.get("agent") or "")
        self._conversation = self.turns.conversation = event.get("type") == "session_start" and (
            "import" in event or agent in CONVERSATION_AGENTS)

    @staticmethod
    def _start_evidence(event: Mapping) -> str:
        if event.get("type") != "session_start":
            return "the log begins"
        parts = [f"task {event.get('task')}"]
        goal = event.get("goal")
        if isinstance(goal, dict) and goal:
            g = goal.get("geomean") or goal.get("min_geomean") or goal.get("speedup")
            parts.append(f"goal geomean >= {g}" if g is not None else "goal " + json.dumps(goal)[:80])
        for key in ("arch", "device"):
            if event.get(key):
                parts.append(f"{key} {event[key]}")
        return "session started: " + ", ".join(parts)

    # -- time and stall ----------------------------------------------------------------------------------

    def _advance_time(self, t: float, seq, out) -> None:
        last = self._last_t
        self._last_t = t
        if last is None or t <= last:
            return
        cfg = self.config
        self._w_active += min(t - last, cfg.stall_idle_gap_minutes * 60.0)
        if cfg.stall_minutes > 0 and self._w_active >= cfg.stall_minutes * 60.0 and (
                self._measuring or cfg.stall_before_first_eval):
            self._stall(out, seq, "minutes", f"{self._w_active / 60:.0f} active minutes")

    def _stall(self, out, seq, criterion: str, span: str) -> None:
        if self.best is None:
            evidence = f"no correct timed evaluation yet after {span}"
        else:
            evidence = (f"best geomean {fx(self.best)} not improved by {self.config.stall_min_gain:.0%} "
                        f"over the last {span}")
        detail = {"criterion": criterion, "best_geomean": self.best, "evals": self._w_evals,
                  "tool_calls": self._w_calls, "minutes": round(self._w_active / 60, 1), "open_key": "stall"}
        self._fire(out, "stall", evidence, seq, seq, detail, 0.6 if self.best is not None else 0.45)
        self._reset_window(close=False)

    def _reset_window(self, close: bool = True) -> None:
        """A new stall window; unless the stall itself restarts it, an open stall ends."""
        self._w_evals = 0
        self._w_calls = 0
        self._w_active = 0.0
        if close:
            self._book.close("stall")

    # -- text --------------------------------------------------------------------------------------------

    def _on_text(self, ev, seq, out) -> None:
        text = ev.get("text")
        if not isinstance(text, str) or not text:
            return
        self.turns.on_text(seq, text)
        self._read_claims(text, seq, out)

    def _on_thinking(self, ev, seq, out) -> None:
        text = ev.get("text")
        if self.config.scan_thinking and isinstance(text, str) and text:
            self._read_claims(text, seq, out)

    def _read_claims(self, text: str, seq, out) -> None:
        cfg = self.config
        limit = cfg.max_scan_chars
        if "limit_claim" in self.enabled and (self._calls_since_limit is None
                                              or self._calls_since_limit >= cfg.limit_cooldown_tool_calls):
            c = claims.limit_claim(text, limit)
            if c is not None:
                self._limit(c, seq, out)
        if "completion_claim" in self.enabled and not self.turns.claimed:
            c = claims.completion_claim(text, limit)
            if c is not None and self._conversation and c.pattern == "bare_done":
                c = None  # "Done." after the human's request is a report, not a claim to check
            if c is not None:
                self.turns.claimed = True
                detail = {"rule": c.pattern, **self._goal_facts()}
                strength = c.strength + (0.2 if detail.get("goal_met") is False else 0.0)
                self._fire(out, "completion_claim", claims.evidence_text(c.sentence), seq, seq, detail, strength)
                if self._status is False and "correctness_break" in self.enabled:
                    # done, says the agent, while the latest evaluation or test run fails
                    self._fire(out, "correctness_break", f"claims to be done while the latest run fails "
                               f"({self._failing or 'not correct'})", seq, seq, {"rule": "done_while_failing"}, 0.7)
        if "correctness_break" in self.enabled:
            c = claims.excused_failure(text, limit)
            if c is not None:
                self._break = None
                self._fire(out, "correctness_break", claims.evidence_text(c.sentence), seq, seq,
                           {"rule": c.pattern}, c.strength)
                return
        if "risky_action" in self.enabled:
            c = claims.scope_cut(text, limit)
            if c is not None:
                self._fire(out, "risky_action", claims.evidence_text(c.sentence), seq, seq, {"rule": c.pattern},
                           c.strength)
        brk = self._break
        if brk is not None:
            c = claims.explains_away(text, limit)
            if c is not None:
                self._fire(out, "correctness_break", claims.evidence_text(c.sentence), seq, seq,
                           {"rule": c.pattern, "failure": brk["evidence"], "failure_seq": brk["seq"]},
                           c.strength)
                self._break = None
            else:
                brk["texts"] += 1
                if brk["texts"] >= cfg.break_window_texts:
                    self._break = None

    def _limit(self, c: claims.Claim, seq, out) -> None:
        strength = c.strength
        evidence = claims.evidence_text(c.sentence)
        detail: dict = {"rule": c.pattern, "layers": list(c.layers)}
        if self._last_pct:
            name, best_pct = max(self._last_pct.items(), key=lambda kv: kv[1])
            detail["best_pct_peak"] = best_pct
            detail["best_pct_scenario"] = name
            if best_pct < self.config.limit_well_below_pct:
                strength += 0.3
                evidence += f" [evaluator: best scenario {name} at {best_pct:.0f}% of measured peak]"
        self._calls_since_limit = 0
        self._fire(out, "limit_claim", evidence, seq, seq, detail, strength)

    def _goal_facts(self) -> dict:
        s = self._last_summary
        if not s:
            return {}
        facts = {}
        for key in ("goal_met", "geomean", "all_correct", "min_ratio"):
            if key in s:
                facts[key] = s[key]
        return facts

    # -- tools -------------------------------------------------------------------------------------------

    def _on_tool_call(self, ev, seq, out) -> None:
        cfg = self.config
        self.turns.on_call(ev, seq, out)
        self.loops.on_call()
        if self._calls_since_limit is not None:
            self._calls_since_limit += 1
        self._w_calls += 1
        name = str(ev.get("name") or "")
        inp = ev.get("input")
        if not isinstance(inp, dict):
            inp = {"input": inp}
        cmd = command_text(inp)
        core = CD_PREFIX.sub("", cmd) if cmd is not None else None
        readonly = name.lower() in self._ignore_tools or (
            core is not None and bool(self._ignore_cmd_rx.match(core)) and not CHAINED.search(core))
        action = hash((name, canonical(inp)))
        shown = cmd if cmd is not None else (next((inp[k] for k in PATH_KEYS if isinstance(inp.get(k), str)), "")
                                             or repr(inp)[:80])
        call_id = ev.get("id")
        if len(self._pending) > 512:
            self._pending.pop(next(iter(self._pending)))
        self._pending[call_id] = (action, readonly, f"{name} {shown}".strip()[:120])
        ops = edit_ops(inp) if not readonly else []
        if "correctness_break" in self.enabled:
            if ops:
                self._check_tamper(ops, seq, out)
            elif cmd:
                self._check_tamper_command(cmd, seq, out)
        if ops and "loop" in self.enabled:
            self.loops.edits(ops, seq, out)
        if "risky_action" in self.enabled and not readonly:
            self._check_risk(cmd, ops, name, seq, out)
        if cfg.stall_tool_calls and self._w_calls >= cfg.stall_tool_calls and (
                self._measuring or cfg.stall_before_first_eval):
            self._stall(out, seq, "tool_calls", f"{self._w_calls} tool calls")

    def _check_risk(self, cmd: str | None, ops, name: str, seq, out) -> None:
        if cmd:
            risk = actions.risky_command(cmd)
            if risk is not None:
                self._fire(out, "risky_action", f"about to run ({risk.rule}): {risk.what}", seq, seq,
                           {"rule": risk.rule, "command": risk.what}, 0.6 if risk.rule != "bypass" else 0.55)
                return
        if self.config.risky_publish_unasked and not self._asked_publish:
            what = actions.publishes(cmd, name)
            if what is not None:
                self._fire(out, "risky_action", f"about to publish what the human did not ask to: {what}", seq, seq,
                           {"rule": "publish", "command": what}, 0.5)
                return
        if self._forbidden:
            for path, _old, _new in ops:
                broken = next((p for p in self._forbidden if p.forbids(path)), None)
                if broken is not None:
                    self._fire(out, "risky_action", f"edits {path}, which the human said not to touch "
                               f"(\u201c{broken.quote}\u201d)", seq, seq, {"rule": "forbidden", "path": path}, 0.7)
                    return

    def _tamper_fire(self, what: str, seq, out) -> None:
        brk = self._break
        if brk is None and not self.config.break_tamper_anytime:
            return
        detail = {"rule": "tamper", "edit": what}
        if brk is not None:
            detail.update(failure=brk["evidence"], failure_seq=brk["seq"])
            self._break = None
        self._fire(out, "correctness_break", f"edit of {what}", seq, seq, detail, 0.85 if brk else 0.7)

    def _check_tamper(self, ops, seq, out) -> None:
        for path, old, new in ops:
            if self._tamper_rx.search(path):
                self._tamper_fire(f"the reference/harness file {path}", seq, out)
                return
            if old is not None and ("tol" in new or "eps" in new or "max_error" in new):
                before = dict(TOL_ASSIGN.findall(old))
                for name, value in TOL_ASSIGN.findall(new):
                    if name in before and before[name] != value:
                        self._tamper_fire(f"a tolerance in {path}: {name} {before[name]} -> {value}", seq, out)
                        return

    def _check_tamper_command(self, cmd: str, seq, out) -> None:
        for m in WRITE_CMD.finditer(cmd):
            target = m.group(2)
            if self._tamper_rx.search(target):
                self._tamper_fire(f"the reference/harness file {target} (by a shell command)", seq, out)
                return

    def _on_tool_result(self, ev, seq, out) -> None:
        cfg = self.config
        self.turns.on_result()
        output = ev.get("output")
        if not isinstance(output, str):
            output = "" if output is None else json.dumps(output, default=str)[: cfg.max_scan_chars]
        if len(output) > cfg.max_scan_chars:
            half = cfg.max_scan_chars // 2
            output = output[:half] + "\n" + output[-half:]
        pending = self._pending.pop(ev.get("id"), None)
        is_error = bool(ev.get("is_error"))
        if "loop" in self.enabled:
            sig = None
            readonly = pending is not None and pending[1]  # a file shown is not an error raised
            if not readonly and (is_error or "rror" in output or "RROR" in output or "fault" in output
                                 or "dumped" in output or "memory" in output):
                sig = error_signature(output)
            fired = self.loops.count_error(sig, seq, out)
            if pending is not None and not fired:
                key = hash((pending[0], is_error, output[:2000], output[-2000:]))
                if pending[1]:
                    if not _VIEW.match(pending[2]):  # showing a file again is reading, never a loop
                        self.loops.count_lookup(key, pending[2], seq, out)
                else:
                    self.loops.count_pair(key, pending[2], seq, out)

    # -- evaluations ---------------------------------------------------------------------------------------

    def _on_eval_start(self, ev, seq, out) -> None:
        h = ev.get("candidate_hash")
        if isinstance(h, str) and "loop" in self.enabled:
            self.loops.candidate(h, seq, out)

    @property
    def best(self) -> float | None:
        """The best correct geomean so far (full runs; quick ones when that is all there is)."""
        return self._best.get("full", self._best.get("quick"))

    def _previous(self) -> float | None:
        """The last correct geomean of this timing mode, else of the other one."""
        other = "full" if self._mode == "quick" else "quick"
        return self._prev_geomean.get(self._mode, self._prev_geomean.get(other))

    def _on_eval(self, ev, seq, out) -> None:
        summary = ev.get("summary")
        if not isinstance(summary, dict) or ev.get("interrupted") or summary.get("interrupted"):
            return
        cfg = self.config
        inferred = bool(ev.get("inferred") or summary.get("inferred"))
        mode = self._mode = "quick" if summary.get("quick") else "full"
        h = ev.get("candidate_hash")
        if isinstance(h, str) and "loop" in self.enabled:
            self.loops.candidate(h, seq, out)
        said = (_round3(summary.get("geomean")), eval_correct(summary), summary.get("passed"))
        if self._last_eval_sig is not None and said != self._last_eval_sig:
            self.loops.reset()  # the evaluations moved: what repeated before is progress, not a loop
        self._last_eval_sig = said
        # the same source measured again: any difference is the machine's noise, not a change the
        # agent made, so it is neither a win nor a regression
        remeasured = isinstance(h, str) and h == self._last_eval_hash
        self._last_eval_hash = h if isinstance(h, str) else None
        err = summary.get("error") or summary.get("build_error")
        # an evaluation run by a tool call shows its error in that tool's result (counted there)
        if isinstance(err, str) and err and "loop" in self.enabled and not ev.get("call_id"):
            self.loops.count_eval_error(err, seq, out)
        self._last_summary = dict(summary)
        pct = per_scenario(summary, "pct_peak", correct_only=False)
        if pct:
            self._last_pct = pct
        correct = eval_correct(summary)
        if correct is not None:
            self._correctness(correct, seq, failing_text(summary))
        geomean = num(summary.get("geomean"))
        ratios = per_scenario(summary, "ratio", correct_only=True)
        total = summary.get("total")
        total = total if isinstance(total, int) and not isinstance(total, bool) and total > 0 else None
        if total is not None and (self._full_total is None or total > self._full_total):
            if self._full_total is not None:  # the scenario set grew: earlier geomeans do not compare
                self._prev_geomean.clear()
                self._best.clear()
            self._full_total = total
        # a run over a subset of the scenarios: only per-scenario comparisons hold
        partial = bool(summary.get("only")) or (total is not None and total < self._full_total)
        damp = 0.75 if inferred else 1.0
        if correct is not False and (geomean is not None and geomean > 0 or ratios or pct):
            whole = None if partial or geomean is None or geomean <= 0 else geomean
            self._suspicious(summary, whole, ratios, pct, seq, out, damp, compare=not remeasured)
            if not remeasured:
                self._regression(whole, ratios, seq, out, damp)
            if ratios:
                self._prev_ratios = {**self._prev_ratios, **ratios}
            if whole is not None:
                self._measuring = True
                best = self._best.get(mode)
                improved = best is None or whole >= best * (1.0 + cfg.stall_min_gain)
                if best is None or whole > best:
                    self._best[mode] = whole
                self._prev_geomean[mode] = whole
                if improved:
                    self._reset_window()
                    return
        if geomean is None and (correct is not False or inferred):
            return  # not a timed evaluation (a foreign test run): no bearing on progress
        if not self._measuring:
            self._measuring = True
            self._reset_window()  # the stall clock starts at the first measurement
        self._w_evals += 1
        if self._w_evals >= cfg.stall_evals:
            self._stall(out, seq, "evals", f"{self._w_evals} evaluations")

    def _suspicious(self, summary, geomean, ratios, pct, seq, out, damp, compare: bool = True) -> None:
        cfg = self.config
        reasons: list[tuple[float, str]] = []
        detail: dict = {}
        if not compare:  # the same source again: only a reading above the roofline is suspicious
            geomean, ratios = None, {}
        if geomean is not None:
            prev = self._previous() or cfg.win_first_baseline
            if prev > 0 and geomean / prev >= cfg.win_geomean_jump:
                jump = geomean / prev
                reasons.append((jump, f"geomean {fx(prev)} -> {fx(geomean)} ({fx(jump)}) in one step"))
                detail["geomean_jump"] = round(jump, 4)
        jumps = {}
        for name, r in ratios.items():
            prev_r = self._prev_ratios.get(name, cfg.win_first_baseline if not self._prev_ratios else None)
            if prev_r and r / prev_r >= cfg.win_scenario_jump:
                jumps[name] = (prev_r, r)
        if jumps:
            name, (a, b) = max(jumps.items(), key=lambda kv: kv[1][1] / kv[1][0])
            more = f" (and {len(jumps) - 1} more)" if len(jumps) > 1 else ""
            reasons.append((b / a, f"scenario {name} {fx(a)} -> {fx(b)} ({fx(b / a)}) in one step{more}"))
            detail["scenario_jumps"] = {k: round(v[1] / v[0], 4) for k, v in jumps.items()}
        above = {k: v for k, v in pct.items() if v > cfg.win_roofline_pct}
        flags = summary.get("flags")
        flagged = has_flag(flags, "above_roofline")
        if above or flagged:
            if above:
                name, p = max(above.items(), key=lambda kv: kv[1])
                reasons.append((10.0, f"scenario {name} at {p:.0f}% of measured peak: above the roofline"))
                detail["above_roofline"] = above
            else:
                reasons.append((10.0, "the evaluator flags a scenario above the roofline"))
                detail["above_roofline"] = True
        if not reasons:
            return
        reasons.sort(key=lambda r: -r[0])
        evidence = "; ".join(r[1] for r in reasons)
        strength = (0.9 if above or flagged else min(0.9, 0.5 + 0.4 * (reasons[0][0] - 1.3))) * damp
        detail["reasons"] = len(reasons)
        self._fire(out, "suspicious_win", evidence, seq, seq, detail, strength)

    def _regression(self, geomean, ratios, seq, out, damp) -> None:
        cfg = self.config
        prev = self._previous()
        drop = 1.0 - geomean / prev if geomean is not None and prev is not None else 0.0
        if drop >= cfg.regression_drop:
            evidence = f"geomean {fx(prev)} -> {fx(geomean)} (-{drop:.1%}) since the previous correct evaluation"
            if self.best is not None and self.best > prev:
                evidence += f" (best {fx(self.best)})"
            self._fire(out, "regression", evidence, seq, seq, {"rule": "geomean", "drop": round(drop, 4),
                                                                "previous": prev, "geomean": geomean},
                       min(1.0, 0.5 + 2 * drop) * damp)
            return
        if cfg.regression_scenario_drop > 0 and ratios and self._prev_ratios:
            drops = {k: 1.0 - r / self._prev_ratios[k] for k, r in ratios.items()
                     if self._prev_ratios.get(k) and 1.0 - r / self._prev_ratios[k] >= cfg.regression_scenario_drop}
            if drops:
                name, d = max(drops.items(), key=lambda kv: kv[1])
                more = f" (and {len(drops) - 1} more)" if len(drops) > 1 else ""
                evidence = f"scenario {name} {fx(self._prev_ratios[name])} -> {fx(ratios[name])} (-{d:.0%}){more}"
                if prev is not None and geomean is not None:
                    evidence += f" while the geomean went {fx(prev)} -> {fx(geomean)}"
                self._fire(out, "regression", evidence, seq, seq,
                           {"rule": "scenario", "drops": {k: round(v, 4) for k, v in drops.items()}},
                           min(1.0, 0.4 + d) * damp)

    def _correctness(self, correct: bool, seq, evidence: str) -> None:
        """Track correctness; a failure after a correct state opens the explain-away window."""
        if correct:
            self._status = True
            self._failing = ""
            self._break = None
            return
        if self._status is True and self._break is None:
            self._break = {"seq": seq, "evidence": evidence, "texts": 0}
        self._status = False
        self._failing = evidence

    # -- turns and people ------------------------------------------------------------------------------

    def _on_human(self, ev, seq, out) -> None:
        text = ev.get("text") if isinstance(ev.get("text"), str) else ""
        interrupt = ev.get("kind") == "interrupt" or text.startswith("[Request interrupted")
        if not interrupt:
            if actions.permits_edits(text):
                self._forbidden = []
            self._forbidden.extend(actions.prohibitions(text))
            self._asked_publish = actions.asked_to_publish(text)
        self.turns.on_human(ev, seq, out)
        if interrupt:
            return
        if self.config.stall_reset_on_human:
            self._reset_window()
        self.loops.reset()  # the steerer has spoken: what repeats from now on is a new pattern
        self._calls_since_limit = None

    def _on_stop_check(self, ev, seq, out) -> None:
        self.turns.on_stop(ev, seq, out)

    def _on_session_end(self, ev, seq, out) -> None:
        self.turns.on_end(seq, out, self._ended)
        self._ended = True


def _round3(v) -> float | None:
    x = num(v)
    return None if x is None else float(f"{x:.3g}")


#: Read-only calls that show a file (as opposed to searching or listing): never a loop.
_VIEW = re.compile(r"^(?:read|read_file|view|readfile|notebookread|view_image)\b|^\S+\s+(?:cd\s+\S+\s*&&\s*)?"
                   r"(?:cat|head|tail|less|more|nl|bat|sed\s+-n)\b", re.I)


#: Agents whose logs are conversations with a human (foreign transcripts), not runs of our runner.
CONVERSATION_AGENTS = frozenset(("claude-code", "codex"))


#: Events of a subagent's thread (sidechain) that the main agent's detectors skip: its words and
#: turns are not the agent's own claims, and its tool calls are counted in its own thread.
_MAIN_ONLY = frozenset(("assistant_text", "thinking", "human_message", "stop_check"))


def detect(events: Iterable[Mapping], config: DetectorConfig | None = None) -> list[DecisionPoint]:
    """Every decision point in a whole log, as it ended up: the fold the runner does live, one event
    at a time, with each point's updates (a loop that grew, a reason that joined) applied."""
    return fold(Detectors(config).feed_many(events))
