"""Acceptance on the real transcripts in ../shared/data/transcripts (skipped where absent).

Every transcript imports without error, and its counts of human messages, tool calls and tool
results agree with an independent count (tests/importers/independent_count.py, which shares
nothing with the importers) and with the figures SOURCES.md states. A 50 MB transcript built by
repeating the real records imports in under 10 seconds.
"""
from __future__ import annotations

import functools
import sys
import time
from pathlib import Path

import pytest

from budgets import within
from sessions.events import validate_event
from sessions.importers import import_to_session, load_transcript
from sessions.log import read_events

sys.path.insert(0, str(Path(__file__).parent))
from independent_count import count_claude_code, count_codex  # noqa: E402
from synthetic import build_large_transcript  # noqa: E402

TRANSCRIPTS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "transcripts"
pytestmark = pytest.mark.skipif(not TRANSCRIPTS.is_dir(), reason="no ../shared/data/transcripts")

# as SOURCES.md states them: lines, human-typed prompts, interrupts, slash commands,
# `!` inputs, AskUserQuestion answers; tool calls where it gives them (Bash calls for Claude Code,
# function + custom tool calls for Codex)
STATED = {
    "claude-code/vsla-cuda-gpu-benchmark-steering.jsonl":
        dict(lines=727, human=17, interrupts=7, slash=0, bash_calls=130),
    "claude-code/vsla-cuda-toolkit-setup.jsonl": dict(lines=64, human=3, slash=1),
    "claude-code/vsla-cuda-backend-refactor-tests.jsonl": dict(lines=613, human=9, slash=1),
    "claude-code/entire-cli-stop-hook-perf-investigation.jsonl":
        dict(lines=944, human=5, slash=9, slash_with_args=3, bash_inputs=2, interrupts=2, bash_calls=80),
    "claude-code/intent-layer-eval-harness-brainstorm.jsonl":
        dict(lines=487, human=1, slash=4, slash_with_args=1, ask=8, interrupts=6),
    "claude-code/planetfall-game-iteration-steered.jsonl": dict(lines=572, human=38, ask=1),
    "codex/entire-token-cost-benchmark-loop.jsonl": dict(lines=2101, human=28, interrupts=2, tool_calls=432),
    "codex/planetfall-perf-ux-bug-triage.jsonl": dict(lines=672, human=13, interrupts=0, tool_calls=143),
    "codex/agentv-eval-results-layout-design.jsonl": dict(lines=901, human=26, interrupts=1, tool_calls=149),
}


def _humans(events, kind="message", via=None):
    return sum(1 for e in events if e["type"] == "human_message" and e.get("kind", "message") == kind
               and e.get("via") == via)


def _count(events, type, **match):
    return sum(1 for e in events if e["type"] == type and all(e.get(k) == v for k, v in match.items()))


# every transcript in the folder, listed in STATED or not
ON_DISK = sorted(str(p.relative_to(TRANSCRIPTS)) for p in TRANSCRIPTS.glob("*/*.jsonl")) if TRANSCRIPTS.is_dir() else []


@functools.lru_cache(maxsize=None)
def _import(name: str):
    return load_transcript(TRANSCRIPTS / name)


@pytest.fixture(scope="module")
def imported():
    class ByName:
        def __getitem__(self, name):
            return _import(name)
    return ByName()


def test_the_stated_transcripts_are_there():
    assert set(STATED) <= set(ON_DISK)


@pytest.mark.parametrize("name", ON_DISK)
def test_imports_cleanly_and_in_order(name, imported):
    result = imported[name]
    events, stats = result
    assert stats.format == name.split("/")[0]
    assert not stats.malformed and not stats.unknown
    if name in STATED:
        assert stats.lines == STATED[name]["lines"]
    assert events[0]["type"] == "session_start" and events[-1]["type"] == "session_end"
    assert events[0]["agent"] == stats.format and events[0]["model"] and events[0]["task"]
    assert [e["seq"] for e in events] == list(range(len(events)))
    assert all(not validate_event(e) for e in events)
    # every tool result follows its call, and ids are unique
    call_at = {}
    for e in events:
        if e["type"] == "tool_call":
            assert e["id"] not in call_at
            call_at[e["id"]] = e["seq"]
        elif e["type"] == "tool_result":
            assert call_at.get(e["id"], 10**9) < e["seq"], e["id"]


@pytest.mark.parametrize("name", [n for n in ON_DISK if n.startswith("claude-code/")])
def test_claude_code_counts_match_an_independent_count_and_sources(name, imported):
    events = imported[name].events
    ind = count_claude_code(TRANSCRIPTS / name)
    stated = STATED.get(name, {})
    got = {
        "human": _humans(events),
        "interrupts": _humans(events, kind="interrupt"),
        "slash": _count(events, "human_message", via="slash_command"),
        "bash_inputs": _count(events, "human_message", via="bash_input"),
        "ask": _count(events, "human_message", via="ask_user_question"),
        "tool_calls": _count(events, "tool_call"),
        "tool_results": _count(events, "tool_result"),
        "main_calls": sum(1 for e in events if e["type"] == "tool_call" and not e.get("sidechain")),
        "main_results": sum(1 for e in events if e["type"] == "tool_result" and not e.get("sidechain")),
        "bash_calls": sum(1 for e in events if e["type"] == "tool_call" and e["name"] == "Bash"
                          and not e.get("sidechain")),
    }
    independent = {
        "human": ind["human"], "interrupts": ind["interrupts"], "slash": ind["slash_commands"],
        "bash_inputs": ind["bash_inputs"], "ask": ind["ask_user_question"], "tool_calls": ind["tool_calls"],
        "tool_results": ind["tool_results"], "main_calls": ind["tool_calls_main"],
        "main_results": ind["tool_results_main"], "bash_calls": ind["bash_calls_main"],
    }
    assert got == independent
    for key in ("human", "interrupts", "slash", "bash_inputs", "ask", "bash_calls"):
        if key in stated:
            assert got[key] == stated[key], key
    if "slash_with_args" in stated:
        assert _count(events, "human_message", via="slash_command", kind="message") == stated["slash_with_args"]


