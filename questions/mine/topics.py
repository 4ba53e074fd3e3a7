"""What a steering question asks to be measured: its topic, whatever words it uses.

Paraphrases of one question often share no words ("any smem bank conflicts?", "how many wavefronts
per shared request on the ldmatrix loads?", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared for the
V transpose?") but they ask for the same measurement. The topics below are the measurements and
checks a kernel steerer asks for, each recognised by the words, abbreviations, tool flags and
profiler metric names people use for it. A question's topics are features of its vector in
clustering (`cluster.features`), weighted by how rare each is in the corpus mined, so that two
askings of one measurement meet while two questions on different measurements do not.

Three layers, all data:

- `SENSES` rewrite the uses of an ambiguous word whose sense the context decides, before any topic
  is read: "fp noise" is an error size, not run-to-run spread; "mean and variance passes" are a
  layernorm's statistics; "a 256MB scratch write between launches" flushes the L2; "compile cache"
  is a stale build, not cache state; "wall clock" is a timer, not the GPU clock.
- `TOPICS`: each measurement or check and the patterns that name it.
- `WEAK`: cues that name a topic only in a sentence without a blocker ("rerun" is about noise,
  unless the sentence is about outputs being identical or the seed being re-timed).

Words of six letters or more one edit from a word of the table are read as that word
("conflits", "regsiters", "throughtput"), as people type them.

The table is written from the domain (what ncu, nsys, ptxas, compute-sanitizer and an evaluator
report; what steerers ask), section by section, not from one corpus;
`questions/benchmark/planted/RESULTS.md` says which planted sets it was tuned on.
"""
from __future__ import annotations

import re
from functools import lru_cache

from questions.mine.normalise import one_edit

#: (pattern, replacement) applied in order to the lower-cased text before topics are read: an
#: ambiguous word in a context that decides its sense becomes an unambiguous one.
SENSES: tuple[tuple[str, str], ...] = (
    # "noise" in a correctness context is an error size, not run-to-run spread
    (r"\b(?:fp\d*|bf16|floating[- ]point|numerical|numeric|rounding|precision|tolerance|accumulation|float) noise\b",
     "rounding error"),
    (r"\bnoise in the (?:output|outputs|result|results|values|last bits)\b", "rounding error in the output"),
    # a layernorm's statistics are not timing variance
    (r"\bmean and (?:the )?variance\b", "row statistics"),
    (r"\bvariance (?:pass|passes|computation|reduction|kernel|term)\b", "row statistics pass"),
    (r"\bwelford\b", "row statistics"),
    # writing a big buffer between timed runs is how the L2 is flushed
    (r"\b\d+ ?[mg]i?b (?:scratch |dummy |junk |zero |big )?(?:write|writes|buffer|memset|array)\b"
     r"(?=[^?.!\n]{0,40}\b(?:between|before|after|each)\b)", "l2 flush"),
    (r"\b(?:scratch|dummy|junk)(?: \w+)? (?:write|writes|memset)\b", "l2 flush"),
    # a build or compile cache is a stale binary, not the state of the L2
    (r"\b(?:compile|compilation|build|kernel|jit|triton|torch|inductor|nvrtc|cubin|extension)[- ]cache[ds]?\b",
     "stale build"),
    (r"\bccache\b", "stale build"),
    # a working set spilling to DRAM is L2 residency, not register spills
    (r"\bspill\w* (?:out )?(?:to|into|over to) (?:the )?(?:dram|hbm|global(?: memory)?|main memory)\b",
     "misses l2 to dram"),
    # "wall clock" and "clock cycles" are timing units, not the GPU's clock
    (r"\bwall[- ]?clock\b", "wall time"),
    (r"\bclock(?:64)?(?:\(\))? cycles?\b", "cycles"),
    (r"\bclock64\b", "cycle counter"),
    # the "tail" of the grid is a wave, the "tail" of a row is an edge shape
    (r"\btail (?:wave|effect)s?\b", "partial last wave"),
    # a place in a kernel ("in the hot loop") is a scope, not the question where the time goes
    (r"\b(?:in|inside|within|of|for) the hot (?:loop|path)\b", "in the main loop"),
    # starting or stopping "the clock" around a launch is the timer, not the GPU's clock
    (r"\b(?:stop|start|stops|starts|stopping|starting|stopped|started|read|reads) the (?:clock|stopwatch)\b", "stop the timer"),
    # counting the launch API's calls is counting launches, not its overhead
    (r"\b(?:count(?:ing)?|how many|number of) (?:the )?(?:cudalaunchkernel|cuLaunchKernel|kernel launch) ?(?:calls|invocations)?\b", "count the kernel launches"),
    # drifting from a high-precision reference is an error size, not timing that moves
    (r"\bdrift\w* (?:from|against|vs\.?|relative to) (?:an? |the )?(?:fp64|float64|double|fp32|float32|reference|ref|torch|pytorch|eager|cpu)\b",
     "deviation from the reference"),
    # a warp reading one contiguous line, or strided accesses of a width, is coalescing, not a tensor's layout or a load width
    (r"\b(?:warps?|lanes|threads of a warp) (?:reads?|loads?|access\w*|touch\w*) (?:a |one |the same )?contiguous\b", "coalesced addresses"),
    (r"\bstrided (?:\d+ ?b(?:yte)?s? |\d+-byte )(accesses|loads?|reads?)\b", r"strided \1"),
    # a barrier named as a stall reason ("long_scoreboard or barrier?") is a stall, not a __syncthreads question
    (r"\bbarrier (?:stalls?|stalled|stall reason)\b|(?<=scoreboard or )barrier\b|(?<=scoreboard vs )barrier\b",
     "sync stall"),
    # the dtype of a scenario grid ("every shape/dtype combo") is a scope, not which precisions are supported
    (r"\b(shapes?|sizes?|scenarios?|cases?|configs?) ?(?:/|and|x) ?dtypes? (combos?|combinations?|pairs?)\b", r"\1 \2"),
    # gaps or idle time between kernels are launch overhead, not the time split between the kernels
    (r"\b(overhead|gaps?|idle|idling|bubbles?) between (?:the |your |our )?(?:\d+ |two |three )?(?:\w+ )?(?:kernels|launches)\b",
     r"\1 between kernels"),
    # bytes (or flops) over the peak rate is the roofline's minimum time, not a bandwidth achieved
    (r"\b(?:bytes(?: moved| read| written)?|traffic|flops?) ?(?:/|divided by|over) ?(?:the )?(?:peak |spec |datasheet )?(?:hbm |dram |memory |tensor |compute )?(?:bw|bandwidth|bandwith|peak|throughput|tflops?)\b",
     "minimum time from the roofline"),
    # ncu's "GPU Speed Of Light Throughput" section is the share of the memory and compute peaks (the
    # bound type), not the roofline's minimum time
    (r"\b(?:gpu )?speed[- ]of[- ]light (?:throughput )?(?:section|table|percent\w*|%|numbers|metrics)\b", "sol throughput section"),
    # "launch bounds" cap registers; they are not launch overhead
    (r"\b_*launch_*bounds_*\b|\blaunch bounds\b", "register cap"),
    # the memory footprint's peak is not peak bandwidth, and peak bandwidth is not the footprint
    (r"\bpeak (?:hbm |dram |memory |mem )?(?:bandwidth|bandwith|bw|throughput)\b", "peak bandwidth"),
    # a hot loop is where the time goes; a hot cache is cache state
    (r"\bhot (?:loop|path|spot|spots)\b", "hotspot"),
    # a streaming multiprocessor is an SM, whatever it is called
    (r"\b(?:streaming )?multiprocessors?\b", "sm"),
    # contiguous addresses across a warp are coalescing, not a tensor's layout
    (r"\b(?:contiguous|consecutive|adjacent) (?:addresses|memory accesses|accesses)\b", "coalesced addresses"),
    # a regression hidden by the mean is a per-scenario question
    (r"\bhid(?:e|es|ing|den) (?:a |any |some )?(?:regression|slowdown|loss)s?\b", "hides it in the mean"),
    # regression tests are a test suite, not a slowdown
    (r"\bregression (?:tests?|suite|testing)\b", "test suite"),
    # outputs that change from run to run are a determinism question, not timing noise
    (r"\b((?:results?|outputs?|bits|bytes|values?|sums?|reduction|summation|dq|dk|dv|dgamma|dbeta|gradients?)\b"
     r"[^?.!\n]{0,40}?)run[- ]to[- ]run\b", r"\1across runs"),
    (r"\brun[- ]to[- ]run (?:differences? in|changes? in|bitwise|identical|determinism|reproducibility)\b",
     "across runs bitwise"),
)

