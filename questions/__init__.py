"""The question bank, the decision-point detectors, ranking and the miner.

The public API (see docs/questions.md):

- `load_bank(paths=None) -> Bank`, `read_bank(paths)` (bank + every problem), `BankItem`;
- `Detectors(config).feed(event) -> list[DecisionPoint]` (new points and updates),
  `detect(events, config)` (updates applied), `DetectorConfig`, `DecisionPoint`;
- `DecisionAnnotator` (questions.annotate): the points of a log that carries none, among its events;
- `rank(decision_point, bank, context) -> list[BankItem]`, `suggestions(...)`, `RankContext`,
  `context_from_events(events)`;
- `load_events(source)` / `open_events(source)` (streamed) for a session, an events.jsonl, or a
  foreign transcript.

Imports only the standard library and `sessions` (pyyaml when a bank is loaded).
"""
from questions.detectors import ConfigError, DecisionPoint, DetectorConfig, Detectors, detect, eval_correct
from questions.loader import (ARCH_TAGS, CAPABILITIES, LAYERS, PROVENANCES, Bank, BankError, BankItem, BankProblem,
                              load_bank, read_bank)
from questions.ranking import RankContext, arch_from_device, context_from_events, rank, suggestions
from questions.source import EventStream, LoadedEvents, SourceError, load_events, open_events

__all__ = [
    "ConfigError", "DecisionPoint", "DetectorConfig", "Detectors", "detect", "eval_correct",
    "ARCH_TAGS", "CAPABILITIES", "LAYERS", "PROVENANCES", "Bank", "BankError", "BankItem", "BankProblem",
    "load_bank", "read_bank", "RankContext", "arch_from_device", "context_from_events", "rank", "suggestions",
    "EventStream", "LoadedEvents", "SourceError", "load_events", "open_events",
]
