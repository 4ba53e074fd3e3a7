"""Generalising a message so that alike questions meet: specifics out, words to their stems.

Two steps, both pure:

- `generalise(text)` replaces the specifics of one asking (numbers and their units, shapes,
  paths and file names, URLs, code, identifiers, GPU and architecture names) by placeholders
  such as `<n>`, `<ratio>`, `<file>`, `<name>`. The result is still a readable sentence: it is
  what a mined bank item shows ("Why is <name> at <ratio> when the others are above <ratio>?").
- `terms(generalised)` turns it into the content terms clustering compares: lower case, stop
  words out, a light stemmer, and a small domain synonym table ("spread", "variance", "jitter"
  -> noise; "shared memory", "smem" -> smem; "seed", "baseline" -> baseline), so that
  paraphrases share terms.

Nothing here reads a file or a network; the tables are data in this module.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

_DIGIT = re.compile(r"\d")

#: Placeholder names, in the order they are tried. Each stands for one kind of specific.
PLACEHOLDERS: tuple[str, ...] = ("code", "url", "file", "shape", "rate", "size", "freq", "time", "pct",
                                 "ratio", "gpu", "arch", "name", "n")

_NUM = r"\d+(?:[.,]\d+)*"
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_INLINE_CODE = re.compile(r"`[^`\n]+`")
_URL = re.compile(r"\b(?:https?://|www\.)[^\s)>\]]+", re.I)
_EXT = (r"cu|cuh|py|pyx|c|cc|cpp|cxx|h|hpp|md|yaml|yml|json|jsonl|txt|so|ptx|sass|cubin|log|sh|toml|csv|"
        r"ncu-rep|nsys-rep|rs|go|js|ts|ipynb|tcss|ini|cfg")
_PATH = re.compile(
    r"\b[\w-]+(?:/[\w-]+)*\.(?:" + _EXT + r")\b(?::\d+)?"                   # dir/file.ext[:line]
    r"|(?<![\w<>/])(?:~|\.{1,2})?/(?:[\w.@+-]+/)*[\w.@+-]*[\w@+-](?::\d+)?"  # /abs/path, ./rel, ~/x
    r"|\b[\w.-]+(?:/[\w.-]+){2,}/?", re.I)                                   # a/b/c
_SHAPE = re.compile(r"\b\d+(?:\s*[x×]\s*\d+)+\b")
_RATE = re.compile(_NUM + r"\s*(?:[KMGTP]i?B/s(?:ec)?|[KMGTP]?FLOP/?s|[GT]FLOPS|TOPS|[KMGT]?B/sec)(?![\w/])", re.I)
_SIZE = re.compile(_NUM + r"\s*(?:[KMGT]i?B|bytes?)(?![\w/])|" + _NUM + r"\s*B\b", re.I)
_FREQ = re.compile(_NUM + r"\s*[KMG]Hz\b", re.I)
_TIME = re.compile(_NUM + r"\s*(?:ms|us|µs|μs|ns|s|secs?|seconds?|mins?|minutes?|hrs?|hours?)\b|\b\d{1,2}:\d{2}\b",
                   re.I)
_PCT = re.compile(_NUM + r"\s*(?:%|percent\b)", re.I)
_RATIO = re.compile(_NUM + r"\s*[x×](?![\w])|\b[x×]\s*" + _NUM + r"\b")
_GPU = re.compile(r"\b(?:[AHBLV]\d{2,3}[A-Z]?|GB\d{3}|GH\d{3}|RTX\s?\d{4}\w*|MI\d{3}\w*|T4|L40S?)\b")
_ARCH = re.compile(r"\b(?:sm_?\d{2,3}[af]?|compute_\d{2,3}[af]?)\b", re.I)
_CALL = re.compile(r"\b[A-Za-z_][\w:.]*\(\)")
_SNAKE = re.compile(r"\b_*[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)+\b")
_CAMEL = re.compile(r"\b(?:[a-z]+[A-Z]|[A-Z][a-z]+[A-Z])[A-Za-z0-9]*\b")
_MIXED = re.compile(r"\b(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]+\b")
_NUMBER = re.compile(r"(?<![\w<])[-+]?" + _NUM + r"(?:e[-+]?\d+)?\b", re.I)
_HEX = re.compile(r"\b0x[0-9a-f]+\b|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b", re.I)

#: Words with digits that mean something here and stay as they are (precisions, cache levels).
KEEP_WORDS: frozenset[str] = frozenset("""
    fp4 fp6 fp8 fp16 fp32 fp64 bf16 tf32 int4 int8 int16 int32 int64 uint8 uint32 e4m3 e5m2 nvfp4 mxfp4
    mxfp8 l1 l2 l3 x86 x64 arm64 avx2 avx512 sse2 sse4 cuda12 float2 float4 int2 half2 bfloat16 3d 2d 1d
    cp.async k8s sha256 utf8 wgmma mma ldmatrix tcgen05
    cublas cublaslt cudnn cutlass cute triton thrust cub cufft cupy nccl cusparse cusolver rocblas hipblas miopen
    mkl openblas onednn oneapi flashattention flashinfer xformers pytorch torch jax numpy
