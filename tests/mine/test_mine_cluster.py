"""Generalising specifics and clustering alike questions: the planted corpus is recovered.

Purity and recall are defined in `mine_corpus.purity_and_recall` (and in docs/mining.md):

- purity = (1/P) * sum over predicted clusters of the size of the largest planted intent in it
  (P: messages in predicted clusters; a distractor that slips in is its own class);
- recall = (1/Q) * sum over planted intents of the largest share of its askings found together
  in one predicted cluster (Q: planted questions; askings not proposed count as missed).
"""
from __future__ import annotations

import pytest

from mine_corpus import generate, purity_and_recall
from questions.mine import MineConfig, generalise, mine, terms
from questions.mine.cluster import cluster
from questions.mine.miner import question_terms


def test_specifics_become_placeholders_and_the_words_stay():
    g = generalise("Why is scenario b4_h16_s2048 at 0.82x when s3 is at 1.3x on the H200?")
    assert g.text == "Why is scenario <name> at <ratio> when <name> is at <ratio> on the <gpu>?"
    assert [k for k, _ in g.specifics] == ["ratio", "ratio", "gpu", "name", "name"]
    assert generalise("the bug is in kernels/attn/candidate.cu:40").text == "the bug is in <file>"
    assert generalise("took 3.2 ms, 45% of peak, 3.35 TB/s, 50 MB, sm_90a, 4096x4096").text == \
        "took <time>, <pct> of peak, <rate>, <size>, <arch>, <shape>"
    assert generalise("does `flash_fwd<128>` use fp16 or bf16?").text == "does <code> use fp16 or bf16?"
    assert generalise("is ks_run() or GemmKernel slower?").text == "is <name> or <name> slower?"
    assert generalise("is L2 or L1 the problem, see https://x.y/z").text == "is L2 or L1 the problem, see <url>"


def test_names_and_numbers_changed_give_the_same_terms():
    a = terms(generalise("Is the 1.35x win on s3 noise? Run it again.").text)
    b = terms(generalise("is the 2.1x win on b1_h32_s8192 noise? run it again").text)
    assert a == b


def test_synonyms_and_stems_bring_paraphrases_together():
    a = set(terms("Could the speedup just be noise? Rerun and show the variance."))
    b = set(terms("Is that win noise? Run it again and show me the spread."))
    assert {"gain", "nois", "rerun", "show"} <= a & b
    assert terms("measured") == terms("measuring") == terms("measures")
    assert terms("shared memory") == terms("smem")


def test_clustering_is_deterministic_and_weighted():
    docs = [terms(t) for t in ("is the win noise", "is the speedup noise", "does it spill registers",
                               "are registers spilling", "what is the roofline")]
    a = cluster(docs, [5, 1, 1, 1, 1])
    b = cluster(docs, [5, 1, 1, 1, 1])
    assert a.clusters == b.clusters
    assert a.clusters[0] == [0, 1] and [2, 3] in a.clusters and [4] in a.clusters


