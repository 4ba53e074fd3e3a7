"""Rounds 21-25 (questions/benchmark/planted/RESULTS.md): the miner with the model's second opinions on
every planted set, replayed from the recorded answers (questions/benchmark/planted/model_answers): the
grouping alone (rounds 21-24), and the screening then the grouping (round 25 on, what `--with-model`
does).

The answers were recorded once per request, from a Claude model standing in for the API (a helper
agent given the request's exact text and nothing else; the API cannot be reached from here). They
bind to the request's content: when the rules' clusters or the instructions change, the requests
change and these tests fail asking for the model to be run again — a recorded figure holds only for
the rules and the instructions it was made with.

    python -m agent.grouping questions/benchmark/planted/set_*.yaml \\
        --answers questions/benchmark/planted/model_answers [--thin 21] [--group-only]

The instructions (v2) were written after round 21's split what sets A-H asked about different kernels;
CE-CH and CI-CL were held out for them (38/40, 37/40), then the classifier was corrected on CE-CL;
CM-CP (round 24) are held out for the miner as shipped. The screening's instructions were written
once, before any answer was read, and CQ-CT (round 25) were written blind after them and answered one
request per stand-in; on the other sets the screening is a first look too, but its stand-ins answered
four requests each and could see that sets of one size share a layout (RESULTS.md, round 25).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from agent.grouping import ModelGrouper, RecordedModel
from agent.screening import ModelScreener
from questions.benchmark.planted import PLANTED, read_set, score, thinned

ANSWERS = PLANTED / "model_answers"
SETS = sorted(p.stem.split("_", 1)[1] for p in PLANTED.glob("set_*.yaml"))
THIN = ("bw", "bx", "by", "bz", "ca", "cb", "cc", "cd", "ce", "cf", "cg", "ch", "ci", "cj", "ck", "cl",
        "cm", "cn", "co", "cp", "cq", "cr", "cs", "ct", "cu", "cv", "cw", "cx")
HELD_OUT = ("cm", "cn", "co", "cp")  # round 24: scored once on the miner as shipped
ROUND_25 = ("cq", "cr", "cs", "ct")  # held out for the screening (and for the grouping as shipped)
ROUND_26 = ("cu", "cv", "cw", "cx")  # held out for the miner as shipped with the screening (44ca371)
HARD = ("cy", "cz")  # round 27, hard/: questions that read like information and back, held out
TRANSCRIPTS = Path(__file__).resolve().parents[3] / "shared" / "data" / "transcripts"


def _set(name: str, thin: bool = False):
    ps = read_set(PLANTED / ("hard" if name in HARD else "") / f"set_{name}.yaml")
    return thinned(ps, 21) if thin else ps


@pytest.fixture(scope="module")
def replayed():
    rec = RecordedModel(ANSWERS)
    full = {n: score(_set(n), regroup=ModelGrouper(rec, "recorded")) for n in SETS + list(HARD)}
    thin = {n: score(_set(n, True), regroup=ModelGrouper(rec, "recorded")) for n in THIN}
    return rec, full, thin


@pytest.fixture(scope="module")
def screened():
    rec = RecordedModel(ANSWERS)

    def run(name: str, thin: bool = False) -> dict:
        return score(_set(name, thin), screen=ModelScreener(rec, "recorded"), regroup=ModelGrouper(rec, "recorded"))
    return rec, {n: run(n) for n in SETS + list(HARD)}, {n: run(n, True) for n in THIN}


def test_every_request_has_its_recorded_answer(replayed, screened):
    used = set()
    for rec in (replayed[0], screened[0]):
        assert not rec.missing, ("the requests changed since the model's answers were recorded: run "
                                 "`python -m agent.grouping ... --answers DIR` live (or by stand-ins) and record anew")
        used |= rec.used
    unused = {p.stem for p in ANSWERS.glob("*.json")} - used
    assert len(unused) <= 4  # those left are the shared transcripts' (tests below)


def test_the_model_makes_one_candidate_per_question(replayed):
    _, full, thin = replayed
    full = {n: r for n, r in full.items() if n not in HARD}
    one = {n: r["one_candidate"] for n, r in full.items()}
    questions = sum(r["questions"] for r in full.values())
    assert sum(one.values()) == 985 and questions == 1009  # 97.6%; the rules alone: 665 (65.9%)
    assert sum(one[n] for n in HELD_OUT) == 40  # held out: the rules alone 3/40
    assert sum(one[n] for n in ROUND_25) == 39  # held out: the rules alone 5/40
    assert sum(one[n] for n in ROUND_26) == 40  # held out: the rules alone 4/40
    assert sum(r["one_candidate"] for r in thin.values()) == 262  # of 280 (2-5 askings a question)
    # what it misses: askings the classifier did not propose (lost), and a few splits and merges
    verdicts = [v["verdict"] for r in full.values() for v in r["per_question"].values() if v["verdict"] != "one"]
    assert sorted(set(verdicts)) == ["lost", "merged", "split"] and verdicts.count("split") == 17
    assert all(v["verdict"] == "one" for n in HELD_OUT for v in full[n]["per_question"].values())


def test_the_model_screening_first_finds_the_lost_askings_and_drops_the_information(screened):
    _, full, thin = screened
    full = {n: r for n, r in full.items() if n not in HARD}
    one = {n: r["one_candidate"] for n, r in full.items()}
    assert sum(one.values()) == 989  # of 1,009 (98.0%); the grouping alone 985
    for held_out in (ROUND_25, ROUND_26):
        assert sum(one[n] for n in held_out) == 40 and sum(thin[n]["one_candidate"] for n in held_out) == 40
    assert sum(r["one_candidate"] for r in thin.values()) == 278  # of 280
    verdicts = [v["verdict"] for r in full.values() for v in r["per_question"].values() if v["verdict"] != "one"]
    assert "lost" not in verdicts and verdicts.count("split") == 19
    assert not any(r["information_proposed"] for r in list(full.values()) + list(thin.values()))
    # what it moved: 105 planted askings the rules had lost became questions, none of anything else;
    # out went CM's and CN's three information messages and one planted asking that offers its cause
    # ("... was the card maybe power capping ...?", AP)
    became = [m for r in full.values() for m in r["screened"]["became_questions"]]
    assert len(became) == 105 and {m["planted"] for m in became} == {"question"}
    out = [(r["set"], m["planted"]) for r in full.values() for m in r["screened"]["no_longer_questions"]]
    assert sorted(out) == [("ap", "question"), ("cm", "information"), ("cm", "information"), ("cn", "information")]
    # two directives it called questions stand alone and are not proposed
    assert sorted(m["planted"] for r in full.values() for m in r["screened"]["alone"]) == ["directive", "directive"]


def test_on_the_hard_sets_the_screening_keeps_information_out(replayed, screened):
    # round 27 (hard/, held out): askings that mention a guess or a fact, information asked as a question or
    # as "apply X and report". The rules alone: 6/20, 81/100 askings, 16/60 information proposed; the
    # regrouping alone 15/20 with the same 16; screening then regrouping 20/20 and none: 19 lost askings
    # found, 16 information messages dropped, no planted asking dropped, nothing else made a question
    assert [replayed[1][n]["one_candidate"] for n in HARD] == [6, 9]
    assert sum(len(replayed[1][n]["information_proposed"]) for n in HARD) == 16
    got = [screened[1][n] for n in HARD]
    assert [r["one_candidate"] for r in got] == [10, 10] and not any(r["information_proposed"] for r in got)
    became = [m["planted"] for r in got for m in r["screened"]["became_questions"]]
    out = [m["planted"] for r in got for m in r["screened"]["no_longer_questions"]]
    assert became == ["question"] * 19 and out == ["information"] * 16
    assert not any(r["screened"]["alone"] for r in got)


def test_the_model_proposes_no_information_the_rules_did_not(replayed):
    # the model only groups what the classifier proposed: CM's two and CN's one (held out in round 24,
    # the classifier not corrected on them yet) are the classifier's, with or without the model
    _, full, thin = replayed
    full = {n: r for n, r in full.items() if n not in HARD}
    assert {n: len(r["information_proposed"]) for n, r in full.items() if r["information_proposed"]} == {"cm": 2, "cn": 1}
    assert {n for n, r in thin.items() if r["information_proposed"]} == {"cm", "cn"}


@pytest.mark.skipif(not TRANSCRIPTS.is_dir(), reason="needs ../shared/data/transcripts beside the checkout")
def test_on_the_real_transcripts_the_model_parts_the_rules_wrong_joins():
    # 17 real transcripts: the rules joined four pairs of different questions ("are these performance or
    # ux bugs" with "our git status has broken, why?", ...); the recorded answer parts all four and joins
    # three pairs (read by hand: two plausible, one not — "no matrix multiplication function?" with "do we
    # not have GPU convolution?")
    from questions.loader import load_bank
    from questions.mine import MineConfig, mine

    rec = RecordedModel(ANSWERS)
    paths = sorted(str(p) for p in TRANSCRIPTS.glob("*/*.jsonl"))
    result = mine(paths, MineConfig(), bank=load_bank(), regroup=ModelGrouper(rec, "recorded"))
    assert not rec.missing
    note = result.regrouping
    assert (note.rule_candidates, note.candidates, note.joined, note.parted) == (53, 54, 3, 4)


@pytest.mark.skipif(not TRANSCRIPTS.is_dir(), reason="needs ../shared/data/transcripts beside the checkout")
def test_on_the_real_transcripts_the_screening_adds_only_what_joins_a_rules_question():
    # 17 real transcripts (general coding sessions): the recorded answer calls 62 messages questions the
    # rules did not (how-to requests, plans, chat in Chinese, "walk me through installing cuda"); alone
    # they would be candidates. Only those another wording of a rules' question joins are proposed
    # (5: "can you check the numbers on the latest commit again, just in case?" beside "can you check if
    # we got the right amount of lines?", "check what's triggering gc", ...); 57 keep the rules' label.
    # The bound was written after reading this answer: not a held-out figure.
    from questions.loader import load_bank
    from questions.mine import MineConfig, mine

    rec = RecordedModel(ANSWERS)
    paths = sorted(str(p) for p in TRANSCRIPTS.glob("*/*.jsonl"))
    result = mine(paths, MineConfig(), bank=load_bank(), screen=ModelScreener(rec, "recorded"),
                  regroup=ModelGrouper(rec, "recorded"))
    assert not rec.missing
    sc = result.screening
    assert (sc.shown, len(sc.became_questions), len(sc.alone), len(sc.no_longer_questions)) == (314, 5, 57, 5)
    assert len(result.clusters) == 51