""".split())


@dataclass(frozen=True)
class Generalised:
    """A text with its specifics replaced, and what was replaced (kind, original)."""

    text: str
    specifics: tuple[tuple[str, str], ...]

    @property
    def placeholders(self) -> int:
        return len(self.specifics)


def _sub(rx: re.Pattern, kind: str, text: str, found: list) -> str:
    def repl(m: re.Match) -> str:
        s = m.group(0)
        if kind in ("name", "n") and s.lower() in KEEP_WORDS:
            return s
        found.append((kind, s))
        return f"<{kind}>"

    return rx.sub(repl, text)


def generalise(text: str) -> Generalised:
    """Replace the specifics of one message by placeholders; keep the wording."""
    found: list[tuple[str, str]] = []
    t = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    if "```" in t:
        t = _sub(_FENCE, "code", t, found)
    if "`" in t:
        t = _sub(_INLINE_CODE, "code", t, found)
    if "http" in t or "www." in t:
        t = _sub(_URL, "url", t, found)
    if "/" in t or "." in t:
        t = _sub(_PATH, "file", t, found)
    if _DIGIT.search(t) is not None:
        for rx, kind in ((_SHAPE, "shape"), (_RATE, "rate"), (_SIZE, "size"), (_FREQ, "freq"), (_TIME, "time"),
                         (_PCT, "pct"), (_RATIO, "ratio"), (_GPU, "gpu"), (_ARCH, "arch"), (_HEX, "n")):
            t = _sub(rx, kind, t, found)
    t = _sub(_CALL, "name", t, found)
    t = _sub(_SNAKE, "name", t, found)
    t = _sub(_CAMEL, "name", t, found)
    if _DIGIT.search(t) is not None:
        t = _sub(_MIXED, "name", t, found)
        t = _sub(_NUMBER, "n", t, found)
    t = " ".join(t.split())
    return Generalised(t, tuple(found))


# -- terms ---------------------------------------------------------------------------------------

STOP_WORDS: frozenset[str] = frozenset("""
    a an the this that these those it its it's itself there here they them their we us our you your yours i me my
    he she his her is are was were be been being am do does did doing done have has had having can could would
    should will shall may might must of in on at to for with by from about as into onto than then so such
    what why how which where when who whom whose whether if or and but nor not no yes any all some each every
    one ones just really actually also maybe perhaps please ok okay hm hmm um uh well quick question wondering
    curious now still yet much many more most very too quite rather thing things stuff way kind sort bit exactly
    let lets let's get got gets getting make makes made go going goes gone went say said tell me think know
    mean means seem seems seemed look looks looked like anything something everything nothing again instead
    other others another only even ever over under up down out off own both either neither whole
    isn't aren't wasn't weren't don't doesn't didn't can't cannot couldn't won't wouldn't shouldn't hasn't
    haven't hadn't i'm you're we're they're that's what's there's here's i've you've we've i'd you'd we'd
    i'll you'll we'll via per vs versus against via okay sure right now currently
