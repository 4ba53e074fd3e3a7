"""The miner: logs in, labelled messages and clusters of alike questions out.

    reads    = extract.read_logs(paths)                  # human messages with context and outcome
    labels   = classify.classify(text)                    # question | directive | information | other
    terms    = normalise.terms(normalise.generalise(q))   # specifics out, stems and synonyms in
    clusters = cluster.cluster(distinct terms, counts)    # near-duplicates together
    per cluster: representative, how often, in how many sessions, kinds before, gains after,
                 triggers, layers, arch, and the existing bank item it matches (if any)

`mine(paths)` does it all and returns a `MineResult`; `write` and `report` turn that into a bank
file and a Markdown report.
"""
from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field, replace
from typing import Iterable

from questions.mine.asking import interrogative_flags, is_interrogative, sentence_spans, sentences
from questions.mine.classify import LABELS, classify
from questions.mine.cluster import Clustering, ClusterConfig, Space, cluster, dot, set_centrality
from questions.mine.cluster import forget_memos as forget_trigrams
from questions.mine.cues import terms_cue_words, voted_topics
from questions.mine.extract import LogRead, Message, read_logs
from questions.mine.normalise import forget_memos as forget_terms
from questions.mine.normalise import generalise, terms
from questions.mine.outcome import cluster_stats, shrunk_gain
from questions.mine.regroup import Regrouper, Wording, apply_partition
from questions.mine.screen import Screener, Shown, apply_screening, shown_to_screen
from questions.mine.topics import forget_memos as forget_topics
from questions.mine.topics import topics
from questions.mine.write import guess_arch, guess_layers, guess_triggers

MAX_TEXT = 160


@dataclass
class MineConfig:
    window: int = 3  # timed evaluations after an asking that count as what followed it
    min_gain: float = 0.01  # the relative gain that counts as an improvement
    include_autopilot: bool = True  # autopilot's bank questions count toward their items' statistics
    cluster: ClusterConfig = field(default_factory=ClusterConfig)
    detector_config: object = None  # questions.detectors.DetectorConfig for foreign transcripts


@dataclass
class QuestionCluster:
    """Alike questions: one bank candidate."""

    id: str
    text: str  # the representative: a real member, specifics generalised
    example: str  # that member as it was asked
    members: list[Message]
    variants: list[tuple[str, int]]  # distinct generalised texts, most asked first
    stats: dict
    triggers: tuple[str, ...]
    layers: tuple[str, ...]
    arch: tuple[str, ...]
    weight: int = 0
    docs: list = field(default_factory=list, repr=False)  # (terms, times asked, features) of its wordings
    match: str | None = None  # the existing bank item it matches
    match_score: float = 0.0
    rules_made: list[str] = field(default_factory=list)  # regrouped: the rules' candidates its askings were in
    regroup_label: str = ""  # regrouped: what the regrouper said it asks for
    screened_in: int = 0  # askings a screener read as questions that the rules did not

    @property
    def rank_gain(self) -> float:
        return shrunk_gain(self.stats)


@dataclass
class RegroupNote:
    """What a regrouper did to the rules' grouping (for the report and the command line)."""

    by: str
    ok: bool
    rule_candidates: int
    candidates: int
    joined: int = 0  # candidates made from askings of more than one rules' candidate
    parted: int = 0  # rules' candidates whose askings went to more than one candidate
    dropped: int = 0
    kept_by_rules: int = 0
    refused: int = 0
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"by": self.by, "ok": self.ok, "rule_candidates": self.rule_candidates, "candidates": self.candidates,
                "joined": self.joined, "parted": self.parted, "notes": self.notes}