#: (topic, patterns over the lower-cased text). A pattern is a regular expression; word boundaries
#: are added around it. Grouped by the part of the work a steerer checks.
TOPICS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # -- is the measurement to be trusted
    ("noise", (r"noise", r"noisy", r"variance", r"std ?dev\w*", r"stdev", r"standard deviation", r"spread",
               r"jitter\w*", r"error bars?", r"confidence interval", r"min ?/ ?(?:median|mean|avg|max)",
               r"median ?/ ?(?:min|max)", r"real or", r"(?:is|was) (?:the|that|this) [\w.% ]{0,20}real",
               r"lucky", r"fluke", r"reproduc\w+ (?:speed\w*|gain|win|number|timing|result)s?", r"noise band",
               r"how (?:sure|confident)", r"measurement error", r"noise floor", r"between identical runs",
               r"geomean move\w*", r"over repeats", r"fluctuat\w*", r"variab\w+", r"statistically",
               r"significan\w+", r"coefficient of variation", r"outliers?", r"within (?:the )?noise",
               r"how (?:much|far) does (?:the |that |it |this )?(?:\w+ )?(?:number |figure |ratio |speedup |timing )?move",
               r"(?:numbers?|timings?|figures?|ratios?|results?) (?:move|jump|bounce|wobble|drift)\w*",
               r"consistent across (?:runs|repeats)", r"stable across", r"margin of error",
               r"(?:speedup|gain|win|number|result|timing) reproduce\w*", r"reproduce the (?:speedup|gain|win|number|timing)",
               r"how stable is (?:the|that|this) (?:number|timing|speedup|measurement|result)", r"(?:timing|runtime) distribution",
               r"(?:if|whether) (?:the |that |this |it |our |ur |your )?(?:[\d.]+x?|number|speedup|gain|win|result|ratio|improvement)s? (?:still )?holds?(?: up)?",
               r"(?:number|speedup|gain|win|result|ratio|improvement)s? (?:still )?holds? up", r"(?:without|w/o|w/out) changing anything",
               r"(?:repeatab\w+|repeatable)", r"(?:same|identical) (?:binary|build|code)[^?.!\n]{0,30}(?:again|twice|repeated\w*|times)",
               r"run[- ]to[- ]run (?:variance|variation|spread|noise|jitter)", r"p\d{2}(?:\.\d)? ?(?:vs\.?|/|and) ?p\d{2}", r"percentiles?",
               r"(?:run|ran|measured?|timed?|bench\w*) (?:it |this |that )?more than once")),
    ("seed_vs_seed", (r"seed (?:vs\.?|versus|against|compared (?:to|with)) (?:the )?seed",
                      r"(?:seed|baseline|kernel) (?:vs\.?|versus|against|with|compared to) itself",
                      r"baseline (?:vs\.?|versus|against) (?:the )?baseline", r"(?:same|identical) kernel on both sides",
                      r"both sides are the seed", r"seed-vs-seed", r"a/a (?:test|run|comparison)",
                      r"aa test", r"null (?:test|comparison)", r"identical kernels? (?:on|as) both")),
    ("clocks", (r"(?<!wall )clocks?", r"sm clock", r"gpc clock", r"graphics clock", r"frequenc\w*", r"frequncy",
                r"freq", r"mhz", r"boost\w*", r"(?<!mio )(?<!lg )(?<!tex )throttl\w*", r"power (?:cap\w*|draw|limit\w*|usage)",
                r"thermal\w*", r"temperature", r"nvidia-smi", r"clock-control", r"locked clocks?",
                r"-lgc", r"lock-gpu-clocks", r"application clocks", r"p-?states?", r"clocks_throttle_reasons")),
    ("cache_state", (r"flush\w*", r"cold[- ]?(?:cache|l2|run|numbers?|timings?)", r"warm[- ]?(?:cache|l2)",
                     r"hot[- ]?(?:cache|l2)", r"cache scrub", r"staying resident across", r"memset between runs",
                     r"cold or warm", r"warm or cold", r"(?:still )?cached from", r"clear(?:s|ed|ing)? the (?:\w+ )?l2",
                     r"l2 (?:flush|clear|scrub|thrash)\w*", r"reuse the same buffers?",
                     r"(?:timing|time|numbers?|measured|measure|it|speedup) cold", r"already (?:resident|in (?:the )?l2|cached)",
                     r"(?:sits?|fits?|stays?|lives?|resident) in (?:the )?(?:\d+ ?mb )?l2(?=[^?.!\n]{0,60}\b(?:tim\w*|speed\w*|win|gain|numbers?|bench\w*|cold|measur\w*)\b)",
                     r"(?:tim\w*|speed\w*|win|gain|numbers?|bench\w*)[^?.!\n]{0,60}(?:sits?|fits?|stays?|resident) in (?:the )?(?:\d+ ?mb )?l2",
                     r"(?:rotat\w+|cycl\w+ through|fresh) (?:input )?buffers",
                     r"(?:thrash|trash|flush|scrub|clear|invalidat|evict)\w* (?:the |all |every )?(?:l2|caches?)",
                     r"caches? (?:invalidated|flushed|cleared|scrubbed|thrashed|evicted)", r"nothing (?:is|stays) (?:warm|cached|resident|hot)")),
    ("timer", (r"cuda ?events?", r"timing harness", r"how (?:do|did|does|is) (?:you|it|the \w+) (?:time|timed|measure)",
               r"what (?:are|is) (?:you|it|the harness) timing", r"timing the same thing", r"timer", r"cudaeventelapsedtime",
               r"cudaeventrecord", r"wall time", r"perf_counter", r"do_bench", r"triton\.testing", r"timing (?:loop|method\w*)",
               r"how many (?:reps|repetitions|timed iterations|warm-?up iterations)", r"cudadevicesynchronize", r"host syncs?",
               r"synchroni[sz]\w* (?:inside|in|within) the (?:timed|timing) (?:region|loop)", r"sync(?:hroni[sz]e)? (?:before|after) (?:the )?(?:timer|timing|launch)",
               r"torch\.cuda\.synchronize", r"how (?:is|was|are|were) (?:the )?(?:time|timing|runtime|kernel time|it|they|the \w+) (?:timed|measured)", r"stop the timer", r"timer code", r"measurement (?:setup|method\w*|procedure|loop|code)",
               r"bench(?:mark)?(?:ing)? (?:loop|script|code|setup|methodology|procedure)",
               r"(?:script|code|harness|loop|setup) (?:you|u|we) (?:bench|time|benchmark|measure)\w*(?: with)?",
               r"(?:warm-?up|warmup) (?:count|iters|iterations|steps|runs?) (?:and|,|/|vs\.?)",
               r"how many (?:warm-?up |timed )?(?:iterations|iters|reps|repeats|trials)",
               r"(?:median|mean|min|average) or (?:median|mean|min|average|best)", r"best[- ]of[- ]\d+",
               r"how (?:exactly )?(?:are|r) (?:you|u) (?:timing|measuring|benchmarking)",
               r"(?:median|mean|min|average|best) (?:over|of) (?:many |several |multiple |\d+ |the )?(?:reps|runs|repetitions|iterations|iters|trials|launches)",
               r"(?:a )?single[- ]shot", r"(?:one|a single) (?:timed )?(?:run|measurement|sample) or")),
    # -- where the time goes
    ("launch_count", (r"how many (?:separate |distinct |individual |cuda |gpu )?(?:kernels?|launches|kernel launches)", r"count the kernel launches", r"(?:number of|count the) (?:cuda )?(?:kernels?|kernel launches|launches)",
                      r"launches per", r"kernels? (?:get )?launched per", r"separate kernels?", r"all (?:the )?launches",
                      r"kernels in the trace", r"extra (?:kernel|launch)e?s?", r"second (?:kernel|launch)",
                      r"launch count", r"one launch or", r"extra (?:[\w/]+ ){0,2}kernels?", r"kernels? around (?:yours|it|ours|the \w+)",
                      r"extra (?:copies|memcpys|memsets|casts)", r"separate (?:\w+ )?kernels?", r"(?:one|a single|single) fused kernel",
                      r"(?:one|a single) kernel or (?:two|several|multiple|more|many)", r"fused into (?:one|a single) (?:kernel|launch)",
                      r"(?:list|count)\w* (?:every|each|all the|the) (?:cuda |gpu )?kernels?", r"kernels? (?:that )?(?:fire|run|launch)\w* (?:for|per|in)",
                      r"count the kernels", r"more than one kernel", r"(?:a |one )?single (?:kernel )?launch", r"how many (?:cuda |gpu )?kernels? (?:does|do|are|show)", r"kernels? per (?:call|iteration|forward|step|invocation)", r"kern\w*[^?.]{0,60}\b(?:a single|one) (?:call|invocation|forward(?: call| pass)?)")),
    ("timing_crosscheck", (r"independent(?:ly)? of the (?:eval|evaluator|harness)", r"external profiler", r"gpu__time_duration",
                           r"gpu time duration", r"(?:gpu|kernel) duration matches", r"compared to the harness", r"time it yourself",
                           r"timing artifact", r"(?:nsys|ncu|profiler) says? the kernel (?:itself )?takes", r"agree with (?:that|the) timing",
                           r"profiler agree\w*", r"matches the [\d.]+ ?(?:ms|us) the evaluator", r"cross-?check\w* the tim\w*",
                           r"(?:ncu|nsys|profiler)(?:'s)? (?:duration|time) (?:match|agree)\w*",
                           r"(?:nsys|ncu|nsight|profiler|trace)\w*[^?.]{0,30}\bagree\w*", r"agree\w* with (?:ur|your|the|our|its) (?:timer|timing|harness|evaluator|numbers?)",
                           r"(?:different|another|second|independent|separate) (?:timing method|timer|way to time|profiler|measurement method)",
                           r"(?:kernel )?durations? from (?:a |the )?(?:trace|profiler|nsys|ncu)",
                           r"(?:verify|confirm|check|validate) (?:the |that )?(?:speedup|timing|number|[\d.]+ ?(?:us|ms)) (?:with|using|in|against) (?:a |an |the )?(?:different|another|independent|nsys|ncu|profiler|external)")),
    ("baseline_profile", (r"profil\w+ (?:of )?(?:the )?(?:seed|baseline|original|reference)(?: kernel)?",
                          r"(?:ncu|nsys|nsight(?: compute| systems)?|profiler?) (?:on|of|for) (?:the )?(?:seed|baseline|original|reference)",
                          r"(?:seed|baseline|original|reference)(?: kernel)?(?:'s)? (?:ncu |nsight )?(?:profile|report|ncu)",
                          r"(?:diff|compare) (?:the )?(?:two )?(?:ncu |nsight )?(?:reports|profiles)",
                          r"(?:ncu|nsys|nsight(?: compute)?) (?:the )?(?:seed|baseline|original|reference)(?: kernel)?",
                          r"(?:seed|baseline|original|reference)(?:'s)? kernel(?:'s)? (?:throughput|occupancy|metrics|counters|profile)",
                          r"(?:seed|baseline|original|reference)(?: kernel)?\b[^?]{0,60}\b(?:its|their) (?:profile|ncu report)")),
    ("stale_baseline", (r"re-?time[d]? the (?:seed|baseline|original|reference)", r"(?:seed|baseline|reference) time[^?.]{0,30}fresh",
                        r"old number", r"(?:seed|baseline)(?:'s)? (?:measure|timings?|ms|us|number|time)[^?.]{0,30}(?:right now|today|now|this run)",
                        r"re-?run the (?:seed|baseline|reference|original)(?! (?:vs\.?|versus|against|with) (?:itself|the seed|the baseline))", r"benchmark the original (?:kernel )?again", r"from yesterday",
                        r"apples to apples", r"same session", r"vs\.? yesterday", r"this run vs",
                        r"re-?measure\w* the (?:seed|baseline|original|reference)",
                        r"(?:seed|baseline|reference)(?:'s)? (?:timing|time|number|speed|ms|us)s? (?:change|move|drift|shift)\w*",
                        r"(?:seed|baseline|reference) (?:move|moved|drift\w*|got slower|got faster|changed)",
                        r"switched (?:nodes|machines|boxes|gpus|hosts)", r"(?:different|another|new) (?:node|machine|box|host)",
                        r"same as in the first (?:eval|run)", r"(?:in|within) (?:one|the same|a single) process",
                        r"(?:seed|baseline|reference|original)(?:'s)?[^?.]{0,25}(?:still (?:valid|current|right|accurate|good|true)|stale|out of date|outdated)",
                        r"(?:bench|time|run|measure)\w* the (?:original|seed|baseline|reference|unmodified)(?: \w+)? (?:back[- ]to[- ]back )?(?:with|alongside|next to|against) (?:yours|ours|the new)",
                        r"unmodified (?:starting |original |seed )?(?:kernel|implementation|version)",
                        r"when (?:was|were) the (?:reference|seed|baseline)(?:'s)? (?:timings?|times?|numbers?|measurements?) (?:taken|measured|recorded|made)",
                        r"(?:baseline|seed|reference)(?:'s)? (?:numbers?|times?|timings?|ms|us) (?:from|measured on|taken on) (?:this|the same|another|a different|an? (?:old|earlier)) (?:machine|node|gpu|box|run|session|host)")),
    ("time_breakdown", (r"which (?:phase|part|stage|section|loop|step)\w* (?:dominates|is the bottleneck|costs)",
                        r"(?:each|every) (?:stage|phase|pass|step) costs?", r"source view", r"source[- ]level", r"per section",
                        r"where (?:does|did|is) (?:the|all the|most of the) time", r"where (?:is|are) the cycles",
                        r"spend\w* (?:most of )?(?:its|the|their) time", r"time (?:is|actually) spent",
                        r"dominat\w+ the (?:runtime|time)", r"hotspots?", r"hot ?spots?", r"ncu breakdown", r"which part dominates",
                        r"where(?:'s| is) the time", r"time split", r"split of the time",
                        r"how (?:is|'s) the time (?:split|divided|distributed)", r"fraction (?:of the time )?goes to",
                        r"share of the (?:time|runtime)", r"which (?:line|lines|instruction|instructions) (?:has|have|take|is|are)",
                        r"most expensive (?:part|line|instruction|phase|stage)",

                        r"(?:time|us|ms|µs|cycles) (?:is )?(?:spent )?(?:in|on) (?:the )?[\w/ -]{1,30} (?:vs\.?|versus|compared to)")),
    # ... and what one phase of a kernel costs (the epilogue, a second pass), each phase timed
    ("phase_cost", (r"time (?:of |for )?(?:each|every) (?:stage|phase|pass|step|part|section)",
                    r"(?:stages?|phases?|passes|steps|parts|sections) (?:separately|individually|on (?:its|their) own)",
                    r"(?:time|measure|profile)d? (?:the )?[\w/ -]{1,40} separately",
                    r"(?:breakdown|split|break\w* down)(?: of the (?:\w+ )?time)? by (?:phase|stage|section|part|step|pass)",
                    r"(?:take|takes|cost|costs) on (?:its|their) own", r"what fraction is the", r"what fraction of (?!the ideal|ideal|the theoretical|theoretical|the minimum|peak)[\w' ]{1,30}(?:time|runtime) is",
                    r"what (?:that|the|this) (?:\w+ )?(?:pass|stage|phase|step|epilogue|prologue|loop) costs",
                    r"how (?:much time|long) (?:does|do) the (?:[\w-]+ ){0,2}(?:epilogue|prologue|write-?back|stores?|reduction|pass|stage|phase|step) take",
                    r"how long is the (?:epilogue|prologue|write-?back|reduction|second pass|first pass)",
                    r"(?:epilogue|prologue|write-?back)[^?.]{0,40}(?:vs\.?|versus|compared (?:with|to)|next to) the (?:main ?loop|mma loop|k loop)")),
    ("kernel_breakdown", (r"(?:between|across) the (?:\w+ )?kernels", r"per[- ](?:kernel|launch) (?:time|breakdown|timing)s?",
                          r"breakdown per (?:kernel|launch)", r"which (?:of the )?kernels?(?: in the \w+)? dominat\w*",
                          r"(?:kernels?|launches) in the chain", r"cuda_gpu_kern_sum", r"gpukernsum", r"kernel summary",
                          r"nvtx", r"(?:nsys|timeline) (?:breakdown|summary|trace)", r"time (?:of|for) each kernel",
                          r"each kernel(?:'s)? (?:time|share|duration)",
                          r"which kernels? (?:takes?|uses?|spends?|eats?|accounts? for) (?:the )?most", r"top (?:\d+ )?kernels?", r"key_averages",
                          r"(?:by|sorted by|sort_by) (?:self )?(?:cuda|gpu|device)[ _]time\w*", r"self (?:cuda|gpu|device) time",
                          r"(?:nsys|nsight systems) (?:report|stats|summary|output)", r"--stats=true", r"(?:which|what) ops? (?:take|use|spend|eat)\w* (?:the )?most", r"torch\.profiler", r"profiler table",
                          r"most (?:cuda|gpu|device) time", r"(?:the )?\w+ kernel vs the \w+ (?:pass|kernel)")),
    ("stall_reasons", (r"(?:warp |top |dominant |main )?stall (?:reasons?|breakdown|samples?|sampling|cycles|counts?|counters?)",
                       r"(?:warps?|it|kernel|threads?) (?:is |are )?(?:\w+ )?stall(?:ed|ing|s) (?:on|at|waiting|in)", r"stall(?:ed|ing) on",
                       r"(?:cycles|time) stalled", r"warp stall\w*", r"(?:top|dominant|main) stalls?", r"warp state\w*", r"long[- ]scoreboard", r"short[- ]scoreboard", r"scoreboard",
                       r"mio throttle", r"lg throttle", r"stall sampling", r"issue stalled", r"warps? (?:sit|wait\w*) on",
                       r"spend their cycles", r"(?:spend|spending) (?:their|its) time waiting", r"time waiting",
                       r"warp_issue_stalled\w*", r"pcsamp\w*", r"warps? (?:are )?(?:actually )?waiting",
                       r"what are (?:the )?warps (?:doing|waiting)", r"latency[- ]bound", r"(?:which|what) stalls? (?:dominat\w*|reason)",
                       r"stalls? dominat\w*", r"warps? (?:are |is )?not issuing", r"why (?:are|aren'?t) (?:the )?warps",
                       r"warps? (?:are |is )?(?:\w+ )?stall(?:ed|ing|s)", r"sync stall", r"stall_\w+", r"stalled_\w+",
                       r"(?:smsp__)?average_warp_latency\w*", r"warp cycles per (?:issued )?instruction", r"cpi stack")),
    ("issue_rate", (r"ipc", r"issue slots?(?: utili[sz]\w*)?", r"eligible warps?", r"no eligible", r"scheduler stat\w*",
                    r"warp scheduler", r"issued? (?:active|rate|efficiency)", r"instructions per cycle",
                    r"sm__inst_executed\w*", r"inst_executed", r"issue active", r"one instruction per cycle")),
    ("launch_overhead", (r"launch (?:overhead|latency|cost|time|gaps?)", r"launch[- ]bound", r"kernel-bound", r"even kernel bound",
                         r"cpu[- ]side", r"host[- ]side", r"gpu time vs", r"(?:kernel|gpu|device) (?:duration|time) (?:in nsys )?vs",
                         r"end[- ]to[- ]end (?:time|latency|timing|per|vs)", r"(?:time|latency|timing) end[- ]to[- ]end", r"(?:cpu|host)[- ]bound", r"wall time (?:per (?:launch|call|iteration)|the evaluator|vs)", r"gaps? between kernels",
                         r"launching and syncing", r"kernel body", r"overhead rather than",
                         r"host-measured latency", r"(?:time|latency) (?:vs|versus) (?:the )?kernel",
                         r"(?:empty|no-?op|null|trivial|dummy) kernels?", r"per-?launch (?:cost|overhead)", r"fixed (?:per-?\w+ )?cost",
                         r"cuda ?graphs?", r"graph (?:capture|replay)", r"host (?:wall )?time", r"device-side",
                         r"(?:cpu|python|dispatch|framework|sync\w*) overhead", r"idle gaps?", r"(?:timeline|trace) gaps?",
                         r"(?:timeline|trace|gaps?|idle|bubbles?) between (?:your|our|the) kernels",
                         r"(?:timeline|trace)[^?.!\n]{0,30}between (?:the )?(?:launches|kernels)", r"(?:gpu |device )?idle (?:time )?between",
                         r"actual gpu work", r"gpu work vs",
                         r"(?:overhead|gaps?|idle|idling|bubbles?) between kernels", r"gaps? between (?:the )?(?:launches|kernels|calls)",
                         r"(?:gpu|device) (?:is |sits? |sitting |stays? )?idl\w* between", r"cuda_api_sum", r"api (?:time|call time)s?",
                         r"cudalaunchkernel", r"launch (?:rate|throughput)")),
    ("waves", (r"waves?", r"partial last wave", r"last-?wave", r"partial (?:last )?wave", r"ctas? (?:vs|versus|on|/)",
               r"how many ctas(?! (?:can |will |could )?fit)", r"(?:total )?tile count", r"(?:number of|how many) tiles",
               r"(?:divide|divides|split|splits|spread|spreads|distribut\w+) (?:\w+ )?(?:across|over|among) (?:the |all (?:the )?)?(?:\d+ )?sms", r"block count", r"grid (?:size|dims?|dimensions)", r"fill the (?:machine|gpu|sms)",
               r"blocks? (?:vs|on) \d+ sms", r"sms? (?:sit )?idle", r"tail of the grid", r"griddim", r"grid_size",
               r"(?:thread )?blocks (?:are )?(?:actually )?in flight", r"fewer (?:blocks|ctas) than (?:sms|the sm count)",
               r"(?:blocks|ctas) than sms", r"sm count", r"number of sms", r"waves_per_multiprocessor",
               r"wave quanti[sz]ation", r"how many (?:thread )?blocks (?:does|do|are|get)",
               r"enough (?:blocks|ctas|work) to (?:fill|saturate|occupy)", r"how many sms (?:are )?(?:busy|used|active|idle|get work)",
               r"(?:are )?all (?:the )?sms (?:busy|used|active|idle|occupied|in use)")),
    ("occupancy", (r"occupan\w*", r"occupnacy", r"occ", r"warps? (?:are |is )?(?:really |actually )?resident",
                   r"resident (?:warps|blocks|ctas)", r"active warps", r"warps? active", r"warps_active", r"warps per sm",
                   r"blocks? ?/ ?sm", r"blocks? per sm", r"ctas? per sm", r"achieved (?:vs|versus) theoretical",
                   r"theoretical (?:vs|versus) achieved", r"max active blocks", r"cudaoccupancy\w*",
                   r"blocks? can be resident", r"(?:active )?warps per scheduler(?! (?:eligible|issu))", r"sm__maximum_warps\w*", r"(?:blocks?|ctas?|warps?) (?:can |will |could )?fit (?:on|per|in|into) (?:an? |one |each |the )?sm")),
    ("registers", (r"spill\w*", r"local[- ]memory", r"lmem", r"stack frame", r"stack size", r"regs? ?/ ?thread",
                   r"regs? per thread", r"registers? per thread", r"regi?s?t?e?r? count", r"local mem", r"pushed out to local",
                   r"xptxas", r"ptxas(?: -v| info| output| report\w*| says)?", r"maxrregcount", r"launch__registers\w*",
                   r"registers_per_thread", r"regsiters", r"resource[- ]usage", r"--resource-usage", r"res-usage", r"register (?:usage|pressure|cap|file|budget)",
                   r"how many (?:registers|regs)", r"register cap", r"local (?:loads|stores)", r"spill (?:stores|loads)",
                   r"compile output", r"regs? usage", r"register[- ]bound", r"stl", r"ldl", r"stl/ldl", r"ldl/stl",
                   r"local (?:load|store)s?", r"register[- ]limited", r"registers? (?:used|allocated)", r"registers? (?:does|do|is) (?:it|the \w+(?: \w+)?) us\w+")),
    ("bank_conflicts", (r"bank conf\w*", r"bank_conflicts", r"conflict-free", r"conflicts? in (?:smem|shared)",
                        r"wavefronts?", r"(?:smem|shared) (?:replays?|conflicts?)", r"conflc\w*",
                        r"shared (?:load|store)s?(?:/store)? conflicts?", r"swizzl\w*", r"bank confl\.?",
                        r"(?:smem|shared(?: memory)?) (?:load|store) efficiency", r"(?:shared|smem|ldmatrix|stmatrix|ld\.shared|st\.shared)[^?.]{0,30}conflict\w*",
                        r"conflicts[^?.]{0,20}(?:shared|smem)", r"\d+-way", r"n-way", r"ways? conflicted",
                        r"(?<!merge )(?<!git )conflicted", r"(?:shared|smem) (?:accesses|loads|stores|reads|writes) (?:\w+ )?serial\w*",
                        r"serial\w* by (?:bank )?conflicts", r"lsu_mem_shared\w*")),
    ("coalescing", (r"coalesc\w*", r"line up across (?:a |the )?warp", r"scattered (?:loads?|access\w*|reads?)", r"or (?:is it )?scattered", r"sectors? (?:per|/) ?request", r"strided (?:loads?|access\w*|reads?)", r"uncoalesced",
                    r"cache line per thread", r"different cache line", r"(?<!smem )(?<!shared )(?<!shared-mem )load efficiency", r"gld_efficiency",
                    r"(?<!smem )(?<!shared )(?<!shared-mem )(?<!shared memory )(?:memory )?access pattern", r"excessive sectors",
                    r"lsu_mem_global\w*", r"lsu mem global", r"sectors? (?:per|/) ?(?:warp |global |thread )?(?:requests?|loads?|access\w*|instructions?)",
                    r"transactions per request", r"how many (?:\d+ ?b(?:yte)? |\d+-byte )?sectors",
                    r"sectors? (?:does|do) (?:each|a|every|the|one) (?:\w+ )?(?:warp|request|load|ldg|instruction|access)",
                    r"(?:gmem|global|gld|global[- ]memory|dram) (?:access |load |store )?efficiency", r"access efficiency",
                    r"(?:gmem|global[- ]memory|global) access pattern", r"sectors? touched", r"l1tex__t_(?:sectors|requests)\w*", r"\d+ ?b sectors?",
                    r"(?:l1 |global )?transaction efficiency", r"l1 transactions?", r"coalesced addresses")),
    ("vector_loads", (r"vectori[sz]ed (?:loads?|stores?|access\w*|reads?|writes?)", r"(?:loads?|stores?|accesses|reads?) (?:are |get |being )?vectori[sz]ed", r"ld\.global\.v[24]", r"ldg\.e\.(?:64|128)", r"ldg\.128", r"128-?bit (?:loads?|stores?|access\w*)",
                      r"float4 (?:loads?|stores?)", r"wide loads?", r"v4 loads?", r"scalar (?:loads?|ld\.global)",
                      r"(?:16|32|64|128)[- ]?byte[- ]aligned",
                      r"(?:load|store|access|ld|ldg|ld\.global)s? widths?", r"width of the (?:\w+ )?(?:loads?|stores?|accesses|ld instructions)",
                      r"what width", r"(?:loads?|stores?|accesses) (?:are |is )?(?:32|64|128)[- ]?bit", r"(?:4|8|16|32|64|128) ?b(?:yte)? (?:accesses|loads?|stores?|ldgs?)", r"scalar (?:ldgs?|accesses|stores?)",
                      r"ldg\.e(?:\.(?:32|64|128))?", r"stg\.e\.(?:64|128)", r"(?:float2|float4|int4|uint4|half2|bf162) (?:accesses|loads?|stores?|reads?)",
                      r"pointer alignment", r"alignment of the (?:pointer|address|base|rows?)")),
    ("l2_hit", (r"l2 hit\w*", r"l1 hit\w*", r"hit rate", r"hit ratio", r"hit ?%", r"sector_hit\w*", r"lts__t_sector\w*",
                r"served (?:\w+ )?(?:out of|from) (?:the )?l2", r"last[- ]level cache", r"stay in l2", r"misses l2",
                r"(?:comes|coming) from l2", r"re-?reading from (?:hbm|dram)", r"l2 (?:miss|misses|reuse)", r"miss rate",
                r"cache hits?", r"hit in (?:the )?l2", r"persisting l2", r"l2 persist\w*", r"access policy window")),
    ("memory_traffic", (r"dram__bytes\w*", r"(?<!local )(?<!lmem )(?:dram|hbm|global[- ]memory|memory) traffic",
                        r"bytes (?:read|written|loaded|fetched) (?:from|to) (?:dram|hbm|global)", r"redundant (?:loads?|reads?|traffic)",
                        r"read\w* (?:\w+ ){0,2}twice", r"round[- ]trips? (?:through|to) (?:hbm|dram|global)",
                        r"how many (?:bytes|gb|mb) (?:does|do) (?:it|we|the kernel) (?:read|load|move|touch)",
                        r"intermediate[^?.]{0,25}(?:global|hbm|dram)", r"how many passes (?:over|through) (?:the )?(?:data|input|memory|rows?)",
                        r"(?:single|one) pass or (?:two|multiple)")),
    ("bandwidth_achieved", (r"(?:gb|tb)/s", r"bandwidth", r"bandwith", r"dram__throughput", r"dram throughput",
                            r"memory throughput", r"bytes moved\s*/\s*(?:kernel )?(?:time|runtime)", r"% of peak (?:hbm|dram|memory)",
                            r"memory roofline", r"hbm", r"effective throughput", r"achieved throughput",
                            r"memory sol", r"sol (?:dram|memory)", r"compute_memory_throughput", r"throughtput", r"mem(?:ory)? bw", r"(?:mem|memory|hbm|dram) (?:bw )?peak",
                            r"(?:memory|dram|hbm|achieved|effective) bw", r"bw (?:utili[sz]\w*|achieved|number)", r"what bw",
                            r"(?:dram|hbm|memory bandwidth) utili[sz]ation")),
    ("bound_type", (r"bound by (?:memory|compute|bandwidth|latency) or (?:by )?(?:memory|compute|bandwidth|latency)", r"(?:is|are) (?:it|this|that|the \w+|we|they) (?:\w+ )?(?:memory|compute|bandwidth|math|issue)[- ]bound",
                    r"(?:memory|compute|bandwidth|latency)[- ]bound or (?:memory|compute|bandwidth|latency)[- ]bound",
                    r"(?:memory|compute)[- ]bound or not", r"what (?:bounds|limits) (?:it|this|the kernel)", r"arithmetic intensity", r"operational intensity",
                    r"flops? ?/ ?byte", r"ridge point", r"which side of the (?:ridge|roofline)", r"roofline (?:plot|chart|model|position)",
                    r"where (?:does it|do we) sit on the roofline", r"sol throughput section")),
    ("copy_ceiling", (r"memcpy", r"copy kernel", r"plain cop(?:y|ies)", r"vectori[sz]ed copy", r"streaming peak",
                      r"stream triad", r"babelstream", r"trivial read/write kernel", r"real roof", r"datasheet",
                      r"d2d", r"device[- ]to[- ]device", r"nvbandwidth", r"bandwidthtest", r"achievable (?:peak|bandwidth)",
                      r"measured peak")),
    ("compute_peak", (r"tflop/?s", r"tflops", r"gflop/?s", r"% of (?:tensor|compute|dense|math) peak", r"fraction of tensor core peak",
                      r"dense peak", r"math peak", r"mfu", r"flop ?utili[sz]ation", r"sm__throughput", r"compute throughput",
                      r"compute sol", r"sol sm", r"tensor (?:core )?peak",
                      r"% of peak (?:tensor |fp16 |bf16 |fp8 |dense )?(?:flops|tflops|compute|math)", r"sm throughput", r"peak (?:tensor |fp16 |bf16 |fp8 )?flops",
                      r"flops? (?:achieved|utili[sz]ation|efficiency)", r"achieved flops",
                      r"flops? ?(?:/|over|divided by) ?(?:the )?(?:time|runtime|duration|t|ms|us|seconds?|secs?|elapsed)",
                      r"2 ?\* ?m ?\* ?n ?\* ?k(?: ?\* ?\w+)? ?/ ?\w+")),
    ("tensor_cores", (r"tensor[- ]?cores?", r"tcs?", r"hgmma", r"tensor pipe", r"pipe tensor", r"pipe_tensor", r"wgmma", r"hmma",
                      r"imma", r"qgmma", r"mmas?", r"tensor (?:units?|pipes?|math|engines?)", r"mma path", r"ffma", r"fma", r"tcgen05", r"mma\.sync", r"warpgroup mma",
                      r"tensor op", r"tensor_op\w*", r"mma instructions?", r"umma")),
    # the instructions a kernel executes (a measurement) ...
    ("instruction_mix", (r"instruction mix", r"instr mix", r"issued instructions", r"instructions? (?:count|mix|show up|emitted)",
                         r"what instructions", r"which (?:\w+ )?instructions (?:show up|are (?:emitted|there|used))",
                         r"utmaldg", r"ldgsts", r"ld\.global\.nc", r"compiles? (?:down )?to",
                         r"(?:what does|what do) (?:the compiler|nvcc|ptxas) emit", r"instructions per (?:iteration|loop|step)",
                         r"count the instructions", r"how many (?:\w+ )?instructions",
                         r"instruction stat\w*", r"(?:what'?s|what is) the (?:instruction )?mix", r"sass_inst\w*", r"smsp__sass\w*")),
    # ... and the compiled artefact read to find out (a method: "check the SASS" asks about what it shows)
    ("sass_dump", (r"sass", r"ptx", r"disassembl\w*", r"cuobjdump", r"nvdisasm", r"dump-sass", r"-sass",
                   r"grep (?:the )?(?:sass|ptx|cubin)", r"cubin", r"fatbin")),
    ("arch_target", (r"(?:built|compiled|compile|build|target\w*|generated) (?:\w+ )?for (?:sm_?\d+a?|compute_\d+a?|hopper|blackwell|the h\d00)",
                     r"-arch", r"--gpu-architecture", r"-?gencode", r"plain sm_?\d+", r"target arch\w*",
                     r"sm_?\d+a? (?:vs\.?|or|instead of) (?:plain )?sm_?\d+a?",
                     r"list-elf", r"--list-elf", r"native (?:sm_?|compute_)?\d{2,3}a?", r"(?:ptx|sass|it|kernel|cubin)(?: is)? (?:getting |being |gets )?jit(?:'?d|ted|ed|-compiled)",
                     r"(?:sm_?|arch |compute_)?\d{2,3} or (?:sm_?|compute_)?\d{2,3}a", r"(?:sm_?|arch |compute_)?\d{2,3}a or (?:sm_?|compute_)?\d{2,3}",
                     r"arch(?:itecture)? (?:flags?|target|string|list)", r"arch \d{2,3}a?", r"which (?:gpu )?arch(?:itecture)?s?",
                     r"(?:cuda_)?architectures", r"torch_cuda_arch_list", r"sm_?\d+a? (?:cubin|binary|sass|code)", r"embedded (?:cubins?|ptx|sass|elf)", r"compute capabilit\w+",
                     r"(?:binary|cubin|build|kernel|fatbin) targets?", r"(?:targets?|targeting) (?:which|what) (?:arch\w*|sm|gpu)")),
    ("flop_count", (r"flop count", r"flops? (?:does|do|per)", r"count the flops", r"redundant compute",
                    r"floating-point work", r"minimal flop", r"ideal flop", r"how many flops",
                    r"minimum (?:number of )?bytes", r"bytes (?:moved )?and flops")),
    ("lower_bound", (r"lower bound", r"upper bound on (?:the )?speed\w*", r"theoretical (?:minimum|min|best) (?:time|runtime)",
                     r"(?:the )?floor in", r"roofline bound", r"speed of light", r"minimum (?:possible )?(?:time|runtime)",
                     r"ceiling should we expect", r"(?:flops|bw|bandwidth)[- ]limited or", r"best (?:possible|achievable) time",
                     r"how fast could (?:it|this) (?:possibly )?(?:be|go)",
                     r"ideal (?:runtime|time|kernel time)", r"fraction of (?:the )?(?:ideal|theoretical (?:min\w*|best))",
                     r"can'?t (?:get|go|be made) (?:any )?faster", r"(?:bytes moved|flops) ?/ ?(?:peak|hbm|bw|bandwidth)",
                     r"flops ?/ ?peak", r"sol (?:time|bound)")),
    # a claim that the kernel is at a limit, challenged: what it needs is the distance to the floor
    # (the measurements named as evidence, a roofline, occupancy or bandwidth, are read with it: `SCOPES`)
    ("limit_claim", (r"(?:at|on|hit\w*|reached) (?:the )?roofline", r"as fast as (?:it|this|we|the kernel) (?:can|could|will) (?:go|get|be)",
                     r"can'?t (?:get|go|be made) (?:any )?faster", r"capped at", r"(?:hardware|hw|bandwidth|memory|compute)[- ](?:limited|capped)",
                     r"(?:memory|compute|bandwidth)[- ]bound limit", r"at the (?:hardware |hw |memory |bandwidth |compute )?limit",
                     r"evidence (?:that )?(?:it'?s|this is|we'?re|the kernel is) [\w -]{0,20}(?:bound|limit\w*|optimal)",
                     r"how far (?:from|off) (?:the )?peak", r"achieved vs\.? (?:the )?peak")),
    ("limit_origin", (r"property of the (?:hardware|gpu|h\d00)", r"hardware(?:'s)? limit", r"design limit",
                      r"limit (?:of|set by) (?:the )?(?:gpu|hardware|h\d00)", r"hardware or (?:of )?(?:your|the) (?:design|kernel)",
                      r"set by the h\d00", r"how the kernel is built",
                      r"(?:limited|bound|capped|set) by the (?:hardware|gpu|chip) or (?:by )?(?:the|your) (?:design|kernel|code)", r"(?:gpu|hardware|chip) or (?:of )?(?:the|your) (?:kernel|code|design)")),
    ("divergence", (r"diverg\w*", r"branch efficiency", r"different paths", r"divergent branch\w*", r"branch_targets\w*",
                    r"predicated[- ]off", r"inactive (?:threads|lanes)")),
    ("barriers", (r"syncthreads", r"barriers?", r"mbarrier\w*", r"__syncwarp", r"syncwarp", r"bar\.sync", r"named barriers?",
                  r"cluster\.sync", r"(?:block|cta|warp|grid|thread)[- ]level syncs?", r"syncs? per (?:tile|iteration|loop|step|block)", r"grid\.sync", r"fences?", r"membar")),
    ("async_copy", (r"tma", r"cp\.async(?:\.bulk)?", r"ldgsts", r"utmaldg", r"bulk (?:copy|copies|load\w*)", r"async (?:copy|copies)",
                    r"tensor memory accelerator", r"cutensormap\w*", r"tensor map")),
    ("overlap", (r"overlap\w*", r"pipelin\w*", r"double[- ]buffer\w*", r"multi-?stage", r"(?:pipeline|smem|async|\d+)[- ]stages?",
                 r"(?:number of|how many) stages", r"prefetch\w*", r"latency hiding", r"hid(?:e|es|ing) (?:the )?(?:load |memory )?latency",
                 r"warp[- ]speciali[sz]\w*", r"producer", r"consumer")),
    ("atomics", (r"atomic\w*", r"contention", r"red\.global", r"atom\.")),
    ("smem_usage", (r"how much (?:shared memory|smem|shared mem)", r"(?:smem|shared memory|shared mem) (?:per (?:block|cta)|usage|footprint|size)",
                    r"dynamic (?:shared|smem)", r"carve-?out", r"(?:kb|bytes) of (?:smem|shared)")),
    ("memory_safety", (r"race (?:conditions?|check\w*)", r"racecheck", r"compute-sanitizer", r"memcheck", r"initcheck", r"synccheck",
                       r"out[- ]of[- ]bounds", r"oob", r"illegal (?:memory )?access", r"uninitiali[sz]ed", r"data race",
                       r"sanitizer", r"reads? past the end", r"writes? past the end")),
    ("streams", (r"(?:multiple|separate|different|two|non-default|default|cuda) streams?", r"stream (?:sync\w*|overlap|concurrency)",
                 r"concurrent (?:kernels|launches|execution)", r"run concurrently")),
    ("transfers", (r"h2d", r"d2h", r"pcie", r"host[- ]to[- ]device", r"device[- ]to[- ]host", r"pinned memory",
                   r"(?:data )?transfers? (?:time|cost|overhead)", r"memcpy (?:from|to) (?:the )?host", r"cuda_gpu_mem_(?:time|size)_sum",
                   r"how long (?:are|do|does) the (?:memcpys?|copies|transfers)", r"memcpys? (?:time|take|cost)")),
    ("unrolling", (r"(?:is|was|did|does) (?:the |that |this )?(?:\w+ )?loop (?:get |got |being |been )?unrolled",
                   r"unrolled (?:or not|fully|by the compiler)", r"did (?:the compiler|nvcc|ptxas) unroll", r"pragma unroll (?:take|work|apply)")),
    ("tuning_config", (r"autotun\w*", r"which (?:config|configuration|tile size|block size) (?:did|does|was|is|won)",
                       r"best (?:config|configuration|tile size)", r"launch config\w*", r"what block size",
                       r"how many threads per block (?:does|do|is|are)", r"tuning sweep", r"block_[mnk]", r"num_warps", r"best_config",
                       r"(?:chosen|selected|picked|winning) (?:[\w/]+ )?(?:config\w*|tiles?|tile sizes?|variants?|instantiations?|params|parameters|block sizes?)",
                       r"(?:config\w*|tiles?|variants?|instantiations?|params|parameters|entry) (?:did |does |was |were |is )?(?:won|wins|chosen|picked|selected)",
                       r"what tile(?: size)?", r"which (?:tile|variant|instantiation|kernel variant)s?", r"dispatch (?:heuristic|logic|table)",
                       r"instantiations?")),
    ("block_clusters", (r"thread ?block clusters?", r"cluster (?:size|dims?|launch)", r"distributed shared memory", r"dsmem", r"multicast")),
    ("gpu_contention", (r"(?:anything|something|other (?:jobs?|processes|users|work)) (?:else )?(?:running )?on the (?:gpu|node|box|card)",
                        r"exclusive (?:mode|access)", r"shared (?:gpu|node)", r"(?:gpu|node) (?:is )?(?:busy|shared|contended)")),
    ("harness_integrity", (r"(?:touch|touched|modif\w+|edit\w*|chang\w+|alter\w*) (?:the |any )?(?:eval(?:uator)?|harness|checker|tests?|reference(?: implementation)?|scenario (?:list|file)s?)(?: files?| code| scripts?)?(?![\w-])",
                           r"git diff (?:of |on |for )?(?:the )?(?:eval\w*|harness|tests?)", r"files? (?:you|it) (?:weren'?t|were not|wasn'?t) (?:supposed|allowed) to",
                           r"(?:in|to) the (?:eval(?:uator)?|harness|checker|scorer|grader) (?:change|changed|get modified|got modified|modified|touched|edited)")),
    ("code_diff", (r"what (?:changed|did (?:you|u) change|have (?:you|u) changed) (?:since|between)", r"what (?:you|u) (?:edited|changed|touched) since",
                   r"(?:which|what) (?:lines|files|code) (?:differ|changed)", r"delta (?:from|between|since|vs\.?)", r"(?:git )?diff (?:against|since|between|vs\.?|from) (?:the )?(?:commit|last|previous|v\d+|version|passing|good)",
                   r"delta between", r"(?:which|what) (?:lines|edits|changes|files) (?:did you|have you|went|were)",
                   r"(?:since|after|before) the last (?:good|passing|green|working) (?:eval\w*|version|commit|run|build)",
                   r"(?:between|from) the passing and the failing", r"show (?:me )?the diff", r"where correctness was still",
                   r"git diff(?! (?:of |on |for )?(?:the )?(?:eval\w*|harness|tests?))",
                   r"diff (?:it |this )?(?:against|since|between|vs\.?|from|with) (?:the )?[\w.]+ (?:commit|version|candidate|one|build|revision)",
                   r"diff (?:the )?(?:current|new|this|latest) (?:kernel|version|code|candidate)",
                   r"(?:the one|version|candidate|commit) that was (?:still )?(?:correct|passing|green|working|fast\w*)",
                   r"(?:what'?s|what is|anything) different (?:from|than|vs\.?|compared to)",
                   r"(?:lines|code) (?:you|u) (?:touched|changed|edited) since")),
    ("ablation", (r"ablat\w*", r"(?:without|w/o|minus) (?:the |that |this )?(?:last|latest|previous) (?:patch|change|edit|commit)",
                  r"revert (?:just |only )?(?:the |that |this )?(?:\w+ )?(?:change|edit|patch|commit|unroll|prefetch\w*|tweak)?(?: and (?:re-?)?(?:time|run|bench|measure))",
                  r"(?:before|without) (?:this|that|the last|your last) (?:change|edit|patch|commit)",
                  r"which (?:of the )?(?:\d+ |two |three |four )?(?:edits?|changes?|patch(?:es)?|commits?|tweaks?) (?:actually )?(?:gave|made|bought|caused|helped|matter\w*|is responsible)",
                  r"a/b (?:the|each|that|this)", r"(?:each|which) (?:change|edit|tweak)(?:'s)? (?:contribution|share|effect)",
                  r"(?:credit|attribut\w+) (?:the )?(?:speedup|gain|win)", r"(?:change|edit|patch|tweak) on its own",
                  r"one (?:change|edit) at a time", r"git stash",
                  r"(?:speedup|gain|win|improvement) (?:from|of) (?:just |only )?(?:the |that |this )?[\w-]+(?: [\w-]+)? (?:alone|by itself|on its own)",
                  r"(?:disable|remove|turn off|switch off|drop|undo) (?:just |only )?(?:that|the|this) (?:[\w.-]+ ){0,2}?(?:opt\w*|change|edit|trick|tweak|[\w.-]+ing) (?:by itself|alone|on its own)",
                  r"pulling its weight")),
    ("vs_previous", (r"(?:previous|last|prior|earlier) best", r"best so far", r"vs\.? (?:v|candidate )\d+", r"(?:than|vs\.?|versus|over) (?:the )?(?:previous|prior|earlier) (?:candidate|version|attempt)")),
    ("compile_time", (r"compile time", r"compilation time", r"build time", r"how long (?:does it|do they) take to (?:compile|build)",
                      r"jit (?:time|overhead|compil\w*)", r"how long (?:is|does) (?:the )?(?:compile|compilation|build|jit)\w*")),
    ("scaling", (r"scal(?:e|es|ing) with (?:size|n|batch|seqlen|the (?:size|batch|problem))", r"does it scale",
                 r"larger (?:shapes|sizes|batch\w*|problems)", r"bigger (?:shapes|sizes|inputs|problems)")),
    # -- is it right
    ("edge_shapes", (r"ragged", r"odd(?:[- ]sized?| lengths?| sizes?| shapes?| dims?)", r"non-?multiple", r"not a multiple",
                     r"isn'?t a multiple", r"aren'?t a multiple", r"doesn'?t divide", r"tail (?:tile|block)s?",
                     r"(?:isn'?t|aren'?t|not|non-?)\s*multiples? of",
                     r"partial (?:tail )?tiles?", r"non-?aligned", r"unaligned", r"misaligned", r"remainder", r"edge cases?",
                     r"corner cases?", r"power-of-two", r"not divisible", r"non-power-of-(?:2|two)", r"not a power of (?:2|two)",
                     r"tail handling", r"boundary (?:check|tiles?|conditions?|handling)", r"garbage in the tail", r"in the tail",
                     r"uneven", r"leftover", r"weird (?:sizes|shapes)", r"prime (?:sizes|dims|lengths)", r"cleanup (?:loop|kernel)",
                     r"divide evenly", r"bounds? check\w*", r"odd (?:\w+ )?(?:sizes?|lengths?|shapes?|dims?|dimensions?)",
                     r"(?:seqlen|seq_len|seq len|length|batch(?: size)?|rows?|cols?) (?:of )?1(?![\d.x])",
                     r"(?:aren'?t|arent|not|isn'?t|isnt) (?:\w+ )?(?:tile[- ])?aligned", r"(?:seqlen|seq_len|n|m|k|d|hidden|dim|len) ?=? ?\d+ instead of \d+",
                     # an odd size given as the case to check ("seqlen=1 or s=2047", "N=4095 cols", "d=96 or n=1000")
                     r"(?:seqlen|seq_len|seq|len|length|s|n|m|k|d|hidden|cols|rows|dim|vocab) ?= ?\d*[13579]",
                     r"(?:seqlen|seq_len|s|n|m|k|d|hidden|dim) ?= ?\d+ or (?:seqlen|seq_len|s|n|m|k|d|hidden|dim) ?= ?\d+")),
    ("all_scenarios", (r"every (?:scenario|shape|case)(?! where)", r"every input(?! bytes?)", r"all (?:the )?(?:\d+ )?(?:scenarios|shapes|inputs|cases|test cases|configs)",
                       r"every (?:input |test )?(?:config|configuration|dtype|combo|size|test)(?! where)", r"run them all",
                       r"not just the ones you timed", r"only the nice",
                       r"(?:which|what) (?:input )?(?:configs|configurations|shapes|cases|scenarios|sizes) (?:have|did) (?:you|u|we) (?:verif|check|test|validat|run)\w*")),
    ("error_size", (r"max abs", r"(?:max|mean)(?: ?/ ?(?:max|mean))? (?:abs |rel )?diff", r"rel(?:ative)? diff\w*", r"abs(?:olute)? (?:error|diff\w*)", r"\|\s*out\s*-\s*ref\s*\|", r"worst (?:element|deviation|error)",
                    r"max(?:imum)? (?:error|diff|difference)", r"mean abs", r"max rel", r"rel(?:ative)? err\w*", r"deviation",
                    r"how far off (?:is|are)(?= (?!we\b))", r"how big is the (?:error|diff|mismatch)", r"exceed\w* (?:atol|rtol|the tol\w*)",
                    r"atol", r"rtol", r"ulps?", r"largest (?:mismatch|error|diff)", r"worst[- ]case (?:diff|error|\|)", r"worst diff",
                    r"err(?:or)? numbers", r"how close to the tolerance", r"accuracy drop", r"rounding error",
                    r"(?:wrong|off|mismatch\w*|differ\w*|exceed\w*)[^?.]{0,25}by how much", r"by how much[^?.]{0,25}(?:wrong|off|exceed\w*)",
                    r"tolerance (?:it'?s|is) checked", r"(?:error|mismatch|diff) magnitude", r"mismatch(?:ed)? elements?",
                    r"which elements (?:are )?wrong", r"rmse", r"l2 error", r"cosine similarity", r"allclose", r"assert_close",
                    r"max_abs\w*", r"how wrong", r"error (?:stats|statistics|metrics)", r"abs(?:olute)? and rel(?:ative)?", r"how (?:large|big) (?:is|are) the (?:errors?|diffs?|mismatch\w*|deviations?)",
                    r"(?:error|accuracy|tolerance|numerical) (?:headroom|margin|budget)",
                    r"(?:headroom|margin) (?:against|to|under|below|vs\.?) (?:the )?(?:atol|rtol|tol\w*|threshold)",
                    r"(?:largest|biggest|max\w*|worst) (?:elementwise |element-wise |per-element |absolute |abs )?(?:diff|difference|error|mismatch|deviation)s?",
                    r"elementwise (?:diff|error|difference)s?", r"how close (?:are|is) the (?:outputs?|results?)", r"worst[- ]case deviation")),
    ("correctness_run", (r"correctness (?:check|checks|test|tests|run|runs|sweep)", r"verif\w+ numerically", r"numerically verif\w+",
                         r"(?:validat|verif|check)\w* (?:\w+ )?(?:vs\.?|against) (?:the )?reference", r"accuracy (?:sweep|check|test)s?",
                         r"run (?:the )?correctness", r"correctness on",
                         r"(?:validate|verify|verified|check|checked|compare|compared)\w* (?:the |its |our )?(?:outputs?|results?) (?:vs\.?|against|with|to) (?:the )?(?:reference|ref|torch|pytorch|eager)")),
    ("tolerance_change", (r"(?:loosen|widen|relax|raise|bump|change|increase)\w* (?:the )?(?:tol\w*|atol|rtol)",
                          r"(?:tol\w*|atol|rtol) (?:was |been |got )?(?:loosened|widened|relaxed|raised|changed|touched|modified|bumped)",
                          r"touch(?:ed)? the (?:tol\w*|checker|threshold)")),
    ("dtypes", (r"which precisions?", r"precisions? (?:does|do|would)", r"dtypes?", r"data types?")),
    ("precision", (r"fp16 accum\w*", r"accumulat\w*", r"partial sums in half", r"rounding", r"fp32 accum\w*",
                   r"precision")),
    ("masking", (r"causal", r"mask\w*", r"q ?len ?!= ?kv ?len", r"unequal lengths?", r"rectangular")),
    ("nan_inf", (r"nans?", r"-?inf\b", r"underflow\w*", r"fp16 max", r"denormal\w*", r"(?:non-?)?finite", r"isfinite",
                 r"blows? up", r"inf/nan", r"nan/inf", r"isnan", r"isinf", r"stays? finite",
                 # huge magnitudes: what is checked is the same, the output staying finite
                 r"~?\d+e\d+", r"extreme[- ]?(?:magnitude|values?|inputs?|activations?)", r"big values", r"large (?:values|inputs|magnitudes?|logits)",
                   r"large[- ]magnitude", r"scal\w* (?:x|the inputs?|inputs?) by \d+", r"scal\w* (?:(?:the )?inputs? )?(?:by )?x ?\d+", r"saturat\w*", r"overflow\w*",
                   r"huge (?:positives?|values?|inputs?|logits)",
                   r"scal\w* (?:the |all )?(?:inputs?|values|logits|activations|x) (?:up )?(?:by )?(?:\d+ ?x|x ?\d+|\d+)",
                   r"(?:near|close to|around|at) (?:the )?(?:fp16|bf16|half|float16) (?:max|limit|range)",
                   r"(?:row )?max (?:is|gets) (?:big|large|huge)", r"big (?:row max|values|logits|inputs|activations)", r"~?\d{4,}(?= in (?:fp16|bf16|half))",
                   r"values? (?:~|around |above |near )\d{3,}", r"dynamic range")),
    ("determinism", (r"determinis\w*", r"non-?determinis\w*", r"bit equality", r"bit-identical", r"same bytes",
                     r"reproducible (?:results|outputs?)", r"low bits", r"bitwise", r"same bits", r"bit-identical outputs?", r"identical\?",
                     r"reduction order", r"diff the (?:outputs?|results?|\w+ tensors?)", r"exactly equal", r"across runs bitwise",
                     r"(?:results?|outputs?) (?:change|vary|differ)\w* (?:from )?(?:run to run|across runs|between (?:runs|calls|launches))",
                     r"change from run to run", r"difference between repeated calls", r"same (?:input|data)[^?.]{0,40}(?:identical|equal|same)",
                     r"hash (?:the )?(?:result|output)s?", r"checksums?", r"md5", r"sha\d*sum", r"(?:summation|accumulation|reduction) order",
                     r"order of (?:the )?(?:summation|accumulation|reduction|atomics)", r"two runs[^?.]{0,30}same",
                     r"bit[- ]exact\w*", r"(?:byte|bit)[- ]for[- ](?:byte|bit)", r"(?:vary|varies|differ\w*|chang\w*) (?:from )?(?:call|launch|invocation) to (?:call|launch|invocation)", r"same (?:results?|outputs?) every (?:time|run)", r"torch\.equal", r"array_equal",
                     r"(?:run|call) (?:it )?twice", r"compare the outputs", r"diff out\d* (?:vs\.?|and|against) out\d*",
                     r"(?:results?|outputs?) (?:change|vary|differ)\w* (?:across|between|over) (?:repeated |multiple |two |identical )?(?:runs|calls|invocations|launches)",
                     r"(?:across|between) repeated (?:calls|invocations|launches)",
                     r"diff (?:two|both|the two) (?:outputs?|results?|runs?)",
                     r"(?:give|produce|return)s? (?:bit-?)?(?:identical|the same|exactly the same) (?:outputs?|results?|bits|values)", r"outputs? (?:of|from) (?:identical|the same) inputs?", r"(?:identical|same) inputs?[^?.]{0,40}(?:differ|identical|equal)")),
    ("work_skipped", (r"skip\w* (?:the )?work", r"full computation", r"cached between", r"re-?randomi[sz]\w*",
                      r"fresh (?:random )?inputs?", r"different inputs? each", r"change the input", r"same buffer",
                      r"memoi[sz]\w*", r"change accordingly", r"result cach\w*", r"still do(?:es)? the (?:full )?work",
                      r"(?:returns?|serves?) (?:a )?cached (?:result|output)", r"early[- ]return",
                      r"recomput\w* (?:it )?every (?:call|time|iteration)", r"(?:actually )?comput\w+ everything",
                      r"cach\w+ the (?:results?|outputs?)", r"actually comput\w+ (?:anything|the (?:full|whole))")),
    ("inputs_untouched", (r"inputs? (?:untouched|unchanged|modified|buffers? modified)", r"in place",
                          r"overwrite any input", r"write into (?:it|the input)", r"inputs bit-identical",
                          r"still the same after the call", r"clobber\w*", r"mutat\w+ (?:the )?inputs?")),
    ("workspace_memory", (r"workspace", r"allocs?", r"torch\.(?:empty|zeros)", r"extra (?:global |gpu |device )?memory", r"cudamalloc\w*", r"scratch(?: buffers?| space| memory)?",
                          r"peak mem\w*(?: usage| use)?", r"max_memory_allocated", r"memory_allocated", r"(?<!register )allocat\w+",
                          r"(?<!shared )(?<!local )memory (?:footprint|usage|use)", r"temp(?:orar(?:y|ies))? (?:buffers?|allocations?|storage|tensors?)",
                          r"how many (?:mb|gb|bytes) of (?:scratch|workspace|temp\w*|extra)", r"footprint")),
    ("full_eval", (r"full (?:evaluator|evaluation|eval|sweep|harness|suite)(?: run)?", r"whole (?:scenario set|evaluator|eval|suite|harness)",
                   r"complete (?:eval\w*|scenario set|suite)", r"official (?:harness|evaluator|eval)", r"own (?:micro-?bench\w*|benchmark|script)",
                   r"pass count", r"how many of the \d+ (?:scenarios|cases)", r"all scenarios pass\w*",
                   # ... on the code as it is now, not a build from before the last change
                   r"(?:numbers?|results?|figures?|speedups?|ratios?|timings?|that|this|it|eval\w*|pass\w*|run|measured)"
                   r"(?: [^\s?.!]+){0,4} (?:from|on|for|with|against) (?:the )?(?:current|latest|final|newest|last) "
                   r"(?:code|commit|build|version|binary|revision|edit|change)",
                   r"on head", r"(?:old|older|previous|stale) (?:build|binary)", r"build (?:from )?before",
                   r"before (?:the|you|your) refactor", r"clean (?:evaluation|eval|run)", r"(?:real|actual|official) (?:grader|scorer|scoring)",
                   r"scoring harness", r"through the (?:full |whole |official |real )?(?:evaluator|harness|grader|scorer)", r"(?:evaluator|grader|scorer)'?s? (?:final |last )?(?:output|log|verdict)",
                   r"(?:final|last) (?:scorer|grader|evaluator|eval) (?:output|log|run|result)s?", r"(?:grader|scorer|evaluator) (?:print|say|report|output)\w*",
                   r"score run", r"(?:last|final) full run", r"fresh process", r"(?:latest|last|final) (?:full )?(?:evaluation|eval)(?: run)?", r"quick (?:run|eval|mode|check) or (?:the )?full")),
    ("absolute_time", (r"absolute (?:runtime|time|timings?)", r"raw (?:ms|us|µs|time|times|timings?)",
                       r"how many (?:us|ms|µs|microseconds|milliseconds)", r"forget ratios",
                       r"in (?:microseconds|milliseconds)", r"actual (?:numbers|times|timings) (?:in|not)")),
    ("empty_rows", (r"(?:fully|all|entirely|completely)[- ]masked", r"whole (?:query )?row (?:is )?masked",
                    r"masked (?:whole|entire) rows?", r"blanks? out (?:a|the) whole", r"row that(?:'s| is) entirely",
                    r"all (?:the )?logits in a row", r"(?:entire|whole) row (?:of|is) -?inf", r"empty rows?", r"all -?inf",
                    r"row of -?inf", r"every logit in a row", r"zero keys", r"nothing to attend")),
    ("contiguity", (r"non-?contiguous", r"contiguous", r"strided (?:slice|view|input|tensor)s?", r"transposed view",
                    r"strides?", r"stride ?!=", r"permuted", r"padded leading dim", r"lda", r"leading dim\w*",
                    r"views?(?= (?:of|into|as input))")),
    ("causal_skip", (r"causal (?:vs\.?|versus|to|over) (?:non-?causal|full|dense)", r"causal[^?.]{0,20}(?:vs\.?|versus) non-?causal", r"with and without (?:is_)?causal",
                     r"both masking modes", r"skip\w* (?:the )?(?:fully )?masked tiles", r"early exit",
                     r"causal speedup")),
    ("input_values", (r"ties", r"tied (?:values|scores)", r"duplicate (?:values|keys|scores|indices)", r"(?:all[- ])?zeros? (?:inputs?|rows?)",
                      r"constant (?:inputs?|rows?|values)", r"input distribution", r"sorted inputs?", r"adversarial inputs?")),
    # -- against what
    ("vendor_baseline", (r"cublas\w*", r"cudnn", r"cutlass", r"cute", r"torch\.(?:matmul|mm|bmm|nn|compile|einsum|baddbmm|addmm|ops|sort|topk|softmax|layer_norm)[\w.]*",
                         r"torch(?:'s)? (?:sdpa|matmul|kernel|implementation|op)", r"sdpa", r"flash[- ]?att(?:n|ention)(?:[- ]?\d)?",
                         r"fa[234]", r"vendor(?: library| lib)?", r"stack up against", r"flashinfer", r"xformers",
                         r"transformer engine", r"liger", r"apex", r"thunderkittens", r"rocblas", r"hipblas", r"onednn", r"mkl",
                         r"(?:library|libraries)(?:'s)? (?:kernel|implementation|version|number)", r"state of the art", r"sota",
                         r"inductor", r"torch compile", r"upstream (?:kernel|implementation|version|library)", r"pytorch(?:'s)? (?:kernel|implementation|op|eager)", r"eager (?:mode|pytorch|torch)",
                         r"scaled_dot_product_attention", r"(?:torch|pytorch) reference (?:implementation )?(?:time|timing|speed|runtime)", r"scaled dot product attention", r"f\.(?:linear|softmax|layer_norm|rms_norm|gelu|silu|conv\dd|embedding|cross_entropy|scaled_dot_product_attention)",
                         r"(?:library|vendor|framework) (?:baseline|implementation|version|kernel|reference|number)s?", r"cudnn\w*", r"cub(?:::\w+)?",
                         r"thrust", r"triton\.ops", r"quack", r"deepgemm", r"torch\.ops\.\w+", r"torch\.nn\.functional\.\w+")),
    ("per_scenario", (r"per[- ]scenario", r"individual (?:cases?|scenarios?|ones|shapes?|ratios|speedups|timings|numbers|results)",
                      r"(?:breakdown|break\w* (?:[\w.]+ ){0,2}down|split) by (?:input )?(?:config|configuration|scenario|shape|case|problem size|test)s?(?![\w-])",
                      r"(?:speed\w*|times?|timings?|ms|us|ratios?|slower|faster|[\d.]+x)(?: [^?.!\n]{0,40})? (?:for|on) each (?:of the )?(?:\d+ )?(?:scenarios?|shapes?|cases?|configs?|sizes?|inputs?)",
                      r"(?:for|on) each (?:of the )?(?:\d+ )?(?:scenarios?|shapes?|cases?|configs?|sizes?|inputs?)(?: [^?.!\n]{0,30})? (?:speed\w*|times?|timings?|ratios?)",
                      r"which (?:cases|shapes|scenarios|configs|sizes) (?:are|is) (?:you|we|it|the kernel) slower",
                      r"table:? (?:of |with |per |by )?(?:each )?(?:shape|scenario|case|config|size)",
                      r"every scenario where", r"which scenarios", r"hides? (?:it|stuff|them) in the mean",
                      r"(?:mean|geomean|geo mean) hides", r"went backwards", r"any (?:individual )?(?:case|scenario) below",
                      r"individually", r"per[- ](?:case|shape|size|config)",
                      r"per[- ](?:test|input)(?: case)? (?:timings?|times?|speedups?|ratios?|numbers|results)", r"any (?:shape|case|scenario) where",
                      r"los(?:es|e|ing) to the (?:baseline|seed)", r"(?:break|broken) (?:\w+ )?(?:\w+ )?down per",
                      r"(?:any|a) single (?:config|shape|case|scenario|size)s?", r"(?:anything|any\w*) (?:below|under) 1(?:\.0+)?x", r"below 1(?:\.0+)?x", r"worst first",
                      r"(?:scenarios?|shapes?|cases?) (?:are |is )?slower than (?:the )?(?:seed|baseline)",
                      r"each (?:scenario|shape|case)(?:'s)? (?:speedup|ratio|time)",
                      r"(?:list|show|print)\w* (?:me )?(?:every|all|the) (?:\w+ )?(?:scenarios?|cases?|shapes?) (?:where|that|which)",
                      r"which (?:shape|scenario|case|config|size|input)s? (?:is|are|was|were) (?:the )?(?:slowest|fastest|worst|best|weakest)",
                      r"(?:slowest|worst|weakest) (?:shapes|scenarios|cases|configs|sizes)",
                      r"(?:slowest|worst|weakest) (?:shape|scenario|case|config|size) (?:vs\.?|against|relative to|compared (?:to|with))",
                      r"break\w* down (?:the )?(?:[\w.]+ ){0,2}by (?:input )?(?:config|configuration|scenario|shape|case|problem size|size|test)s?",
                      r"(?:seed|baseline|ref\w*|their|old) (?:ms|us|µs|time|timings?) (?:vs\.?|/|versus|and|next to) (?:ours|our|ur|your|mine|new|candidate)\b",
                      r"drag\w* (?:the )?(?:geo ?mean|mean|average) down",
                      r"(?:speedups?|ratios?|timings?|times) (?:by|per|for every) (?:scenario|shape|case|config|input|size)s?(?![\w-])", r"per[- ](?:scenario|shape|case|config) (?:table|list|breakdown)")),
    ("goal_arithmetic", (r"(?:reach|hit|get to|make|meet) the (?:goal|target)(?: geomean| speedup| ratio)?",
                         r"(?:goal|target) (?:geomean|speedup|ratio)", r"how far (?:from|to|off) the (?:goal|target)",
                         r"needs? to (?:reach|hit) (?:the )?(?:goal|target)")),
    ("regression", (r"regress\w*", r"slower than (?:before|the previous|the one before|v\d+)",
                    r"got slower", r"drop(?:ped)? from", r"where did the speed go", r"made (?:[^?.,]{1,30} )?slower",
                    r"lost \d+%", r"new\s*<\s*old", r"per-scenario (?:speedup|slowdown|breakdown)", r"individual ones",
                    r"which (?:shapes|scenarios|cases) (?:regressed|got slower|dropped|lost)", r"got worse",
                    r"(?:faster|slower) than the (?:previous|last|old|prior|earlier) (?:version|candidate|one|build|commit|kernel)")),
)