""".split())

#: Phrases rewritten before tokenising (longest first); the right side is one term.
PHRASES: tuple[tuple[str, str], ...] = (
    ("speed of light", "peak"), ("speed-of-light", "peak"), ("shared memory", "smem"), ("shared mem", "smem"),
    ("global memory", "dram"), ("device memory", "dram"), ("main memory", "dram"), ("hbm", "dram"),
    ("tensor cores", "tensorcore"), ("tensor core", "tensorcore"), ("register file", "register"),
    ("run it again", "rerun"), ("run again", "rerun"), ("re-run", "rerun"), ("re run", "rerun"),
    ("time it", "measure"), ("how long", "measure"), ("how fast", "measure fast"), ("how slow", "measure slow"),
    ("memory-bound", "memory limit"), ("memory bound", "memory limit"), ("compute-bound", "compute limit"),
    ("compute bound", "compute limit"), ("bandwidth-bound", "bandwidth limit"), ("latency-bound", "latency limit"),
    ("clock speed", "clock"), ("warm up", "warmup"), ("warm-up", "warmup"), ("l2 cache", "l2"), ("l1 cache", "l1"),
    ("cache line", "cacheline"), ("main loop", "mainloop"), ("inner loop", "mainloop"), ("hot loop", "mainloop"),
    ("host side", "host"), ("root cause", "cause"), ("went up", "gain"), ("went down", "regress"), ("speed up", "gain"), ("speed-up", "gain"), ("sped up", "gain"),
    ("for real", "real"), ("max abs error", "error"), ("max abs", "error"), ("max error", "error"),
    ("max diff", "error"), ("max abs diff", "error"), ("fp32 reference", "reference"), ("a lot", ""), ("at all", ""),
)

#: Synonym groups: every word of a group maps to the group's first word (after stemming).
SYNONYMS: tuple[str, ...] = (
    "noise noisy variance variation variability jitter spread stddev deviation fluctuation fluke flaky random",
    "gain speedup win improvement improve improved faster better",
    "slow slower sluggish slowdown",
    "regress regression drop dropped worse degrade degraded",
    "peak roofline maximum max theoretical",
    "limit limited limiting limits bound bottleneck cap caps capped ceiling ceilings",
    "check verify confirm validate",
    "show print display report dump list",
    "compare comparison comparable relative",
    "error bug failure fail failing wrong incorrect mismatch broken break",
    "correct correctness accurate accuracy valid",
    "dram memory",
    "register registers regs reg",
    "occupancy resident",
    "load loads read reads fetch fetched",
    "store stores write writes written",
    "bandwidth throughput",
    "input inputs case cases scenario scenarios shape shapes size sizes problem",
    "kernel kernels implementation impl candidate",
    "baseline seed original",
    "tile tiles tiling tiled blocking",
    "compile compiler compiled compilation build built nvcc ptxas",
    "instruction instructions sass ptx assembly disassembly asm",
    "big bigger large larger largest biggest huge",
    "small smaller smallest tiny little",
    "test tests testing",
    "explain describe",
    "measure measurement measured benchmark bench timing timed",
    "profile profiler profiling ncu nsys nsight",
    "spend spent spending take takes took taking",
    "reason cause caused causing because",
    "fit fits fitting",
    "launch launches launched",
    "thread threads",
    "warp warps",
    "part share fraction portion proportion percent percentage",
    "change changed changes modify modified edit",
    "done finished finish complete completed",
    "goal target",
    "time runtime duration",
    "hardware hw",
    "design designed",
    "differ different difference differs special",
    "upstream library vendor",
    "utilization utilisation idle busy occupied",
    "floor overhead",
    "real genuine legit reproducible repeatable",
    "flush flushed cold warm",
    "coalesce coalesced coalescing strided uncoalesced",
    "conflict conflicts",
    "wave waves tail quantization quantisation",
    "overlap overlapping overlapped hide hidden hiding",
    "host cpu-side",
    "alloc allocation allocations allocating malloc",
    "sync syncs syncing synchronize synchronise synchronization synchronisation",
    "edge corner nasty odd weird",
    "traffic bytes byte",
    "stall stuck stalled plateau stopped",
    "jump jumped sudden suddenly",
    "same identical equivalent fair",
    "counter counters metric metrics",
)


def _stem(word: str) -> str:
    """A light suffix stripper: enough that "measured", "measuring", "measures" meet."""
    w = word
    if len(w) <= 3:
        return w
    for suf, rep in (("isation", "ize"), ("ization", "ize"), ("ational", "ate"), ("ising", "ize"), ("izing", "ize"),
                     ("ised", "ize"), ("ized", "ize"), ("ises", "ize"), ("izes", "ize"), ("ise", "ize")):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[: -len(suf)] + rep
            break
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:
        w = w[:-1]
    for suf in ("ing", "ed"):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[: -len(suf)]
            if len(w) >= 3 and w[-1] == w[-2] and w[-1] not in "lsz":
                w = w[:-1]
            break
    if w.endswith("ly") and len(w) > 5:
        w = w[:-2]
    if w.endswith("e") and len(w) > 4:
        w = w[:-1]
    return w


@lru_cache(maxsize=1)
def _synonym_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for group in SYNONYMS:
        words = group.split()
        head = _stem(words[0])
        for w in words:
            table.setdefault(_stem(w), head)
            table.setdefault(w, head)
    return table


_TOKEN = re.compile(r"<[a-z]+>|[a-z0-9][a-z0-9+#.']*[a-z0-9+#]|[a-z0-9]")
_PHRASE_RX = re.compile(r"\b(?:" + "|".join(re.escape(p) for p, _ in sorted(PHRASES, key=lambda x: -len(x[0])))
                        + r")\b")
_PHRASE_MAP = dict(PHRASES)

_term_cache: dict[str, str] = {}


def forget_memos() -> None:
    """Forget the terms and spellings of words seen so far (as a fresh process)."""
    _term_cache.clear()
    spelled.cache_clear()


def term(word: str) -> str | None:
    """The canonical term of one lower-case word (None for a stop word)."""
    got = _term_cache.get(word)
    if got is not None:
        return got or None
    if word in STOP_WORDS:
        out = ""
    elif word.startswith("<"):
        out = word
    else:
        w = word.strip(".'")
        if w.endswith("'s") and len(w) > 3:
            w = w[:-2]  # the seed's error, the hardware's limit
        syn = _synonym_table()
        out = syn.get(w) or syn.get(_stem(w))
        if out is None:
            stem = _stem(w)
            fixed = spelled(stem)
            out = syn.get(fixed) or fixed
        if out in STOP_WORDS:
            out = ""
    if len(_term_cache) < 200_000:
        _term_cache[word] = out
    return out or None


def terms(generalised: str) -> list[str]:
    """The content terms of a generalised text, in order."""
    low = generalised.lower().replace("-", " ").replace("_", " ")
    low = _PHRASE_RX.sub(lambda m: " " + _PHRASE_MAP[m.group(0)] + " ", low)
    out = []
    for w in _TOKEN.findall(low):
        t = term(w)
        if t:
            out.append(t)
    return out


# -- concepts: what a question is about, whatever words it uses ------------------------------------------

#: Steering concepts: words (any form) that ask about the same thing. Two paraphrases of one
#: question share few words but most of their concepts ("is that win noise?" and "did we get lucky?
#: show the spread over repeated runs" both ask about noise). Each group maps to `@name`.
CONCEPTS: tuple[tuple[str, str], ...] = (
    ("noise", "noise noisy variance spread jitter real genuine lucky luck fluke reproducible repeatable "
              "rerun repeat repeated stable consistent confidence trust survive"),
    ("limit", "limit bound bottleneck cap capped limiter wall"),
    ("hardware", "hardware gpu device chip silicon card physics physical <gpu> <arch>"),
    ("design", "design approach tiled tiling yours"),
    ("profile", "profile profiler ncu nsys nsight breakdown cycles dominates dominate hotspot spent spend "
                "spending expensive runtime slowest"),
    ("peakshare", "peak roofline percent percentage fraction share close far reach achieve utilization "
                  "<pct> <rate>"),
    ("bandwidth", "bandwidth dram throughput traffic bytes <rate>"),
    ("tensorcore", "tensorcore mma hmma wgmma tcgen05 fma mainloop"),
    ("sass", "sass ptx assembly instruction instructions disassembly cuobjdump"),
    ("coalesce", "coalesce coalesced coalescing strided sector sectors cacheline transaction transactions"),
    ("correct", "correct correctness pass passes accurate valid mismatch"),
    ("allinputs", "odd ragged edge corner non-multiple multiple untimed"),
    ("occupancy", "occupancy resident warps active register registers smem limiter resource"),
    ("launch", "launch launches overhead host sync synchronize stream streams graph"),
    ("cache", "l2 l1 cache reuse locality evict"),
    ("regression", "regression regress regressed slower slowdown drop dropped lost worse degrade degraded"),
    ("precision", "precision fp16 bf16 fp8 fp32 tf32 rounding accumulate accumulation"),
    ("bankconflict", "bank conflict conflicts swizzle padding"),
    ("baseline", "baseline seed reference upstream library cublas cublaslt cudnn cutlass triton vendor compare "
                 "against"),
    ("overlap", "overlap overlapped pipeline pipelining stages async prefetch double-buffer"),
)


@lru_cache(maxsize=1)
def _concept_table() -> dict[str, tuple[str, ...]]:
    table: dict[str, list[str]] = {}
    for name, words in CONCEPTS:
        for w in words.split():
            for key in {w, _stem(w), term(w) or w}:
                if name not in table.setdefault(key, []):
                    table[key].append(name)
    return {k: tuple(v) for k, v in table.items()}


def concepts(term_list: list[str]) -> dict[str, bool]:
    """{concept: asked in the question itself} for the concepts of a question's terms (a term
    marked `~` comes from a request after the question)."""
    table = _concept_table()
    out: dict[str, bool] = {}
    for t in term_list:
        primary = t[0] != "~"
        for c in table.get(t if primary else t[1:], ()):
            out[c] = out.get(c, False) or primary
    return out


@lru_cache(maxsize=1)
def _known_terms() -> dict[int, tuple[str, ...]]:
    """The terms of the domain tables, by length (for spelling)."""
    words: set[str] = set()
    syn = _synonym_table()
    for group in list(SYNONYMS) + [g for _, g in CONCEPTS]:
        for w in group.split():
            if not w.startswith("<"):
                words.update((syn.get(w) or syn.get(_stem(w)) or _stem(w), _stem(w)))
    by_len: dict[int, list[str]] = {}
    for w in words:
        if len(w) >= 5:
            by_len.setdefault(len(w), []).append(w)
    return {k: tuple(sorted(v)) for k, v in by_len.items()}


def deletions(word: str) -> set[str]:
    """The word and the words one deletion from it: two words one edit apart (an insertion, a
    deletion, a substitution or a swap of neighbours) share at least one of these."""
    return {word} | {word[:i] + word[i + 1:] for i in range(len(word))}


def near_index(words: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Each of `deletions` of each word -> the words it comes from: the candidates one edit from a
    word are those that share a key with it (then checked with `one_edit`), not every word."""
    index: dict[str, set[str]] = {}
    for w in words:
        for key in deletions(w):
            index.setdefault(key, set()).add(w)
    return {k: tuple(sorted(v)) for k, v in index.items()}


def near(word: str, index: dict[str, tuple[str, ...]]) -> set[str]:
    """The words of `index` (`near_index`) one edit from `word`."""
    return {w for key in deletions(word) for w in index.get(key, ()) if one_edit(word, w)}


@lru_cache(maxsize=1)
def _known_near() -> dict[str, tuple[str, ...]]:
    return near_index(w for ws in _known_terms().values() for w in ws)


@lru_cache(maxsize=20000)
def spelled(t: str) -> str:
    """A term of six letters or more one edit (or one swap) away from exactly one domain term is
    that term misspelled ("bandwith", "reproducabl", "occupnacy"); shorter words are too often
    other words ("clock" is not "block")."""
    if len(t) < 6 or t[0] in "<~" or not t.isalpha():
        return t
    known = _known_terms()
    if t in known.get(len(t), ()):
        return t
    hits = near(t, _known_near())
    return next(iter(hits)) if len(hits) == 1 else t


def one_edit(a: str, b: str) -> bool:
    """One insertion, deletion, substitution or swap of neighbours apart (a != b)."""
    if a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]])
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i:] == b[i + 1:]