@pytest.mark.parametrize("name", [n for n in ON_DISK if n.startswith("codex/")])
def test_codex_counts_match_an_independent_count_and_sources(name, imported):
    events = imported[name].events
    ind = count_codex(TRANSCRIPTS / name)
    got = (_humans(events), _humans(events, kind="interrupt"), _count(events, "tool_call"),
           _count(events, "tool_result"))
    assert got == (ind["human"], ind["interrupts"], ind["tool_calls"], ind["tool_results"])
    if name not in STATED:
        return
    stated = STATED[name]
    assert (ind["human"], ind["interrupts"], ind["function_and_custom_calls"]) == \
        (stated["human"], stated["interrupts"], stated["tool_calls"])


def test_human_steering_beyond_typed_prompts_is_kept(imported):
    """Words typed when rejecting a tool call, or while tools ran, are human messages too."""
    events = imported["claude-code/entire-cli-stop-hook-perf-investigation.jsonl"].events
    rejections = [e["text"] for e in events if e["type"] == "human_message" and e.get("via") == "tool_rejection"]
    assert any("git clone" in t for t in rejections)
    mid = [e["text"] for e in events if e.get("via") == "mid_turn"]
    assert mid == ["why didn't our tests pick this (and the previous review comments) up?"]
    answers = [e for e in imported["claude-code/intent-layer-eval-harness-brainstorm.jsonl"].events
               if e.get("via") == "ask_user_question"]
    assert any(e["text"] == "Fix task configs" for e in answers)


def test_subagents_are_marked_and_linked_to_their_task_call(imported):
    for name in ("claude-code/vsla-cuda-backend-refactor-tests.jsonl",
                 "claude-code/entire-cli-stop-hook-perf-investigation.jsonl"):
        events = imported[name].events
        calls = {e["id"]: e for e in events if e["type"] == "tool_call"}
        sub = [e for e in events if e.get("sidechain")]
        assert sub and all(e.get("agent_id") for e in sub)
        parents = {e.get("parent_tool_id") for e in sub}
        assert parents and all(calls[p]["name"] in ("Task", "Agent") for p in parents)


def test_the_suspicious_gpu_speedup_becomes_an_inferred_evaluation(imported):
    events = imported["claude-code/vsla-cuda-gpu-benchmark-steering.jsonl"].events
    evals = [e for e in events if e["type"] == "eval_result" and e.get("source") != "text"]  # from tool output
    assert len(evals) == 1 and evals[0]["inferred"] is True
    s = evals[0]["summary"]
    assert sorted(s["ratios"].values()) == [2.46, 26.52, 173.04]
    assert s["geomean"] == pytest.approx((2.46 * 26.52 * 173.04) ** (1 / 3), rel=1e-6)
    # placed right after the tool result it was read from
    before = events[evals[0]["seq"] - 1]
    assert before["type"] == "tool_result" and before["id"] == evals[0]["call_id"]


def test_import_to_session_round_trips(tmp_path, imported):
    name = "codex/planetfall-perf-ux-bug-triage.jsonl"
    result = import_to_session("codex", TRANSCRIPTS / name, tmp_path / "s")
    read = read_events(tmp_path / "s" / "events.jsonl")
    assert not read.malformed and read.events == result.events
    assert (tmp_path / "s" / "import.json").is_file()


def import_large(kind: str, out: Path, mib: int) -> tuple[float, list, object]:
    """A transcript of `mib` MiB from the real ones of `kind`, repeated; (seconds to import, events, stats)."""
    sources = sorted((TRANSCRIPTS / kind).glob("*.jsonl"))
    build_large_transcript(sources, out, mib * 2**20)
    t0 = time.perf_counter()
    events, stats = load_transcript(out)
    took = time.perf_counter() - t0
    print(f"\n{kind}: {out.stat().st_size / 2**20:.1f} MiB, {stats.lines} lines -> {len(events)} events in {took:.2f} s")
    assert out.stat().st_size >= mib * 2**20 and not stats.malformed
    return took, events, stats


@pytest.mark.parametrize("kind", ["claude-code", "codex"])
def test_a_transcript_of_repeated_real_records_imports_whole(kind, tmp_path):
    """The default run's check at a tenth of the size; the 10 s budget for 50 MB is -m bench."""
    _, events, stats = import_large(kind, tmp_path / "big.jsonl", 5)
    assert stats.events["tool_call"] > 500 and stats.events["tool_call"] == sum(e["type"] == "tool_call" for e in events)


@pytest.mark.bench
@pytest.mark.parametrize("kind", ["claude-code", "codex"])
def test_a_50_mb_transcript_imports_in_under_10_seconds(kind, tmp_path):
    took, _, stats = import_large(kind, tmp_path / "big.jsonl", 50)
    assert stats.events["tool_call"] > 5000
    assert took < within(10.0)
