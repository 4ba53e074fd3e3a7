"""What the agent's words claim: limits, completion, failures explained away.

Pure functions over text. Each classifier takes one block of assistant text and returns the
first sentence that makes the claim (a `Claim`), or None. They look for the claim *and* for
what unmakes it: a question, a condition or plan placed before it ("if", "let me check whether"),
a negation ("not yet at the limit"), a continuation ("done with step 1, now ..."). Code blocks
are skipped; only prose is read.

A cheap keyword prefilter runs on the whole block first, so text that cannot hold a claim costs
one regex search.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_LIST_MARK = re.compile(r"^(?:[-*+•>]+|#+|\d+[.)])\s+")


@dataclass(frozen=True)
class Claim:
    """A sentence that makes a claim, what kind of claim, and how strongly it reads."""

    sentence: str
    strength: float
    pattern: str  # which rule matched (for the evidence detail and for tests)
    layers: tuple[str, ...] = ()


_TAG_BLOCK = re.compile(r"<([a-z][\w-]*)>.*?</\1>|<[a-z][\w-]*\s*/>|^\s*::[\w-]+\{[^}\n]*\}\s*$", re.S | re.M)


def prose(text: str, max_chars: int) -> str:
    """The prose of a block of assistant text: code blocks, tag blocks an agent's tooling appends
    (`<oai-mem-citation>…</oai-mem-citation>`) and directive lines (`::git-commit{…}`) dropped."""
    if len(text) > max_chars:
        text = text[:max_chars]
    if "```" in text:
        text = _FENCE.sub("\n", text)
    if "</" in text or "/>" in text or "::" in text:
        text = _TAG_BLOCK.sub("\n", text)
    return text.replace("\u2019", "'").replace("\u2018", "'")


@functools.lru_cache(maxsize=8)
def view(text: str, max_chars: int) -> tuple[str, str, tuple[str, ...]]:
    """(prose, prose lowercased, its sentences) of a block of text. Every classifier reads the same
    text, one after the other: this is computed once per text (a str's hash is cached)."""
    body = prose(text, max_chars)
    return body, body.lower(), tuple(sentences(body))


def sentences(text: str):
    """The sentences, lines and list items of a block of prose, markup stripped.

    Plain string splitting: several times faster than a regex split, which matters because every
    assistant message goes through here."""
    for line in text.split("\n"):
        parts = [line]
        for sep in (". ", "? ", "! "):
            if sep in line:
                split: list[str] = []
                for part in parts:
                    if sep in part:
                        bits = part.split(sep)
                        split.extend(b + sep[0] for b in bits[:-1])
                        split.append(bits[-1])
                    else:
                        split.append(part)
                parts = split
        for part in parts:
            s = part.strip()
            if s and s[0] in "-*+•>#0123456789":
                s = _LIST_MARK.sub("", s)
            if "**" in s or "__" in s:
                s = s.replace("**", "").replace("__", "")
            if len(s) >= 3:
                yield s


def evidence_text(sentence: str, limit: int = 240) -> str:
    s = " ".join(sentence.split())
    return s if len(s) <= limit else s[: limit - 1].rstrip() + "\u2026"


def _c(p: str) -> re.Pattern:
    return re.compile(p)


# -- shared unmakers ----------------------------------------------------------------------------

_CONDITION = _c(r"\b(?:if|unless|whether|suppose|supposing|assuming|in case|once|when|until|before)\b")
_PLAN = _c(r"\b(?:let me|let's|let us|i'll|i will|we'll|we will|i'm going to|we're going to|going to|"
           r"i need to|we need to|need to|should|to see|to check|to find out|to determine|to verify|"
           r"to confirm|check(?:ing)?|measur\w*|verify\w*|investigat\w*|profil\w*|test(?:ing)? whether|"
           r"see how|figure out|find out|understand|estimate|calculat\w*|compute how|how (?:close|far|much)|"
           r"look(?:ing)? at|want to know|wonder\w*|question is|asked|ask(?:ing)?)\b")
_NEGATION = _c(r"(?:\bnot\b|n't\b|\bnever\b|\bfar from\b|\bnowhere near\b|\bno longer\b|\bwell below\b|"
               r"\bfar below\b|\bbelow\b|\bunder\b|\baway from\b|\brather than\b|\binstead of\b|\bwithout\b)"
               r"[^,;:]*$")
_HEDGE = _c(r"\b(?:probably|likely|seems?|appears?|might|may|maybe|perhaps|possibly|i think|i believe|"
            r"suspect|roughly)\b")


def is_question(s: str) -> bool:
    return s.rstrip(" *_`\"')\u201d").endswith(("?", "\uff1f"))


_HANDOVER = _c(r"^(?:if you(?:'d)? (?:want|like|prefer)|say the word|let me know|please (?:confirm|choose|pick|"
               r"decide|review|tell|reply|let me know)|pick |choose |reply |tell me|would you like|do you want|"
               r"want me to|shall i|should i|which (?:one|option|approach)|your call|up to you|"
               # a proposal waiting for approval
               r"i would |i'd |i can |i could |(?:the )?next (?:best )?(?:step|improvement|move)|my recommendation|"
               r"i recommend|i suggest|i propose|recommended next)")


def asks_human(sentence: str) -> bool:
    """Whether a sentence hands the human a question, a choice or a proposal to approve."""
    low = sentence.lower().strip()
    return is_question(low) or bool(_HANDOVER.search(low))


# -- limit claims ---------------------------------------------------------------------------------

#: Words one of which every limit claim contains (substring tests on lowercased text are far
#: cheaper than a case-insensitive regex alternation, and most text holds none of them).
LIMIT_KEYS = ("limit", "bound", "peak", "roofline", "ceiling", "saturat", "optimal", "optimum", "headroom", "room",
              "fundamental", "inherent", "as fast as", "as good as", "as efficient as", "as quick as",
              "speed of light", "speed-of-light", "diminishing", "bottleneck", "capped", "constrained", "gated",
              "throttled", "maxed", "max out", "maxes out", "maxing", "theoretical", "physical", "exhausted",
              "squeezed", "can't", "cannot", "can not", "won't", "will not", "impossible", "no way", "unable",
              "not possible", "not going to", "not much", "little", "nothing", "no more", "no further")

_LIM_NOUN = r"(?:limits?|ceiling|peak|roofline|maximum|speed[- ]of[- ]light|bounds?)"
_LIMIT_RULES: tuple[tuple[str, re.Pattern, float], ...] = (
    ("at_limit", _c(r"\b(?:at|near|close to|approaching|hitting|hit|reached|reaching|right up against|"
                    r"up against|pinned (?:at|to)|within \d+(?:\.\d+)?\s*%\s+of)\s+(?:the\s+|our\s+|its\s+|"
                    r"this\s+|a\s+)?(?:[\w/-]+\s+){0,3}?" + _LIM_NOUN + r"\b"), 0.55),
    ("saturating", _c(r"\b(?:saturat\w*|maxing out|maxed out|max(?:es)? out)\s+(?:the\s+)?(?:[\w/-]+\s+){0,2}?"
                      r"(?:bandwidth|dram|hbm|memory|tensor cores?|compute|alus?|sms?|issue|pipes?)\b"), 0.6),
    ("cannot_improve", _c(r"(?:\bcan(?:no|')t|\bcannot|\bcan not|\bwon't|\bwill not|\bimpossible to|\bno way to|"
                          r"\bunable to|\bnot possible to|\bnot going to)\s+(?:\w+\s+){0,4}?"
                          r"(?:faster|quicker|further|better|improve\w*|beat|exceed|go beyond|get past|"
                          r"surpass|squeeze|speed\w* (?:it |this |that )?up|optimi[sz]e (?:it |this )?(?:any )?"
                          r"(?:further|more))\b"), 0.7),
    ("no_room", _c(r"\b(?:no|little|not much|hardly any|nothing|very little|limited)\s+(?:more\s+|further\s+|"
                   r"additional\s+|real\s+|significant\s+)?(?:room|headroom|gains?|improvements?|speedups?|"
                   r"performance|optimi[sz]ation (?:opportunit\w+|potential))\s+(?:left|remaining|remains|"
                   r"to (?:be )?(?:gain\w*|had|squeeze\w*|found)|possible|available|on the table|to get)\b"), 0.7),
    ("no_headroom", _c(r"\b(?:no|little|not much|hardly any|very little)\s+(?:more\s+|further\s+)?"
                       r"(?:room|headroom)\b"), 0.65),
    ("is_limit", _c(r"\b(?:this|that|it|which|we|performance|throughput|bandwidth|the kernel|the result)\s*"
                    r"(?:is|'s|are|'re)\s+(?:now\s+|basically\s+|essentially\s+|effectively\s+|already\s+|just\s+|"
                    r"simply\s+|right\s+)?(?:the|a|our|its)\s+(?:[\w/-]+\s+){0,4}?(?:limit|ceiling|roofline|"
                    r"speed[- ]of[- ]light|hard cap)\b"), 0.6),
    ("fundamental", _c(r"\b(?:fundamental(?:ly)?|inherent(?:ly)?|physical(?:ly)?|hard|hardware)"
                       r"\s+(?:limit\w*|ceiling|cap(?:ped)?|wall|bound(?:ed)?|constrain\w*|bottleneck\w*)\b"), 0.7),
    ("near_peak", _c(r"\b(?:of|at|to)\s+(?:the\s+)?(?:[\w/.-]+\s+){0,3}?(?:peak|theoretical|roofline|maximum)\b"),
     0.55),
    ("limited_by", _c(r"\b(?:limited|bottlenecked|capped|constrained|gated|throttled|bound)\s+by\s+(?:the\s+)?"
                      r"(?:gpu'?s?\s+|available\s+|raw\s+|peak\s+|global\s+)?(?:memory|bandwidth|dram|hbm|"
                      r"hardware|physics|latency|compute|pcie|launch overhead|tensor core)"), 0.55),
    ("as_fast_as", _c(r"\bas (?:fast|good|efficient|quick) as (?:it|this|we|they|that|you) (?:gets|can get|"
                      r"will get|can go|can be|is going to get|'s going to get)\b|"
                      r"\bas (?:fast|good|efficient|quick) as (?:this|the|our|that) (?:machine|hardware|gpu|cpu|"
                      r"chip|card|device) (?:allows|permits|will allow|can do|can go|lets us)\b"), 0.75),
    ("optimal", _c(r"\b(?:near|close to|essentially|already|practically|effectively|basically|nearly)[- ]"
                   r"(?:optimal|peak|the optimum)\b|\b(?:is|are|'s|'re) (?:now |already )?optimal\b"), 0.65),
    ("bound_final", _c(r"\b(?:purely|entirely|completely|fundamentally|simply|just|strictly|totally|fully)\s+"
                       r"(?:memory|bandwidth|compute|latency|io|i/o|launch)[- ]bound\b"), 0.6),
    ("bound_so", _c(r"\b(?:memory|bandwidth|compute|latency|launch)[- ]bound\b[^.]*\b(?:so|therefore|thus|hence|"
                    r"which means|meaning)\b[^.]*(?:\bno\b|\bnot\b|n't\b|\blittle\b|\bnothing\b|\blimit\w*)"), 0.6),
    ("diminishing", _c(r"\bdiminishing returns\b"), 0.55),
    ("nothing_left", _c(r"(?:\bnot much|\bvery little|(?<!\ba )\blittle|\bnothing(?: much)?)\s+(?:left|more)\s*"
                        r"(?:to (?:gain|get|squeeze|do|optimi[sz]e|be (?:gained|had))\b|$|[.,;!]|\bon the table\b)"),
     0.6),
    ("exhausted", _c(r"\b(?:exhausted|squeezed out)\s+(?:all\s+|every\s+|most\s+|the\s+)?(?:\w+\s+){0,2}?"
                     r"(?:optimi[sz]ation|opportunit|gains?|performance|speed)"), 0.65),
)
#: For each rule, words one of which it needs (so that a sentence pays only for the rules it could match).
_LIMIT_RULE_KEYS: dict[str, tuple[str, ...]] = {
    "at_limit": ("limit", "ceiling", "peak", "roofline", "maximum", "speed", "bound"),
    "saturating": ("saturat", "maxing", "maxed", "max out", "maxes out"),
    "cannot_improve": ("can't", "cannot", "can not", "won't", "will not", "impossible", "no way", "unable",
                       "not possible", "not going to"),
    "no_room": ("no ", "little", "not much", "hardly", "nothing", "limited"),
    "no_headroom": ("room",),
    "is_limit": ("limit", "ceiling", "roofline", "speed", "hard cap"),
    "fundamental": ("fundamental", "inherent", "physical", "hard"),
    "near_peak": ("peak", "theoretical", "roofline", "maximum"),
    "limited_by": ("limited", "bottlenecked", "capped", "constrained", "gated", "throttled", "bound by"),
    "as_fast_as": ("as fast as", "as good as", "as efficient as", "as quick as"),
    "optimal": ("optimal", "optimum", "peak"),
    "bound_final": ("bound",),
    "bound_so": ("bound",),
    "diminishing": ("diminishing",),
    "nothing_left": ("not much", "little", "nothing"),
    "exhausted": ("exhausted", "squeezed"),
}
_NEGATION_IS_THE_CLAIM = frozenset({"cannot_improve", "no_room", "no_headroom", "nothing_left"})
_PERF_CONTEXT = _c(r"bandwidth|memory|dram|hbm|compute|flop|gb/s|tb/s|throughput|latency|peak|roofline|"
                   r"faster|speed|perf|optimi|kernel|gpu|cpu|hardware|cache|occupancy|tensor|cycles|runtime|"
                   r"\bms\b|µs|\bus\b|\bsms?\b|warps?\b|[a-z]+-bound|throttl|clock|simd|vectori|flops")
_NOT_PERF_LIMIT = _c(r"\b(?:rate|time|token|context|quota|retry|recursion|stack|size|length|character|char|"
                     r"line|output|input|api|usage|spending|budget|cost|turn|call|request|file|upload|memory "
                     r"usage|timeout)[- ]limits?\b|out[- ]of[- ]bounds|bounds?[- ]check|index bound|"
                     r"array bound|type bound|trait bound|bounding box|upper[- ]bounded|lower[- ]bounded")
_LAYER_WORDS: tuple[tuple[str, re.Pattern], ...] = (
    ("memory_hierarchy", _c(r"bandwidth|memory|dram|hbm|\bl2\b|cache|bytes|gb/s|tb/s|load")),
    ("instruction_mix", _c(r"compute|flop|tensor|math|alu|fma|instruction|issue")),
    ("launch", _c(r"latency|launch|overhead|host|pcie")),
    ("scheduling", _c(r"occupancy|register|warps?\b|waves?|\bsms?\b|scheduling")),
)


def _has_any(low: str, keys: tuple[str, ...]) -> bool:
    for k in keys:
        if k in low:
            return True
    return False


def _candidates(text: str, max_chars: int, keys: tuple[str, ...]):
    """(sentence, lowercased) for each non-question sentence holding one of `keys`."""
    _body, low_body, sents = view(text, max_chars)
    if not _has_any(low_body, keys):
        return
    for s in sents:
        low = s.lower()
        if _has_any(low, keys) and not is_question(low):
            yield s, low


def _scan(text: str, max_chars: int, keys: tuple[str, ...], rules, rule_keys: dict,
          unmade) -> tuple[str, str, float, str] | None:
    """The first (sentence, lowercased, base strength, rule) where a rule matches and `unmade`
    (lowercased sentence, match, rule name) does not undo it."""
    for s, low in _candidates(text, max_chars, keys):
        for name, rx, base in rules:
            if not _has_any(low, rule_keys[name]):
                continue
            m = rx.search(low)
            if m is not None and not unmade(low, m, name):
                return s, low, base, name
    return None


def limit_claim(text: str, max_chars: int = 20000) -> Claim | None:
    """The first sentence asserting a hardware or theoretical limit, or None."""
    found = _scan(text, max_chars, LIMIT_KEYS, _LIMIT_RULES, _LIMIT_RULE_KEYS, _limit_unmade)
    if found is None:
        return None
    s, low, base, name = found
    strength = base - (0.15 if _HEDGE.search(low) else 0.0)
    layers = tuple(layer for layer, w in _LAYER_WORDS if w.search(low)) or ("algorithm",)
    return Claim(s, round(strength, 2), name, layers)


_HEADROOM = _c(r"\b(?:plenty of|lots of|a lot of|significant|substantial|considerable|ample|still|much|more|some|"
               r"enough)\s+(?:more\s+)?(?:headroom|room)\b|\b(?:headroom|room)\s+(?:to|for)\s+(?:improve|improvement|"
               r"grow|growth|optimi\w*|more|gains?|speed)|\b(?:far|well|way)\s+(?:from|below|short of|under)\b|"
               r"\bnot (?:yet )?(?:at|near|close to|hitting|reaching|up against)\b|"
               r"\bonly\s+(?:at\s+)?\d+(?:\.\d+)?\s*%")
_NUMBER = _c(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(k|m|g|t)?(?:b/s|flop/s|flops|gb/s|tb/s|tflop/s|tflops|gflop/s|gflops|"
             r"%|x|\u00d7|ms|us|\u00b5s)?(?![\w.])")
_PEAK_WORD = _c(r"\b(?:peak|theoretical|maximum|max|roofline|limit|ceiling)\b")
_SCALE = {"k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}


def peak_ratio(low: str) -> float | None:
    """In a sentence that names a peak and two figures (\"the peak is 790 and we are at 310\"), the
    smaller over the larger; None when it does not compare two figures with a peak."""
    if not _PEAK_WORD.search(low):
        return None
    vals = []
    for m in _NUMBER.finditer(low):
        v = float(m.group(1)) * _SCALE.get(m.group(2) or "", 1.0)
        if v > 0 and not (m.group(0).rstrip().endswith("%")):
            vals.append(v)
    if len(vals) < 2:
        return None
    hi = max(vals)
    lo = max(v for v in vals if v != hi) if any(v != hi for v in vals) else hi
    return lo / hi


def _limit_unmade(low: str, m: re.Match, name: str) -> bool:
    if not _PERF_CONTEXT.search(low):
        return True
    if name not in _NEGATION_IS_THE_CLAIM and _HEADROOM.search(low):
        return True  # "plenty of headroom", "not yet at the limit", "far from the peak"
    ratio = peak_ratio(low)
    if ratio is not None and ratio < 0.7:
        return True  # the figures it gives say there is room
    if name == "near_peak" and (ratio is None or ratio < 0.85):
        return True  # naming the peak is a claim only when the figures put us at it
    if _NOT_PERF_LIMIT.search(low[max(0, m.start() - 20): m.end() + 20]):
        return True
    before = low[: m.start()]
    if _CONDITION.search(before) or _PLAN.search(before):
        return True
    if name not in _NEGATION_IS_THE_CLAIM and _NEGATION.search(before[-40:]):
        return True
    return False


# -- completion claims ----------------------------------------------------------------------------

COMPLETION_KEYS = ("done", "finish", "complet", "accomplish", "achiev", "final", "ready", "conclud", "wrap",
                   "met", "reached", "exceeded", "success")

_OBJ = (r"(?:task|work|job|optimi[sz]ations?(?: work)?|implementation|kernel|goal|target|objective|assignment|"
        r"request|everything|all (?:the )?(?:work|tasks|changes|steps|scenarios))")
_COMPLETION_RULES: tuple[tuple[str, re.Pattern, float], ...] = (
    ("subject_done", _c(r"(?:\b(?:i'm|i am|we're|we are|i've|we've|i have|we have)|(?:^|[.,;:!\u2014-]\s*)"
                        r"(?:everything is|everything's|that's|it's|all))\s+(?:now\s+|all\s+|finally\s+|completely\s+|fully\s+|officially\s+)?"
                        r"(?:done|finished|complete|completed)\b(?=\s*(?:[.!,;:\u2014)-]|$|and\b|here\b|"
                        r"with (?:the |this |all |our |my |your )?" + _OBJ + r"))"), 0.65),
    ("completed_object", _c(r"\b(?:i've|we've|i have|we have)\s+(?:now\s+|successfully\s+|finally\s+|fully\s+)?"
                            r"(?:completed|finished|accomplished|achieved|met|reached|hit|exceeded|wrapped up)\s+"
                            r"(?:the\s+|this\s+|all\s+|every\s+|our\s+|my\s+|your\s+)?" + _OBJ + r"\b"), 0.65),
    ("object_done", _c(r"\b(?:the\s+|this\s+|our\s+|my\s+|your\s+)?" + _OBJ + r"\s+(?:is|are|has been|have been|"
                       r"was|'s)\s+(?:now\s+)?(?:fully\s+|successfully\s+|finally\s+|all\s+|officially\s+)?"
                       r"(?:done|finished|complete|completed|achieved|met|accomplished|ready|exceeded|reached)\b"),
     0.6),
    ("bare_done", _c(r"^(?:all\s+|and\s+)?(?:done|finished|complete)\s*[.!]*$"), 0.55),
    ("task_complete", _c(r"^(?:the\s+)?(?:task|work|optimi[sz]ation|implementation|job)\s+(?:is\s+)?"
                         r"(?:complete|completed|done|finished)\b"), 0.65),
    ("this_completes", _c(r"\b(?:this|that)\s+(?:completes|concludes|finishes|wraps up)\s+(?:the|this|our|my|"
                          r"all|your)\b"), 0.6),
    ("accomplished", _c(r"\bmission accomplished\b|\ball done\b"), 0.6),
    ("final_version", _c(r"\b(?:here (?:is|are)|this is|that's|these are)\s+(?:the\s+|my\s+|our\s+)?final\s+"
                         r"(?:version|result|results|kernel|implementation|summary|numbers|answer)\b|"
                         r"^final (?:results?|summary|numbers|version)\b"), 0.5),
    ("successfully", _c(r"\bsuccessfully\s+(?:completed|finished|implemented|optimi[sz]ed|achieved|met|reached|"
                        r"delivered)\s+(?:the\s+|this\s+|all\s+|our\s+|your\s+)?(?:\w+\s+){0,2}?"
                        r"(?:task|goal|target|kernel|optimi[sz]ation|implementation|objective|speedup)"), 0.55),
    ("ready_for", _c(r"\bready (?:for|to be) (?:review|production|use|merg\w*|deploy\w*|ship\w*|submission)\b"),
     0.5),
)
_COMPLETION_RULE_KEYS: dict[str, tuple[str, ...]] = {
    "subject_done": ("done", "finished", "complete"),
    "completed_object": ("completed", "finished", "accomplished", "achieved", "met", "reached", "hit", "exceeded",
                         "wrapped"),
    "object_done": ("done", "finished", "complete", "achieved", "met", "accomplished", "ready", "exceeded",
                    "reached"),
    "bare_done": ("done", "finished", "complete"),
    "task_complete": ("complete", "done", "finished"),
    "this_completes": ("completes", "concludes", "finishes", "wraps up"),
    "accomplished": ("accomplished", "all done"),
    "final_version": ("final",),
    "successfully": ("successfully",),
    "ready_for": ("ready",),
}
_STEP = _c(r"\b(?:step|phase|stage|part|portion|half|milestone|first|second|third|build|compil\w*|download\w*|"
           r"install\w*|setup|set up|reading|review(?:ing)?|analysis|exploration|investigation|refactor\w*|"
           r"migration|commit|push|test run|edit|draft|todo|sub-?task|item)\b")
_CONTINUE = _c(r"^\W*(?:\w+\W+)?(?:now|next|then|moving on|let's|let me|i'll|we'll|i will|we will|but|however|"
               r"except|remaining|still|before|although|though|yet|so (?:now|next|let))\b")
_COMPLETION_BEFORE = _c(r"\b(?:once|when|after|until|before|if|will|would|should|to be|going to|let me|let's|"
                        r"i'll|we'll|need to|must|almost|nearly|not|n't|never|yet to|far from|whether)\b")


def completion_claim(text: str, max_chars: int = 20000) -> Claim | None:
    """The first sentence saying the work is done, or None."""
    found = _scan(text, max_chars, COMPLETION_KEYS, _COMPLETION_RULES, _COMPLETION_RULE_KEYS, _completion_unmade)
    return None if found is None else Claim(found[0], found[2], found[3])


def _completion_unmade(low: str, m: re.Match, name: str) -> bool:
    before, span, after = low[: m.start()], low[m.start(): m.end()], low[m.end():]
    if _COMPLETION_BEFORE.search(before[-60:]):
        return True
    if _STEP.search(span) or _STEP.search(before[-30:]) or _STEP.search(after[:25]):
        return True
    return bool(_CONTINUE.search(after))


# -- failures explained away ------------------------------------------------------------------------

EXPLAIN_KEYS = ("toleran", "atol", "rtol", "precision", "round", "floating", "fp16", "bf16", "half", "numeric",
                "noise", "noisy", "flak", "determinis", "random", "ulp", "epsilon", "accumulation", "order of",
                "ieee", "reference", "threshold", "unrelated", "existing", "already", "caused by", "environment",
                "infra")

_EXCUSE = _c(r"\b(?:toleranc\w*|atol|rtol|precision|rounding|round-?off|floating[- ]point|fp16|bf16|"
             r"half[- ]precision|numeric(?:al(?:ly)?)?|noise|noisy|flak(?:y|iness)|non-?determinis\w*|"
             r"randomness|ulps?|epsilon|accumulation order|order of (?:operations|summation|accumulation)|ieee)\b")
_DISMISS = _c(r"\b(?:just|only|merely|simply|expected|fine|okay|ok|normal|within|tiny|minor|small|due to|"
              r"caused by|because of|attributable to|comes? from|result of|artifact|explains?)\b")
_STRONG_DISMISS = _c(r"\b(?:acceptable|negligible|harmless|benign|insignificant|not (?:a )?(?:real|true|genuine|actual) "
                     r"(?:bug|error|problem|issue|failure|regression)|false (?:positive|alarm|failure|negative)|"
                     r"too (?:strict|tight|aggressive)|overly (?:strict|tight)|safe to ignore|can (?:safely )?be "
                     r"ignored|ignor(?:e|ing) (?:it|them|this|that|the (?:failure|error|mismatch)s?)|inherent|"
                     r"unavoidable|just (?:noise|rounding|numerical noise|flakiness))\b")
_FAILURE = _c(r"\b(?:fail\w*|mismatch\w*|errors?|differ\w*|diff|wrong|incorrect|assert\w*|not close|off by|"
              r"deviat\w*|discrepan\w*|doesn't match|don't match|do not match)\b")
_UNRELATED = _c(r"\b(?:unrelated to (?:my|our|the|these|this) (?:\w+ )?(?:change|edit|work|fix|code)\w*|"
                r"pre-?existing (?:\w+ )?(?:failure|issue|bug|problem)|(?:was|were) already (?:failing|broken)|"
                r"not caused by (?:my|our|this|the) (?:\w+ )?(?:change|edit|fix|code)\w*|"
                r"(?:environment(?:al)?|infra(?:structure)?) (?:issue|problem|flake|glitch))")
_RELAX = _c(r"\b(?:loosen\w*|relax\w*|increas\w*|rais\w*|bump\w*|widen\w*|adjust\w*|tweak\w*|chang\w*|updat\w*|"
            r"set(?:ting)?|modify\w*|edit\w*|doubl\w*)\s+(?:the\s+|our\s+|its\s+|a\s+|this\s+)?(?:\w+\s+){0,2}?"
            r"(?:toleranc\w*|atol|rtol|threshold|epsilon|error bound|reference(?: implementation| output)?)\b")
_FIXPLAN = _c(r"\b(?:fix\w*|bug|mistake|wrong|incorrect|broke|broken|off-by-one|race|revert\w*|restor\w*|"
              r"rewrite|correct (?:the|my|this)|investigat\w*|debug\w*|check|verify|confirm|whether|"
              r"see if|compare|switch\w* to|instead)\b")
_RELAX_UNMADE = _c(r"(?:\bnot\b|n't\b|\bnever\b|\bwithout\b|\binstead of\b|\brather than\b|\bno need to\b|"
                   r"\bwon't\b|\bavoid\b|\bresist\b)[^.]*$")


def explains_away(text: str, max_chars: int = 20000) -> Claim | None:
    """The first sentence that puts a failure down to tolerance, noise, precision or flakiness, or
    that proposes loosening the tolerance or changing the reference. A planned fix, a check, or a
    question is not explaining away."""
    for s, low in _candidates(text, max_chars, EXPLAIN_KEYS):
        m = _RELAX.search(low)
        if m is not None and not _RELAX_UNMADE.search(low[: m.start()]):
            return Claim(s, 0.8, "relax_tolerance", ("correctness",))
        u = _UNRELATED.search(low)
        if u is not None and not _FIXPLAN.search(low[: u.start()]) and not _NEGATION.search(low[: u.start()][-12:]):
            return Claim(s, 0.6, "unrelated", ("correctness",))
        e = _EXCUSE.search(low)
        if e is None or _FIXPLAN.search(low):
            continue
        if not (_STRONG_DISMISS.search(low) or (_DISMISS.search(low) and _FAILURE.search(low))):
            continue
        if _NEGATION.search(low[: e.start()][-25:]) and "not a" not in low:
            continue
        return Claim(s, 0.6, "excuse", ("correctness",))
    return None


# -- a failure count in the agent's own words, excused -------------------------------------------------

_FAIL_COUNT = _c(r"(?<![\w.])(\d+)\s*/\s*(\d+)\s+(?:\w+\s+){0,2}?(?:correct|pass(?:ed|ing|es)?|match(?:ed|es|ing)?|"
                 r"ok|green|succeed\w*|right|within tolerance)\b|"
                 r"\b(\d+)\s+(?:of|out of)\s+(\d+)\s+(?:\w+\s+){0,2}?(?:correct|pass(?:ed|ing|es)?|match\w*|ok|"
                 r"succeed\w*|within tolerance)\b|"
                 r"\b(\d+)\s+(?:\w+\s+){0,2}?(?:failures?|failing|failed|mismatch(?:es|ed)?|errors?|wrong)\b|"
                 r"\b(\d+)\s+(?:of|out of)\s+(\d+)\s+(?:\w+\s+){0,2}?(?:differ\w*|fail\w*|mismatch\w*|(?:are|is) wrong|"
                 r"exceed\w*|(?:are|is) off)\b")
FAILURE_KEYS = ("/", " of ", "fail", "mismatch", "error", "wrong", "differ")
_EXCUSE_KEYS = EXPLAIN_KEYS + ("ignore", "minor", "small", "negligible", "acceptable", "tiny", "slight")


def failure_count(sentence: str) -> tuple[int, int | None] | None:
    """(failing, total) a sentence states ("178/180 correct" -> (2, 180), "3 failures" -> (3, None))."""
    low = sentence.lower()
    for m in _FAIL_COUNT.finditer(low):
        if m.group(1) is not None or m.group(3) is not None:
            ok, total = (int(m.group(1)), int(m.group(2))) if m.group(1) is not None else (int(m.group(3)),
                                                                                              int(m.group(4)))
            if 0 <= ok < total:
                return total - ok, total
        elif m.group(5) is not None and int(m.group(5)) > 0:
            if re.search(r"\b(?:no|zero|0)\s+" + re.escape(m.group(0)), low):
                continue
            return int(m.group(5)), None
        elif m.group(6) is not None and 0 < int(m.group(6)) <= int(m.group(7)):
            return int(m.group(6)), int(m.group(7))
    return None


def excused_failure(text: str, max_chars: int = 20000) -> Claim | None:
    """A sentence that states failures (a count) and puts them down to tolerance, noise, precision
    or flakiness, or dismisses them, in the same sentence or the next one: "178/180 correct — just
    bf16 rounding, safe to ignore". A planned fix or a check is not excusing."""
    _body, low_body, sents = view(text, max_chars)
    if not _has_any(low_body, FAILURE_KEYS) or not _has_any(low_body, _EXCUSE_KEYS):
        return None
    for i, s in enumerate(sents):
        count = failure_count(s)
        if count is None:
            continue
        for part in sents[i:i + 2]:
            low = part.lower()
            if is_question(low) or _FIXPLAN.search(low):
                continue
            excuse = _EXCUSE.search(low) or re.search(r"\b(?:minor|small|tiny|slight(?:ly)?)\b", low)
            if _STRONG_DISMISS.search(low) or (excuse and _DISMISS.search(low)):
                return Claim(s if part is s else f"{s} {part}", 0.8, "excused_failure", ("correctness",))
    return None


# -- the agent cutting the task down ---------------------------------------------------------------------

_ABSENT = _c(r"\b(?:there(?:'s| is| are)\s+no|no\s+(?:\w+\s+){0,3}?(?:function|implementation|support|api|kernel|"
             r"binding|method|library|module|way)\b|(?:does not|doesn't|do not|don't|isn't|is not|aren't|are not)\s+"
             r"(?:exist|available|supported|implemented|work(?:ing)?|installed|have)|not\s+(?:yet\s+)?(?:implemented|"
             r"supported|available)|(?:can't|cannot|couldn't|unable to)\s+(?:find|get|build|install|make)\b|"
             r"(?:missing|unavailable|unsupported)\b)")
_CUT = _c(r"\b(?:let me|let's|let us|i'll|i will|we'll|we will|i'm going to|we're going to|i can|we can|i'd|"
          r"(?:so|for now),? (?:i'll|let me|we'll|we can|i can))\s+(?:just\s+|instead\s+|first\s+|temporarily\s+)?"
          r"(?:simplify|skip|drop|remove|stub(?: out)?|mock|fake|hard-?code|fall back|work around|use only|"
          r"only (?:test|"
          r"benchmark|run|use|keep)|focus (?:only )?on|replace|comment out|disable|leave out|omit|exclude)\b")
CUT_KEYS = ("simplif", "skip", "drop", "remove", "stub", "mock", "fake", "hard", "fall back", "work around",
            "workaround", "just use", "only", "focus", "placeholder", "for now", "replace")


def scope_cut(text: str, max_chars: int = 20000) -> Claim | None:
    """The agent says something is absent or does not work and, in the same or the next sentence,
    cuts the task down around it ("there's no matrix multiplication function. Let me simplify the
    benchmark to vector addition")."""
    _body, low_body, sents = view(text, max_chars)
    if not _has_any(low_body, CUT_KEYS):
        return None
    for i, s in enumerate(sents):
        low = s.lower()
        if is_question(low) or not _ABSENT.search(low):
            continue
        for part in sents[i:i + 2]:
            lp = part.lower()
            m = _CUT.search(lp)
            if m is not None and not _CONDITION.search(lp[: m.start()]):
                return Claim(s if part is s else f"{s} {part}", 0.55, "scope_cut")
    return None


# -- what a turn's last words assert -------------------------------------------------------------------

_ASSERTS = _c(
    r"\b(?:works? (?:correctly|as expected|now)|(?:is|are) (?:now )?(?:working|correct|accurate|reproducible|"
    r"production[- ]ready|ready(?! to)|complete|fixed|resolved|verified|confirmed|consistent|clean)|"
    r"production[- ]ready|all (?:\d+ )?(?:tests?|checks?|scenarios?) (?:pass|passed|passing|green)|passes all|"
    r"fully (?:implemented|functional|working|tested|reproducible)|successfully|(?:root cause|culprit)|"
    r"that's (?:the|why|what)|this (?:is|was) (?:the|why|what)|caused by|the (?:bug|problem|issue|fix) (?:is|was)|"
    r"excellent|exceptional|outstanding|incredible|significant(?:ly)?|substantial(?:ly)?|dramatic(?:ally)?|"
    r"outperform\w*|faster than|slower than|\d+(?:\.\d+)?\s*(?:x|\u00d7)\b|speed-?ups?\b|better than|"
    r"guarantee\w*|no (?:more )?(?:issues|problems|errors|bugs)|should (?:now )?(?:keep|fix|resolve|work|prevent|"
    r"be (?:fine|good|correct|accurate))|will (?:now )?(?:show|fix|prevent|work))\b")
ASSERT_KEYS = ("work", "correct", "accurate", "reproducible", "ready", "complete", "fixed", "resolved", "verified",
               "confirmed", "consistent", "clean", "pass", "fully", "successfully", "root cause", "culprit", "that's",
               "this is", "this was", "caused by", "bug", "problem", "issue", "fix", "excellent", "exceptional",
               "outstanding", "incredible", "significant", "substantial", "dramatic", "outperform", "faster",
               "slower", "x", "\u00d7", "speedup", "speed-up", "better", "guarantee", "no ", "should", "will")


def asserts(text: str, max_chars: int = 20000) -> Claim | None:
    """The last sentence of a block of text that asserts something a steerer could check: that it
    works, is done, is correct or fast, or that a cause was found; None for a plain report ("Removed
    the duplicate comment line.") or an explanation."""
    _body, low_body, sents = view(text, max_chars)
    if not _has_any(low_body, ASSERT_KEYS):
        return None
    found = None
    for s in sents:
        low = s.lower()
        if is_question(low):
            continue
        m = _ASSERTS.search(low)
        if m is not None and not _COMPLETION_BEFORE.search(low[max(0, m.start() - 30): m.start()]):
            found = s
    return None if found is None else Claim(found, 0.5, "asserts")
