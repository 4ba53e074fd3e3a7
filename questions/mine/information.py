"""What a human message hands the agent: a hardware fact or number, an answer or a cause, a
solution or a technique (also asked as a question: "why not use TMA?", "have you tried a 128x256
tile?", "isn't it memory bound?"), a value to set, a place in the code, a reference, pasted code or
output, a correction. `information_markers` says which of these a message carries; a message that
carries any is information, whatever else it asks (classify.py).
"""
from __future__ import annotations

import re

from questions.mine.asking import asks_value, interrogative_flags, is_proposal, is_request, opens_as_question, prose, sentences
from questions.mine.dispatch import dispatched
from questions.mine.orders import MEASURE_VERB, TRY_INPUT, changes, checks_run, doubts, measurement_order
from questions.mine.phrases import ACK, REPEATS, SOLUTION_TERMS, rx, strip_filler

_DIGIT = re.compile(r"\d")


_HW_NOUN = (r"(?:l1|l2|l3|cache|caches|smem|shared\s+mem(?:ory)?|register\s+file|registers?|hbm\d?e?|dram|vram|"
            r"memory|bandwidth|sms?|gpu|card|chip|die|tensor\s+cores?|tma|nvlink|pcie|peak|roofline|"
            r"theoretical|spec|specs|datasheet|rated|nominal|max(?:imum)?|clock|boost)")
_UNIT_NUM = (r"\d+(?:[.,]\d+)?\s*(?:[kmgt]i?b(?:/s(?:ec)?)?|bytes?|[kmgtp]?flop/?s|[gt]flops|tops|[kmg]hz)\b")
_HW_NUMBER = [
    rx(_HW_NOUN + r"\b[^.?!;]{0,30}?\b" + _UNIT_NUM),
    rx(_UNIT_NUM + r"[^.?!;]{0,24}?\b" + _HW_NOUN + r"\b"),
    rx(r"\b\d+(?:[.,]\d+)?\s*(?:[kmgtp]?b/s(?:ec)?|[kmgtp]?flop/?s|[gt]flops|tops)\b[^.?!;]{0,40}"
       r"\b(?:peak|max|maximum|theoretical|spec|limit|ceiling|roofline)\b"),
    rx(r"\b(?:peak|max|maximum|theoretical|spec|limit|ceiling|roofline)\b[^.?!;]{0,40}"
       r"\b\d+(?:[.,]\d+)?\s*(?:[kmgtp]?b/s(?:ec)?|[kmgtp]?flop/?s|[gt]flops|tops)\b"),
    rx(r"\b\d+\s*(?:sms|streaming multiprocessors|banks|copy engines|tensor cores|cuda cores|"
       r"(?:registers|regs)\s+per\s+(?:thread|sm|block)|threads\s+per\s+warp|warps\s+per\s+sm|"
       r"blocks\s+per\s+sm|bytes\s+per\s+(?:clock|cycle)|kb\s+per\s+sm)\b"),
]
#: a step's share of the time, asked in a few words: "transpose share of runtime?", "copy fraction of the step?"
_SHARE_ASKED = rx(r"^(?:[\w.+/-]+\s+){1,2}(?:share|fraction|percentage|portion|part|%)\s+of\s+(?:the\s+)?(?:total\s+|whole\s+)?"
                  r"(?:run\s*time|time|wall(?:\s*time)?|gpu\s+time|step|e2e|end\s+to\s+end|latency|total)\s*\?$")
#: the input's size, not a hardware number: "150 gb of int64 keys", "2 tb of rows and payloads"
_DATA_SIZE = rx(r"\b\d+(?:[.,]\d+)?\s*(?:[kmgt]i?b|bytes?)\s+of\s+(?:[\w-]+\s+){0,2}?(?:keys|rows|data|tokens|elements|payloads?|"
                r"inputs?|records|values|weights|activations|samples|points|edges|vertices|tuples|columns|text|images)\b")
_HW_FACT = rx(r"\b(?:h100|h200|h800|a100|b200|b100|gb200|gh200|l40s?|mi300x?|rtx\s?\d{4}|hopper|blackwell|ampere|"
              r"ada|sm_?\d{2,3}a?|the gpu|this gpu|the card|the l2|the l1|l2|l1|each sm|an sm|every sm|the sm|"
              r"a warp|each warp|the tensor cores|tensor cores|hbm\w*|tma|the hardware|this chip)\s+"
              r"(?:has|have|is|are|supports?|can do|does|gives|offers|runs at|holds|peaks at|tops out|"
              r"only has|doesn't have|does not have|lacks?|won't|can't)\b")