#: (topic, cues, blockers): a cue names the topic only in a sentence where no blocker occurs. These
#: words are the topic's in most sentences and another's in a few the blockers recognise.
WEAK: tuple[tuple[str, tuple[str, ...], str], ...] = (
    # re-running is about noise, unless outputs are compared for equality, the seed is re-timed,
    # or the cache is flushed between the runs
    ("noise", (r"run[- ]to[- ]run", r"(?:re-?run|repeat|rerun)\w*", r"repeats", r"a few (?:more )?times", r"\d+ times",
               r"(?:second|third) (?:measurement|run)", r"how many runs"),
     r"identical|bitwise|same bits|same bytes|bit-|determinis|diff the|hash|checksum|exactly equal|across runs"
     r"|seed (?:now|today|timing|time|number)|re-?time|re-?measure|(?:the |a )(?:seed|baseline) (?:now|again|today)"
     r"|yesterday|flush|cold|cleared|scrub|invalidat|thrash|evict|warm|whole evaluator|full eval|all scenarios|on head|latest|final version"
     r"|torch\.equal|equal\(|twice|compare the outputs|same input|identical input|repeated (?:calls|invocations|launches|executions)"),
    # warm-up runs are about the cache's state, unless they are one setting of the timing loop listed
    # with the others (reps, iterations, the statistic reported)
    ("cache_state", (r"warm-?up runs?", r"warm-?up"),
     r"\breps\b|repetitions|iterations|iters\b|\bcount\b|cuda ?events|median|\bmean\b|how many|timer|timing loop|cuda ?sync|synchroni[sz]"),
    # the host's overhead is the launch path, unless it is the host's work inside the timed region
    ("launch_overhead", (r"(?:host|api|driver) overhead",), r"alloc|sync|cop(?:y|ies|ying)|timed region"),
    # Triton is a baseline to beat, unless it is the language the kernel is written in (its autotuner)
    ("vendor_baseline", (r"triton",), r"autotun|best_config|config|block_[mnk]|num_warps|@triton|triton kernel|tl\."),
    # the block's dimensions are a launch setting chosen, unless printed with the grid (a wave count)
    ("tuning_config", (r"blockdim",), r"griddim|grid ?dims?|grid size|waves?|ctas"),
    # the number of pipeline stages, unless it is one knob of a tuning config listed with others
    ("overlap", (r"num_stages",), r"block_[mnk]|num_warps|config|autotun"),
    # back-to-back runs are about noise, unless it is the seed run beside the candidate (a fresh baseline)
    ("noise", (r"back[- ]to[- ]back",), r"original|unmodified|\bseed\b|baseline|reference"),
    # the seed's timing asked for is an absolute time, unless it is asked whether it is still current
    ("absolute_time", (r"(?:seed|baseline|original)(?:'s)? (?:kernel )?(?:timings?|runtime|duration)",),
     r"yesterday|today|\bnow\b|again|fresh|re-?time|re-?measure|re-?run|switched|same as|old number|chang|mov|drift|stale"),
)

