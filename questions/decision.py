"""Decision points and the detectors' settings: what a detector reports and every knob it has.

`DetectorConfig` holds the knobs (`DetectorConfig.from_mapping` reads them from flat keys or
per-kind sections and rejects unknown ones); `DecisionPoint` is what a detector reports, with
`to_event_fields()` for the session log's `decision_point` event.
"""
from __future__ import annotations

import dataclasses
import difflib
import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from sessions.events import DECISION_KINDS


class ConfigError(Exception):
    """A detector configuration is not valid. Printed as one line by the CLI."""

    exit_code = 2


@dataclass
class DetectorConfig:
    """Every knob of the detectors. Defaults are what the runner and `kernelseek detect` use."""

    kinds: tuple[str, ...] = DECISION_KINDS  # the kinds that may fire
    # stall
    stall_evals: int = 5  # evaluations without a gain of stall_min_gain
    stall_minutes: float = 30.0  # active minutes without a gain (0: off)
    stall_tool_calls: int = 40  # tool calls without a gain (0: off)
    stall_min_gain: float = 0.01  # relative gain over the best that counts as progress
    stall_idle_gap_minutes: float = 10.0  # a pause longer than this counts as this much
    stall_reset_on_human: bool = True  # a human message starts a new window
    stall_before_first_eval: bool = False  # minutes and tool calls count before any evaluation
    # regression
    regression_drop: float = 0.05  # geomean drop against the previous correct evaluation
    regression_scenario_drop: float = 0.20  # one scenario's drop (0: off)
    # suspicious_win
    win_geomean_jump: float = 1.3  # new geomean / previous correct geomean
    win_scenario_jump: float = 1.5  # a scenario's ratio / its previous ratio
    win_roofline_pct: float = 100.0  # a scenario's pct_peak above this is above the roofline
    win_first_baseline: float = 1.0  # what the first evaluation is compared with (the seed)
    # limit_claim
    limit_well_below_pct: float = 70.0  # best scenario under this % of peak strengthens a claim
    limit_cooldown_tool_calls: int = 10  # no second limit claim until this many tool calls pass
    # completion_claim
    completion_on_turn_end: bool = True  # ending a turn is a completion claim
    completion_turn_min_tool_calls: int = 1  # ... if the turn did this much work
    completion_turn_end_questions: bool = False  # ... even when, in a conversation, its last words ask the human
    completion_turn_end_asserts: bool = True  # ... in a conversation, only when its last words assert something
    # agent_question
    question_on_stop: bool = True  # a runner's stop check whose last words ask the human asks too
    question_offers: bool = False  # an offer ("if you want, I can also ...") is a question too
    # risky_action
    risky_publish_unasked: bool = True  # pushing, commenting, filing issues when the human did not ask is risky
    # correctness_break
    break_window_texts: int = 4  # assistant texts after a break that may explain it away
    break_tamper_anytime: bool = True  # an edit of a reference/harness/tolerance fires anytime
    tamper_paths: str = (r"(?:^|/)(?:reference|ref|ref_impl|reference_impl)(?:[._-][\w.-]*)?\.(?:py|cu|cuh|c|cc|"
                         r"cpp|h|hpp)$|(?:^|/)[\w-]*_ref\.(?:py|cu|cuh|c|cc|cpp|h|hpp)$|(?:^|/)harness\.py$|"
                         r"(?:^|/)task\.ya?ml$|(?:^|/)[^/]*toleranc[^/]*$")
    # loop
    loop_window: int = 12  # tool calls looked back over
    loop_repeat: int = 3  # the same action and outcome this many times
    loop_error_window: int = 20  # tool results looked back over for repeated errors
    loop_error_repeat: int = 3  # the same error this many times
    loop_ignore_tools: tuple[str, ...] = ("read", "read_file", "view", "glob", "grep", "ls", "todowrite",
                                          "todoread", "webfetch", "websearch", "task", "update_plan",
                                          "list_dir", "search", "find")
    loop_ignore_commands: str = (r"^\s*(?:ls|cat|pwd|head|tail|grep|rg|find|echo|which|wc|"
                                 r"git\s+(?:status|diff|log|show|branch)|nvidia-smi|sed\s+-n|less|tree|stat|"
                                 r"file|du|df|date|env|printenv|whoami|uname)\b")
    # text
    scan_thinking: bool = False  # also read thinking blocks for claims
    max_scan_chars: int = 20000  # text and tool output read per event

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any] | None) -> "DetectorConfig":
        """Build from a mapping: flat keys (`stall_evals: 3`) or sections (`stall: {evals: 3}`)."""
        if not mapping:
            return cls()
        if not isinstance(mapping, Mapping):
            raise ConfigError("a detector configuration is a mapping of knobs")
        flat: dict[str, Any] = {}
        for key, value in mapping.items():
            if isinstance(value, Mapping):
                prefix = _SECTIONS.get(str(key), str(key))
                for sub, v in value.items():
                    flat[f"{prefix}_{sub}"] = v
            else:
                flat[str(key)] = value
        fields = {f.name: f for f in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        for key, value in flat.items():
            f = fields.get(key)
            if f is None:
                close = difflib.get_close_matches(key, list(fields), n=1, cutoff=0.6)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise ConfigError(f"unknown detector knob {key!r}{hint}")
            values[key] = _coerce(key, value, getattr(cls(), key))
        cfg = cls(**values)
        cfg.check()
        return cfg

    def check(self) -> None:
        for k in self.kinds:
            if k not in DECISION_KINDS:
                raise ConfigError(f"kinds: unknown decision-point kind {k!r} (known: {', '.join(DECISION_KINDS)})")
        for name in ("stall_evals", "loop_window", "loop_repeat", "loop_error_window", "loop_error_repeat",
                     "max_scan_chars"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be at least 1")
        for name in ("win_geomean_jump", "win_scenario_jump"):
            if getattr(self, name) <= 1.0:
                raise ConfigError(f"{name} is a ratio above 1")
        for name in ("tamper_paths", "loop_ignore_commands"):
            try:
                re.compile(getattr(self, name))
            except re.error as exc:
                raise ConfigError(f"{name}: not a valid regular expression: {exc}") from None

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}


#: Sections of a configuration may be named by the decision-point kind they tune.
_SECTIONS = {"suspicious_win": "win", "limit_claim": "limit", "completion_claim": "completion",
             "correctness_break": "break"}


def _coerce(key: str, value: Any, default: Any) -> Any:
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{key}: true or false is expected, not {value!r}")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{key}: a whole number is expected, not {value!r}")
        if value < 0:
            raise ConfigError(f"{key}: must not be negative")
        return value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise ConfigError(f"{key}: a non-negative number is expected, not {value!r}")
        return float(value)
    if isinstance(default, tuple):
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{key}: a list of names is expected")
        return tuple(v.lower() if key == "loop_ignore_tools" else v for v in value)
    if not isinstance(value, str):
        raise ConfigError(f"{key}: a string is expected")
    return value