_ANSWER = [
    rx(r"^(?:that's|thats|that is|there's|theres|this is)\s+(?:your|the|our)\s+(?:\w+\s+)?(?:bug|problem|issue|failure|"
       r"culprit|cause|regression|slowdown|mismatch)\b"),
    rx(r"\b(?:the|your|this|that|our|its|my)\s+(?:bug|problem|issue|reason|answer|fix|culprit|bottleneck|"
       r"mistake|error|slowdown|regression|cause|trick|solution|limit|limiter|catch)\s+(?:is|was|are|lies|"
       r"comes|sits|must be)\b"),
    rx(r"\b(?:it's|it is|its|that's|that is|thats|this is|this's|which is)\s+(?:just\s+|probably\s+|likely\s+)?"
       r"(?:because|due to|caused by)\b"),
    rx(r"^because\b(?!\s+i\s+(?:suspect|have\s+a\s+(?:\w+\s+)?(?:suspicion|hunch|feeling)|bet|wonder)\b)"),
    # a result and its reason stated: "they are dropped because the hash ignores nulls", "it's high because of
    # the allocator", "the loop unroll causes them" (after a terse question, the answer comes with it)
    rx(r"^(?:it|they|this|that|these|those|the\s+[\w-]+(?:\s+[\w-]+)?)(?:'s|'re)?\s+(?:\w+\s+){1,3}?"
       r"because\s+(?:of\s+)?(?!i\b|we\b|you\b)\w"),
    rx(r"^(?:the|your|this|that|our)\s+(?:[\w-]+\s+){1,4}?(?:causes|triggers)\s+(?:it|them|this|that|these|those)\b"),
    rx(r"\b(?:might be|may be|could be|must be|probably|maybe|likely|i think it's|i bet it's|i bet)\s+"
       r"(?:just\s+)?(?:because|due to|caused by)\b"),
    rx(r"\b(?:caused by|is due to|are due to|comes from the|is coming from)\b"),
    rx(r"\b(?:you're|you are|it's|it is|its|we're|we are|this is|that's|thats|kernel's|"
       # "the decode step is launch-bound at small batch", "softmax looks memory bound"
       r"[\w.-]+\s+(?:is|are|was|were|seems|looks|seems\s+to\s+be|looks\s+to\s+be))\s+"
       r"(?:\w+\s+)?(?:memory|compute|bandwidth|latency|launch|register|occupancy|issue|l2|dram|smem)[- ]?"
       r"(?:bound|limited|starved)\b"),
    rx(r"\b(?:there's|there is|there are|you have|you've got|it has|it's got)\s+(?:a\s+|an\s+)?"
       r"(?:bank conflicts?|race|race condition|deadlock|register spill|spills?|off[- ]by[- ]one|bug|typo|"
       r"leak|overflow|uncoalesced|divergen\w+)\b"),
]
_LOCATION = rx(r"\b(?:in|on|at|near|around)\s+line\s+\d+|\blines?\s+\d+(?:\s*-\s*\d+)?\s+(?:of|in)\b|"
               r"\b[\w./-]+\.(?:cu|cuh|py|c|cc|cpp|h|hpp|rs|go|js|ts):\d+")
# a number given as a setting ("to 128", "4 warps"), not a name ("the 4096x4096 case")
_NUM_PARAM = (r"\b(?:to|by|of)\s+\d+\b|\b(?:\d+|two|three|four|eight|sixteen|thirty-two)\s*(?:warps?|threads?|blocks?|stages?|registers?|regs|tiles?|"
              r"elements?|bytes?|kb|-?way|-?wide|lanes?|buffers?|ctas?)\b")