@dataclass
class ScreenNote:
    """What a screener did to the rules' labels (for the report and the command line)."""

    by: str
    ok: bool
    shown: int  # distinct messages shown
    became_questions: list[tuple[str, str]] = field(default_factory=list)  # (text, the rules' label)
    alone: list[tuple[str, str]] = field(default_factory=list)  # called questions, but no candidate of theirs
    #   rests on a question the rules found: not proposed, the rules' label restored (text, that label)
    no_longer_questions: list[tuple[str, str]] = field(default_factory=list)  # (text, the label given)
    relabelled: int = 0  # other moves (directive <-> information, ...), which propose nothing
    dropped: int = 0
    left_out: int = 0
    notes: list[str] = field(default_factory=list)

    def to_json(self, planted=None) -> dict:
        """`planted(text)`: what a benchmark planted the message as, added to each moved one."""
        def moved(pairs: list[tuple[str, str]], key: str) -> list[dict]:
            return [{"text": t, key: label} | ({"planted": planted(t)} if planted else {}) for t, label in pairs]
        return {"by": self.by, "ok": self.ok, "shown": self.shown, "notes": self.notes,
                "became_questions": moved(self.became_questions, "rules"),
                "no_longer_questions": moved(self.no_longer_questions, "label"), "alone": moved(self.alone, "rules")}


@dataclass
class MineResult:
    reads: list[LogRead]
    messages: list[Message]
    clusters: list[QuestionCluster]
    space: Space | None
    config: MineConfig
    bank_files: list[str] = field(default_factory=list)
    regrouping: RegroupNote | None = None  # set when a regrouper was asked
    screening: ScreenNote | None = None  # set when a screener was asked

    def by_label(self) -> dict[str, list[Message]]:
        out: dict[str, list[Message]] = {k: [] for k in LABELS}
        for m in self.messages:
            out.setdefault(m.label, []).append(m)
        return out

    @property
    def new_clusters(self) -> list[QuestionCluster]:
        return [c for c in self.clusters if c.match is None]

    @property
    def sessions(self) -> int:
        return len({m.session for m in self.messages})

    def ranked(self) -> list[QuestionCluster]:
        """Clusters by the gains that followed (shrunk by how few askings they rest on), then by use."""
        return sorted(self.clusters, key=lambda c: (-c.rank_gain if c.rank_gain != float("-inf") else float("inf"),
                                                    -c.stats.get("asked", 0), c.id))


def label_messages(messages: Iterable[Message]) -> None:
    for m in messages:
        c = classify(m.text, m.via)
        m.label, m.reasons, m.question = c.label, c.reasons, c.question_part
        if m.source == "autopilot" or (m.source == "bank" and m.bank_id):
            # a bank question sent as is: a question by construction
            m.label, m.reasons, m.question = "question", ("sent from the bank",), m.text


_CLEAN_HEAD = re.compile(r"^(?:(?:so|and|but|ok|okay|hm+|um+|also|well|hey|oh|ah|wait|alright|right|quick question|"
                         r"btw|yeah|yes|no|\+|-)[\s,:;.!-]+)+", re.I)


def display_text(generalised: str) -> str:
    """A generalised question as a bank text: fillers off the front, a capital, a question mark."""
    t = _CLEAN_HEAD.sub("", generalised.lstrip(" +-*>•#")).strip()
    t = t.lstrip("-–—•*> ").strip()
    if not t:
        t = generalised.strip()
    spans = sentence_spans(t)
    for a, _ in spans:  # each sentence opens with a capital (not a clause after ':' or ';')
        before = t[:a].rstrip()
        if t[a].islower() and (not before or before[-1] in ".?!"):
            t = t[:a] + t[a].upper() + t[a + 1:]
    if t and t[-1] not in "?.!)\u2026":
        last = t[spans[-1][0]:] if spans else t
        t += "?" if is_interrogative(last) else "."
    return t


def _fit(text: str, limit: int = MAX_TEXT) -> str:
    """At most `limit` characters: whole sentences if they fit, else cut at a word with an ellipsis."""
    if len(text) <= limit:
        return text
    ends = [b for _, b in sentence_spans(text) if b <= limit]
    if ends and ends[-1] >= 40:
        return text[:ends[-1]].rstrip(" ,;:-")
    cut = text[: limit - 1]
    return cut[: cut.rfind(" ")].rstrip(" ,;:-") + "\u2026"


