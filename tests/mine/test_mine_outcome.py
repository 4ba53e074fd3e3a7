"""What followed a question: geomean change over the next evaluations, time to the next gain."""
from __future__ import annotations

import pytest

from mine_corpus import INTENTS, generate
from mine_sessions import Log
from questions.mine import MineConfig, mine, render_report
from questions.mine.outcome import Evaluation, cluster_stats, evaluations, outcome_after, steering_evaluations


def evs(*points):
    """Evaluations at seqs 10, 20, ... with (geomean, correct) and a minute apart."""
    return [Evaluation(10 * (i + 1), 60.0 * (i + 1), g, ok) for i, (g, ok) in enumerate(points)]


def test_gain_is_the_best_of_the_next_evaluations_against_the_best_before():
    e = evs((1.2, True), (1.1, True), (1.25, True), (1.5, True), (1.4, True))
    o = outcome_after(e, 25, 150.0, window=3)  # after the second evaluation
    assert o.before == 1.2 and o.after == 1.5 and o.evals == 3
    assert o.gain == pytest.approx(0.25)
    assert o.improved and o.minutes_to_gain == pytest.approx((180 - 150) / 60)  # 1.25 >= 1.2 * 1.01


def test_a_window_that_only_falls_short_is_a_negative_gain():
    o = outcome_after(evs((1.5, True), (1.2, True), (1.3, True)), 15, 0.0, window=3)
    assert o.gain == pytest.approx(1.3 / 1.5 - 1, abs=1e-5) and o.improved is False and o.minutes_to_gain is None


def test_incorrect_evaluations_neither_set_the_best_nor_count_as_gains():
    o = outcome_after(evs((1.1, True), (3.0, False), (1.2, True)), 15, 0.0)
    assert o.after == 1.2 and o.gain == pytest.approx(1.2 / 1.1 - 1)
    o = outcome_after(evs((1.1, True), (3.0, False)), 15, 0.0)
    assert o.gain is None and o.improved is False


def test_before_any_evaluation_the_seed_is_the_baseline_on_our_sessions_only():
    o = outcome_after(evs((1.3, True)), 5, 0.0)
    assert o.before == 1.0 and o.gain == pytest.approx(0.3)
    inferred = [Evaluation(10, 60.0, 22.4, None, inferred=True)]
    o = outcome_after(inferred, 5, 0.0)
    assert o.before is None and o.gain is None and o.improved is None


def test_no_evaluation_after_is_no_outcome():
    assert outcome_after(evs((1.2, True)), 15, 0.0) is None


def test_partial_and_interrupted_runs_are_not_compared_and_quick_runs_only_with_quick_ones():
    log = Log()
    log.start()
    log.eval(1.2)
    log.eval(2.0, quick=True)
    log.eval(2.0, only="s1")
    log.eval(2.0, interrupted=True)
    log.eval(1.3)
    found = evaluations(log.events)
    assert [(e.geomean, e.mode) for e in found] == [(1.2, "full"), (2.0, "quick"), (1.3, "full")]
    o = outcome_after(found, 0, log.events[0]["t"])
    assert o.after == 1.3 and o.evals == 2  # the full runs after it; the quick 2.0 is not one of them
    quick_only = [Evaluation(10, 60.0, 1.1, True, mode="quick"), Evaluation(20, 120.0, 1.3, True, mode="quick")]
    o = outcome_after(quick_only, 15, 90.0)
    assert o.before == 1.1 and o.after == 1.3


def test_steering_log_evaluations_come_from_the_summaries_messages_saw():
    records = [{"t": 0.0, "metrics": None}, {"t": 60.0, "metrics": {"n": 1, "geomean": 1.1, "all_correct": True}},
               {"t": 120.0, "metrics": {"n": 1, "geomean": 1.1, "all_correct": True}},
               {"t": 180.0, "metrics": {"n": 2, "geomean": 1.4, "all_correct": True, "best_geomean": 1.4}}]
    found, bests = steering_evaluations(records)
    assert [(e.seq, e.geomean) for e in found] == [(1, 1.1), (5, 1.4)]
    assert bests == [None, None, None, 1.4]
    o = outcome_after(found, 2, 60.0, basis="steering_log")  # the message of record 1
    assert o.before == 1.1 and o.after == 1.4 and o.minutes_to_gain == 2.0 and o.basis == "steering_log"


def test_cluster_stats_are_the_bank_keys():
    class A:
        def __init__(self, session, kinds, outcome):
            self.session, self.kinds, self.outcome = session, kinds, outcome

    e = evs((1.0, True), (1.2, True), (1.2, True))
    askings = [A("s1", ("stall",), outcome_after(e, 5, 0.0)), A("s2", ("stall", "loop"), outcome_after(e, 15, 30.0)),
               A("s2", (), None)]
    s = cluster_stats(askings)
    assert s["asked"] == 3 and s["sessions"] == 2 and s["measured"] == 2
    assert s["kinds"] == {"stall": 2, "loop": 1}
    assert s["mean_gain"] == pytest.approx((0.2 + 0.2) / 2)
    assert s["hit_rate"] == 1.0 and s["minutes_to_gain"] == pytest.approx((2.0 + 1.5) / 2)  # median


def test_questions_that_set_off_gains_rank_first(tmp_path):
    """The corpus plants what follows each intent; the ranking by mined gain recovers it."""
    corpus = generate(21, n_messages=1500, n_sessions=60)
    path = corpus.write_steering_log(tmp_path / "steering.jsonl")
    result = mine([path], MineConfig(window=1))
    effect = {i.key: i.effect for i in INTENTS}
    index = {(m.session, m.seq): m for m in corpus.messages}

    def planted(c):
        keys = [index[(m.session, m.seq)].intent for m in c.members]
        return max(set(keys), key=keys.count)

    ranked = [c for c in result.ranked() if c.stats.get("asked", 0) >= 5 and "mean_gain" in c.stats]
    top, bottom = ranked[:5], ranked[-5:]
    assert min(effect[planted(c)] for c in top) > max(effect[planted(c)] for c in bottom)
    tensor = next(c for c in ranked if planted(c) == "tensor-cores-used")
    assert tensor.stats["mean_gain"] == pytest.approx(0.25, abs=0.04)  # planted: +25% after it
    assert 0.0 < tensor.stats["hit_rate"] <= 1.0 and tensor.stats["minutes_to_gain"] > 0
    report = render_report(result)
    first_row = next(line for line in report.splitlines() if line.startswith("| 1 |"))
    assert top[0].text.replace("|", "\\|")[:40] in first_row
