"""The detectors over the real Claude Code and Codex transcripts in ../shared/data/transcripts.

These are the points hand-checked for issue #4 (see docs/questions.md, "Precision on real
transcripts"); the tests pin the ones that were right and the false positives that were removed.
"""
from __future__ import annotations

import functools
from pathlib import Path

import pytest

from questions.detectors import detect
from questions.source import load_events

TRANSCRIPTS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "transcripts"
FILES = sorted(TRANSCRIPTS.glob("*/*.jsonl")) if TRANSCRIPTS.is_dir() else []

pytestmark = pytest.mark.skipif(not FILES, reason=f"no transcripts at {TRANSCRIPTS}")
pytest.importorskip("sessions.importers")


@functools.lru_cache(maxsize=None)
def loaded_and_points(path: Path):
    loaded = load_events(path)
    return loaded, detect(loaded.events)


def points(name: str):
    (path,) = [f for f in FILES if f.name == name]
    return loaded_and_points(path)


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_every_transcript_runs_through(path):
    loaded, found = loaded_and_points(path)
    assert loaded.format in ("claude-code", "codex") and loaded.events
    assert [dp.kind for dp in found].count("start") == 1
    seqs = {ev.get("seq") for ev in loaded.events}
    for dp in found:
        assert dp.evidence and dp.about_seq in seqs


def test_the_repeated_escape_error_is_a_loop():
    _, found = points("vsla-cuda-gpu-benchmark-steering.jsonl")
    (loop,) = [dp for dp in found if dp.kind == "loop"]  # one loop that went on, not one alarm per repeat
    assert "stray" in loop.evidence and loop.count == 6 and "6 times" in loop.evidence


def test_the_crazy_speedups_are_suspicious_wins():
    """The agent's own words carried the figures the steerer called crazy: 21-26x of FFT over
    direct convolution first, then '30x faster than cuFFT' (a stub measuring its own error path)."""
    loaded, found = points("vsla-cuda-gpu-benchmark-steering.jsonl")
    wins = [dp for dp in found if "suspicious_win" in dp.kinds]
    assert len(wins) == 3 and "26x" in wins[0].evidence
    crazy = next(ev for ev in loaded.events if ev["type"] == "human_message" and "crazy" in ev["text"])
    last = max(dp.about_seq for dp in wins)
    assert last < crazy["seq"] and not any(ev["type"] == "human_message" and last < ev["seq"] < crazy["seq"]
                                           for ev in loaded.events)


def test_a_failure_put_down_to_someone_else_is_a_correctness_break():
    _, found = points("entire-cli-stop-hook-perf-investigation.jsonl")
    (brk,) = [dp for dp in found if dp.kind == "correctness_break"]
    assert brk.evidence.startswith("The integration test failure is unrelated to my changes")
    assert brk.detail["rule"] == "unrelated"


def test_false_positives_seen_once_stay_gone():
    _, found = points("planetfall-game-iteration-steered.jsonl")
    assert not [dp for dp in found if dp.kind == "limit_claim"]  # story text: "the old world has no more room"
    _, found = points("vsla-cuda-backend-refactor-tests.jsonl")
    assert not [dp for dp in found if dp.kind == "loop"]  # three reads of files declaring cudaError_t
    _, found = points("entire-cli-stop-hook-perf-investigation.jsonl")
    proposal = [dp for dp in found if "I would add timing instrumentation" in dp.evidence]
    assert [dp.kind for dp in proposal] == ["agent_question"]  # a proposal waiting for approval, not a claim
    for path in FILES:  # an agent that hands the human a question has not claimed to be done
        for dp in loaded_and_points(path)[1]:
            if dp.kind == "completion_claim" and dp.detail.get("rule") == "turn_end":
                assert not dp.evidence.rstrip("\u201d").endswith("?"), dp.evidence
