"""The system prompt and the task prompt, written from the task spec.

What the kernel computes, the interface, the scenarios in brief, the tolerances, the constraints,
the build, the goal and how it is checked: facts of the task. Nothing about how to optimise.
"""
from __future__ import annotations

from collections import defaultdict

from agent.control import render_goal

SYSTEM_PROMPT = """\
You are a coding agent working alone in a workspace on one kernel task. You have five tools: \
bash, read_file, write_file, edit_file and evaluate. The evaluator is the judge of correctness \
and speed; its numbers, not claims, decide whether the goal is met.

When you end your turn without calling a tool, the runner evaluates the current candidate and \
checks the goal in code. If the goal is not met you are told what fails and the session goes on; \
if it is met the session ends.

A human steerer watches the session and may send you messages; they arrive marked \
[Message from the steerer]. When one asks for a measurement, make it and report the result."""

_MAX_SCENARIO_LINES = 40


def goal_dict(goal) -> dict:
    """The task's Goal as the plain dict events and the stop gate use."""
    return {"all_correct": goal.all_correct, "min_geomean": goal.min_geomean,
            "min_scenario_ratio": goal.min_scenario_ratio}


def _scenario_lines(task) -> list[str]:
    scenarios = list(task.scenarios)
    lines = []
    shown = scenarios if len(scenarios) <= _MAX_SCENARIO_LINES else scenarios[:_MAX_SCENARIO_LINES]
    for s in shown:
        params = ", ".join(f"{k}={v}" for k, v in s.params.items())
        lines.append(f"- {s.name}: {params}")
    if len(scenarios) > len(shown):
        values: dict[str, set] = defaultdict(set)
        for s in scenarios:
            for k, v in s.params.items():
                values[k].add(repr(v))
        lines.append(f"- ... and {len(scenarios) - len(shown)} more; over all scenarios the parameters take: "
                     + "; ".join(f"{k} in {{{', '.join(sorted(v))}}}" for k, v in values.items()))
    return lines


def _build_line(task, candidate_name: str) -> str:
    if task.backend == "cuda":
        arch = task.arch.replace("sm_", "")
        return (f"nvcc -O3 -std=c++17 -gencode=arch=compute_{arch},code=sm_{arch} -shared -Xcompiler -fPIC "
                f"-lineinfo -I<task folder> {candidate_name} -o lib.so")
    if candidate_name.endswith((".cc", ".cpp")):
        return f"g++ -O3 -march=native -fopenmp -fPIC -shared -std=gnu++17 -I<task folder> {candidate_name} -o lib.so"
    return f"gcc -O3 -march=native -fopenmp -fPIC -shared -std=gnu11 -I<task folder> {candidate_name} -o lib.so"


def _tolerance_line(task) -> str:
    tols = {(s.tolerance.rel_l2, s.tolerance.max_abs, s.tolerance.seed_factor, s.tolerance.seed_slack)
            for s in task.scenarios}
    parts = []
    for rel, mx, factor, slack in sorted(tols, key=str):
        bounds = [f"{name} <= {v:g}" for name, v in (("rel_l2", rel), ("max_abs", mx)) if v is not None]
        parts.append(" and ".join(bounds) + f", and each also <= {factor:g} x the seed's own error "
                     f"+ {slack:g} x that tolerance")
    return "; or, per scenario, ".join(parts)


def task_prompt(task, *, candidate_name: str, header_text: str, goal: dict,
                evaluate: str = "The evaluate tool", quick: str = "evaluate with quick=true") -> str:
    """The task as the model first reads it. `evaluate` names how the agent evaluates (the native
    tool, or Claude Code's `ks-evaluate` command) and `quick` how it asks for the quick subset."""
    c = task.constraints
    params = "\n".join(
        f"- {p.name}: {'input buffer' if p.kind == 'in' else 'output buffer' if p.kind == 'out' else 'scalar'} "
        f"of {p.dtype}" for p in task.params)
    quick_names = ", ".join(task.quick) if task.quick else "the first three scenarios"
    device = "a CUDA GPU, " + task.arch if task.backend == "cuda" else "the CPU (OpenMP allowed)"
    call = ("`stream` is the evaluator's CUstream: enqueue all work on it; the entry may return before "
            "the work finishes. Work on any other stream fails the goal."
            if task.backend == "cuda" else
            "`stream` is NULL; the entry computes synchronously and returns when the outputs are written.")
    sections = [
        f"# Task: {task.name}",
        task.description.strip() or f"Implement the kernel `{task.entry}`.",
        f"The kernel runs on {device}. Your candidate is `{candidate_name}` in the workspace (it starts "
        f"as a copy of the seed, the plain correct implementation every speed-up is measured against). "
        f"The interface header `{task.header.name}` is in the workspace too.",
        "## Interface",
        f"The candidate is one source file exporting `{task.entry}`, which takes a pointer to a "
        f"`{task.struct}` and returns 0 on success:\n\n```c\n{header_text.strip()}\n```\n\n"
        f"Fields of `{task.struct}`:\n{params}\n\n{call} Every element of every output must be written; "
        "inputs must not be modified; nothing may be cached between calls (the evaluator calls again "
        "with new values in the same buffers).",
        f"## Scenarios ({len(task.scenarios)})",
        "\n".join(_scenario_lines(task)),
        f"The quick subset ({quick}): {quick_names}.",
        "## Correctness",
        f"Each scenario is checked on fresh random inputs against a higher-precision reference: "
        f"{_tolerance_line(task)}. NaN or Inf fails; an unwritten output element fails.",
        "## Build and constraints",
        f"The evaluator builds the candidate as:\n\n    {_build_line(task, candidate_name)}\n\n"
        "Extra flags go on a line `// kernelseek-flags: ...` in the source; each must match an allowed "
        "pattern: " + ", ".join(f"`{f}`" for f in c.allowed_flags) + ".",
        "Banned in the built binary's symbols: " + ", ".join(f"`{s}`" for s in c.banned_symbols) + ". "
        "Banned includes: " + ", ".join(f"`{s}`" for s in c.banned_includes) + ". "
        "Banned in the source: " + ", ".join(f"`{s}`" for s in c.banned_source) + ". "
        "Linked libraries allowed: " + ", ".join(f"`{s}`" for s in c.allowed_libraries) + ".",
        "## Goal",
        f"{render_goal(goal).capitalize()}. A scenario's speed-up is the seed's time divided by the "
        "candidate's, measured back to back with caches flushed (median over interleaved runs, with a "
        f"confidence interval). {evaluate} runs this check; it is the same check the runner makes "
        "when you end your turn.",
    ]
    return "\n\n".join(sections) + "\n"
