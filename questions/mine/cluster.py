"""Clustering near-duplicate questions: TF-IDF over terms and term pairs, average linkage.

Each distinct question (its terms, from `normalise.terms`) is a vector: its terms weighted by
inverse document frequency, its adjacent term pairs at `bigram_weight`, placeholders (`<n>`,
`<file>`) at `placeholder_weight`, L2-normalised. Similar pairs are found without comparing every
pair: the postings of each term give the pairs that share it (numpy, rarest terms first, within
a budget of pairs), then the exact cosine of those candidates. Clusters grow by average linkage
over those edges, strongest first: two clusters join when the edge between them reaches
`edge_threshold` *and* the mean cosine over all their cross pairs reaches `join_threshold`
(computed exactly from the clusters' summed vectors, so a chain of pairwise-similar questions
cannot drag unrelated ones together).

Questions asked many times count with their weight (how often each distinct text was asked).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from questions.mine.normalise import concepts


@dataclass
class ClusterConfig:
    edge_threshold: float = 0.4
    join_threshold: float = 0.33
    bigram_weight: float = 0.5
    placeholder_weight: float = 0.3
    secondary_weight: float = 0.4  # terms of the requests that follow a question
    char_weight: float = 0.5  # character trigrams of terms (typos, spelling variants)
    concept_weight: float = 0.0  # each steering concept a question is about (`normalise.CONCEPTS`)
    signature_weight: float = 0.0  # the whole set of concepts the question itself asks about
    concept_jaccard: float = 0.5  # small clusters asking about the same concepts join (0: off)
    concept_small: int = 5  # ... when each holds at most this many askings
    concept_min_cos: float = 0.05  # ... sharing one concept, only with some words in common too
    concept_bucket: int = 400  # a concept (or pair) shared by more small clusters than this says nothing
    topic_weight: float = 1.0  # each measurement a question asks for (`topics.TOPICS`: terms `@topic`) ...
    topic_share: float = 0.75  # ... and the share of the cosine its topics decide when it has any
    untopical_by_words: bool = True  # an asking with no topic is compared with the others on words alone
    match_threshold: float = 0.55  # cosine of a cluster's representative to an existing bank item
    pair_budget: int = 1_000_000  # candidate pairs generated from shared terms, at most


@dataclass
class Space:
    """The fitted term space: vocabulary and inverse document frequencies."""

    vocab: dict[str, int]
    idf: list[float]
    config: ClusterConfig = field(default_factory=ClusterConfig)

    def __post_init__(self) -> None:
        self.top_idf = max(self.idf) if self.idf else 1.0
        self.topic_ids = frozenset(i for f, i in self.vocab.items() if f[0] == "@")

    def vector(self, terms: list[str]) -> dict[int, float]:
        """A sparse, L2-normalised vector (terms unknown to the space get the largest idf)."""
        return self.vector_of(features(terms, self.config))

    def vector_of(self, feats: dict[str, float]) -> dict[int, float]:
        """The same, from a doc's features (`features(terms, config)`)."""
        top = self.top_idf
        vec: dict[int, float] = {}
        sq = [0.0, 0.0]  # squared norms of the words' part and the topics' part (unknown features too)
        for f, w in feats.items():
            i = self.vocab.get(f)
            v = w * (top if i is None else self.idf[i])
            sq[f[0] == "@"] += v * v
            if i is not None:
                vec[i] = v
        scale = part_scales(sq[0], sq[1], self.config.topic_share)
        return {i: v * scale[i in self.topic_ids] for i, v in vec.items()}


def part_scales(words_sq: float, topics_sq: float, share: float) -> tuple[float, float]:
    """Multipliers for a vector's word part and topic part: each part normalised, the topics taking
    `share` of the squared norm when there are any, so that the cosine of two questions is
    share x (cosine of their topics) + (1 - share) x (cosine of their words), however many words
    each has. A question without topics is its words alone."""
    if topics_sq <= 0:
        return (1.0 / math.sqrt(words_sq) if words_sq > 0 else 1.0, 0.0)
    if words_sq <= 0:
        return (0.0, 1.0 / math.sqrt(topics_sq))
    return (math.sqrt(1.0 - share) / math.sqrt(words_sq), math.sqrt(share) / math.sqrt(topics_sq))


