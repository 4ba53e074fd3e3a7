"""Issue #12: one candidate per question, asked five ways; no information proposed; requests,
proposals and statements with a question mark are not questions.

Set A is what the concept table was written against (a regression check, not evidence); sets B
and C were written after tuning (C scored once, held out), D blind by another writer and scored
once: their floors are the figures reported in questions/benchmark/planted/RESULTS.md, so a
change that loses ground shows here.
"""
from __future__ import annotations

import pytest

from questions.benchmark.planted import PLANTED, read_set, score
from questions.mine.classify import classify
from questions.mine.cluster import ClusterConfig, cluster
from questions.mine.normalise import concepts, spelled, terms


@pytest.fixture(scope="module")
def scored():
    return {p.stem[-1]: score(read_set(p)) for p in sorted(PLANTED.glob("set_*.yaml"))}


def test_the_tuned_set_comes_out_one_candidate_per_question(scored):
    a = scored["a"]
    assert a["one_candidate_rate"] >= 0.9 and a["candidates"] <= 9


def test_the_held_out_sets_do_no_worse_than_reported(scored):
    assert scored["b"]["one_candidate"] >= 1 and scored["c"]["one_candidate"] >= 1
    assert scored["b"]["candidates"] <= 12 and scored["c"]["candidates"] <= 22


def test_no_information_message_is_proposed_as_a_question(scored):
    for name in "abc":
        assert scored[name]["information_proposed"] == [], name


def test_set_d_does_no_worse_than_after_its_classifier_round(scored):
    # set D was written blind and scored once (RESULTS.md: 0/8 whole, 1/12 information proposed,
    # 31/40 askings proposed); the classifier was then corrected on it (39/40, 0/12): not a target,
    # a floor that shows a change losing ground
    d = scored["d"]
    assert d["information_proposed"] == []
    assert sum(v["proposed"] for v in d["per_question"].values()) >= 38


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


def test_sets_e_and_f_do_no_worse_than_their_one_scoring(scored):
    # written blind and scored once after the last change (RESULTS.md): floors, not targets
    for name, info, proposed in (("e", 0, 31), ("f", 1, 29)):
        s = scored[name]
        assert len(s["information_proposed"]) <= info, name
        assert sum(v["proposed"] for v in s["per_question"].values()) >= proposed, name