_SOLUTION = [
    rx(r"^(?:(?:just|then|so|and)\s+)*do\s+(?:it|this|that|the\s+\w+)\s+(?:in|with|using|via)\s+\w+"),
    rx(r"\b(?:have you tried|did you try|have you considered|did you consider|have you thought about|"
       r"did you think about|have you thought of)\b(?!\s+(?:running|rerunning|"
       r"measuring|profiling|timing|checking|looking|comparing|printing|counting|testing|it again|again))"
       # "did you try an odd length like 1023": an input tried (not "a larger block size", a setting)
       r"(?!\s+(?:(?:an?|the|some|any)\s+)?(?!(?:[\w-]+\s+){0,2}(?:block|tile|grid|chunk|warp|cta|cluster|stage|split|vector)s?\b)"
       r"(?:[\w-]+\s+){0,2}(?:widths?|lengths?|sizes?|shapes?|inputs?|dims?|dimensions?|values?|seq_?lens?|batch(?:es)?|rows?|"
       r"vocabs?|matri(?:x|ces)|cases?|counts?)\b(?:\s+like\b|,|\s+or\b|\s+such\b|\s+e\.?g\b|\s+\d|"
       # "did you try a count with a remainder", "a case where every key repeats" (round 20)
       r"\s+(?:with|where|whose|in\s+which)\s+(?!(?:a|an|the)\s+(?:\w+\s+){0,2}(?:kernel|version|approach|layout|"
       r"implementation|variant|tiling|schedule|library)\b)))"),
    rx(r"\b(?:would|could|might|will|can)\s+(?:it|that|this)\s+help\s+(?:to|if)\b"),
    rx(r"\b(?:have you|did you)\s+(?:considered|thought about|tried)\s+running\s+(?!(?:it|this|that|them|the|your|our|a\s+profile|"
       r"compute-sanitizer|sanitizer|memcheck|racecheck|ncu|nsys|nsight|tests?|evals?|benchmarks?)\b)(?:an?\s+)?[\w-]+\s+"
       r"(?:on|before|after|inside|in\s+front\s+of|instead)\b"),
    rx(r"\bwhy not\s+(?!(?:more|less|yet|now|faster|slower|higher|lower|better|worse|so|too|as|all|every|"
       r"both|sure|here|there|at all|quite|entirely)\b)[a-z]"),
    rx(r"\b(?:have you|did you)\s+(?:looked\s+at|seen|checked\s+out|read)\s+(?:what|how)\s+(?!(?:the\s+)?(?:profiler?|"
       r"profile|ncu|nsys|nsight|logs?|output|trace|timeline|report|counters?|numbers?|metrics?)\b)[\w.-]+(?:'s)?"
       r"(?:\s+[\w.-]+)?\s+(?:does|did|do|handles?|implements?|solves?|uses?)\b"),
    rx(r"\b(?:have you|did you)\s+(?:thought about|thought of|looked into|looked at|considered)\s+(?:using|"
       r"adding|switching|moving|putting|making|trying|a|an)\b"),
    rx(r"\b(?:wouldn't|won't|isn't|doesn't|shouldn't|would|will)\s+(?:(?:it|that|this)\s+be|[^.?!]{1,40}\s+be)\s+"
       r"(?:faster|better|quicker|cheaper|simpler|more efficient|the way to go)\b(?!\s+than\s+(?:the\s+)?(?:seed|"
       r"baseline|reference))"),
    rx(r"\b(?:why not (?:use|try|just|switch|do|go|make|put|store|keep|load|move|"
       r"write|rewrite|run|call|add)|why don't you|why dont you|why do you not|how come you don't|"
       r"(?:you could try|you should try|you might try|maybe try)(?!\s+(?:running|rerunning|measuring|profiling|timing|"
       r"checking|comparing|printing|it again|again))|try using|"
       r"how about using|what about using|instead of using|rather than using|"
       r"you should use|you need to use|you have to use|you must use|we should use|should be using|"
       r"could you use|can you use|can't you use|cant you use|couldn't you use|shouldn't you use|"
       r"wouldn't it be (?:better|faster)|would it be (?:better|faster) to|isn't it (?:better|faster) to|"
       r"just use|better to use|better off using|replace\s+[^.?!]{1,40}\s+with|"
       r"rewrite (?:it|this) (?:with|using|in))\b"),
    rx(r"^(?:(?:just|maybe|perhaps|then|so|and|also|now|first|please)\s+)*(?:tile|unroll|fuse|vectori[sz]e|pad|"
       r"swizzle|transpose|prefetch|double[- ]buffer|pipeline|coalesce|hoist|interleave|precompute|specialize|"
       r"specialise)\b"),
    rx(r"^(?:(?:just|maybe|perhaps|then|so|and|also|now|first|please)\s+)*(?:use|try|switch(?: over)? to|go with|"
       r"move|put|store|keep|load|cache|split|batch|stage|overlap|bump|raise|lower|increase|decrease|inline|"
       r"reorder|replace|launch|compile|add|remove|drop|make|give(?!\s+(?:me|us)\b)|set|change|turn)\b"
       r"(?!\s+(?:running|rerunning|again|measuring|profiling|timing|it again))"
       r"[^.?!]*?(?:\b" + SOLUTION_TERMS + r"\b|" + _NUM_PARAM + r")"),
    rx(r"\b(?:what about|how about|what if (?:you|we)|maybe|perhaps|instead|rather(?!\s+than)|switch(?: over)? to|go with)\b"
       r"(?!\s+(?:the\s+|a\s+)?(?:small|smaller|large|larger|big|bigger|tiny|huge|odd|other|edge|empty|short|long)\s+"
       r"(?:grids?|sizes?|shapes?|inputs?|cases?|batch\w*|problems?|matri\w+|rows?|seq\w*)\b)"
       r"[^.?!]{0,40}\b" + SOLUTION_TERMS + r"\b"),
    rx(r"\b(?:could you|can you|should you|should we|shouldn't we|you should|you could|you might|we should|"
       r"we could|you need to|you have to|we need to|i'd|i would|let's|lets)\s+(?:just\s+|also\s+|maybe\s+)?"
       r"(?:use|try|add|switch|move|put|store|keep|load|apply|enable|turn on|increase|decrease|make|give|"
       r"change|replace|rewrite|tile|unroll|fuse|pad|swizzle|cache|prefetch|split|batch)\b[^.?!]{0,40}\b"
        + SOLUTION_TERMS + r"\b"),
]
_VALUE = [
    rx(r"\b(?:set|change|make|increase|decrease|bump|raise|lower|reduce|cut|drop|limit|cap)\b[^.?!]{0,40}?"
       r"\bto\s+(?:just\s+|only\s+|about\s+|around\s+)?(?:\d|one\b|two\b|three\b|four\b|eight\b|sixteen\b|half\b)"),
    rx(r"\b(?:use|try)\s+(?:a\s+|an\s+)?\d+\s*(?:x|×|by)\s*\d+\b"),
]
_WITH_SHAPE = rx(r"\bwith\s+(?:a\s+|an\s+)?\d+\s*(?:x|×|by)\s*\d+\b")  # a setting, unless asked about
# "the tolerance is 1e-2, right?": a statement handed over with a request to agree
_TAG_FACT = rx(r"\b(?:is|are|has|have|was|were|uses?|does|do)\b[^?]{3,},?\s*(?:right|correct|no|yes|isn't it|"
               r"aren't they|doesn't it|don't they|true)\s*\?\s*$")