#: (scope, measurements, read as): a scope names the cases a measurement covers; with one of these
#: measurements it is read as another scope, or (None) it is only where the measurement is taken. Listing errors (or the tuning config chosen) "per
#: scenario" is a check over every scenario, not the per-scenario speedups.
SCOPES: tuple[tuple[str, frozenset[str], str | None], ...] = (
    ("per_scenario", frozenset({"error_size", "correctness_run", "nan_inf", "tuning_config"}), "all_scenarios"),
    # "every shape" of a per-scenario timing table is the table's rows, not a check over all of them
    ("all_scenarios", frozenset({"per_scenario"}), None),
    # a sanitizer run on the tail handling or after a barrier change: the sanitizer is what is asked
    ("edge_shapes", frozenset({"memory_safety"}), None),
    ("barriers", frozenset({"memory_safety"}), None),
    # the measurements named as evidence for a claimed limit are read with the claim: the distance to the floor
    *((m, frozenset({"limit_claim"}), None) for m in ("bound_type", "occupancy", "compute_peak", "limit_origin")),
    ("limit_claim", frozenset({"limit_claim"}), "lower_bound"),
    # an ablation names the change it takes out: the change is where the timing is taken
    *((m, frozenset({"ablation"}), None) for m in ("bank_conflicts", "overlap", "vector_loads", "unrolling", "async_copy",
                                                    "atomics", "smem_usage", "tensor_cores", "precision")),
    # a change located by the regression it caused is still the code changed
    ("regression", frozenset({"code_diff"}), None),
    # a full evaluation covers every scenario by definition
    ("all_scenarios", frozenset({"full_eval"}), None),
)

