"""The bundled examples must not drift from the task they were recorded on (kernels/attention-cpu).

An example's workspace holds its final kernel and nothing copied from the task (the evaluator
builds with the task's folder on the include path, so the header is always the task's). The final
kernel must be what the recorded session made of today's seed: the session's first evaluation,
before any edit, measured a candidate whose hash is today's seed.c's, and the seed with every
successful edit and write of the log applied in order is the final kernel. A changed seed (or header) thus fails here,
saying to record the example again (tools/record_example.py), instead of an example that quietly
shows a kernel the task no longer starts from.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from sessions.log import read_events

REPO = Path(__file__).resolve().parents[2]
TASK = REPO / "kernels" / "attention-cpu"
EXAMPLES = sorted(p for p in (REPO / "console" / "examples").iterdir() if (p / "events.jsonl").is_file())
CANDIDATE = "candidate.c"


def replay_edits(seed: str, events: list[dict]) -> str:
    """The candidate after the log's edits and writes (native and Claude Code tools), each applied
    only when its tool result says it succeeded."""
    failed = {e["id"] for e in events if e["type"] == "tool_result" and e.get("is_error")}
    text = seed
    for e in events:
        if e["type"] != "tool_call" or e.get("id") in failed:
            continue
        args = e.get("input") or {}
        path = args.get("path") or args.get("file_path") or ""
        if Path(path).name != CANDIDATE:
            continue
        if e["name"] in ("edit_file", "Edit"):
            old, new = args["old_string"], args["new_string"]
            assert old in text, f"seq {e['seq']}: the recorded edit's old text is not in the candidate"
            all_ = str(args.get("replace_all")).lower() == "true"
            text = text.replace(old, new) if all_ else text.replace(old, new, 1)
        elif e["name"] in ("write_file", "Write"):
            text = args["content"]
    return text


def test_there_are_examples_to_check():
    assert [p.name for p in EXAMPLES] == ["attention-cpu", "attention-cpu-claude-code"]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_the_workspace_holds_the_final_kernel_and_no_copy_of_the_task(example):
    assert sorted(p.name for p in (example / "workspace").iterdir()) == [CANDIDATE]
    task_files = {p.name for p in TASK.iterdir()}
    assert not any(p.name in task_files for p in example.rglob("*") if p.is_file())


def started_from(events: list[dict]) -> str:
    """The candidate hash of the session's first evaluation, which must come before any edit."""
    first_eval = next(e for e in events if e["type"] == "eval_start")
    assert not any(e["type"] == "tool_call" and e["name"] in ("edit_file", "Edit", "write_file", "Write")
                   for e in events[:first_eval["seq"]]), "the example's first evaluation no longer measures the seed"
    return first_eval["candidate_hash"]


def follows_from(seed: str, example: Path) -> bool:
    events = read_events(example / "events.jsonl").events
    return (events[0]["task"] == "attention-cpu"
            and started_from(events) == hashlib.sha256(seed.encode()).hexdigest()
            and replay_edits(seed, events) == (example / "workspace" / CANDIDATE).read_text())


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_the_final_kernel_is_todays_seed_with_the_recorded_edits(example):
    assert follows_from((TASK / "seed.c").read_text(), example), (
        f"{example.name} no longer follows from kernels/attention-cpu/seed.c: record it again "
        f"(.venv/bin/python tools/record_example.py record --agent ...)")


@pytest.mark.parametrize("change", [("/* Seed for attention-cpu", "/* The seed of attention-cpu"),
                                    ("return failed ? 1 : 0;", "return failed;")])
def test_a_changed_seed_is_caught(change):
    """The attack: the task's seed moves on (in its words or its code) and the example keeps
    showing what the old one became."""
    seed = (TASK / "seed.c").read_text()
    changed = seed.replace(*change, 1)
    assert changed != seed
    assert not any(follows_from(changed, example) for example in EXAMPLES)