#: Which kind names a point when several fire on one moment (the first present wins): the most
#: specific reason leads, the turn's end last.
KIND_ORDER: tuple[str, ...] = ("correctness_break", "suspicious_win", "risky_action", "limit_claim", "regression",
                               "loop", "stall", "agent_question", "completion_claim", "start")


@dataclass
class DecisionPoint:
    """A moment worth a question: what kind, why (evidence), and which event caused it.

    One moment, one point: when several kinds fire on the same moment the point carries them all
    in `reasons` (its own kind, the strongest, first). A loop or a stall is one open point whose
    `count` grows; each growth is reported as a point whose `updates` names the point it updates
    (`id`) and which carries the whole point again."""

    kind: str
    evidence: str
    about_seq: int | None
    detail: dict = field(default_factory=dict)
    strength: float = 0.5  # 0..1: how sure the detector is that this is a decision point
    at_seq: int | None = None  # the event being fed when it fired (>= about_seq)
    id: str | None = None  # the point's name in its log ("loop@123")
    reasons: list[dict] = field(default_factory=list)  # [{kind, evidence, strength}] when several fired
    count: int = 1  # loops and stalls: how often the pattern repeated
    updates: str | None = None  # set on an update: the id of the point it updates

    @property
    def kinds(self) -> tuple[str, ...]:
        """Every kind this point stands for, its own first."""
        out = [self.kind]
        for r in self.reasons:
            k = r.get("kind")
            if isinstance(k, str) and k not in out:
                out.append(k)
        return tuple(out)

    def to_event_fields(self) -> dict:
        """The fields of a `decision_point` event (add `suggestions` from `rank`)."""
        detail = dict(self.detail)
        if self.at_seq is not None and self.at_seq != self.about_seq:
            detail["at_seq"] = self.at_seq
        return {"kind": self.kind, "evidence": self.evidence, "about_seq": self.about_seq,
                "strength": round(self.strength, 3), "detail": detail, **self._extras()}

    def to_dict(self) -> dict:
        return {"kind": self.kind, "evidence": self.evidence, "about_seq": self.about_seq,
                "at_seq": self.at_seq, "strength": round(self.strength, 3), "detail": self.detail, **self._extras()}

    def _extras(self) -> dict:
        """id, reasons, count and updates, each only when it says something (readers of older logs
        never see fields they do not know)."""
        out: dict = {}
        if self.id is not None:
            out["id"] = self.id
        if len(self.reasons) > 1:
            out["reasons"] = [dict(r) for r in self.reasons]
        if self.count > 1:
            out["count"] = self.count
        if self.updates is not None:
            out["updates"] = self.updates
        return out

    @classmethod
    def from_event(cls, event: Mapping) -> "DecisionPoint":
        """Rebuild one from a logged `decision_point` event."""
        detail = dict(event.get("detail") or {})
        at = detail.pop("at_seq", None)
        about = event.get("about_seq")
        strength = event.get("strength")
        reasons = [dict(r) for r in event.get("reasons") or () if isinstance(r, Mapping)]
        count = event.get("count")
        return cls(kind=str(event.get("kind")), evidence=str(event.get("evidence", "")), about_seq=about,
                   detail=detail, strength=float(strength) if isinstance(strength, (int, float)) else 0.5,
                   at_seq=at if at is not None else (about if about is not None else event.get("seq")),
                   id=event.get("id") if isinstance(event.get("id"), str) else None, reasons=reasons,
                   count=count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 1,
                   updates=event.get("updates") if isinstance(event.get("updates"), str) else None)