def _slug(text: str, digest_of: str) -> str:
    words = [w for w in re.findall(r"[a-z][a-z0-9]+", text.lower())
             if w not in _SLUG_STOP and len(w) > 2][:5]
    h = hashlib.sha1(digest_of.encode("utf-8")).hexdigest()[:6]
    base = "-".join(words)[:48].rstrip("-") or "question"
    return f"mined-{base}-{h}"


_SLUG_STOP = frozenset("""the this that these those you your our are was were does did has have had can could would
should will what why how which where when who whose its it's there here with from into for and but not any all
some each one just really also maybe please about than then them they their been being is am of on at to in
name code file size rate time pct ratio gpu arch shape freq url""".split())


def question_terms(generalised: str) -> list[str]:
    """The terms clustering compares: the question's own, then `~`-marked ones of the requests after it."""
    primary: list[str] = []
    secondary: list[str] = []
    sents = sentences(generalised)
    for s, asks in zip(sents, interrogative_flags(sents)):  # (as the classifier reads them: "..., or is that X?")
        if asks:
            primary.extend(terms(s))
        else:
            secondary.extend("~" + t for t in terms(s))
    if not primary:
        return [t[1:] for t in secondary]
    return primary + secondary


def with_topics(term_list: list[str], text: str) -> list[str]:
    """A question's terms and the topics it asks about (`@topic`: `questions.mine.topics`; where the
    table names none, the topic its learned cues vote for: `questions.mine.cues`). A question whose
    words are all dropped as common ("bit-for-bit?") still asks what the table reads in it."""
    named = topics(text) or (voted_topics(terms_cue_words(term_list)) if term_list else ())
    return term_list + ["@" + t for t in named]


def forget() -> None:
    """Forget every memo of texts mined so far in this process (classifications, topics, cue votes,
    terms, spellings), so that the next mining costs what it costs a fresh process: benchmarks call
    it; the compiled tables stay."""
    classify.cache_clear()
    voted_topics.cache_clear()
    sentence_spans.cache_clear()
    forget_topics()
    forget_terms()
    forget_trigrams()


def mine(paths: Iterable[str | os.PathLike], config: MineConfig | None = None, *,
         bank=None, sessions_dir: str | os.PathLike | None = None, regroup: Regrouper | None = None,
         screen: Screener | None = None) -> MineResult:
    """Mine LOGs into labelled messages and question clusters (matched against `bank` if given;
    `screen`: a second opinion on which messages are questions, see `questions.mine.screen`;
    `regroup`: a second opinion on the grouping, see `questions.mine.regroup`)."""
    cfg = config or MineConfig()
    reads = read_logs(paths, window=cfg.window, min_gain=cfg.min_gain, detector_config=cfg.detector_config,
                      sessions_dir=sessions_dir)
    messages = [m for r in reads for m in r.messages]
    return mine_messages(messages, cfg, bank=bank, reads=reads, regroup=regroup, screen=screen)


def mine_messages(messages: list[Message], config: MineConfig | None = None, *, bank=None,
                  reads: list[LogRead] | None = None, regroup: Regrouper | None = None,
                  screen: Screener | None = None) -> MineResult:
    """The miner from extracted messages on (labels, clusters, statistics, bank matches)."""
    cfg = config or MineConfig()
    label_messages(messages)
    screened, rescued = _screened(screen, messages) if screen is not None else (None, {})
    if rescued and regroup is None:  # nothing but the rules would place the model's finds: not proposed
        _give_back(messages, rescued, set(), screened, NOT_PLACED)
        rescued = {}
    pool = _Pool(messages, cfg, rescued)
    note = None
    clusters = pool.clusters
    if regroup is not None and pool.clustering is not None:
        clusters, note = _regrouped(regroup, pool)
        if rescued and not note.ok:
            # no usable grouping by the model: its finds are not placed, and the rules group alone
            _give_back(messages, rescued, set(), screened, NOT_PLACED)
            rescued = {}
            pool = _Pool(messages, cfg, rescued)
            clusters = pool.clusters
    result = MineResult(reads or [], messages, clusters, pool.clustering.space if pool.clustering else None, cfg,
                        regrouping=note, screening=screened)
    if bank is not None and pool.clustering is not None:
        match_bank(result, bank)
    if rescued:
        result.clusters = _without_model_only(result.clusters, messages, rescued, screened)
        if note is not None and note.ok:
            note.candidates = len(result.clusters)
            note.joined = sum(1 for c in result.clusters if len(c.rules_made) > 1)
    return result


