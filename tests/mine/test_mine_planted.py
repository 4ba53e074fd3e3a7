"""Issue #12: one candidate per question, asked five ways; no information proposed; requests,
proposals and statements with a question mark are not questions.

Each set was scored once held out before it was tuned on (questions/benchmark/planted/RESULTS.md
keeps the order): A-BV are all tuned-on material now (BW-CP: the topic table is not tuned on them yet) (round 18 tuned the topic table on BI-BL,
round 19 on BM-BP; round 20 tuned the classifier alone on BQ-BV), so these floors are regression
checks, not evidence: they are the figures reached after the last change, so a change that loses
ground shows here.
"""
from __future__ import annotations

import pytest

from questions.benchmark.planted import PLANTED, read_set, score
from questions.mine.classify import classify
from questions.mine.cluster import ClusterConfig, cluster
from questions.mine.normalise import concepts, spelled, terms


@pytest.fixture(scope="module")
def scored():
    return {p.stem.split("_", 1)[1]: score(read_set(p)) for p in sorted(PLANTED.glob("set_*.yaml"))}


#: one candidate per question on each set after round 20 (RESULTS.md): floors, tuned on
FLOORS = {"a": 8, "b": 6, "c": 7, "d": 8, "e": 10, "f": 10, "g": 10, "h": 10, "i": 10, "j": 10, "k": 10, "l": 9,
          "m": 10, "n": 9, "o": 10, "p": 10, "q": 10, "r": 10, "s": 10, "t": 10, "u": 10, "v": 10, "w": 8, "x": 9,
          "y": 10, "z": 10, "aa": 10, "ab": 10, "ac": 10, "ad": 10, "ae": 10, "af": 9,
          "ag": 10, "ah": 10, "ai": 10, "aj": 8,
          "ak": 7, "al": 5, "am": 7, "an": 10,
          "ao": 10, "ap": 10, "aq": 10, "ar": 9,
          "as": 10, "at": 10, "au": 10, "av": 10,
          "aw": 8, "ax": 10, "ay": 8, "az": 10,
          "ba": 10, "bb": 10, "bc": 10, "bd": 10,
          "be": 10, "bf": 9, "bg": 10, "bh": 10,
          "bi": 6, "bj": 6, "bk": 10, "bl": 7,
          "bm": 8, "bn": 10, "bo": 10, "bp": 10,
          "bq": 2, "br": 1, "bs": 1, "bt": 1, "bu": 1, "bv": 0,
          "bw": 1, "bx": 1, "by": 1, "bz": 1,
          "ca": 3, "cb": 1, "cc": 1, "cd": 0,
          "ce": 0, "cf": 1, "cg": 1, "ch": 0,
          "ci": 1, "cj": 2, "ck": 0, "cl": 2,
          "cm": 1, "cn": 0, "co": 0, "cp": 2,
          "cq": 2, "cr": 0, "cs": 3, "ct": 0,
          "cu": 2, "cv": 1, "cw": 0, "cx": 1}
#: the sets of the last round tuned on, floored but not yet within the 95% (round 19: BM-BP)
LAST_ROUND = ("bm", "bn", "bo", "bp")
#: the round before, floored but still outside the 95%: A-BL together come out at 593/629 (94.3%) after round 19
BELOW_95 = ("bi", "bj", "bk", "bl")
#: BQ-BV: scored held out (7/60), then only the classifier corrected on them (round 20); BW-BZ: scored held
#: out at the end of round 20 (4/40), nothing tuned on them yet. The topic table has not been grown from
#: either, so their floors keep what they reach, far from the 95%
#: CA-CD, CE-CH, CI-CL, CM-CP, CQ-CT, CU-CX: scored held out in rounds 21-26 (5, 2, 5, 3, 5, 4 of 40); the
#: classifier corrected on CA-CL (rounds 22-23), the topic table on none (the model's regrouping and screening
#: were those rounds' changes: tests/agent/test_grouping_planted.py)
TABLE_NOT_YET = ("bq", "br", "bs", "bt", "bu", "bv", "bw", "bx", "by", "bz", "ca", "cb", "cc", "cd",
                 "ce", "cf", "cg", "ch", "ci", "cj", "ck", "cl", "cm", "cn", "co", "cp", "cq", "cr", "cs", "ct",
                 "cu", "cv", "cw", "cx")
