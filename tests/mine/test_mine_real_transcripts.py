"""`kernelseek mine` over the real Claude Code and Codex transcripts in ../shared/data/transcripts.

Skipped where the transcripts are absent. What is pinned here was read against the transcripts
(see docs/mining.md, "On the real transcripts").
"""
from __future__ import annotations

import functools
from pathlib import Path

import pytest

from questions.loader import load_bank
from questions.mine import mine, render_report, save_bank

TRANSCRIPTS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "transcripts"
FILES = sorted(TRANSCRIPTS.glob("*/*.jsonl")) if TRANSCRIPTS.is_dir() else []

pytestmark = pytest.mark.skipif(not FILES, reason=f"no transcripts at {TRANSCRIPTS}")


@functools.lru_cache(maxsize=1)
def mined():
    return mine(FILES, bank=load_bank())


def labels() -> dict[str, str]:
    return {" ".join(m.text.split()): m.label for m in mined().messages}


def label_of(start: str) -> str:
    found = {t: lab for t, lab in labels().items() if t.startswith(start)}
    assert found, start
    return next(iter(found.values()))


def test_every_transcript_is_mined_and_the_bank_loads(tmp_path):
    result = mined()
    assert {Path(r.path).name for r in result.reads} == {f.name for f in FILES}
    assert len(result.messages) >= 150 and result.sessions == len(FILES)
    out = tmp_path / "mined.yaml"
    save_bank(result, out, reference_items=list(load_bank()))
    assert len(load_bank([out])) >= 20
    report = render_report(result, out_path=str(out))
    assert "## Questions, directives, information" in report


def test_interrupts_and_commands_are_not_mined():
    skipped = {}
    for r in mined().reads:
        for k, n in r.skipped.items():
            skipped[k] = skipped.get(k, 0) + n
    assert skipped["interrupts"] >= 15 and skipped["commands and shell inputs"] >= 10
    assert not any(m.text.startswith("[Request interrupted") for m in mined().messages)


@pytest.mark.parametrize("start", [
    "What do you mean theres no matrix multiplication function?",
    "Do we not have GPU convolution?",
    "why didn't our tests pick this",
    "are these performance or ux bugs",
    "what made it use less tokens",
    "why do i have to decide on benchmark size",
])
def test_the_questions_steerers_asked_are_proposed(start):
    assert label_of(start) == "question"


@pytest.mark.parametrize("start", [
    "why don't you just do a `git clone",          # hands over the solution
    "Why not use the C direct comparison script",  # hands over the solution
    "the story should be bigger",                  # a reference and the look wanted
    "kenth56@kenth56-OMEN",                        # pasted terminal output
    "change it to just 1 minute",                  # gives the value
    "it might be because im not logged into entire",  # gives the cause
    "# Files mentioned by the user",               # attachments
])
def test_messages_that_supply_information_are_not_proposed(start):
    assert label_of(start) == "information"


@pytest.mark.parametrize("start", ["commit and push", "push", "create a pr", "continue",
                                   "I need you to verify that we are doing the same operations",
                                   "Can you run the benchmarks of our library vs. the competition"])
def test_directives_are_not_proposed(start):
    assert label_of(start) == "directive"


def test_no_candidate_is_an_information_message():
    result = mined()
    for c in result.clusters:
        assert all(m.label == "question" for m in c.members)