# a screener may take at most this share of the rules' questions out (with at least this many shown)
MASS_DEMOTION_SHARE = 0.5
MASS_DEMOTION_MIN = 4
NOT_PLACED = "the model read it as a question, but it did not group it with a question the rules found: not proposed"


class _Pool:
    """The distinct questions (same terms in the same order are the same question), their rules'
    clustering and candidates. `rescued`: messages only a screener called questions; the
    candidates' texts come from wordings the rules also read as questions."""

    def __init__(self, messages: list[Message], cfg: MineConfig, rescued: dict[int, tuple]) -> None:
        pool = [m for m in messages if m.label == "question" and (cfg.include_autopilot or m.source != "autopilot")]
        index: dict[tuple, int] = {}
        self.docs: list[list[str]] = []
        self.groups: list[list[Message]] = []
        self.shown: list[dict[str, int]] = []
        for m in pool:
            g = generalise(m.question or m.text)
            ts = with_topics(question_terms(g.text), m.text)  # (the whole message says what is asked about)
            key = tuple(ts) if ts else ("<vague>", g.text.lower())
            i = index.get(key)
            if i is None:
                i = index[key] = len(self.docs)
                self.docs.append(ts)
                self.groups.append([])
                self.shown.append({})
            self.groups[i].append(m)
            self.shown[i][g.text] = self.shown[i].get(g.text, 0) + 1
        self.weights = [len(g) for g in self.groups]
        self.sent_from = [frozenset(m.bank_id for m in g if m.source in ("bank", "autopilot") and m.bank_id)
                          for g in self.groups]
        self.clustering = cluster(self.docs, self.weights, cfg.cluster, self.sent_from) if self.docs else None
        self.rules_read = ({d for d, g in enumerate(self.groups) if any(id(m) not in rescued for m in g)}
                           if rescued else None)
        self.clusters = self.build(self.clustering) if self.clustering else []

    def build(self, clustering: Clustering) -> list[QuestionCluster]:
        return _build_clusters(clustering, self.groups, self.shown, self.weights, self.docs, self.rules_read)