#: the tag `_TAG_FACT` ends with, looked for at the end first (the full pattern scans back from each verb)
_TAG_TAIL = rx(r"(?:right|correct|no|yes|isn't it|aren't they|doesn't it|don't they|true)\s*\?\s*$")
_LEADING = rx(r"^(?:isn't|aren't|isnt|arent|wasn't|doesn't|doesnt|don't|dont|wouldn't|shouldn't|is it not|"
              r"are we not|are you not|surely)\b[^.?!]{0,40}\b(?:(?:memory|compute|bandwidth|latency|launch|"
              r"register|occupancy|l2|dram|smem|issue)[- ]?(?:bound|limited|starved)|"
               + SOLUTION_TERMS + r")\b")
# "isn't exp2f cheaper than expf here?": a better way handed over as a question
_LEADING_BETTER = rx(r"^(?:(?:would|wouldn't|wouldnt|won't|wont)\s+(?:a|an|the|using|switching|moving|fusing)\b[^?]{0,100}\b(?:avoid|help|fix|remove|hide|save|cut|reduce|"
                     r"speed\s+up)\b)|^(?:isn't|aren't|isnt|arent|wouldn't|wouldnt|won't|wont|doesn't|doesnt|shouldn't|shouldnt|surely)\b(?:[^?]{0,30}\bthe\s+"
                     r"(?:real\s+|actual\s+|right\s+|proper\s+|obvious\s+|whole\s+|only\s+|main\s+)?(?:fix|answer|solution|"
                     r"problem|issue|cause|culprit|bottleneck|reason|bug|mistake)\b|"
                     # "isn't that gap just python overhead ...?", "isn't the masked row thing fixed by ...?"
                     r"[^?]{0,60}\bjust\s+(?!(?:to|as|like|in case|now|checking|asking|wondering|curious)\b)\w|"
                     r"[^?]{0,60}\b(?:fixed|solved|handled|avoided|hidden|covered)\s+by\b|[^.?!]{0,60}\b"
                     r"(?:cheaper|faster|better|simpler|quicker|more efficient|the way to go|good enough|"
                     r"beat|beats|outperform\w*|win)\b|[^.?!]{0,120}\b(?:made|meant|designed|built)\s+for\b|"
                     r"[^?]{0,80}\bbecause\b|"
                     # "isn't the scan limited by the serial carry ...?", "isn't the nan coming from the log of zero?"
                     r"[^?]{0,80}\b(?:limited|bound|bottlenecked|dominated|capped|caused|explained)\s+by\b|"
                     # "isn't the hang from reusing the same flag ...?" (a problem's source named; round 20)
                     r"\s+(?:the|that|this|our|your)\s+(?:[\w-]+\s+){0,2}?(?:hang|deadlock|nans?|bug|error|slowdown|drift|gap|"
                     r"mismatch|crash|spike|race|corruption|regression|discrepancy|stall)s?\s+(?:just\s+|probably\s+)?"
                     r"from\s+(?!(?:the\s+)?(?:first|second|last|previous|earlier|other)\b)\w|"
                     r"[^?]{0,80}\b(?:coming|comes|came)\s+from\b|[^?]{0,80}\bdue\s+to\b|"
                     # "shouldn't the cold rows be loaded with an evict-first hint ...?": a technique (not "be tested with")
                     r"[^?]{0,80}\b(?:be|get)\s+(?!(?:tested|checked|measured|timed|profiled|verified|validated|benchmarked|compared)\b)"
                     r"[a-z]+ed\s+(?:with|using|via|through|into|as)\b|[^?]{0,140}\b(?:instead of|rather than)\b|[^?]{0,140}\bmake\s+(?:it|this|that|them|the\s+[\w-]+)\s+(?:much\s+|more\s+|a\s+lot\s+)?"
                     r"(?:reproducible|deterministic|faster|cheaper|simpler|stable|safe|correct|coalesced|cache[- ]friendly|\w+able)\b|"
                     r"\s+(?!(?:being|going|anything|something|nothing|everything|thing|string)\b)[a-z]+ing\s+(?:the|a|an|it|them|"
                     r"this|that|these|those|\w+s)\b)")
