"""The runner's settings: model, limits, tool limits, retries, context budget and the price table.

Precedence, lowest first: the defaults here, the config file (`--config FILE`, else
`$KERNELSEEK_CONFIG`, else `$KERNELSEEK_HOME/agent.yaml` when it exists), environment variables
(`KERNELSEEK_MODEL`, ...), then command-line flags. The file is YAML whose keys are the field names
of `AgentConfig`, plus `prices:` to add or override price-table rows.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from sessions.layout import kernelseek_home
from sessions.yamlfile import YamlFileError, read_yaml

DEFAULT_MODEL = "claude-opus-4-6"


class ConfigError(Exception):
    exit_code = 2


AUTOPILOT_GRACE_S = 30.0  # seconds; the one default of `--grace` and of the config's grace_s


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float
    cache_write: float  # 5-minute cache writes
    cache_read: float


def _price(input: float, output: float) -> Price:
    return Price(input, output, round(input * 1.25, 4), round(input * 0.1, 4))


# Matched by the longest prefix of the model name; "default" when nothing matches.
PRICES: dict[str, Price] = {
    "claude-opus-4-0": _price(15.0, 75.0),
    "claude-opus-4-1": _price(15.0, 75.0),
    "claude-opus-4-2025": _price(15.0, 75.0),
    "claude-opus": _price(5.0, 25.0),
    "claude-sonnet": _price(3.0, 15.0),
    "claude-haiku-3": _price(0.8, 4.0),
    "claude-haiku": _price(1.0, 5.0),
    "claude-3-opus": _price(15.0, 75.0),
    "default": _price(5.0, 25.0),
}


def price_for(model: str, table: dict[str, Price] | None = None) -> tuple[Price, str]:
    """The price row for a model and the key it matched (the family)."""
    table = table or PRICES
    best = ""
    for key in table:
        if key != "default" and model.startswith(key) and len(key) > len(best):
            best = key
    return table[best or "default"], best or "default"


def cost_usd(price: Price, *, input_tokens: int, output_tokens: int, cache_write_tokens: int = 0,
             cache_read_tokens: int = 0) -> float:
    return (input_tokens * price.input + output_tokens * price.output
            + cache_write_tokens * price.cache_write + cache_read_tokens * price.cache_read) / 1e6


@dataclass(frozen=True)
class AgentConfig:
    model: str = DEFAULT_MODEL
    max_tokens: int = 16000
    # off | adaptive | a budget of thinking tokens (>= 1024)
    thinking: str = "off"
    context_window: int = 200_000
    # compact old tool outputs when the request is estimated above this share of the window
    compact_at: float = 0.70
    keep_recent_messages: int = 8
    request_timeout_s: float = 600.0
    # retries of one model request (overloaded, rate limits, 5xx, dropped streams)
    max_retries: int = 8
    retry_base_s: float = 2.0
    retry_cap_s: float = 60.0
    # tools
    bash_timeout_s: float = 300.0
    bash_max_timeout_s: float = 1800.0
    output_cap_chars: int = 30_000
    read_cap_chars: int = 100_000
    # auto (bubblewrap, else unshare) | bwrap | unshare | none; where none is what there is, a live
    # run refuses to start unless unsafe_no_sandbox (`--unsafe-no-sandbox`) accepts it
    sandbox: str = "auto"
    unsafe_no_sandbox: bool = False
    # more environment variables to treat as secrets (kept from the tools and candidates, redacted);
    # names that look like credentials (…KEY…, …TOKEN…, ANTHROPIC_*, ...) already are
    secret_env: list = field(default_factory=list)
    # evaluations
    eval_time_budget_s: float | None = None  # per scenario; None = the task's own
    eval_timeout_s: float | None = None  # the whole evaluation; None = the evaluator's default
    eval_min_pairs: int | None = None  # timed pairs at least; None = the task's own
    gate_quick: bool = False  # the stop gate evaluates the quick subset only (tests, demos)
    # decision-point detector knobs (questions.detectors.DetectorConfig), e.g. {stall_evals: 3}
    detectors: dict = field(default_factory=dict)
    # limits (None = none)
    max_turns: int | None = None
    max_cost: float | None = None
    max_hours: float | None = None
    # autopilot
    autopilot: bool = False
    # how long a decision point waits for a human before the autopilot asks (the steerer of a
    # session, local or attached later, answers first); `--grace 0` for runs nobody watches
    grace_s: float = AUTOPILOT_GRACE_S
    # how often the live view gets a coalesced assistant_delta
    delta_interval_s: float = 0.25
    # Claude Code (--agent claude-code): the `claude` executable; None = look in the known npm prefixes
    claude_code_path: str | None = None
    # a line for session_start saying how this session came about (e.g. a scripted demo model)
    note: str | None = None
    # `--on slurm` defaults: gpus, partition, time, account, cpus, mem, options, setup, python
    # (agent.launchers.slurm.SlurmOptions)
    slurm: dict = field(default_factory=dict)
    prices: dict = field(default_factory=lambda: dict(PRICES))

    def price(self) -> tuple[Price, str]:
        return price_for(self.model, self.prices)

    def eval_options(self) -> dict:
        """Keyword options for evaluate_isolated (None = the evaluator's or the task's default)."""
        return {k: v for k, v in (("time_budget_s", self.eval_time_budget_s), ("timeout_s", self.eval_timeout_s),
                                  ("min_pairs", self.eval_min_pairs)) if v is not None}

    def public(self) -> dict:
        """The settings worth recording in session_start (no price table)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "prices"}