def _screened(screen: Screener, messages: list[Message]) -> tuple[ScreenNote | None, dict[int, tuple]]:
    """The screener's labels in force on `messages` (each distinct text shown once; the rules'
    labels stand where it has no usable answer or gives none), and the messages it made questions
    (id(message) -> the rules' label, reasons and question part)."""
    index: dict[str, int] = {}
    shown: list[Shown] = []
    who: list[int | None] = []
    for m in messages:
        i = None
        if shown_to_screen(m.source, m.via, m.bank_id, m.reasons, m.text):
            key = m.text.strip()
            i = index.get(key)
            if i is None:
                i = index[key] = len(shown)
                shown.append(Shown(i, key))
        who.append(i)
    if not shown:
        by = screen.describe() if hasattr(screen, "describe") else "the screener"
        return ScreenNote(by, True, 0, notes=["nothing to read: every message was a bank question, an answer to the "
                                              "agent's own question or handed-over material"]), {}
    answer = screen(shown)
    if not answer.ok:
        return ScreenNote(answer.by, False, len(shown), notes=list(answer.notes)), {}
    applied = apply_screening(answer, shown)
    note = ScreenNote(answer.by, True, len(shown), dropped=applied.dropped, left_out=applied.left_out,
                      notes=list(answer.notes))
    rules_label = {i: m.label for m, i in zip(messages, who) if i is not None}
    asked = [i for i, label in rules_label.items() if label == "question"]
    demoted = [i for i in asked if applied.labels.get(i, "question") != "question"]
    if len(demoted) >= MASS_DEMOTION_MIN and len(demoted) > MASS_DEMOTION_SHARE * len(asked):
        # a confused answer, or one obeying a message that told it to: the rules' questions stand
        for i in demoted:
            del applied.labels[i]
        note.notes.append(f"the answer would take {len(demoted)} of the {len(asked)} messages the rules read as "
                          f"questions out; more than {MASS_DEMOTION_SHARE:.0%} is refused, so they stay questions")
    noted: set[int] = set()
    rescued: dict[int, tuple] = {}
    for m, i in zip(messages, who):
        new = applied.labels.get(i) if i is not None else None
        if new is None or new == m.label:
            continue
        if i not in noted:
            noted.add(i)
            if new == "question":
                note.became_questions.append((shown[i].text, m.label))
            elif m.label == "question":
                note.no_longer_questions.append((shown[i].text, new))
            else:
                note.relabelled += 1
        if new == "question":
            rescued[id(m)] = (m.label, m.reasons, m.question)
        rules = f"{m.label}: {', '.join(m.reasons)}" if m.reasons else m.label
        m.reasons = (f"{answer.by} read it as {new} (the rules: {rules})",)
        m.question = m.text if new == "question" else ""
        m.label = new
    return note, rescued


def _give_back(messages: list[Message], rescued: dict[int, tuple], kept: set[int], note: ScreenNote | None,
               why: str) -> None:
    """The rules' label back for each message a screener alone made a question that is not in a
    kept candidate (`kept`: ids of messages that are), with the reason; the note lists them."""
    alone: set[str] = set()
    for m in messages:
        if id(m) in rescued and id(m) not in kept:
            label, reasons, question = rescued[id(m)]
            m.label, m.question = label, question
            m.reasons = tuple(reasons) + (why,)
            alone.add(m.text.strip())
    if alone and note is not None:
        note.alone += [(t, was) for t, was in note.became_questions if t in alone]
        note.became_questions = [(t, was) for t, was in note.became_questions if t not in alone]


def _without_model_only(clusters: list[QuestionCluster], messages: list[Message], rescued: dict[int, tuple],
                        note: ScreenNote) -> list[QuestionCluster]:
    """The candidates, less those resting only on messages the screener alone called questions.

    The screener finds askings the rules lost; alone it would also make questions of whatever a
    log holds that reads as one to it (on general coding transcripts: how-to requests, plans,
    chat). So a message it made a question is proposed only where the model's grouping put it
    with an asking the rules also read as a question (another wording of a question the rules
    found), or in a candidate that matches a bank item. The others get the rules' label back."""
    kept = [c for c in clusters if c.match or any(id(m) not in rescued for m in c.members)]
    in_kept = {id(m) for c in kept for m in c.members}
    _give_back(messages, rescued, in_kept, note, NOT_PLACED)
    for c in kept:
        c.screened_in = sum(1 for m in c.members if id(m) in rescued)
    return kept