#: "did you know ...?", "fyi ...", "just so you know ...": hands the agent a fact
_HANDS_OVER = rx(r"^(?:did you know|do you know that|did u know|did (?:you|u) reali[sz]e|you know that|fyi|f\.y\.i\.?|just so you know|"
                 r"for your information|heads[- ]up|note that|remember that|keep in mind|"
                 r"(?:you|u|ya)\s+know(?!\s+(?:what|how|why|where|which|who|when|if|whether)\b)(?=\s+\w))\b")
#: "can't ldmatrix.x4.trans do that transpose for free?": a technique offered as a question
_CANT_IT = rx(r"^(?:can't|cant|couldn't|couldnt|wouldn't|wouldnt|won't|wont)\s+(?!(?:you|u|we|i|they|it|this|that|ya|he|she|"
              r"the\s+kernel|there)\b)\S+(?:\s+\S+){0,2}?\s+(?:do|handle|help|fix|work|cover|replace|avoid|"
              r"hide|solve|give)\b")
#: "did you (actually) measure / time / profile ...?": a measurement asked
_MEASURED_ASKED = rx(r"^(?:but\s+|so\s+|and\s+)?(?:did|have|has|could|can)\s+(?:you|u|we|anyone)\s+(?:actually\s+|really\s+|already\s+|"
                     r"even\s+|ever\s+)?(?:measured?|timed?|profiled?|benchmark(?:ed)?|counted|count)\b")
# "maybe it's the integer division?", "could it be the atomics?": a cause offered, even as a question
_HYPOTHESIS = rx(r"^(?:(?:is it because|isn't it because|my guess is|my bet is|i bet|i suspect|i guess it's|"
                 r"(?:because\s+)?i\s+(?:suspect|have\s+a\s+(?:\w+\s+)?(?:suspicion|hunch|feeling))|"
                 r"i think it's|it must be)\b|(?:maybe|perhaps|probably|i think|i guess|could it be|might it be|"
                 r"it might be|it could be)\s+(?:it's|its|it is|the|a|an|that|this|because|due|caused|\w+ing)\b|"
                 # "could the slowdown be the 64-bit index math?" (not "could the win be noise?")
                 r"(?:could|might|can)\s+(?:the|this|that|our|your)\s+(?:[\w.-]+\s+){1,3}?be\s+(?:just\s+)?(?!(?:noise|real|"
                 r"luck|random|variance|jitter|faster|slower|better|worse|higher|lower|bigger|smaller|correct|wrong|right|"
                 r"improved|done|finished|measured|verified|checked|tested|reproduced|reproducible|deterministic|"
                 r"trusted|true|valid|stale|off|bogus)\b)[a-z0-9])")