def features(terms: list[str], cfg: ClusterConfig) -> dict[str, float]:
    """Feature -> raw weight (tf and kind weights; idf comes later).

    A term marked `~term` comes from a request that follows the question ("... Show me the
    spread."): it counts at `secondary_weight`, so that the question itself decides the match."""
    tf: dict[str, float] = {}
    out: dict[str, float] = {}
    for t in terms:
        if t[0] == "@":  # a topic (questions.mine.topics): what is asked, whatever the words
            out[t] = cfg.topic_weight
            continue
        w = 1.0
        if t[0] == "~":
            t, w = t[1:], cfg.secondary_weight
        tf[t] = tf.get(t, 0.0) + w
    for t, n in tf.items():
        out[t] = (1.0 + math.log(max(n, 1.0)) if n >= 1.0 else n) * (cfg.placeholder_weight if t[0] == "<" else 1.0)
    if cfg.char_weight > 0:
        # character trigrams of longer terms: "liimted" and "limited" still share most of theirs
        for t, n in tf.items():
            grams = _trigrams(t)
            if not grams:
                continue
            w = cfg.char_weight * min(n, 1.0) / math.sqrt(len(grams))
            for key in grams:
                out[key] = out.get(key, 0.0) + w
    if cfg.concept_weight > 0 or cfg.signature_weight > 0:
        # what the question is about, whatever its words: paraphrases of one question ask about
        # the same set of concepts; near questions share some of them, not the whole set
        about = concepts(terms)
        for c, primary in about.items():
            out["@" + c] = cfg.concept_weight * (1.0 if primary else cfg.secondary_weight)
        sig = sorted(c for c, primary in about.items() if primary)
        if sig and cfg.signature_weight > 0:
            # one concept alone, or any two of several, asked together: a paraphrase keeps its
            # question's core concepts together where a near question shares one of them
            if len(sig) == 1:
                out["@=" + sig[0]] = cfg.signature_weight
            else:
                pairs = [(a, b) for i, a in enumerate(sig) for b in sig[i + 1:]]
                for a, b in pairs:
                    out["@=" + a + "+" + b] = cfg.signature_weight / math.sqrt(len(pairs))
    words = [t for t in terms if t[0] != "@"]
    for a, b in zip(words, words[1:]):
        w = cfg.bigram_weight
        if a[0] == "~" or b[0] == "~":
            if a[0] != b[0]:
                continue
            a, b, w = a[1:], b[1:], w * cfg.secondary_weight
        if a == b:
            continue
        key = a + " " + b
        if key not in out:
            out[key] = w * (cfg.placeholder_weight if a[0] == "<" and b[0] == "<" else 1.0)
    return out


_gram_cache: dict[str, tuple[str, ...]] = {}


def forget_memos() -> None:
    """Forget the trigrams of terms seen so far (as a fresh process)."""
    _gram_cache.clear()


def _trigrams(term: str) -> tuple[str, ...]:
    got = _gram_cache.get(term)
    if got is None:
        if len(term) < 5 or term[0] == "<" or " " in term:
            got = ()
        else:
            got = tuple(sorted({"#" + term[i:i + 3] for i in range(len(term) - 2)}))
        if len(_gram_cache) < 500_000:
            _gram_cache[term] = got
    return got