_SENTENCE = re.compile(r"[^.?!\n;]+")


_DIGITS = frozenset("0123456789")


def _structure(p: str, start: int = 0):
    """(index, character, nesting depth before it) of the pattern's characters from `start` that
    are not escaped and not inside a character class."""
    depth, j = 0, start
    while j < len(p):
        c = p[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            j = p.index("]", j + 2) + 1
            continue
        yield j, c, depth
        depth += (c == "(") - (c == ")")
        j += 1


def _group_end(p: str, i: int) -> int:
    """The index just past the group that opens at p[i] ("(")."""
    return next((j + 1 for j, c, depth in _structure(p, i) if c == ")" and depth == 1), len(p))


def _alternatives(body: str) -> list[str]:
    """The top-level alternatives of a pattern."""
    cuts = [j for j, c, depth in _structure(body) if c == "|" and depth == 0]
    return [body[a + 1:b] for a, b in zip([-1] + cuts, cuts + [len(body)])]


def _first_chars(p: str) -> frozenset[str] | None:
    """The characters a match of pattern `p` can start with, or None when that is not plain."""
    while p.startswith(("\\b", "(?<!", "(?<=")):
        p = p[2:] if p.startswith("\\b") else p[_group_end(p, 0):]
    if not p:
        return None
    quantified = lambda k: k < len(p) and p[k] in "?*{"  # noqa: E731
    if p.startswith("(?:"):
        end = _group_end(p, 0)
        if quantified(end):
            return None
        sets = [_first_chars(alt) for alt in _alternatives(p[3:end - 1])]
        return None if any(x is None for x in sets) else frozenset().union(*sets)
    if p.startswith("\\d"):
        return None if quantified(2) else _DIGITS
    if p[0] in "abcdefghijklmnopqrstuvwxyz0123456789_%~-/" and not quantified(1):
        return frozenset(p[0])
    return None


def dispatched(pats: list[str]) -> str:
    """One alternation of `pats`, grouped by the character each must start with, so that at a
    word's start the engine tries only the patterns that can match there (a table of 900
    patterns tried one by one at every word costs more than the rest of mining)."""
    by_first: dict[str, list[str]] = {}
    rest: list[str] = []
    for p in pats:
        first = _first_chars(p)
        if first is None:
            rest.append(p)
            continue
        for c in first:
            by_first.setdefault(c, []).append(p)
    parts = [f"(?={re.escape(c)})(?:{'|'.join(ps)})" for c, ps in sorted(by_first.items())]
    return "|".join(parts + rest)


@lru_cache(maxsize=1)
def _senses() -> tuple[re.Pattern, tuple[tuple[re.Pattern, str], ...]]:
    """Any sense at all (one scan: most texts have none), and each sense with its replacement."""
    return (re.compile(r"\b(?:" + dispatched([p for p, _ in SENSES]) + ")"),
            tuple((re.compile(p), r) for p, r in SENSES))


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[str, re.Pattern], ...]:
    return tuple((name, re.compile(r"(?<![\w-])(?:" + dispatched(list(pats)) + r")(?![\w-])"))
                 for name, pats in TOPICS)