_CORRECTION = rx(r"^(?:no|nope|wrong|actually|not quite|that's wrong|that's not right|thats wrong|incorrect)\b[,.!:]?"
                 r"\s+\w+")
_TERMINAL = rx(r"^\s*(?:\$ |\w[\w.-]*@[\w.-]+:|>>> |traceback \(most recent call last\)|error:|warning:|fatal:|"
               r"unknown (?:command|flag|option|shorthand)|did you mean (?:this|one of these)\?|usage: |"
               r"run '[^']+ --help'|"
               r"\w+error:|at \w+\.|\s{4}\S|#include|__global__|\w+\s*\(.*\)\s*[{;]\s*$)")
_ATTACH = rx(r"^#\s*files mentioned by the user|^<image>|\[image\]|\[image #?\d+\]")
_URL = rx(r"\bhttps?://\S+|\bwww\.\S+")


def _either(rxs: list[re.Pattern]) -> re.Pattern:
    """Any of the patterns (whether one matches, not which), tried only where it can start (and, when
    each begins at a word's edge, only there)."""
    if len(rxs) <= 4:  # (too few to gain from grouping)
        return re.compile("|".join(f"(?:{rx.pattern})" for rx in rxs), re.I)
    edge = r"\b" if all(rx.pattern.startswith(r"\b") for rx in rxs) else ""
    return re.compile(edge + "(?:" + dispatched([rx.pattern for rx in rxs]) + ")", re.I)


_ANSWER_ANY = _either(_ANSWER)
_SOLUTION_CORE = _either([p for p in _SOLUTION if p.pattern.startswith("^")])  # read after the fillers
_SOLUTION_ANY = _either([p for p in _SOLUTION if not p.pattern.startswith("^")])
_HELP = rx(r"\b(?:would|could|might|will|can|wouldn't|wouldnt|won't|wont|couldn't|couldnt)\s+(?:[\w-]+\s+){1,3}help\b")
_TERM = rx(r"\b" + SOLUTION_TERMS + r"\b")
_VALUE_ANY = _either(_VALUE)
_HW_NUMBER_ANY = _either(_HW_NUMBER)
_HW_SPEC_NUMBER = _either(_HW_NUMBER[2:4])  # a rate named as the peak, the spec or the limit


#: A question that hands a fact over ("did you know the L2 is 50 MB?", "isn't HBM 4.8 TB/s?", "how
#: close to the 3.35 TB/s peak are we?"); in any other question a hardware number is the setting of
#: what is asked ("how many CTAs does the grid have vs 132 SMs?", "does it clear the 50MB l2?").
_RHETORICAL = rx(r"^(?:did you know|do you know that|you know|remember|recall|isn't|aren't|wasn't|weren't|doesn't|"
                 r"don't|didn't|wouldn't|isnt|arent|doesnt|dont)\b")
#: A sentence that quotes the agent's own claim back to it: not information the agent did not have.
_QUOTES_AGENT = rx(r"^(?:you'?re|you\s+are|ur)\s+(?:saying|claiming|telling\s+me)\b|^(?:you|u)\s+(?:keep\s+(?:saying|claiming|calling)|said|say|claim|claimed|quote|quoted|are quoting|'re quoting|re quoting|"
                   r"mentioned|report|reported|wrote|measured|got|found|called|concluded|stated|asserted|assumed|insisted|decided|argued)\b|^your\s+(?:\w+\s+){0,2}(?:says|said|shows|showed)\b")


#: a tool's capability or a dependence stated ("cuVS lets you choose an 8-bit table through lut_dtype", "the
#: wall's position depends on tau, so ..."): how to get the result is handed over, whatever is ordered after it
_STATED_HOW = rx(r"\b(?:lets|allows|enables)\s+(?:you|u|us|one)\s+(?:to\s+)?\w|\bdepends\s+on\b[^.;?!]{0,80}?\bso\b")
#: what is asked after an action: "... and tell me the register count"
_ASKED_AFTER = rx(r"\b(?:and|then|,)\s+(?:tell|show|give)\s+(?:me|us)\b|\b(?:and|then|,)\s+(?:report|print|paste|list)\b")
#: an order to check that follows a leading question: the check is what is asked
_CHECK_ORDER = rx(r"^(?:(?:pls|please|then|so|now|just|go)\s+)*(?:redo|rerun|re-run|re-?measure|measure|re-?profile|profile|"
                  r"re-?time|time|check|verify|prove|show)\b")