def _regrouped(regroup: Regrouper, pool: "_Pool") -> tuple[list[QuestionCluster], RegroupNote]:
    """Candidates from the regrouper's partition of the distinct wordings (the rules' stand when
    it has no usable answer). A wording only a screener called a question is kept only where the
    answer placed it; the rules' candidates are those holding a wording the rules read."""
    clustering, groups, weights, rules_read = pool.clustering, pool.groups, pool.weights, pool.rules_read
    wordings = []
    for ci, members_docs in enumerate(clustering.clusters):
        for d in members_docs:
            asked: dict[str, int] = {}
            for m in groups[d]:  # the whole message: a doubt's question reads against its claim
                asked[m.text] = asked.get(m.text, 0) + 1
            text = max(asked.items(), key=lambda kv: (kv[1], -len(kv[0])))[0]
            wordings.append(Wording(d, text, weights[d], ci))
    answer = regroup(wordings)

    def the_rules(ci: int) -> bool:  # a rules' candidate: one with a wording the rules read
        return rules_read is None or any(d in rules_read for d in clustering.clusters[ci])

    n_rules = sum(1 for ci in range(len(clustering.clusters)) if the_rules(ci))
    if not answer.ok:
        return pool.clusters, RegroupNote(answer.by, False, n_rules, n_rules, notes=list(answer.notes))
    applied = apply_partition(answer.groups, clustering.clusters, pool.sent_from, answer.labels)
    if rules_read is not None:  # the model's finds it did not place itself go back to the rules' labels
        applied.clusters = [[d for d in c if d in rules_read or d in applied.placed] for c in applied.clusters]
    live = [i for i, c in enumerate(applied.clusters) if c]
    order = sorted(live, key=lambda i: (-sum(weights[m] for m in applied.clusters[i]), min(applied.clusters[i])))
    rule_of = {d: ci for ci, c in enumerate(clustering.clusters) for d in c}
    new = replace(clustering, clusters=[applied.clusters[i] for i in order], centrality=list(clustering.centrality))
    set_centrality(new, new.clusters, weights)
    clusters = pool.build(new)
    rule_texts = {ci: c.text for ci, c in enumerate(pool.clusters)}
    parts: dict[int, int] = {}
    joined = 0
    for c, i, members_docs in zip(clusters, order, new.clusters):
        made_of = sorted({rule_of[d] for d in members_docs if the_rules(rule_of[d])})
        c.regroup_label = applied.labels.get(i, "")
        if len(made_of) > 1:
            joined += 1
            c.rules_made = [rule_texts[r] for r in made_of]
        for r in made_of:
            parts[r] = parts.get(r, 0) + 1
    note = RegroupNote(answer.by, True, n_rules, len(clusters), joined=joined,
                       parted=sum(1 for n in parts.values() if n > 1), dropped=applied.dropped,
                       kept_by_rules=applied.kept_by_rules, refused=applied.refused, notes=list(answer.notes))
    return clusters, note


def _build_clusters(clustering: Clustering, groups: list[list[Message]], shown: list[dict[str, int]],
                    weights: list[int], all_docs: list[list[str]],
                    rules_read: set[int] | None = None) -> list[QuestionCluster]:
    """Candidates from the clustering; each one's text from its most central wording (with a
    screener, one the rules also read as a question when the candidate has one: `rules_read`)."""
    out = []
    used_ids: set[str] = set()
    for members_docs in clustering.clusters:
        members = [m for d in members_docs for m in groups[d]]
        variants: dict[str, int] = {}
        for d in members_docs:
            for text, n in shown[d].items():
                variants[text] = variants.get(text, 0) + n

        def text_of(d: int) -> str:
            return max(shown[d].items(), key=lambda kv: (kv[1], -len(kv[0])))[0]

        def score(d: int) -> tuple:
            t = display_text(text_of(d))
            return (rules_read is None or d in rules_read, len(t) <= MAX_TEXT, round(clustering.centrality[d], 3),
                    -t.count("<"), weights[d], -len(t))

        best = max(members_docs, key=score)
        rep_generalised = text_of(best)
        text = _fit(display_text(rep_generalised))
        example = next(m.question or m.text for m in groups[best])
        stats = cluster_stats(members)
        texts = [m.question or m.text for m in members]
        cid = _slug(text, "\n".join(sorted(variants)))
        while cid in used_ids:
            cid = cid + "x"
        used_ids.add(cid)
        out.append(QuestionCluster(
            id=cid, text=text, example=example, members=members,
            variants=sorted(variants.items(), key=lambda kv: (-kv[1], kv[0])), stats=stats,
            triggers=guess_triggers(stats.get("kinds", {}), texts), layers=guess_layers(texts),
            arch=guess_arch(texts), weight=sum(weights[d] for d in members_docs),
            docs=[(all_docs[d], weights[d], clustering.features[d]) for d in members_docs]))
    return out