@lru_cache(maxsize=1)
def _weak() -> tuple[tuple[str, re.Pattern, re.Pattern], ...]:
    return tuple((name, re.compile(r"(?<![\w-])(?:" + "|".join(cues) + r")(?![\w-])"), re.compile(block))
                 for name, cues, block in WEAK)


@lru_cache(maxsize=1)
def _any_topic() -> re.Pattern:
    """Every pattern at once: most texts name no topic, and one scan says so."""
    pats = [p for _, pats in TOPICS for p in pats] + [p for _, cues, _ in WEAK for p in cues]
    return re.compile(r"(?<![\w-])(?:" + dispatched(pats) + r")(?![\w-])")


_IDENT_SEP = re.compile(r"_+|(?<=[a-z0-9])\.(?=[a-z])|(?<=[a-z])-(?=[a-z])")
_WORD = re.compile(r"[a-z]{6,}")
_LITERAL = re.compile(r"(?<![\\a-z])[a-z]{6,}")


@lru_cache(maxsize=1)
def _table_words() -> tuple[frozenset[str], dict[tuple[int, str], tuple[str, ...]]]:
    """The literal words of six letters or more in the table's patterns (some are stems: "coalesc",
    "throttl"), and an index by (length, first letter) for spelling."""
    words: set[str] = set()
    for _, pats in TOPICS:
        for p in pats:
            words.update(_LITERAL.findall(re.sub(r"\(\?[<!=:]+[^)]*\)", " ", p)))
    index: dict[tuple[int, str], list[str]] = {}
    for w in words:
        index.setdefault((len(w), w[0]), []).append(w)
    return frozenset(words), {k: tuple(sorted(v)) for k, v in index.items()}