_ENV = {
    "KERNELSEEK_MODEL": ("model", str),
    "KERNELSEEK_MAX_TOKENS": ("max_tokens", int),
    "KERNELSEEK_THINKING": ("thinking", str),
    "KERNELSEEK_CONTEXT_WINDOW": ("context_window", int),
    "KERNELSEEK_SANDBOX": ("sandbox", str),
    "KERNELSEEK_RETRY_BASE_S": ("retry_base_s", float),
    "KERNELSEEK_MAX_RETRIES": ("max_retries", int),
    "KERNELSEEK_EVAL_BUDGET_S": ("eval_time_budget_s", float),
    "KERNELSEEK_GATE_QUICK": ("gate_quick", lambda s: s.lower() in ("1", "true", "yes", "on")),
}


def _coerce(name: str, value, path: str):
    kinds = {f.name: str(f.type) for f in fields(AgentConfig)}
    if name not in kinds or name == "prices":
        raise ConfigError(f"{path}: unknown setting {name!r} (known: {', '.join(sorted(kinds))})")
    kind = kinds[name]
    if kind == "dict":
        if not isinstance(value, dict):
            raise ConfigError(f"{path}: {name}: expected a mapping")
        return value
    if kind == "list":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: {name}: expected a list of names")
        return value
    if value is None:
        if "None" in kind:
            return None
        raise ConfigError(f"{path}: {name}: a value is required")
    try:
        if kind == "bool":
            return value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes", "on")
        if kind.startswith("int"):
            return int(value)
        if kind.startswith("float"):
            return float(value)
        return str(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{path}: {name}: expected {kind}, got {value!r}") from None


def config_path(explicit: str | os.PathLike | None = None) -> Path | None:
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("KERNELSEEK_CONFIG")
    if env:
        return Path(env).expanduser()
    default = kernelseek_home() / "agent.yaml"
    return default if default.is_file() else None


def load_config(path: str | os.PathLike | None = None, **overrides) -> AgentConfig:
    """Defaults < config file < environment < `overrides` (flags; None values are ignored)."""
    cfg = AgentConfig()
    p = config_path(path)
    if p is not None:
        try:
            data = read_yaml(p) or {}
        except YamlFileError as exc:
            raise ConfigError(f"{p}: no such config file" if exc.missing else str(exc)) from None
        if not isinstance(data, dict):
            raise ConfigError(f"{p}: expected a mapping of settings")
        prices = dict(cfg.prices)
        for family, row in (data.pop("prices", None) or {}).items():
            try:
                prices[str(family)] = Price(**{k: float(v) for k, v in row.items()})
            except (TypeError, ValueError, AttributeError):
                raise ConfigError(f"{p}: prices.{family}: expected input, output, cache_write, cache_read "
                                  "(dollars per million tokens)") from None
        values = {k: _coerce(k, v, str(p)) for k, v in data.items()}
        cfg = replace(cfg, prices=prices, **values)
    for var, (name, conv) in _ENV.items():
        raw = os.environ.get(var)
        if raw:
            try:
                cfg = replace(cfg, **{name: conv(raw)})
            except ValueError:
                raise ConfigError(f"${var}: cannot read {raw!r} as {name}") from None
    cfg = replace(cfg, **{k: v for k, v in overrides.items() if v is not None})
    check_config(cfg)
    return cfg


def check_config(cfg: AgentConfig) -> None:
    if cfg.thinking not in ("off", "adaptive"):
        try:
            budget = int(cfg.thinking)
        except ValueError:
            raise ConfigError(f"thinking: expected off, adaptive or a token budget, got {cfg.thinking!r}") from None
        if budget < 1024 or budget >= cfg.max_tokens:
            raise ConfigError(f"thinking: a budget must be at least 1024 and below max_tokens ({cfg.max_tokens})")
    if cfg.sandbox not in ("auto", "bwrap", "unshare", "none"):
        raise ConfigError(f"sandbox: expected auto, bwrap, unshare or none, got {cfg.sandbox!r}")
    if cfg.detectors:
        from questions.detectors import ConfigError as DetectorConfigError, DetectorConfig

        try:
            DetectorConfig.from_mapping(cfg.detectors)
        except DetectorConfigError as exc:
            raise ConfigError(f"detectors: {exc}") from None
    if not 0.1 <= cfg.compact_at <= 0.95:
        raise ConfigError("compact_at: expected a share of the context window between 0.1 and 0.95")