def dot(a: dict[int, float], b: dict[int, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(v * b[k] for k, v in a.items() if k in b)


@dataclass
class Clustering:
    clusters: list[list[int]]  # indices of the distinct docs, biggest (by weight) first
    space: Space
    centrality: list[float]  # each doc's mean cosine to its cluster (weighted); 1.0 alone
    features: list[dict[str, float]] = field(repr=False, default_factory=list)  # each doc's, before idf
    indptr: np.ndarray = field(repr=False, default=None)  # the docs' vectors, row by row (CSR)
    indices: np.ndarray = field(repr=False, default=None)
    data: np.ndarray = field(repr=False, default=None)

    def vector(self, i: int) -> dict[int, float]:
        a, b = int(self.indptr[i]), int(self.indptr[i + 1])
        return dict(zip(self.indices[a:b].tolist(), self.data[a:b].tolist()))


def fit_space(docs: list[dict[str, float]], config: ClusterConfig | None = None) -> Space:
    """The vocabulary and inverse document frequencies of a set of docs (their `features`)."""
    cfg = config or ClusterConfig()
    vocab: dict[str, int] = {}
    df: list[int] = []
    for fs in docs:
        for f in fs:
            i = vocab.get(f)
            if i is None:
                vocab[f] = len(df)
                df.append(1)
            else:
                df[i] += 1
    n = len(docs)
    return Space(vocab, [math.log((n + 1) / (d + 1)) + 1.0 for d in df], cfg)


def cluster(docs: list[list[str]], weights: list[int] | None = None,
            config: ClusterConfig | None = None, sent_from: list[frozenset[str]] | None = None) -> Clustering:
    """Cluster distinct docs (term lists), each asked `weights[i]` times. `sent_from[i]`: the bank
    items doc i was sent from; askings sent from different items are different questions by
    construction, and two clusters holding such askings never join."""
    cfg = config or ClusterConfig()
    n = len(docs)
    weights = list(weights) if weights is not None else [1] * n
    sent = list(sent_from) if sent_from is not None else [frozenset()] * n
    vocab: dict[str, int] = {}
    feats = [features(d, cfg) for d in docs]
    lengths = [len(fs) for fs in feats]
    # each feature's column, numbered in the order first seen (one comprehension: a loop with its
    # own bookkeeping cost a second on 10,000 questions; a feature occurs once per doc, so the
    # count of its column is its document frequency)
    cols = [vocab.setdefault(f, len(vocab)) for fs in feats for f in fs]
    raw = [w for fs in feats for w in fs.values()]
    indices = np.asarray(cols, np.int64)
    df = np.bincount(indices, minlength=len(vocab))
    idf = np.log((n + 1) / (df.astype(np.float64) + 1.0)) + 1.0
    rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
    data = np.asarray(raw, np.float64) * idf[indices]
    is_topic = np.fromiter((f[0] == "@" for f in vocab), bool, len(vocab))  # (in column order)
    topic = is_topic[indices]
    sq_words = np.bincount(rows, weights=np.where(topic, 0.0, data * data), minlength=n)
    sq_topics = np.bincount(rows, weights=np.where(topic, data * data, 0.0), minlength=n)
    scales = np.array([part_scales(a, b, cfg.topic_share) for a, b in zip(sq_words.tolist(), sq_topics.tolist())]
                      or np.zeros((0, 2)))
    if n:
        data *= np.where(topic, scales[rows, 1], scales[rows, 0])
    indptr = np.zeros(n + 1, np.int64)
    indptr[1:] = np.cumsum(lengths)
    space = Space(vocab, idf.tolist(), cfg)
    out = Clustering([], space, [1.0] * n, feats, indptr, indices, data)
    has_topics = sq_topics > 0
    if cfg.untopical_by_words and has_topics.any() and not has_topics.all():
        # an asking that names no topic says nothing about what it measures (the table may lack
        # its words): against the others it is compared on words alone, each side's normalised
        words = np.asarray(raw, np.float64) * idf[indices] / np.sqrt(np.maximum(sq_words, 1e-300))[rows]
        words[topic] = 0.0
        full = has_topics[rows]
        I1, J1, S1 = similar_pairs(rows[full], indices[full], data[full], n, len(df), cfg.edge_threshold, cfg.pair_budget)
        kw = ~topic
        I2, J2, S2 = similar_pairs(rows[kw], indices[kw], words[kw], n, len(df), cfg.edge_threshold, cfg.pair_budget)
        mixed = ~(has_topics[I2] & has_topics[J2])
        I, J, S = np.concatenate((I1, I2[mixed])), np.concatenate((J1, J2[mixed])), np.concatenate((S1, S2[mixed]))
        word_rows = _Rows(indptr, indices, words)
        clusters = _average_linkage(n, I, J, S, out.vector, weights, cfg, [set(x) for x in sent],
                                    words=word_rows.vector, has_topics=has_topics.tolist())
    else:
        I, J, S = similar_pairs(rows, indices, data, n, len(df), cfg.edge_threshold, cfg.pair_budget)
        clusters = _average_linkage(n, I, J, S, out.vector, weights, cfg, [set(x) for x in sent])
    set_centrality(out, clusters, weights)
    if cfg.concept_jaccard > 0:
        clusters = merge_by_concepts(clusters, docs, weights, cfg, out.vector, sent)
    clusters.sort(key=lambda c: (-sum(weights[m] for m in c), min(c)))
    out.clusters = clusters
    return out


def set_centrality(out: Clustering, clusters: list[list[int]], weights: list[int]) -> None:
    """Each doc's weighted mean cosine to the cluster it is in (1.0 alone)."""
    for members in clusters:
        if len(members) < 2:
            for m in members:
                out.centrality[m] = 1.0
            continue
        vectors = {m: out.vector(m) for m in members}
        total: dict[int, float] = {}
        wsum = 0
        for m in members:
            wsum += weights[m]
            for k, v in vectors[m].items():
                total[k] = total.get(k, 0.0) + v * weights[m]
        for m in members:
            out.centrality[m] = dot(vectors[m], total) / wsum if wsum else 0.0


def concept_set(members: list[int], docs: list[list[str]], weights: list[int]) -> frozenset[str]:
    """The concepts most of a cluster's askings ask about (in the question itself)."""
    total = sum(weights[m] for m in members) or 1
    count: dict[str, float] = {}
    for m in members:
        for c, primary in concepts(docs[m]).items():
            if primary:
                count[c] = count.get(c, 0.0) + weights[m]
    return frozenset(c for c, n in count.items() if n >= 0.5 * total)


def merge_by_concepts(clusters: list[list[int]], docs: list[list[str]], weights: list[int],
                      cfg: ClusterConfig, vector=None, sent: list[set[str]] | None = None) -> list[list[int]]:
    """Join small clusters that ask about the same concepts: the paraphrases word similarity left
    apart ("is that win noise?" and "did we get lucky? show the spread over repeated runs").

    Two clusters of at most `concept_small` askings each join when the Jaccard of their concept
    sets reaches `concept_jaccard` and they share two concepts, or one concept and some words (a
    cosine of `concept_min_cos`): one shared concept alone ("profile") is too coarse to say two
    questions are one. Candidates come from an index of concepts (one shared by more than
    `concept_bucket` small clusters is too common to say anything); the best pairs join first, and
    two groups join only while their concept sets, as they grow, still agree (no chaining).
    Big clusters are left as they are: many askings already say what a question is."""
    sets = [concept_set(c, docs, weights) for c in clusters]
    size = [sum(weights[m] for m in c) for c in clusters]
    eligible = [i for i, c in enumerate(clusters) if sets[i] and size[i] <= cfg.concept_small]
    buckets: dict[str, list[int]] = {}
    for i in eligible:
        for key in sets[i]:
            buckets.setdefault(key, []).append(i)
    centroid: dict[int, dict[int, float]] = {}

    def mean_vec(i: int) -> dict[int, float]:
        got = centroid.get(i)
        if got is None:
            got = {}
            for m in clusters[i]:
                for k, v in (vector(m) if vector else {}).items():
                    got[k] = got.get(k, 0.0) + v * weights[m] / size[i]
            centroid[i] = got
        return got

    candidates: dict[tuple[int, int], tuple[float, float]] = {}
    for members in buckets.values():
        if len(members) < 2 or len(members) > cfg.concept_bucket:
            continue
        for x in range(len(members)):
            for y in range(x + 1, len(members)):
                i, j = members[x], members[y]
                if (i, j) in candidates:
                    continue
                both, either = len(sets[i] & sets[j]), len(sets[i] | sets[j])
                jac = both / either
                if jac < cfg.concept_jaccard:
                    continue
                cos = dot(mean_vec(i), mean_vec(j)) if vector else 1.0
                if both >= 2 or cos >= cfg.concept_min_cos:
                    candidates[(i, j)] = (jac, cos)
    parent = list(range(len(clusters)))
    grown = list(size)
    group = {i: list(c) for i, c in enumerate(clusters)}
    gsets = list(sets)
    gsent = [set().union(*(sent[d] for d in c)) if sent else set() for c in clusters]

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for (i, j), _ in sorted(candidates.items(), key=lambda kv: (-kv[1][0], -kv[1][1], kv[0])):
        a, b = find(i), find(j)
        if a == b or grown[a] > cfg.concept_small or grown[b] > cfg.concept_small:
            continue
        if different_items(gsent[a], gsent[b]):
            continue
        # the groups as they are now must still ask about the same concepts (no chaining)
        both, either = gsets[a] & gsets[b], gsets[a] | gsets[b]
        if not either or len(both) / len(either) < cfg.concept_jaccard:
            continue
        parent[b] = a
        grown[a] += grown[b]
        group[a].extend(group.pop(b))
        gsent[a] |= gsent[b]
        gsets[a] = concept_set(group[a], docs, weights) or both
    return [group[r] for r in sorted(group)]


def similar_pairs(rows: np.ndarray, cols: np.ndarray, vals: np.ndarray, n_docs: int, n_feats: int,
                  threshold: float, budget: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs (i < j) of docs whose cosine is at least `threshold`, with the cosine.

    Candidates come from terms shared by few enough docs that all their pairs fit `budget`
    (rarest first); the cosine of each candidate is then exact, over every term.
    """
    empty = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
    if n_docs < 2 or rows.size == 0:
        return empty
    order = np.lexsort((rows, cols))
    d, f, w = rows[order], cols[order], vals[order]
    df = np.bincount(f, minlength=n_feats)
    starts = np.zeros(n_feats, np.int64)
    starts[1:] = np.cumsum(df)[:-1]
    cost = df.astype(np.int64) * (df - 1) // 2
    by_df = np.argsort(df, kind="stable")
    within = np.cumsum(cost[by_df]) <= budget
    use = np.zeros(n_feats, bool)
    use[by_df[within]] = True
    use &= df >= 2
    parts_i, parts_j, parts_w = [], [], []
    used = np.nonzero(use)[0]
    used = used[np.argsort(df[used], kind="stable")]
    sizes = df[used]
    bounds = np.nonzero(np.diff(sizes))[0] + 1
    for fs in np.split(used, bounds):
        if fs.size == 0:
            continue
        k = int(df[fs[0]])
        idx = starts[fs][:, None] + np.arange(k)[None, :]
        docs, ws = d[idx], w[idx]
        iu, ju = np.triu_indices(int(k), 1)
        parts_i.append(docs[:, iu].ravel())
        parts_j.append(docs[:, ju].ravel())
        parts_w.append((ws[:, iu] * ws[:, ju]).ravel())
    if not parts_i:
        return empty
    key = np.concatenate(parts_i) * n_docs + np.concatenate(parts_j)
    weight = np.concatenate(parts_w)
    uniq, inv = unique_inverse(key)
    partial = np.bincount(inv, weights=weight)
    I, J = uniq // n_docs, uniq % n_docs
    rest = ~use & (df >= 2)
    if rest.any():
        # terms too common to enumerate pairs from still count toward the cosine of candidates
        keep = partial >= threshold * 0.25
        I, J, partial = I[keep], J[keep], partial[keep]
        partial = with_common_terms(I, J, partial, d, f, w, rest, n_docs, n_feats)
    keep = partial >= threshold - 1e-9
    return I[keep], J[keep], partial[keep]


def unique_inverse(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`np.unique(key, return_inverse=True)` (the same sorted values and inverse), at a third of
    its cost on a million pairs: numpy's own spends most of its time outside the sort."""
    perm = key.argsort()
    aux = key[perm]
    first = np.empty(aux.shape, bool)
    first[:1] = True
    np.not_equal(aux[1:], aux[:-1], out=first[1:])
    inv = np.empty(key.shape, np.intp)
    inv[perm] = np.cumsum(first) - 1
    return aux[first], inv


def with_common_terms(I: np.ndarray, J: np.ndarray, partial: np.ndarray, d: np.ndarray, f: np.ndarray,
                      w: np.ndarray, common: np.ndarray, n_docs: int, n_feats: int) -> np.ndarray:
    """`partial[p]` plus what the pair (I[p], J[p]) shares over the `common` terms, added term by
    term in the terms' order (the same float as adding one term's column at a time, as this did
    before, in a second less on 10,000 questions): each pair's left doc's common terms are looked
    up among its right doc's. `d, f, w`: the doc, term and weight of every entry."""
    sel = common[f]
    if not sel.any() or not I.size:
        return partial
    cd, cf, cw = d[sel], f[sel], w[sel]
    by_doc = np.lexsort((cf, cd))  # each doc's common terms, in the terms' order
    cd, cf, cw = cd[by_doc], cf[by_doc], cw[by_doc]
    start = np.searchsorted(cd, np.arange(n_docs + 1))
    count = (start[1:] - start[:-1])[I]
    # every (pair, term of its left doc), pairs in order, terms in order within a pair
    pair = np.repeat(np.arange(I.size), count)
    offset = np.arange(pair.size) - np.repeat(np.cumsum(count) - count, count)
    at = start[I][pair] + offset
    want = J[pair].astype(np.int64) * n_feats + cf[at]
    have = cd.astype(np.int64) * n_feats + cf  # sorted: by doc, then term
    pos = np.minimum(np.searchsorted(have, want), have.size - 1)
    hit = have[pos] == want
    # the partial first, then each shared term's product, in one sequential sum per pair
    return np.bincount(np.concatenate((np.arange(I.size), pair[hit])),
                       weights=np.concatenate((partial, cw[at[hit]] * cw[pos[hit]])), minlength=I.size)


@dataclass
class _Rows:
    """Sparse rows (CSR) read back as dicts, zeros left out."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray

    def vector(self, i: int) -> dict[int, float]:
        a, b = int(self.indptr[i]), int(self.indptr[i + 1])
        return {k: v for k, v in zip(self.indices[a:b].tolist(), self.data[a:b].tolist()) if v}


def _average_linkage(n: int, I: np.ndarray, J: np.ndarray, S: np.ndarray, vector,
                     weights: list[int], cfg: ClusterConfig, sent: list[set[str]],
                     words=None, has_topics: list[bool] | None = None) -> list[list[int]]:
    """Average linkage over the candidate edges, strongest first.

    With `words` (each doc's words-only vector) and `has_topics`, a pair of which one side names
    no topic counts by the cosine of their words. A cluster's sums are then three parts: the full
    vectors of its topical members (F), their words (W) and the words of its topic-less members
    (N); the mean over two clusters' cross pairs is F(a).F(b) + W(a).N(b) + N(a).W(b) + N(a).N(b)
    over the product of their sizes."""
    parent = list(range(n))
    size = [float(w) for w in weights]
    mixed = words is not None and has_topics is not None
    sums: list[list[dict[int, float]] | None] = [None] * n
    members: list[list[int]] = [[i] for i in range(n)]
    version = [0] * n
    rejected: dict[tuple[int, int], tuple[int, int]] = {}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def summed(r: int) -> list[dict[int, float]]:
        s = sums[r]
        if s is None:
            w = weights[r]
            if not mixed:
                s = [{k: v * w for k, v in vector(r).items()}]
            elif has_topics[r]:
                s = [{k: v * w for k, v in vector(r).items()}, {k: v * w for k, v in words(r).items()}, {}]
            else:
                s = [{}, {}, {k: v * w for k, v in words(r).items()}]
            sums[r] = s
        return s

    def cross(a: int, b: int) -> float:
        sa, sb = summed(a), summed(b)
        if not mixed:
            return dot(sa[0], sb[0])
        return dot(sa[0], sb[0]) + dot(sa[1], sb[2]) + dot(sa[2], sb[1]) + dot(sa[2], sb[2])

    for e in np.argsort(-S, kind="stable"):
        a, b = find(int(I[e])), find(int(J[e]))
        if a == b:
            continue
        if a > b:
            a, b = b, a
        seen = rejected.get((a, b))
        if seen is not None and seen == (version[a], version[b]):
            continue
        if different_items(sent[a], sent[b]):
            continue
        if size[a] * size[b] == 1.0:
            mean = float(S[e])  # two single askings: the edge is the mean
        else:
            mean = cross(a, b) / (size[a] * size[b])
        if mean < cfg.join_threshold:
            rejected[(a, b)] = (version[a], version[b])
            continue
        big, small = (a, b) if len(members[a]) >= len(members[b]) else (b, a)
        for into, part in zip(summed(big), summed(small)):
            for k, v in part.items():
                into[k] = into.get(k, 0.0) + v
        sums[small] = None
        parent[small] = big
        size[big] += size[small]
        members[big].extend(members[small])
        members[small] = []
        sent[big] |= sent[small]
        version[big] += 1
    return [sorted(members[r]) for r in range(n) if parent[r] == r and members[r]]


def different_items(a: set[str], b: set[str]) -> bool:
    """Two groups of askings sent from bank items none of which they share: different questions."""
    return bool(a) and bool(b) and not (a & b)