@lru_cache(maxsize=65536)
def respelled(word: str) -> str:
    """A word of six letters or more one edit from exactly one word (or stem) of the table, read as
    that word ("conflits" -> "conflicts", "regsiters" -> "registers"); any other word as it is."""
    words, index = _table_words()
    if len(word) < 6 or any(word[:k] in words for k in range(6, len(word) + 1)):
        return word
    # a word that is another's beginning is an inflection ("permute", "permuted"), not a typo
    # nor is another ending of the same stem ("produced", "producer"; "counted", "counter")
    hits = {w for n in (len(word) - 1, len(word), len(word) + 1) for w in index.get((n, word[0]), ())
            if one_edit(word, w) and not (w.startswith(word) or word.startswith(w))
            and not (len(w) == len(word) and w[:-1] == word[:-1])}
    if hits:
        return next(iter(hits)) if len(hits) == 1 else word
    # a misspelt stem followed by its ending ("coalsced": "coalsc" + "ed"), the longest stem first;
    # the stem must end where the head does ("variant" is not "variab" + "t": the edit would be
    # the stem's last letter, where an ending begins, not a typo inside the stem)
    for cut in range(len(word) - 1, 5, -1):
        head, tail = word[:cut], word[cut:]
        got = {w + tail for n in (cut - 1, cut, cut + 1) for w in index.get((n, word[0]), ())
               if head[-1] == w[-1] and one_edit(head, w) and not (w.startswith(head) or head.startswith(w))}
        if got:
            return next(iter(got)) if len(got) == 1 else word
    return word


