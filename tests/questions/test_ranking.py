"""Ranking bank questions at a decision point, and the context built from a session."""
from __future__ import annotations

import pytest

from questions.detectors import DecisionPoint
from questions.loader import Bank, BankItem, load_bank
from questions.ranking import (RankContext, arch_from_device, context_from_events, rank, stats_score,
                               suggestions)
from sessions.events import DECISION_KINDS, validate_event


@pytest.fixture(scope="module")
def bank():
    return load_bank()


def item(id, triggers, arch=("any",), requires=(), stats=None, set="core"):
    return BankItem(id=id, text=f"{id}?", triggers=tuple(triggers), layers=("measurement",), arch=tuple(arch),
                    requires=tuple(requires), stats=stats or {}, set=set)


def test_only_items_serving_the_kind(bank):
    for kind in DECISION_KINDS:
        ranked = rank(kind, bank)
        assert ranked and all(kind in it.triggers for it in ranked)


def test_flagship_questions_come_first(bank):
    ctx = RankContext(arch="sm90")
    assert rank("limit_claim", bank, ctx)[0].id == "limit-hw-or-design"
    assert rank("suspicious_win", bank, ctx)[0].id == "win-noise"
    for kind in DECISION_KINDS:  # the best general question leads; specific ones follow in the top few
        assert rank(kind, bank, ctx)[0].set == "core"


def test_architecture_filters(bank):
    hopper = rank("stall", bank, RankContext(arch="sm90a"))
    assert any(it.set == "hopper" for it in hopper[:9])
    assert not any(it.set in ("blackwell", "cpu") for it in hopper)
    blackwell = rank("stall", bank, RankContext(arch="sm100"))
    assert any(it.set == "blackwell" for it in blackwell[:9]) and not any(it.set == "hopper" for it in blackwell)
    cpu = rank("stall", bank, RankContext(arch="cpu"))
    assert any(it.set == "cpu" for it in cpu) and all(it.arch in (("any",), ("cpu",)) for it in cpu)
    unknown = rank("stall", bank, RankContext())
    assert not any(it.set in ("hopper", "blackwell", "cpu") for it in unknown)
    assert any(it.arch == ("gpu",) for it in unknown)


def test_requirements(bank):
    without = rank("limit_claim", bank, RankContext(arch="sm90"))
    assert not any(it.requires for it in without)
    with_other = rank("limit_claim", bank, RankContext(arch="sm90", capabilities=frozenset({"other_implementation"})))
    top = [it.id for it in with_other[:3]]
    assert top[0] == "limit-hw-or-design" and "other-kernel-or-wall" in top


def test_asked_questions_go_last_and_can_be_left_out(bank):
    ctx = RankContext(asked={"win-noise": 1})
    ranked = rank("suspicious_win", bank, ctx)
    assert ranked[0].id != "win-noise" and ranked[-1].id == "win-noise"
    assert "win-noise" not in [it.id for it in rank("suspicious_win", bank, ctx, include_asked=False)]
    # a question typed by hand with the same words counts as asked
    free = context_from_events([{"type": "human_message", "text": "is that win noise?  run it again and show me the spread"}])
    assert rank("suspicious_win", bank, free)[-1].id == "win-noise"


def test_recorded_gains_rank_first_shrunk_by_evidence():
    b = Bank([item("a", ["stall"]), item("b", ["stall"], stats={"mean_gain": 0.3, "asked": 1}),
              item("c", ["stall"], stats={"mean_gain": 0.2, "asked": 30}),
              item("d", ["stall"], stats={"mean_gain": -0.1, "asked": 10})])
    assert [it.id for it in rank("stall", b)] == ["c", "b", "a", "d"]
    assert stats_score({"mean_gain": 0.3, "asked": 1}) == pytest.approx(0.075)
    assert stats_score({}) == 0.0 and stats_score({"mean_gain": 0.1}) == pytest.approx(0.1)
    # statistics in the context (e.g. from the steering log) override the bank's
    ctx = RankContext(stats={"a": {"mean_gain": 1.0, "asked": 100}})
    assert rank("stall", b, ctx)[0].id == "a"


def test_primary_trigger_then_round_robin_over_sets():
    b = Bank([item("core-1", ["loop"]), item("core-2", ["loop"]), item("core-3", ["stall", "loop"]),
              item("hop-1", ["loop"], arch=["sm90"], set="hopper"), item("hop-2", ["loop"], arch=["sm90"], set="hopper"),
              item("up-1", ["loop"], requires=["other_implementation"], set="other")])
    ctx = RankContext(arch="sm90", capabilities=frozenset({"other_implementation"}))
    assert [it.id for it in rank("loop", b, ctx)] == ["core-1", "hop-1", "up-1", "core-2", "hop-2", "core-3"]
    assert [it.id for it in rank("loop", b, ctx, limit=2)] == ["core-1", "hop-1"]


def test_context_from_session_events():
    events = [
        {"type": "session_start", "task": "attn", "device": "NVIDIA H200", "capabilities": ["other_implementation"]},
        {"type": "human_message", "text": "Is that win noise? Run it again and show me the spread.",
         "source": "bank", "bank_id": "win-noise"},
        {"type": "human_message", "text": "look at the mask", "source": "free"},
        {"type": "human_message", "text": "x", "source": "autopilot", "bank_id": "win-noise"},
    ]
    ctx = context_from_events(events)
    assert ctx.arch == "sm90" and ctx.capabilities == frozenset({"other_implementation"})
    assert ctx.asked == {"win-noise": 2}
    assert context_from_events([{"type": "session_start", "task": "t", "arch": "sm_100a"}]).arch == "sm100a"
    assert context_from_events(events, arch="cpu").arch == "cpu"


@pytest.mark.parametrize("device, arch", [("NVIDIA H200", "sm90"), ("NVIDIA H100 80GB HBM3", "sm90"),
                                          ("NVIDIA GH200 480GB", "sm90"), ("NVIDIA B200", "sm100"),
                                          ("NVIDIA GB200", "sm100"), ("NVIDIA A100-SXM4-80GB", "sm80"),
                                          ("NVIDIA L40S", "sm89"), ("Intel Xeon", None), (None, None)])
def test_arch_from_device(device, arch):
    assert arch_from_device(device) == arch


def test_suggestions_make_a_valid_decision_point_event(bank):
    dp = DecisionPoint("limit_claim", "This is as fast as it gets.", 12, {"rule": "as_fast_as"}, 0.75, at_seq=12)
    fields = dp.to_event_fields()
    fields["suggestions"] = suggestions(dp, bank, RankContext(arch="sm90"), n=9)
    assert len(fields["suggestions"]) == 9 and set(fields["suggestions"][0]) == {"id", "text"}
    event = {"v": 1, "seq": 13, "t": 1.0, "type": "decision_point", **fields}
    assert validate_event(event) == []
    back = DecisionPoint.from_event(event)
    assert (back.kind, back.evidence, back.about_seq, back.strength, back.at_seq) == (
        "limit_claim", dp.evidence, 12, 0.75, 12)
    late = DecisionPoint("completion_claim", "ended its turn", 40, {}, 0.4, at_seq=44)
    assert late.to_event_fields()["detail"]["at_seq"] == 44
    assert DecisionPoint.from_event({"type": "decision_point", **late.to_event_fields()}).at_seq == 44
