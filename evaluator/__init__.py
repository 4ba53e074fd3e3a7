"""The evaluator: task specs, builds, constraint checks, correctness and back-to-back timing.

Imports only numpy, pyyaml, the standard library, and (lazily) cuda-python; it must run on a
GPU node that has no Textual, anthropic or watchfiles. docs/evaluator.md is the contract.

    task = load_task("softmax-cpu")
    report = evaluate_isolated(task, "candidate.c", quick=True, progress=print)
    report.summary(); report.to_json(); report.text_table()
"""
from __future__ import annotations

from typing import Any

__all__ = [
    "DeviceUnavailable", "EvalOptions", "EvalReport", "ScenarioResult", "Task", "TaskError",
    "check_reference", "evaluate", "evaluate_isolated", "load_task",
]

_WHERE = {
    "DeviceUnavailable": "evaluator.errors", "TaskError": "evaluator.errors",
    "EvalOptions": "evaluator.pipeline", "evaluate": "evaluator.pipeline",
    "check_reference": "evaluator.pipeline", "EvalReport": "evaluator.report",
    "ScenarioResult": "evaluator.report", "Task": "evaluator.task", "load_task": "evaluator.task",
    "evaluate_isolated": "evaluator.isolate",
}


def __getattr__(name: str) -> Any:
    """Lazy exports: `import evaluator` stays cheap (numpy loads on first use)."""
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'evaluator' has no attribute {name!r}")