def _respell(text: str) -> str:
    return _WORD.sub(lambda m: respelled(m.group(0)), text)


def read_text(text: str) -> str:
    """The text as the topics read it: lower case, misspelt table words corrected, the senses of
    ambiguous words settled (`SENSES`)."""
    low = _respell((text or "").lower())
    any_sense, senses = _senses()
    if any_sense.search(low) is not None:
        for rx, repl in senses:
            low = rx.sub(repl, low)
    return low


@lru_cache(maxsize=65536)
def topics(text: str) -> tuple[str, ...]:
    """The topics a question asks about, in the table's order. Identifiers are read as words too:
    a profiler metric (`l1tex__data_bank_conflicts_pipe_lsu_mem_shared`, `sm__warps_active.avg`)
    names what it measures."""
    low = read_text(text)
    spaced = _IDENT_SEP.sub(" ", low) if "_" in low or "." in low or "-" in low else low
    if _any_topic().search(low) is None and (spaced is low or _any_topic().search(spaced) is None):
        return ()
    found = {name for name, rx in _compiled() if rx.search(low) or (spaced is not low and rx.search(spaced))}
    for name, cue, block in _weak():
        if name in found:
            continue
        for s in _SENTENCE.findall(low):
            if cue.search(s) and not block.search(s):
                found.add(name)
                break
    for scope, measurements, read_as in SCOPES:
        if scope in found and found & measurements:
            found.discard(scope)
            if read_as is not None:
                found.add(read_as)
    return tuple(name for name, _ in TOPICS if name in found)