#: a cause put as a question: "doesn't the memset cost you a launch?", "could the mismatch be ...?"
_DOUBTED_CAUSE = rx(r"^(?:doesn't|doesnt|isn't|isnt|aren't|arent|wouldn't|wouldnt|won't|wont|don't|dont|shouldn't|shouldnt|could|"
                    r"might|would|did\s+(?:you|u)\s+(?:set|use|try(?!\s+(?:it|this|that|them)\s+(?:with|on)\b)|enable|add|turn\s+on|pin|switch|bump|raise|lower)|"
                    r"(?:are|r)\s+(?:you|u)\s+using|have\s+(?:you|u)\s+(?:looked\s+at|considered|tried)|"
                    r"does\s+(?:the|it|this|that)\b[^?]{0,40}\beven\s+need|"
                    r"did\s+(?:you|u)\s+(?:build|compile|target|link)\s+(?:for|with|against)\b[^?]{0,40}\b(?:instead\s+of|and\s+not|not|rather\s+than)|"
                    # "is the 1e-3 error just tf32? tl.dot uses tf32 by default ..." (followed by why: a cause)
                    r"(?:is|are)\s+(?:the|this|that|it|these|those|our|your)\b[^?]{0,40}\b(?:just|only|simply)\s+(?:a\s+|an\s+|the\s+)?"
                    r"(?!(?:noise|luck|random|variance|jitter)\b)\w+)\b")
#: a build whose flags make the compiler report (registers, spills, line info), not a technique
_REPORTING_BUILD = rx(r"^(?:(?:please|pls|just|then|now)\s+)*(?:re-?)?(?:compile|build)\b[^.;]{0,60}?"
                      r"(?:-xptxas[ =]-?v\b|--ptxas-options[ =]-?v\b|--resource-usage|-res-usage|-lineinfo|--keep\b|-keep\b)")
#: a run repeated to count what varies ("launch the split-k kernel 100 times ... and report how many differ")
_REPEATED = rx(r"\b" + REPEATS + r"\b|\brepeatedly\b")
#: how to compare, handed over: "compare with a relative tolerance rather than exact equality", "compare
#: against an ensemble's spread, not against zero" (not "compare against cuBLAS and report the ratio")
_COMPARE_ADVICE = rx(r"^(?:(?:so|then|and|just)\s+)*compare\s+(?:with|against|using|to)\s+[^.?!;]{1,60}?(?:,\s*)?\b(?:rather\s+than|instead\s+of|not)\s+"
                     r"(?:against\s+|with\s+|to\s+)?(?:an?\s+|the\s+)?(?:exact|zero|bitwise|bit-for-bit|equality|identical)\b")
#: a fix ordered after it ("allocate once and zero it in-kernel", "switch the accumulator to fp32")
_FIX_VERB = rx(r"^(?:(?:just|then|so|and|instead|maybe|rather)\s+)*(?:allocate|zero|hoist|move|reuse|cache|precompute|fuse|"
               r"inline|unroll|pad|swap|split|merge|drop|remove|replace|switch|use|add|set|make|change|bump|raise|lower|"
               r"increase|decrease|pin|reorder|sort|transpose|widen|narrow|accumulate|keep|store|load|launch)\b")