#: sets allowed to propose some information while the classifier is not yet corrected on them: CM and CN, held out
#: in round 24 (two causes with their remedy; a biological caveat). CA's and CC's one each were corrected after
#: round 22 (FACTS_AND_TECHNIQUES_ROUND22)
INFORMATION_OPEN: dict[str, int] = {"cm": 2, "cn": 1}


def test_the_sets_tuned_on_come_out_one_candidate_per_question(scored):
    # A-BP were each scored once held out, then tuned on (RESULTS.md): their figure is not evidence,
    # it keeps a change from losing what they taught
    got = {k: scored[k]["one_candidate"] for k in FLOORS}
    assert all(got[k] >= FLOORS[k] for k in FLOORS), got
    # the 95% is over A-BH (564/589 after round 19); with BI-BL (29/40) A-BL is 593/629 (94.3%), and with BM-BP
    # (round 19, 37/40) the whole is 631/669 after round 20: RESULTS.md, rounds 19-20
    overall = [k for k in FLOORS if k not in LAST_ROUND + BELOW_95 + TABLE_NOT_YET]
    one = sum(got[k] for k in overall)
    total = sum(scored[k]["questions"] for k in overall)
    assert one >= 0.95 * total, got


def test_no_information_message_is_proposed_as_a_question(scored):
    for name in FLOORS:
        assert len(scored[name]["information_proposed"]) <= INFORMATION_OPEN.get(name, 0), name


def test_the_askings_of_the_last_sets_are_proposed(scored):
    # K and L (written blind, scored once at 4/10 and 3/10 before round 5 tuned on them)
    for name in "kl":
        assert sum(v["proposed"] for v in scored[name]["per_question"].values()) >= 45, name


def test_an_error_size_called_fp_noise_joins_the_error_questions_not_the_noise_ones():
    # "fp noise" in a question about a mismatch is an error size (topics.SENSES), not timing spread
    from questions.mine.miner import question_terms, with_topics

    texts = ["how noisy is the timing? run it 5 times", "whats the run-to-run spread on the 1.04x",
             "stddev across repeats for gemm_4096?", "what's the max abs error on the failing case?",
             "print max |out - ref| for b2_h16 pls",
             "you said the layernorm mismatch is just fp noise - so how big is it on the failing case?"]
    docs = [with_topics(question_terms(t.lower()), t) for t in texts]
    got = cluster(docs, [1] * len(docs))
    home = next(c for c in got.clusters if 5 in c)
    assert 3 in home and not {0, 1, 2} & set(home), got.clusters


def test_errors_listed_per_scenario_join_the_error_questions_not_the_per_scenario_speedups():
    # "per scenario" with an error is a check over every scenario (topics.SCOPES), not a speedup table
    from questions.mine.miner import question_terms, with_topics

    texts = ["speedup per scenario pls, not the geomean", "which shapes are slower than the seed? list them",
             "break the 1.2x down by shape", "what's the worst abs error against the reference?",
             "how big is the max diff on the bf16 path", "print the max abs err per scenario"]
    docs = [with_topics(question_terms(t.lower()), t) for t in texts]
    got = cluster(docs, [1] * len(docs))
    home = next(c for c in got.clusters if 5 in c)
    assert 3 in home and not {0, 1, 2} & set(home), got.clusters


@pytest.mark.parametrize("text,label", [
    ("Can we also add which index specifically this is to the debug log?", "directive"),
    ("can you help me find what their standard is?", "directive"),
    ("Can you check the numbers on the latest commit again, just in case?", "directive"),
    ("can you check whether the loads are coalesced?", "question"),
    ("How about including the commit sha? Do we have it at this point?", "information"),
    ("Should we group runs by experiment similar to vercel?", "information"),
    ("we added that missing test in this PR yeah?", "information"),
    ("I didn't see the stop hook fire?", "information"),
    ("Have a look at some of the open PRs, there are some that may be related?", "directive"),
    ("Don't set it, let's see if it keeps happening", "directive"),
    ("unknown command \"session\" for \"entire\"\n\nDid you mean this?\n        version", "information"),
    ("Are you sure?", "question"),
    ("which commit?", "question"),
    # measurement requests are questions; the agent's own figure quoted back is not information
    ("Can you pull the bank conflict counter for softmax_rows and tell me the number?", "question"),
    ("can you compare wall time per launch in nsys with the kernel duration", "question"),
    ("can u run a plain copy kernel so we know where the real roof is", "question"),
    ("can you run the full sweep again", "directive"),
    ("theoretical occupancy says 50% -- what does the profiler measure as achieved?", "question"),
    ("You said 3.1 TB/s is the ceiling -- what does a plain copy kernel reach on this card?", "question"),
    ("wat does the checker say on non-aligned sizes, is the tail block right", "question"),
    ("isn't exp2f with log2e folded into the scale cheaper than expf here?", "information"),
    ("did you know the H200's HBM3e is rated 4.8 TB/s?", "information"),
    ("Is that 1.4x win on s3 real or just noise? Rerun it and show me the spread.", "question"),
])
def test_requests_proposals_and_statements_are_not_questions(text, label):
    assert classify(text).label == label, (text, classify(text))