def match_bank(result: MineResult, bank) -> None:
    """Mark each cluster with the existing bank item it matches, if any.

    In order: most of its askings carry the item's id (sent from the bank); one of its wordings
    is the item's text; the item, taken as one more asking, would have joined the cluster (its
    mean cosine to the askings reaches the join threshold and its cosine to the representative
    reaches `match_threshold`), written items before mined ones, then the closest. Items kept to
    other architectures are not duplicates; of two equally close, the one earlier in `bank` (the
    bank being merged into comes first). Similarity here is measured in a term space fitted on
    the askings and the bank's texts together, so that with few askings common words do not look
    rare; the clusters themselves do not depend on the bank.
    """
    from questions.mine.cluster import features, fit_space
    from questions.mine.write import text_key

    # a match is claimed on words: two questions on one topic are not the same question by that alone
    cfg = replace(result.config.cluster, topic_share=0.0)
    items = list(bank)
    if not items or not result.clusters:
        return
    item_terms = [terms(generalise(it.text).text) for it in items]
    item_feats = [features(ts, cfg) for ts in item_terms]
    space = fit_space([f for c in result.clusters for _, _, f in c.docs] + item_feats, cfg)
    item_words = {t for ts in item_terms for t in ts}
    postings: dict[int, list[tuple[int, float]]] = {}
    vectors = []
    for j, fs in enumerate(item_feats):
        v = space.vector_of(fs)
        vectors.append(v)
        for k, w in v.items():
            postings.setdefault(k, []).append((j, w))
    by_id = {it.id: j for j, it in enumerate(items)}
    by_text: dict[str, int] = {}
    for j, it in enumerate(items):
        by_text.setdefault(text_key(generalise(it.text).text), j)
    for c in result.clusters:
        votes: dict[str, int] = {}
        for m in c.members:
            if m.bank_id and m.bank_id in by_id:
                votes[m.bank_id] = votes.get(m.bank_id, 0) + 1
        if votes:
            best_id, n = max(votes.items(), key=lambda kv: (kv[1], kv[0]))
            if n * 2 >= len(c.members):
                c.match, c.match_score = best_id, 1.0
                continue
        same = [by_text[k] for k in (text_key(t) for t, _ in c.variants) if k in by_text]
        if same:
            c.match, c.match_score = items[same[0]].id, 1.0
            continue
        if not any(t.lstrip("~") in item_words for ts, _, _ in c.docs for t in ts):
            continue  # not one word in common with any item: nothing to measure
        total: dict[int, float] = {}
        for _, w, fs in c.docs:
            for k, v in space.vector_of(fs).items():
                total[k] = total.get(k, 0.0) + v * w
        scores: dict[int, float] = {}
        for k, v in total.items():
            for j, w in postings.get(k, ()):
                scores[j] = scores.get(j, 0.0) + v * w
        near = [(s / c.weight, j) for j, s in scores.items() if s / c.weight >= cfg.join_threshold]
        if not near:
            continue
        rep = space.vector(terms(generalise(c.text).text))
        fits = []
        for mean, j in near:
            # an item kept to other architectures does not serve this question's tasks: no duplicate
            if dot(vectors[j], rep) >= cfg.match_threshold and _arch_compatible(items[j].arch, c.arch):
                fits.append((items[j].provenance != "mined", round(mean, 9), -j))  # ties: the earlier item
        if fits:
            _, mean, j = max(fits)
            j = -j
            c.match, c.match_score = items[j].id, round(mean, 3)


def _arch_compatible(item_arch, cluster_arch) -> bool:
    tags = set(item_arch or ("any",))
    if tags & {"any", "gpu"} and not (tags == {"gpu"} and set(cluster_arch) == {"cpu"}):
        return True
    return bool(tags & set(cluster_arch))
