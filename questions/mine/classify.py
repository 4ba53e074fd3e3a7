"""Telling questions from directives and from messages that supply information.

A steering question carries no answer: it asks for a measurement that can be made now, rejects
a claimed limit, or sends the agent to another layer. Only those may become bank candidates.
Every human message gets one label:

- `information`: it supplies something the agent did not have: a fact or a number about the
  hardware ("the L2 is 50 MB"), an answer or a cause ("the bug is in line 40", "it's memory
  bound"), a solution ("use wgmma", "why not use TMA?", "have you tried a 128x256 tile?", "set
  it to 4"), a reference (a URL), pasted code, output or files, a correction, or any plain
  statement. Information wins over everything else: "The L2 is 50 MB; does your tile fit?" is
  information, because the question answers itself.
- `question`: an interrogative sentence ("Is that win noise?", "what do you mean there's no
  matmul", "can you check whether the loads coalesce") and no information.
- `directive`: an action without a question ("commit and push", "run the tests", "can you
  update STATUS.md").
- `other`: acknowledgements and choices ("yes", "ok sure", "Option A", an answer picked from
  the agent's own multiple-choice question).

The rules are plain regular expressions over sentences; `Classification.reasons` says which
fired, so the report can show why a message was not proposed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from questions.mine.dispatch import dispatched
from questions.mine.orders import MEASURE_VERB, TRY_INPUT, changes, checks_run, doubts, measurement_order
from questions.mine.phrases import CONTENT, FILLER, MEASURABLE, rx, strip_filler
from questions.mine.topics import topics

_DIGIT = re.compile(r"\d")

LABELS: tuple[str, ...] = ("question", "directive", "information", "other")


@dataclass(frozen=True)
class Classification:
    label: str  # one of LABELS
    reasons: tuple[str, ...]  # the rules that decided it ("hardware number", "suggests a solution", ...)
    question_part: str  # for questions: the interrogative sentences (and measurement requests after them)


_WH = rx(r"^(?:what|why|how|which|where|when|who|whos|who's|whose|whom|what's|whats|how's|hows|where's|why's|whys|"
         r"wat|wats|wht|waht|whta)\b")  # (as typed in a hurry)
_AUX = (r"(?:is|are|was|were|do|does|did|can|could|should|would|will|has|have|had|am|isn't|aren't|doesn't|"
        r"didn't|won't|wouldn't|shouldn't|can't|haven't|hasn't|don't|weren't|wasn't|'s|'re)")
# Without a question mark, a wh-word opens a question unless it opens a clause: "when you're done
# ...", "where we left off", "how the structure works", "which most people don't", "what I wanted
# to change was this".
_WH_CLAUSE = rx(r"^(?:what\s+(?:i|we|you|they|he|she|people)\s+(?!" + _AUX + r"\b|need to know)\w+|"
                r"which\s+(?:most|means|meant|makes|made|also|would mean|is why|was why)\b|"
                r"(?:when|where|how|while|whenever|wherever|who)\s+(?!" + _AUX + r"\b|much\b|many\b|long\b|"
                r"far\b|often\b|close\b|fast\b|slow\b|big\b|large\b|small\b|come\b|exactly\b|else\b)"
                r"(?:i|we|you|youre|you're|they|he|she|it|its|it's|the|a|an|this|that|these|those|our|your|"
                r"my|their|people|users|someone|somebody|anyone|anybody|one|nobody)\b)")
_AUX_Q = rx(r"^(?:(?:u|you|ya)(?=\s+sure\b)|r(?=\s+(?:u|you|we|they)\b)|is|are|was|were|does|did|has|have|had|isn't|aren't|doesn't|didn't|hasn't|haven't|wasn't|"
            r"weren't|isnt|arent|doesnt|didnt|will|would|should|shall|may|might|won't|wouldn't|shouldn't|"
            r"am|any)\b")
# "might be in the docs", "should have checked": a modal with no subject is a statement
_AUX_NOT_Q = rx(r"^\w+\s+(?:be|been|being|have|not|also|just|probably|need|needs|to|go|do|get|work|help)\b|"
                r"^have\s+(?:a\s+(?:look|go|try|think|read|peek|quick look)|fun)\b")
#: "have the warp read along the rows": a causative order, unless asked ("have the numbers changed?")
_HAVE_DO = rx(r"^ha(?:ve|s|d)\s+(?!(?:you|u|we|they|i|ya|he|she|it|there)\b)")
#: a value asked for: a suspicion said after it is what the measurement tests ("what's gpu time vs host
#: time per call? i suspect the launch dominates"), not a cause handed over
_WH_VALUE = rx(r"^(?:what'?s|whats|what\s+(?:is|are|was|were)|how\s+(?:much|many|long|fast|close|big|often))\b"
               r"(?![^?]{0,30}\b(?:caus\w*|wrong|the\s+(?:problem|issue|reason|cause|fix))\b)")
_CAN_Q = rx(r"^(?:can|could|cannot|can't|couldn't)\s+(?!you\b|u\b|we\b|ya\b)\w")
# "do we ...", "do the loads coalesce": a question; "do a git diff", "do it", "do the same": an order
_DO_Q = rx(r"^(?:do|(?:don't|dont)(?=\s+(?:we|you|they|i|he|she|it|these|those)\b))\s+"
           r"(?!(?:a|an|it|this|that|some|something|nothing|whatever|so|not|what|as|"
           r"the same|the rest|the following|the other|all of|both of|one|more|less|whatever|them|these changes)\b)"
           # "do the intra-chunk part as a small matmul": an order (not "do the loads coalesce")
           r"(?!the\s+[\w-]+(?:\s+[\w-]+)?\s+(?:as|using|via|first|separately|later)\b)"
           r"\w+(?:\s+\w+)?\s+\w+")
_REQUEST = rx(r"^(?:please\s+|pls\s+|so\s+)?(?:can|could|would|will|can't|couldn't)\s+(?:you|u|we|ya)\s+(?:please\s+)?"
              r"(?:just\s+|quickly\s+|also\s+|maybe\s+|now\s+)?(\w+)")
_ASK_VERBS = rx(r"^(?:tell|explain|show|check|verify|confirm|measure|find|figure|see|look|say|describe|"
                r"estimate|count|compute|calculate|work|determine|profile|print|compare)\b")
_WH_ANYWHERE = rx(r"\b(?:whether|if|why|what|how|which|where|when|who)\b")
_INDIRECT_Q = rx(r"^(?:(?:you|u|ya)\s+know\s+(?=what|how|why|where|which|whether|if)|any idea|any ideas|i wonder|i'm wondering|im wondering|i am wondering|i'm curious|"
                 r"im curious|curious|wondering|do you know|do you have any idea|"
                 r"(?:tell me|explain|show me|walk me through)\s+(?:why|what|how|whether|which|where|when|if))\b")
_IMPERATIVE = rx(
    r"^(?:please\s+|pls\s+|just\s+|now\s+|first\s*,?\s+|then\s+|next\s*,?\s+|also\s+|and\s+|go ahead and\s+|"
    r"i need you to\s+|i want you to\s+|i'd like you to\s+|we need to\s+|we should\s+|you need to\s+|"
    r"make sure\s+|let's\s+|lets\s+|let us\s+)*"
    r"(?:(?:have|take)\s+a\s+(?:look|go|quick look|peek)|"
    r"commit|push|pull|merge|rebase|run|rerun|re-run|test|build|rebuild|compile|update|write|add|create|open|"
    r"close|delete|remove|revert|undo|redo|fix|implement|continue|proceed|go|stop|start|restart|read|look|show|"
    r"explain|print|list|give|profile|measure|time|benchmark|bench|verify|check|make|move|rename|refactor|"
    r"document|clean|spawn|launch|install|setup|set|keep|save|record|log|report|summari[sz]e|plot|dump|count|"
    r"compare|repeat|try|use|switch|change|edit|modify|replace|review|investigate|debug|figure|find|search|"
    r"describe|note|mention|include|exclude|skip|ignore|drop|wrap|finish|publish|deploy|upload|download|"
    r"walk|help|do|ensure|capture|attach|track|tag|label|file|draft|plan|design|research|unblock|learn|"
    r"switch|checkout|check out|cd|ssh|send|post|reply|ask|rewrite|port|split|consider|think|simplify|"
    r"don't|do not|dont|never|always|avoid|quantify|analy[sz]e|inspect|instrument|assert|disable|enable|"
    r"turn off|turn on)\b")
_ACK = rx(r"^(?:yes|yeah|yep|yup|ya|y|no|nope|nah|ok|okay|k|kk|sure|fine|great|good|nice|cool|thanks|thank you|"
          r"thx|ty|perfect|awesome|done|correct|right|exactly|agreed|makes sense|sounds good|lgtm|got it|"
          r"option \w|both|neither|all of them|all three|either|the first|the second|the first one|"
          r"the second one|a|b|c|a then b|b then a|[a-d]\s*(?:and|then|,)\s*[a-d]|public is fine|"
          r"okay sure|ok sure|sure thing|that works|works for me|go for it|ship it)"
          r"(?:[\s,.!]+(?:for sure|please|thanks|thank you|sure|then|too|that|works|is fine|one))*[\s.!]*$")

# -- information ----------------------------------------------------------------------------------

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
    rx(r"^because\b"),
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
_SOLUTION_TERMS = (
    r"(?:wgmma|wmma|mma(?:\.sync)?|tma|cp\.async|ldmatrix|stmatrix|tensor\s?cores?|tensorcores?|cutlass|cute|"
    r"cublas(?:lt)?|cudnn|triton|thrust|cub|cufft|cupy|shared\s+mem(?:ory)?|smem|registers?|warp\s+shuffles?|"
    r"shfl\w*|__\w+|ldg|float4|float2|half2|vectori[sz]ed|vector\s+loads?|128[- ]bit|swizzl\w*|padding|pad|"
    r"split[- ]?k|stream[- ]?k|persistent|double[- ]buffer\w*|multi[- ]?stage|pipelin\w*|async\s+cop\w+|"
    r"coalesc\w*|fuse|fusion|fused|unroll\w*|tiling|tiles?|tile\s+size|block\s*size|launch\s+bounds|"
    r"maxrregcount|-o3|fast[-_ ]math|fma|fp16|bf16|fp8|tf32|fp32|int8|half|online\s+softmax|exp2|rsqrt|"
    r"intrinsics?|warp[- ]speciali[sz]\w*|producer|consumer|clusters?|multicast|dsmem|tmem|tcgen05|"
    r"cuda\s+graphs?|graphs|streams?|pinned|memcpyasync|atomics?|atomicadd|tree\s+reduction|warp\s+reduc\w*|"
    r"block\s+reduc\w*|avx\w*|simd|neon|openmp|omp|prefetch\w*|non[- ]temporal|huge\s+pages|numa|mkl|blas|"
    r"lookup\s+table|lut|bit\s+tricks?|recompute|precompute\w*|cach(?:e|ing)|transpose\w*|reorder\w*|"
    r"im2col|winograd|fft|gemm|batched|bigger|larger|smaller|fewer|more\s+(?:threads|warps|blocks|stages)|"
    r"(?:out of|outside|into|inside|before|after)\s+the\s+(?:inner\s+|main\s+|hot\s+)?loop|"
    r"(?:a|one)\s+(?:warp|block|thread|cta)\s+per\s+\w+)")
# a number given as a setting ("to 128", "4 warps"), not a name ("the 4096x4096 case")
_NUM_PARAM = (r"\b(?:to|by|of)\s+\d+\b|\b(?:\d+|two|three|four|eight|sixteen|thirty-two)\s*(?:warps?|threads?|blocks?|stages?|registers?|regs|tiles?|"
              r"elements?|bytes?|kb|-?way|-?wide|lanes?|buffers?|ctas?)\b")
_SOLUTION = [
    rx(r"^(?:(?:just|then|so|and)\s+)*do\s+(?:it|this|that|the\s+\w+)\s+(?:in|with|using|via)\s+\w+"),
    rx(r"\b(?:have you tried|did you try|have you considered|did you consider|have you thought about|"
       r"did you think about|have you thought of)\b(?!\s+(?:running|rerunning|"
       r"measuring|profiling|timing|checking|looking|comparing|printing|counting|testing|it again|again))"),
    rx(r"\b(?:would|could|might|will|can)\s+(?:it|that|this)\s+help\s+(?:to|if)\b"),
    rx(r"\bwhy not\s+(?!(?:more|less|yet|now|faster|slower|higher|lower|better|worse|so|too|as|all|every|"
       r"both|sure|here|there|at all|quite|entirely)\b)[a-z]"),
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
       r"[^.?!]*?(?:\b" + _SOLUTION_TERMS + r"\b|" + _NUM_PARAM + r")"),
    rx(r"\b(?:what about|how about|what if (?:you|we)|maybe|perhaps|instead|rather|switch(?: over)? to|go with)\b"
       r"(?!\s+(?:the\s+|a\s+)?(?:small|smaller|large|larger|big|bigger|tiny|huge|odd|other|edge|empty|short|long)\s+"
       r"(?:grids?|sizes?|shapes?|inputs?|cases?|batch\w*|problems?|matri\w+|rows?|seq\w*)\b)"
       r"[^.?!]{0,40}\b" + _SOLUTION_TERMS + r"\b"),
    rx(r"\b(?:could you|can you|should you|should we|shouldn't we|you should|you could|you might|we should|"
       r"we could|you need to|you have to|we need to|i'd|i would|let's|lets)\s+(?:just\s+|also\s+|maybe\s+)?"
       r"(?:use|try|add|switch|move|put|store|keep|load|apply|enable|turn on|increase|decrease|make|give|"
       r"change|replace|rewrite|tile|unroll|fuse|pad|swizzle|cache|prefetch|split|batch)\b[^.?!]{0,40}\b"
        + _SOLUTION_TERMS + r"\b"),
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
               + _SOLUTION_TERMS + r")\b")
# "isn't exp2f cheaper than expf here?": a better way handed over as a question
_LEADING_BETTER = rx(r"^(?:would\s+(?:a|an|the|using|switching|moving|fusing)\b[^?]{0,100}\b(?:avoid|help|fix|remove|hide|save|cut|reduce|"
                     r"speed\s+up)\b)|^(?:isn't|aren't|isnt|arent|wouldn't|wouldnt|won't|wont|doesn't|doesnt|shouldn't|shouldnt|surely)\b(?:[^?]{0,30}\bthe\s+"
                     r"(?:real\s+|actual\s+|right\s+|proper\s+|obvious\s+|whole\s+|only\s+|main\s+)?(?:fix|answer|solution|"
                     r"problem|issue|cause|culprit|bottleneck|reason)\b|"
                     # "isn't that gap just python overhead ...?", "isn't the masked row thing fixed by ...?"
                     r"[^?]{0,60}\bjust\s+(?!(?:to|as|like|in case|now|checking|asking|wondering|curious)\b)\w|"
                     r"[^?]{0,60}\b(?:fixed|solved|handled|avoided|hidden|covered)\s+by\b|[^.?!]{0,60}\b"
                     r"(?:cheaper|faster|better|simpler|quicker|more efficient|the way to go|good enough|"
                     r"beat|beats|outperform\w*|win)\b|[^.?!]{0,120}\b(?:made|meant|designed|built)\s+for\b|"
                     r"[^?]{0,80}\bbecause\b|"
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
# "maybe it's the integer division?", "could it be the atomics?": a cause offered, even as a question
_HYPOTHESIS = rx(r"^(?:(?:is it because|isn't it because|my guess is|my bet is|i bet|i suspect|i guess it's|"
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
_MEASURE_VERBS = rx(r"^(?:(?:please|just|then|and|now)\s+)*(?:run|rerun|re-run|show|measure|profile|time|print|"
                    r"count|check|compare|plot|dump|list|report|give|tell|look|read|verify|confirm|test|prove|"
                    r"repeat)\b")

_SPLIT = re.compile(r"(?<=[?!])\s+|(?<=\.)\s+(?=\S)|\.{2,}|\n+|;\s+|\s+(?:-{1,3}|[—–])\s+(?=\w)(?![^(]*\))|"
                    r":\s+(?![^:?]{1,20}\?\s*$)|"  # (not before a short choice: "causal vs dense: ~2x or ~1x?")
                    r",\s+(?=(?:so|and|but|or)\s+which\b|(?:so\s+|and\s+|but\s+|or\s+)?(?:what|why|how|where|what's|how's|whats|wats|"
                    r"has|have|is|are|does|did|was|were|do|r\s+(?:u|you)|(?:u|you)\s+sure)\b)|"
                    # "... is best but did autotune actually pick that?"
                    r"\s+but\s+(?=(?:did|does|do|is|are|was|were|has|have|can|could)\s+(?:it|you|u|we|they|the|this|that|"
                    r"autotune|ncu|nsys)\b)|"
                    # "your 1.4x is vs the old seed number, measure the seed again ...": an order after a comma
                    r",\s+(?=(?:pls\s+|please\s+)?(?:measure|re-?measure|re-?time|profile|bench|benchmark|rerun|re-run|"
                    r"redo|dump|validate|prove|verify|confirm)\s+(?:it|the|this|that|both|them|each|every|all|again)\b)|"
                    r",\s+(?=(?:who|whos|who's)\s)|"
                    # "you keep claiming the conflicts are gone, got numbers for that?": evidence asked after a claim
                    r",\s+(?=(?:got|have|any)\s+(?:(?:the|some|real|actual)\s+)?(?:numbers?|data|proof|evidence|measurements?|"
                    r"sources?|a\s+source|a\s+profile)\b[^,?]{0,20}\?\s*$)|"
                    r",\s+(?=(?:can|could)\s+(?:you|u)\s+[^,?]{1,30}\?\s*$)|"
                    r",\s+(?!(?:right|correct|no|yes|yeah|true|ok|okay)\s*\?)(?=[a-z][\w-]*(?:\s+[a-z][\w-]*)?\?\s*$)",
                    re.I)  # "..., identical?" (not a tag: "..., right?")
_CODE_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)


#: An order named before a colon, its object after it: one sentence ("table: case | seed | ours",
#: "A/B it: with vs without the last commit", "check memory workload analysis: l2 hit ratio").
_LABEL_ORDER = re.compile(r"^(?:pls\s+|please\s+)?(?:table|tabulate|ablate|a/b|ab test|check|re-?measure|profile|re-?time|compare|"
                          r"diff|count|dump|list|show)\b(?:\s+[\w/.-]+){0,3}$|"
                          # "query nvidia-smi while it runs: clocks, power draw, ..."
                          r"^(?:pls\s+|please\s+)?(?:query|poll|sample|watch|log)\s+(?:nvidia-smi|dcgm\w*|nvml|rocm-smi|the\s+gpu)\b(?:\s+[\w/.-]+){0,5}$|"
                          # "show me the roofline point for the kernel: achieved FLOP/s and ..."
                          r"^(?:pls\s+|please\s+)?(?:show|give|print|report|list|measure|compute|dump)\s+(?:me|us)\s+"
                          r"(?:the|a|an)\s+(?:[\w/.-]+\s+){0,6}[\w/.-]+$", re.I)
_ABBREV = re.compile(r"\b(?:e\.g|i\.e|vs|etc|approx|cf|resp|incl|eq|fig)\.", re.I)


@lru_cache(maxsize=65536)
def sentence_spans(text: str) -> tuple[tuple[int, int], ...]:
    """(start, end) of each sentence of a message (also split at '..', ': ' and line breaks)."""
    if "." in text:
        text = _ABBREV.sub(lambda m: m.group(0)[:-1] + "\u2024", text)  # a one-dot leader: not a full stop
    spans = []
    pos = 0
    glue = False
    for m in list(_SPLIT.finditer(text)) + [None]:
        end = m.start() if m is not None else len(text)
        a, b = pos, end
        while a < b and text[a] in ' \t"':
            a += 1
        while b > a and text[b - 1] in ' \t"':
            b -= 1
        if b > a:
            if spans and glue:  # "table: case, seed ms, ours ms", "ablate: turn off X and measure"
                a = spans.pop()[0]
            spans.append((a, b))
        glue = m is not None and text[m.start():m.end()].startswith(":") and _LABEL_ORDER.match(text[a:b]) is not None
        if m is not None:
            pos = m.end()
    return tuple(spans)


def sentences(text: str) -> list[str]:
    """The sentences of a message (also split at '..', ': ' and line breaks, as people type)."""
    return [text[a:b] for a, b in sentence_spans(text)]


def is_interrogative(sentence: str) -> bool:
    """Whether one sentence asks something: a question's form (a wh-word that does not open a clause,
    an auxiliary before its subject, "can you check whether ...", "any idea why ..."), with or without
    a question mark. A request ("can we add which index it is to the log?"), a proposal ("how about
    including the sha?", "should we group runs by experiment?") or a statement with a question mark
    ("we added that test in this PR, yeah?", "or #172?") is not a question."""
    s = sentence.rstrip(" \"')]}*_")
    core = strip_filler(s.lower())
    if _PROPOSAL.match(core):
        return False
    m = _REQUEST.match(core)
    if m:  # "can you/we <verb> ...": asks when it asks for a measurement or a question follows the verb
        rest = core[m.start(1):]
        if _CHECK_IN.match(rest):  # a commit ("can you check in the fix so we know it's saved?")
            return False
        return bool(_MEASURING.match(rest) or (_ASK_VERBS.match(m.group(1)) and _asks_within(rest))
                    or (m.group(1) == "see" and (MEASURABLE.search(rest) or topics(rest)))
                    or re.fullmatch(r"(?:verify|check|confirm|prove)(?:\s+(?:it|that|this))?\W*", rest) is not None
                    or (MEASURE_VERB.match(rest) is not None and measurement_order(rest))
                    or _REPORT_BACK.search(rest) or _AND_MEASURE.search(rest))
    lead = _LEADING_SETTING.match(core) or _CLAUSE_THEN_ASK.match(core)
    if lead and not _PLACE_STATED.match(core):
        rest = core[lead.end():]
        if is_interrogative(rest):
            return True
        if _REQUEST.match(rest):  # "when you're done could you push the branch?": the request decides
            return False
    if ((_WH.match(core) and not _WH_CLAUSE.match(core))
            or (_AUX_Q.match(core) and not _AUX_NOT_Q.match(core) and (s.endswith("?") or not _HAVE_DO.match(core)))
            or _CAN_Q.match(core) or _DO_Q.match(core) or _INDIRECT_Q.match(core)):
        return True
    # as steerers type over SSH: "l2 hit % for rmsnorm_fwd?", "stdev across 10 runs?", "achieved
    # occupancy pls", "list every case where new < old"
    measuring = _MEASURE_VERBS.match(core) is not None
    action = not measuring and _IMPERATIVE.match(core) is not None
    if s.endswith("?") and len(core.split()) <= 3:
        # "launch overhead?", "spill count?" (a verb's form, a measurement's name), "that fail flaky?"
        if re.match(r"(?:that|this)\s", core):
            if topics(core):
                return True
        elif core[:1].isalpha() and not _STATEMENT_OPEN.match(core) and (
                topics(core) or MEASURABLE.search(core) or _TERSE_CHECK.match(core)):
            return True
    if len(core.split()) <= 12 and _OR_JUST.match(core) and not _IMPERATIVE.match(core):
        return True
    if _TERSE_OK.match(core):
        return True  # "odd seqlens ok?", "big tensors fine?" (not "that ok?", a tag)
    if (s.endswith("?") and (core[:1].isalnum() or core[:1] == "%") and not action and not _STATEMENT_OPEN.match(core)
            and not _SUBJECT_VERB_EARLY.match(core) and not _HEDGED.search(core) and not _TAG_END.search(core)
            and not _ASKS_FOR_ACTION.search(core) and 1 <= _weight(core) and len(core.split()) <= 16):
        return True
    if _PLEASE.search(core) and len(core.split()) <= 20 and (_REPORT_MEASURE.match(core) or (
            (MEASURABLE.search(core) or topics(core)) and not (_IMPERATIVE.match(core) or _ACTION_ANYWHERE.search(core)))):
        return True  # a value asked for ("err numbers pls"), or a measurement ("compare to cuBLAS pls")
    if _WANT_TO_KNOW.search(core) or _SAYS_WHAT.search(core) or _WANT_VALUE.match(core):
        return True
    if _TELL_ME_WHAT.search(core):
        return True  # "run ptxas -v on it and tell me regs per thread", "... and tell me what comes out"
    if s.endswith("?") and _IF_THEN_ASK.match(core):
        return True  # "if you change the input between calls does the output change?"
    return measuring and _REPORT_MEASURE.match(core) is not None and _asks_within(core)


#: A setting said before the question: "for the moe scenarios whats ...", "on b8 is the kernel ..."
_LEADING_SETTING = rx(r"^(?:for|on|in|at|across|with|after|before|during)\s+"
                      r"(?:(?!(?:we|i|you|u|they|he|she|it|know|knew|think|see|saw|said|wrote)\b)[\w.%/=-]+,?\s+){1,10}?"
                      r"(?=(?:what|whats|what's|how|which)\b)")
#: A setting or a clause before a request that asks: "in the bfs kernel where each thread walks its
#: list, can you measure branch efficiency", "before you kick off the sweep can you check nvidia-smi"
_CLAUSE_THEN_ASK = rx(r"^(?:for|on|in|at|across|with|after|before|during|once|when|while|if|since|given)\s+[^?]{3,160}?"
                      r"(?:,\s*|\s)(?=(?:can|could|would|will)\s+(?:you|u|we|ya)\b)")
#: not a setting but a statement of what is there ("in /path/to/x is an open source repo that ...")
_PLACE_STATED = rx(r"^(?:for|on|in|at)\s+\S+(?:\s+\S+){0,3}?\s+(?:is|are|was|were|lives?|sits?)\s+(?:a|an|the|one|our|my|some)\b")
#: "i want the number without the last patch", "we need the timings per scenario"
_WANT_VALUE = rx(r"^(?:i|we)\s+(?:want|need|'d like|would like|wanna)\s+(?:to see\s+)?(?:the|a|an|some)?\s*"
                 r"(?:numbers?|figures?|timings?|times?|counts?|values?|breakdown|ratio|speedups?|measurements?)\b|"
                 # "..., whichever, just need the GiB" (the value's unit, at the end)
                 r"(?:^|.*,\s*)(?:i\s+|we\s+)?(?:just|only)\s+(?:need|want)\s+(?:the\s+|a\s+)?(?:numbers?|figures?|values?|"
                 r"gib|gb|mib|mb|kib|ms|us|µs|ns|%|percent|counts?|ratio|bytes|gb/s|tb/s|tflop/?s)\s*[.!]*$")
#: "ncu says what for l1tex__t_sectors ...", "the profile shows how many ...": asked mid-sentence
_SAYS_WHAT = rx(r"\b(?:says?|shows?|gives?|reports?)\s+(?:what|how\s+(?:many|much))\b")
#: A sentence that opens with its subject and verb is a statement, question mark or not ("we added
#: that test in this PR, yeah?", "I didn't see the stop hook fire?", "the tolerance is 1e-2?").
_STATEMENT_OPEN = rx(r"^(?:or|and|but|if|i|we|you|u|it|that|this|there|he|she|they|it's|its|that's|thats|there's|"
                     r"theres|i'm|im|we're|you're|they're|i've|we've|i'd|we'd|i'll|we'll)\b|"
                     r"^(?:the|a|an|our|your|my|its|this|that|these|those)\s+(?:[\w.-]+\s+){0,3}(?:is|are|was|were|"
                     r"has|have|had|uses?|used|does|did|will|can|should|would|must|gets?|got|isn't|aren't|wasn't|"
                     r"doesn't|didn't|won't|wouldn't|can't|couldn't|shouldn't)\b")
#: "..., want to know if we spill": what is asked, said outright
_WANT_TO_KNOW = rx(r"\b(?:want|wanna|need|like|trying)\s+to\s+(?:know|see|find out|understand)\s+(?:if|whether|how|what|why|"
                   r"where|which|when)\b")
#: "crap we still have merge issues?", "so it works now?": a statement, asked to be confirmed
_SUBJECT_VERB_EARLY = rx(r"^(?:\w+\s+){0,2}(?:i|we|you|they|it|that|this)\s+(?:\w+\s+)?(?:have|has|had|are|is|was|were|"
                         r"do|did|does|still|also|just|need|needs|think|guess|want|works?|worked|broke|fixed|got)\b")
#: "I guess they were from the old branch?", "maybe the tile is too big?": a guess offered
_HEDGED = rx(r"\b(?:i guess|i think|i suspect|i believe|i assume|i suppose|probably|presumably|maybe|perhaps)\b")
_TAG_END = rx(r"\b(?:right|correct|yeah|yes|no|true|ok|okay|eh|huh)\s*\?\s*$")
#: An action named anywhere in a "please" sentence ("the status doc, update it please"): a directive
_ACTION_ANYWHERE = rx(r"\b(?:update|fix|add|write|make|change|create|remove|delete|log|document|commit|push|merge|"
                      r"implement|refactor|rename|move|install|open|close|try|use|switch|revert|undo|continue|go|"
                      r"help|do|clean|edit|modify|replace|finish|file|draft|send|post|run|rerun|build|rebuild|"
                      r"analy[sz]e|investigate|review|read|look|check)\b")
#: "for now can we document it?", "..., can you analyze the codebase?": a request inside the sentence
_ASKS_FOR_ACTION = rx(r"\b(?:can|could|would|will|should|shall)\s+(?:we|you|u|i)\b|\blet'?s\b")
#: A value asked for with a "please" ("err numbers pls", "ncu occupancy for attn_fwd please").
_PLEASE = rx(r"\b(?:pls|plz|please|plez)\b")
#: An imperative that asks for a report of something ("list every case where ...", "show which ...").
_REPORT_MEASURE = rx(r"^(?:(?:please|pls|plz|just|then|and|now)\s+)*(?:list|show|print|report|plot|count|measure|time|"
                     r"profile|compare|tell me|explain|quantify|estimate)\b")
#: An action followed by the question it is for: "... and tell me what comes out" (not "... and show me
#: the summary", a directive, nor "... and tell me when it's done")
_TELL_ME_WHAT = rx(r"\b(?:and|then|,)\s+(?:tell|let)\s+me\s+(?:know\s+)?(?:what|how|whether|if|which|where|why|"
                   r"the\s+numbers?|the\s+count|regs)\b")
#: A question after a condition: "if you change the input, does the output change?"
_IF_THEN_ASK = rx(r"^(?:if|when|once|after)\s+[^?]{3,140}?[\s,]\s*(?:does|do|did|is|are|was|were|will|would|can|could|has|"
                  r"have)\s+(?:the|it|we|you|u|they|this|that|these|those|our|your|its)\b")


#: A proposal asked as a question: the steerer's own plan, handed over for agreement.
_PROPOSAL = rx(r"^(?:(?:how|what)\s+about(?!\s+(?:the\s+|a\s+)?(?:small|smaller|large|larger|big|bigger|tiny|huge|odd|other|edge|"
               r"empty|short|long)\s+(?:grids?|sizes?|shapes?|inputs?|cases?|batch\w*|problems?|matri\w+|rows?|seq\w*)\b)(?=\s+(?:\w+ing|a|an|one|just|instead|adding|trying)\b|[^?]*\b" + _SOLUTION_TERMS + r"\b)|(?:maybe|might be|may be|probably)\s+worth|what if (?:we|you|i)|should we|shall we|shouldn't we|could we not|"
               r"(?:shouldn't|shouldnt|should)\s+(?:you|u)\s+(?:be\s+)?(?!(?:have|know|check|verify|measure|test|profile|run|rerun)\b)\w+|"
               r"can we not|can't we|cant we|couldn't we|why don't we|we could|we can|we should|let's|lets|let us|"
               r"maybe we)\b")


#: A request whose verb itself asks for a number ("can you compare X with Y", "can u profile it").
_MEASURING = rx(r"^(?:compare|measure|profile|count|estimate|compute|calculate|time|quantify|nsys|ncu|bench|"
                r"benchmark|print|report|dump|break\s+(?:it\s+|this\s+|that\s+)?down)\b|"
                # "can you confirm the mma path is taken", "verify the gemm gives the right answer": a claim to check
                r"^(?:confirm|verify|check)\s+(?:that\s+|whether\s+|if\s+)?[^?]{0,60}?\b(?:is|are|was|were|gives?|"
                r"match(?:es)?|pass(?:es)?|works?|holds?|stays?|takes?|produces?|returns?|contains?|includes?|uses?|has|"
                r"have|runs?|hits?|lands?)\b")
#: "... and count the kernels", "... and tell me the number": the action is there to measure
_AND_MEASURE = rx(r"\b(?:and|then)\s+(?:count|measure|time|compare|quantify|tell|show|give|report|let me know|grab|pull|"
                  r"get|dump|print|paste|collect|"
                  r"check|verify|confirm)\b")
#: A request that asks for the result to be reported ("... and tell me the number", "... so we know where
#: the roof is", "can u paste it"): a measurement asked for, not an action.
_REPORT_BACK = rx(r"\b(?:tell|show|give)\s+(?:me|us)\b|\bpaste\b|\breport\s+(?:back|the)\b|"
                  r"\bso\s+(?:we|i|you)\s+(?:know|(?:can\s+)?see)\b")


def _asks_within(s: str) -> bool:
    return bool(_WH_ANYWHERE.search(s) or _TO_CONFIRM.search(s))


#: "check in the fix": a commit (not "check in the profiler whether ...", a look)
_CHECK_IN_WORDS = r"check\s+in\s+(?:the\s+|your\s+|my\s+|our\s+)?(?:fix|fixes|change|changes|patch|work|code|it|them|this|that)\b"
_CHECK_IN = rx("^" + _CHECK_IN_WORDS)
#: a look whose purpose is a finding: "check the ptx to confirm it emits wgmma", "... so we know the
#: loads go through TMA" (not "check in the fix")
_TO_CONFIRM = rx(r"^(?!" + _CHECK_IN_WORDS + r")[^?]{0,80}?\b(?:to\s+(?:confirm|verify|see|make\s+sure|find\s+out|prove)|"
                 r"so\s+(?:that\s+)?(?:we|i|u|you)\s+(?:can\s+)?(?:know|see|confirm|tell))\b")


_REQUEST_WITHIN = rx(r"\b(?:we can|you can|we could|you could|let's|lets|please|go ahead and|i want you to|"
                     r"i need you to|make sure)\s+(?:just\s+|also\s+|now\s+)?(?:commit|push|merge|run|rerun|test|"
                     r"build|update|write|add|create|open|delete|remove|revert|fix|implement|continue|do|make|"
                     r"move|check|verify|measure|profile|show|try|use|change|set|finish|publish|record|save)\b|"
                     r"\b(?:commit|push|merge|deploy|publish)\s+(?:and|&|then)\s+(?:push|merge|deploy|publish)\b")


def _is_request(sentence: str) -> bool:
    core = strip_filler(sentence.lower())
    return bool(_REQUEST.match(core) or _IMPERATIVE.match(core) or _REQUEST_WITHIN.search(core))


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
_TERM = rx(r"\b" + _SOLUTION_TERMS + r"\b")
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
                   r"mentioned|report|reported|wrote|measured|got|found|called)\b|^your\s+(?:\w+\s+){0,2}(?:says|said|shows|showed)\b")


#: what is asked after an action: "... and tell me the register count"
_ASKED_AFTER = rx(r"\b(?:and|then|,)\s+(?:tell|show|give)\s+(?:me|us)\b|\b(?:and|then|,)\s+(?:report|print|paste|list)\b")
#: "verify kernel correct?": a check asked in a few words
_TERSE_CHECK = rx(r"^(?:verify|check|confirm)\s+\w+")
#: "full ci green or just ur one test": a choice between a whole run and a part of it, asked without "?"
_OR_JUST = rx(r"^(?!(?:i|we|you|u|it|that|this|they)\b)[^?]{2,60}\bor\s+(?:just|only)\s+(?:the\s+|ur\s+|your\s+|a\s+|one\s+)?\w+")
#: "odd seqlens ok?": a terse asking whether a case works ("that ok?" is a tag)
_TERSE_OK = rx(r"^(?!(?:that|this|it|all|everything|we|you|u|i|so|and|ok|okay)\b)(?:[\w.+/-]+\s+){1,3}"
               r"(?:ok|okay|fine|good|handled|covered|safe)\s*\?$")
#: an order to check that follows a leading question: the check is what is asked
_CHECK_ORDER = rx(r"^(?:(?:pls|please|then|so|now|just|go)\s+)*(?:redo|rerun|re-run|re-?measure|measure|re-?profile|profile|"
                  r"re-?time|time|check|verify|prove|show)\b")
#: a cause put as a question: "doesn't the memset cost you a launch?", "could the mismatch be ...?"
_DOUBTED_CAUSE = rx(r"^(?:doesn't|doesnt|isn't|isnt|aren't|arent|wouldn't|wouldnt|won't|wont|don't|dont|shouldn't|shouldnt|could|"
                    r"might|would|did\s+(?:you|u)\s+(?:set|use|try|enable|add|turn\s+on|pin|switch|bump|raise|lower)|"
                    r"(?:are|r)\s+(?:you|u)\s+using|have\s+(?:you|u)\s+(?:looked\s+at|considered|tried)|"
                    r"does\s+(?:the|it|this|that)\b[^?]{0,40}\beven\s+need|"
                    r"did\s+(?:you|u)\s+(?:build|compile|target|link)\s+(?:for|with|against)\b[^?]{0,40}\b(?:instead\s+of|and\s+not|not|rather\s+than)|"
                    # "is the 1e-3 error just tf32? tl.dot uses tf32 by default ..." (followed by why: a cause)
                    r"(?:is|are)\s+(?:the|this|that|it|these|those|our|your)\b[^?]{0,40}\b(?:just|only|simply)\s+(?:a\s+|an\s+|the\s+)?"
                    r"(?!(?:noise|luck|random|variance|jitter)\b)\w+)\b")
#: a build whose flags make the compiler report (registers, spills, line info), not a technique
_REPORTING_BUILD = rx(r"^(?:(?:please|pls|just|then|now)\s+)*(?:re-?)?(?:compile|build)\b[^.;]{0,60}?"
                      r"(?:-xptxas[ =]-?v\b|--ptxas-options[ =]-?v\b|--resource-usage|-res-usage|-lineinfo|--keep\b|-keep\b)")
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
        sentences_ = sentences(_CODE_FENCE.sub(" ", text))
    if flags is None:
        flags = [is_interrogative(s) for s in sentences_]
    cores = [strip_filler(s.lower()) for s in sentences_]
    checked = {i for i in range(len(sentences_) - 1) if not flags[i + 1] and _CHECK_ORDER.match(cores[i + 1])}
    for i, (s, question) in enumerate(zip(sentences_, flags)):
        ls = s.lower()
        core = cores[i]
        digits = _DIGIT.search(ls) is not None
        quoting = _QUOTES_AGENT.match(core) is not None  # the agent's own figure, handed back to it
        if digits and not quoting and _HW_NUMBER_ANY.search(ls) and (
                not question or _RHETORICAL.match(core) or _HW_SPEC_NUMBER.search(ls)):
            reasons.append("hardware number")
        if not question and not quoting and _HW_FACT.search(ls):
            reasons.append("hardware fact")
        if not question and not quoting and _ANSWER_ANY.search(core):
            reasons.append("gives the answer or cause")
        if question and _TAG_TAIL.search(ls[-40:]) and _TAG_FACT.search(ls) and not _WH.match(core) and not _AUX_Q.match(core):
            reasons.append("states a fact to confirm")
        if _HANDS_OVER.match(core):
            reasons.append("hands over a fact")
        if _HYPOTHESIS.match(core) and not any(flags[j] and _WH_VALUE.match(cores[j]) for j in range(i)):
            reasons.append("offers a cause")  # (not after a value asked: "what's gpu vs host time? i suspect ...")
        if question and (_LEADING.search(core) or _LEADING_BETTER.match(core) or _CANT_IT.match(core)) \
                and i not in checked:  # ("isn't that just L2 serving it warm? redo it cold": the check is asked)
            reasons.append("gives the answer or cause")  # "isn't it memory bound?" hands over a diagnosis
        if digits and _LOCATION.search(ls):
            reasons.append("points at the place")
        tried_input = (TRY_INPUT.match(core) is not None or checks_run(core)) and measurement_order(s)
        # the technique is in what is done, not in what is asked after it ("compile with -Xptxas -v and
        # tell me the register count"; "try float4 loads and tell me the time" still names one)
        done = _ASKED_AFTER.split(core, 1)[0]
        # ("put the kernel on a roofline chart": the opening verb measures, it hands over no technique;
        # "compile the fp8 mainloop with -Xptxas -v and report ...": a build that reports its resources)
        opens_measuring = MEASURE_VERB.match(core) is not None or (_REPORTING_BUILD.match(done) is not None and not changes(core))
        if not tried_input and ((_SOLUTION_CORE.match(done) and not opens_measuring) or _SOLUTION_ANY.search(ls)
                                or (_HELP.search(ls) and _TERM.search(ls))):
            reasons.append("suggests a solution")
        elif _PROPOSAL.match(core) and s.rstrip().endswith("?"):
            reasons.append("proposes a plan")
        if _VALUE_ANY.search(ls) or (not question and _WITH_SHAPE.search(ls)):
            reasons.append("gives a value")
        if not question and _CORRECTION.match(ls) and not _ACK.match(ls):
            reasons.append("corrects the agent")
    first = next((i for i, q in enumerate(flags) if q and _DOUBTED_CAUSE.match(cores[i])), None)
    if first is not None:
        # "doesn't the memset cost you a launch? allocate once and zero it in-kernel": a cause and its fix
        after = [(s, c) for s, c, q in zip(sentences_[first + 1:], cores[first + 1:], flags[first + 1:]) if not q]
        if any(_FIX_VERB.match(c) or changes(c) for _, c in after):
            reasons.append("suggests a solution")
        elif any(not _is_request(s) and len(s.split()) >= 4 and not _QUOTES_AGENT.match(c) and not doubts(s)
                 for s, c in after):
            reasons.append("offers a cause")  # "isn't it reading the row twice? online softmax keeps ..."
    seen: list[str] = []
    for r in reasons:
        if r not in seen:
            seen.append(r)
    return seen


@lru_cache(maxsize=65536)
def classify(text: str, via: str | None = None) -> Classification:
    """Label one human message (see the module's docstring)."""
    text = (text or "").strip()
    if not text:
        return Classification("other", ("empty",), "")
    prose = _CODE_FENCE.sub(" ", text) if "```" in text else text
    spans = sentence_spans(prose)
    sents = [prose[a:b] for a, b in spans]
    flags = [is_interrogative(s) for s in sents]
    if not any(flags) and not any(changes(strip_filler(s.lower())) for s in sents):
        # an order to measure asks when nothing else in the message asks, nor orders a change
        doubted = any(doubts(s) for s in sents)
        flags = [measurement_order(s, doubted) for s in sents]
    info = information_markers(text, sents, flags)
    if via == "ask_user_question":
        return Classification("information" if info else "other",
                              tuple(info) or ("answers the agent's question",), "")
    if info:
        return Classification("information", tuple(info), "")
    if _ACK.match(text.lower()) and len(text.split()) <= 8:
        return Classification("other", ("acknowledges or chooses",), "")
    if any(flags):
        asked = sum(len(s.split()) for s, q in zip(sents, flags) if q)
        told = sum(len(s.split()) for s, q in zip(sents, flags) if not q and not _is_request(s))
        if told > 30 and told > 2 * asked:
            # a question wrapped in paragraphs of context hands the agent that context
            return Classification("information", ("states context at length",), "")
        return Classification("question", ("asks",), question_part(prose, spans, flags))
    if any(_is_request(s) for s in sents):
        return Classification("directive", ("asks for an action",), "")
    if len(text.split()) <= 3:
        return Classification("other", ("fragment",), "")
    return Classification("information", ("states",), "")


_LIGHT = frozenset("""why what how which where when who whose this that these those there here the and but you your
our are was were does did can could would should will have has had its it's about with from into out for not any
some just really also maybe please think figure find way ones one get got now still then than them they their
we're you're that's what's""".split())


def _weight(s: str) -> int:
    return sum(1 for w in CONTENT.findall(s.lower()) if w not in _LIGHT)


def question_part(text: str, spans: list[tuple[int, int]], flags: list[bool]) -> str:
    """The interrogative sentences, each with the measurement requests that follow it, as written.

    A question too light to stand alone ("can we figure out why?", "is it noise?") keeps the
    short sentence before it, which says what it is about."""
    sents = [text[a:b] for a, b in spans]
    keep: list[int] = []
    after_question = False
    for i, (s, q) in enumerate(zip(sents, flags)):
        if q:
            if _weight(s) <= 1 and not after_question:
                j = i - 1
                while j >= 0 and _weight(sents[j]) == 0:
                    j -= 1
                if j >= 0 and not flags[j] and len(sents[j].split()) <= 25:
                    keep.extend(range(j, i))
            keep.append(i)
            after_question = True
        elif after_question and _MEASURE_VERBS.match(strip_filler(s.lower())):
            keep.append(i)
        else:
            after_question = False
    # contiguous sentences keep the words between them (": ", ", "), others are joined by a space
    parts: list[str] = []
    run_start = run_end = None
    last = None
    for i in keep:
        a, b = spans[i]
        if last is not None and i == last + 1:
            run_end = b
        else:
            if run_start is not None:
                parts.append(text[run_start:run_end])
            run_start, run_end = a, b
        last = i
    if run_start is not None:
        parts.append(text[run_start:run_end])
    out = " ".join(" ".join(p.split()) for p in parts)
    return out.replace("..", " ").replace("  ", " ")