def information_markers(text: str, sentences_: list[str] | None = None,
                        flags: list[bool] | None = None) -> list[str]:
    """Why a message carries information (empty: it does not)."""
    reasons: list[str] = []
    low = text.lower()
    if _ATTACH.search(low):
        reasons.append("attaches files or images")
    if "```" in text:
        reasons.append("pastes code or output")
    if "\n" in text:
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if len(lines) >= 2 and sum(1 for ln in lines if _TERMINAL.match(ln)) >= 2:
            reasons.append("pastes code or output")
    if "http" in low or "www." in low:
        if _URL.search(text):
            reasons.append("gives a reference (URL)")
    if sentences_ is None:
        sentences_ = sentences(prose(text))
    if flags is None:
        flags = interrogative_flags(sentences_)
    cores = [strip_filler(s.lower()) for s in sentences_]
    checked = {i for i in range(len(sentences_) - 1) if not flags[i + 1] and _CHECK_ORDER.match(cores[i + 1])}
    for i, (s, question) in enumerate(zip(sentences_, flags)):
        ls = s.lower()
        core = cores[i]
        digits = _DIGIT.search(ls) is not None
        quoting = _QUOTES_AGENT.match(core) is not None  # the agent's own figure, handed back to it
        if digits and not quoting and _HW_NUMBER_ANY.search(_DATA_SIZE.sub(" ", ls)) and (
                not question or _RHETORICAL.match(core) or _HW_SPEC_NUMBER.search(ls)):
            reasons.append("hardware number")
        if not question and not quoting and _HW_FACT.search(ls):
            reasons.append("hardware fact")
        if not question and not quoting and _ANSWER_ANY.search(core):
            reasons.append("gives the answer or cause")
        if question and _TAG_TAIL.search(ls[-40:]) and _TAG_FACT.search(ls) and not opens_as_question(core):
            reasons.append("states a fact to confirm")
        if _HANDS_OVER.match(core) or (not question and not quoting and _STATED_HOW.search(core)):
            reasons.append("hands over a fact")
        if _HYPOTHESIS.match(core) and not any(flags[j] and (asks_value(cores[j]) or _MEASURED_ASKED.match(cores[j]))
                                               for j in range(i)):
            # (not after a value or a measurement asked: "what's gpu vs host time? i suspect ...", "did you
            # measure what's resident after the forward? i suspect the temporaries stay")
            reasons.append("offers a cause")
        if question and (_LEADING.search(core) or _LEADING_BETTER.match(core) or _CANT_IT.match(core)) \
                and i not in checked:  # ("isn't that just L2 serving it warm? redo it cold": the check is asked)
            reasons.append("gives the answer or cause")  # "isn't it memory bound?" hands over a diagnosis
        if digits and _LOCATION.search(ls):
            reasons.append("points at the place")
        # ("transpose share of runtime?": a step's share of the time asked, its name no technique handed over)
        tried_input = ((TRY_INPUT.match(core) is not None or checks_run(core)) and measurement_order(s)) \
            or (question and _SHARE_ASKED.match(core) is not None)
        # the technique is in what is done, not in what is asked after it ("compile with -Xptxas -v and
        # tell me the register count"; "try float4 loads and tell me the time" still names one)
        done = _ASKED_AFTER.split(core, 1)[0]
        # ("put the kernel on a roofline chart": the opening verb measures, it hands over no technique;
        # "compile the fp8 mainloop with -Xptxas -v and report ...": a build that reports its resources)
        opens_measuring = MEASURE_VERB.match(core) is not None or (_REPORTING_BUILD.match(done) is not None and not changes(core)) \
            or (done != core and _REPEATED.search(done) is not None and not changes(core))
        if not tried_input and ((_SOLUTION_CORE.match(done) and not opens_measuring) or _SOLUTION_ANY.search(ls)
                                or (_HELP.search(ls) and _TERM.search(ls))):
            reasons.append("suggests a solution")
        elif _COMPARE_ADVICE.match(core):
            reasons.append("suggests a solution")
        elif is_proposal(core) and s.rstrip().endswith("?"):
            reasons.append("proposes a plan")
        if _VALUE_ANY.search(ls) or (not question and _WITH_SHAPE.search(ls)):
            reasons.append("gives a value")
        if not question and _CORRECTION.match(ls) and not ACK.match(ls):
            reasons.append("corrects the agent")
    first = next((i for i, q in enumerate(flags) if q and _DOUBTED_CAUSE.match(cores[i])), None)
    if first is not None:
        # "doesn't the memset cost you a launch? allocate once and zero it in-kernel": a cause and its fix
        after = [(s, c) for s, c, q in zip(sentences_[first + 1:], cores[first + 1:], flags[first + 1:]) if not q]
        if any(_FIX_VERB.match(c) or changes(c) for _, c in after):
            reasons.append("suggests a solution")
        elif any(not is_request(s) and len(s.split()) >= 4 and not _QUOTES_AGENT.match(c) and not doubts(s)
                 for s, c in after):
            reasons.append("offers a cause")  # "isn't it reading the row twice? online softmax keeps ..."
    seen: list[str] = []
    for r in reasons:
        if r not in seen:
            seen.append(r)
    return seen