def test_misspelt_domain_words_are_read_as_the_word():
    assert spelled("bandwith") == "bandwidth" and spelled("occupnacy") == "occupancy"
    assert spelled("kernel") == "kernel" and spelled("xyzzyq") == "xyzzyq"
    assert terms("peak memory bandwith") == terms("peak memory bandwidth")


def test_questions_about_the_same_concepts_join_only_while_small():
    noise = [["gain", "real", "nois"], ["<ratio>", "real", "second", "third", "measur"],
             ["gain", "real", "lucky", "~show", "~repeat"]]
    assert all(concepts(d).get("noise") for d in noise)
    joined = cluster(noise, [1, 1, 1])
    assert len(joined.clusters) == 1
    apart = cluster(noise, [1, 1, 1], ClusterConfig(concept_jaccard=0))
    assert len(apart.clusters) > 1  # words alone leave them apart
    big = cluster(noise, [6, 6, 6])  # asked many times each: big clusters are left as they are
    assert len(big.clusters) == len(apart.clusters)


def test_sharing_one_coarse_concept_without_a_word_in_common_is_not_enough():
    a = ["profil", "spend", "time"]  # where does the time go
    b = ["ncu", "report", "cubla", "compar"]  # how do we compare with cuBLAS, by ncu: profile + baseline
    assert concepts(a).keys() & concepts(b).keys() == {"profile"}
    got = cluster([a, ["bank", "conflict", "smem"], b], [1, 1, 1])
    assert not [c for c in got.clusters if 0 in c and 2 in c]



@pytest.mark.parametrize("text,said", [
    ("set: x\nquestions:\n  - key: a\n    asked: [unclosed\n", "bad.yaml:5: not valid YAML"),
    ("set: x\nquestions:\n  - asked: [\"a\"]\n", "question 1 needs a `key`"),
    ("set: x\n", "no `questions:` list"),
])
def test_a_bad_planted_set_is_one_line_naming_the_file(tmp_path, capsys, text, said):
    from questions.benchmark.planted import main

    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    assert main([str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(bad) in err and said in err, err


def test_a_question_whose_words_are_all_common_still_asks_its_topic():
    # "bit-for-bit?" keeps no term ("bit" and "for" are common words) but the table reads determinism in
    # it: it joins the other askings of that question instead of standing alone (round 19, BO)
    from questions.mine.miner import question_terms, with_topics

    texts = ["Bit-for-bit?", "are the outputs bitwise identical from run to run?", "deterministic across reruns?"]
    docs = [with_topics(question_terms(t.lower()), t) for t in texts]
    assert docs[0] == ["@determinism"]
    got = cluster(docs, [1] * len(docs))
    assert sorted(got.clusters[0]) == [0, 1, 2], got.clusters
    assert with_topics(question_terms("why?"), "why?") == []  # nothing asked that the table reads: nothing added


def test_the_hard_sets_as_the_rules_alone_read_them():
    # hard/ (round 27, held out, not tuned on): askings that mention a guess or a fact, information asked
    # as a question or as "apply X and report". Scored once at 3/10 and 3/10 with 7 and 9 of 30
    # information messages proposed; `--with-model` keeps all of them out (tests/agent/test_grouping_planted.py).
    # Floors and ceilings, so that a change to the rules that loses ground shows here
    got = {p.stem.split("_", 1)[1]: score(read_set(p)) for p in sorted((PLANTED / "hard").glob("set_*.yaml"))}
    assert {k: r["one_candidate"] >= 3 for k, r in got.items()} == {"cy": True, "cz": True}
    assert len(got["cy"]["information_proposed"]) <= 7 and len(got["cz"]["information_proposed"]) <= 9