def _measure(seed: int, n: int, rewordings: float = 0.0) -> dict:
    corpus = generate(seed, n_messages=n, n_sessions=max(10, n // 20), rewordings=rewordings)
    result = mine_corpus_messages(corpus)
    index = {(m.session, m.seq): i for i, m in enumerate(corpus.messages)}
    planted = {i: m.intent for i, m in enumerate(corpus.messages)}
    questions = {i for i, m in enumerate(corpus.messages) if m.label == "question"}
    predicted = [[index[(m.session, m.seq)] for m in c.members] for c in result.clusters]
    return purity_and_recall(planted, predicted, questions)


def mine_corpus_messages(corpus, tmp=None):
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        path = corpus.write_steering_log(Path(d) / "steering.jsonl")
        return mine([path], MineConfig())


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_planted_clusters_are_recovered(seed):
    m = _measure(seed, 1500)
    print(f"\nseed {seed}: purity {m['purity']:.3f}, recall {m['recall']:.3f}, pair precision "
          f"{m['pair_precision']:.3f}, pair recall {m['pair_recall']:.3f}; {m['intents_recovered']}/{m['intents']} "
          f"intents recovered whole; {m['clusters']} clusters from {m['planted_questions']} planted questions")
    assert m["purity"] >= 0.9
    assert m["recall"] >= 0.9
    assert m["proposed"] >= 0.97 * m["planted_questions"]


def test_free_rewordings_are_the_known_limit():
    """A quarter of askings in free rewordings (few shared words): purity holds, recall drops.

    Lexical similarity cannot join "Is the math on the FMA units or on the MMA units?" with
    "Does the inner loop run on the tensor cores?"; those come out as their own clusters.
    """
    m = _measure(4, 1500, rewordings=0.25)
    print(f"\nwith 25% free rewordings: purity {m['purity']:.3f}, recall {m['recall']:.3f}")
    assert m["purity"] >= 0.9
    assert 0.6 <= m["recall"] < 0.95


def test_representative_is_a_real_member_generalised():
    corpus = generate(5, n_messages=800, n_sessions=40)
    result = mine_corpus_messages(corpus)
    for c in result.clusters:
        member_texts = {generalise(m.question or m.text).text for m in c.members}
        assert any(c.text.rstrip("?").lower() in t.lower() or t.lower().rstrip("?") in c.text.lower()
                   for t in member_texts), c.text
        assert len(c.text) <= 160
        assert c.example in {m.question or m.text for m in c.members}


def test_the_question_decides_the_match_more_than_the_request_after_it():
    docs = [question_terms(t) for t in (
        "Is the win noise? Show me the spread.",
        "Is the win noise?",
        "Does it spill registers? Show me the spread.",
    )]
    got = cluster(docs)
    assert [0, 1] in got.clusters and [2] in got.clusters


def test_the_corpus_is_deterministic_for_a_seed():
    a, b, c = (generate(s, n_messages=300, n_sessions=20).records() for s in (9, 9, 10))
    assert a == b and a != c
    assert {m.label for m in generate(9, n_messages=300, n_sessions=20).messages} == {
        "question", "information", "directive", "other"}


def test_askings_sent_from_different_bank_items_never_join():
    # two bank items share words and a topic ("per-scenario ratios", "each scenario's roofline"),
    # but a message sent from an item is that item's question: different items, different questions
    a = terms("Which scenarios got slower? Show the per-scenario ratios.")
    b = terms("Which scenarios got slower? Show the per-scenario ratios, please.")
    free = terms("which scenarios got slower? show me the per-scenario ratios")
    got = cluster([a, b, free], [1, 1, 1], sent_from=[frozenset({"reg-which"}), frozenset({"start-roofline"}), frozenset()])
    assert not [c for c in got.clusters if 0 in c and 1 in c], got.clusters
    assert any(len(c) == 2 and 2 in c for c in got.clusters), got.clusters  # a free asking joins one of them
    same = cluster([a, b], [1, 1], sent_from=[frozenset({"reg-which"}), frozenset({"reg-which"})])
    assert same.clusters == [[0, 1]]


def test_the_bundled_example_mines_one_cluster_per_bank_item_it_sent():
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "console" / "examples" / "attention-cpu"
    result = mine([example], MineConfig())
    sent = [{m.bank_id for m in c.members} for c in result.clusters]
    assert len(result.clusters) == 6 and all(len(s) == 1 for s in sent), sent


def _random_docs(rng, n_docs: int, n_feats: int):
    import numpy as np

    per = rng.integers(1, 10, n_docs)
    rows = np.repeat(np.arange(n_docs), per)
    popularity = 1.0 / np.arange(1, n_feats + 1) ** 1.1  # a few common terms, many rare ones
    popularity /= popularity.sum()
    cols = np.concatenate([rng.choice(n_feats, size=k, replace=False, p=popularity) for k in per])
    vals = rng.random(rows.size)
    dense = np.zeros((n_docs, n_feats))
    dense[rows, cols] = vals
    return rows, cols, vals, dense


@pytest.mark.parametrize("seed", range(6))
def test_similar_pairs_finds_every_pair_a_brute_force_finds_when_the_budget_allows(seed):
    import numpy as np

    from questions.mine.cluster import similar_pairs

    rng = np.random.default_rng(seed)
    rows, cols, vals, dense = _random_docs(rng, 120, 60)
    gram = dense @ dense.T
    I, J, S = similar_pairs(rows, cols, vals, 120, 60, 0.8, budget=10**9)
    want = {(i, j) for i in range(120) for j in range(i + 1, 120) if gram[i, j] >= 0.8 - 1e-9}
    assert {(int(i), int(j)) for i, j in zip(I, J)} == want
    assert np.allclose(S, gram[I, J], rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_similar_pairs_with_a_small_budget_still_gives_each_candidate_its_whole_cosine(seed):
    # the terms too common to enumerate pairs from are added to the candidates found on rarer ones
    # (the vectorised lookup that replaced a loop over those terms): each figure is the exact dot
    # over every term, and every pair returned is a real one
    import numpy as np

    from questions.mine.cluster import similar_pairs

    rng = np.random.default_rng(100 + seed)
    rows, cols, vals, dense = _random_docs(rng, 300, 200)
    gram = dense @ dense.T
    I, J, S = similar_pairs(rows, cols, vals, 300, 200, 0.6, budget=2000)
    assert I.size > 0 and np.all(I < J)
    assert np.allclose(S, gram[I, J], rtol=0, atol=1e-12)
    assert np.all(gram[I, J] >= 0.6 - 1e-9)
    full_I, _, _ = similar_pairs(rows, cols, vals, 300, 200, 0.6, budget=10**9)
    assert I.size < full_I.size  # the budget did leave terms out (else this tests nothing new)


def test_the_other_half_of_a_question_counts_as_the_question_not_as_a_request_after_it():
    # the classifier reads ", or is that inferred from the speedup?" as the rest of the question before
    # it (asking.interrogative_flags); clustering reads its terms the same way, not at the weight of a
    # request that follows a question
    text = "have you looked at the branch efficiency before and after, or is that inferred from the speedup?"
    got = question_terms(text)
    assert "infer" in got and not any(t.startswith("~") for t in got), got
    # a request after a question still counts less
    assert any(t.startswith("~") for t in question_terms("how many spills are there? dump the ptxas output"))
