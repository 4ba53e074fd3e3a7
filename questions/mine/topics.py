"""What a steering question asks to be measured: its topic, whatever words it uses.

Paraphrases of one question often share no words ("any smem bank conflicts?", "how many wavefronts
per shared request on the ldmatrix loads?", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared for the
V transpose?") but they ask for the same measurement. The topics below are the measurements and
checks a kernel steerer asks for, each recognised by the words, phrases and profiler metric names
people use for it. A question's topics are features of its vector in clustering
(`cluster.features`), weighted by how rare each is in the corpus mined, so that two askings of one
measurement meet while two questions that share a generic topic (a profiler, a kernel) do not.

The table is written from the domain (what ncu, nsys, ptxas and an evaluator report; what
steerers ask), not from one corpus; `questions/benchmark/planted/RESULTS.md` says which planted
sets it was tuned on and which it was only scored on.
"""
from __future__ import annotations

import re
from functools import lru_cache

#: (topic, patterns over the lower-cased text). A pattern is a regular expression; `\b` is added
#: around it. Typos people make in the key words are spelled out where they are common.
TOPICS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # -- is the measurement to be trusted
    ("noise", (r"noise", r"noisy", r"variance", r"std ?dev", r"stdev", r"standard deviation", r"spread",
               r"jitter", r"run[- ]to[- ]run", r"error bars?", r"confidence interval", r"min ?/ ?median",
               r"(?:re-?run|repeat|rerun)\w*", r"real or", r"(?:is|was) (?:the|that|this) [\w.% ]{0,20}real",
               r"lucky", r"fluke", r"reproduc\w+ (?:speed|gain|win|number|timing)", r"noise band",
               r"how (?:sure|confident)", r"measurement error", r"noise floor", r"between identical runs",
               r"geomean move\w*", r"over repeats", r"repeats")),
    ("seed_vs_seed", (r"seed (?:vs\.?|versus|against) (?:the )?seed", r"seed against itself",
                      r"baseline (?:vs\.?|versus|against) (?:the )?baseline", r"(?:same|identical) kernel on both sides",
                      r"both sides are the seed", r"seed with itself", r"seed-vs-seed")),
    ("clocks", (r"clocks?", r"sm clock", r"frequenc\w*", r"frequncy", r"mhz", r"boost\w*", r"(?<!mio )(?<!lg )(?<!tex )throttl\w*",
                r"power cap\w*", r"thermal\w*", r"nvidia-smi", r"clock-control", r"locked clocks?")),
    ("cache_state", (r"flush\w*", r"cold[- ]cache", r"warm[- ]cache", r"hot[- ]cache", r"cache scrub",
                     r"staying resident across", r"memset between runs", r"cold or warm", r"warm or cold",
                     r"(?:still )?cached from", r"clear(?:s|ed|ing)? the (?:\w+ )?l2", r"l2 (?:flush|clear)\w*",
                     r"reuse the same buffers?", r"(?:hot|warm|cold) l2", r"warm-?up runs?", r"warmup")),
    ("timer", (r"cuda ?events?", r"timing harness", r"how (?:do|did) you time", r"what (?:are|is) you timing",
               r"timing the same thing", r"timer", r"cudaeventelapsedtime", r"wall[- ]clock")),
    # -- where the time goes
    ("launch_count", (r"how many (?:cuda )?(?:kernels?|launches)", r"(?:number of|count the) (?:cuda )?(?:kernels?|kernel launches|launches)",
                      r"launches per", r"kernels? (?:get )?launched per", r"separate kernel", r"all (?:the )?launches",
                      r"kernels in the trace")),
    ("timing_crosscheck", (r"independent of the (?:eval|evaluator|harness)", r"external profiler", r"gpu__time_duration",
                           r"(?:gpu|kernel) duration matches", r"compared to the harness", r"time it yourself",
                           r"timing artifact", r"(?:nsys|ncu) says? the kernel (?:itself )?takes", r"agree with (?:that|the) timing",
                           r"profiler agree\w*", r"matches the [\d.]+ ?(?:ms|us) the evaluator")),
    ("stale_baseline", (r"re-?time[d]? the (?:seed|baseline|original)", r"(?:seed|baseline|reference) time[^?.]{0,30}fresh",
                        r"old number", r"(?:seed|baseline)(?:'s)? (?:measure|timings?|ms)[^?.]{0,30}(?:right now|today|now)",
                        r"rerun the (?:seed|baseline)", r"benchmark the original (?:kernel )?again", r"from yesterday",
                        r"apples to apples", r"same session")),
    ("time_breakdown", (r"which (?:phase|part|stage|section)\w* (?:dominates|is the bottleneck|costs)",
                        r"(?:each|every) (?:stage|phase|pass) costs?", r"source view", r"per section",r"where (?:does|did|is) (?:the|all the|most of the) time", r"where (?:is|are) the cycles",
                        r"spend\w* (?:most of )?(?:its|the|their) time", r"time (?:is|actually) spent",
                        r"dominat\w+ the runtime", r"hot ?spots?", r"ncu breakdown", r"which part dominates",
                        r"where(?:'s| is) the time")),
    ("stall_reasons", (r"stall\w*", r"warp state\w*", r"long[- ]scoreboard", r"short[- ]scoreboard", r"mio throttle",
                       r"lg throttle", r"stall sampling", r"issue stalled", r"warps? (?:sit|wait\w*) on",
                       r"spend their cycles", r"(?:spend|spending) (?:their|its) time waiting", r"time waiting")),
    ("launch_overhead", (r"launch (?:overhead|latency|cost|time)", r"launch[- ]bound", r"kernel-bound", r"even kernel bound",
                         r"cpu[- ]side", r"host[- ]side", r"gpu time vs", r"(?:kernel|gpu) (?:duration|time) (?:in nsys )?vs",
                         r"end[- ]to[- ]end", r"wall time (?:per launch|the evaluator)", r"gaps? between kernels",
                         r"launching and syncing", r"kernel body", r"overhead rather than",
                         r"host-measured latency", r"(?:time|latency) (?:vs|versus) (?:the )?kernel")),
    ("waves", (r"waves?", r"tail effect", r"last wave", r"partial (?:last )?wave", r"ctas? (?:vs|versus|on)",
               r"how many ctas", r"block count", r"grid (?:size|dims?|dimensions)", r"fill the (?:machine|gpu|sms)",
               r"blocks? (?:vs|on) \d+ sms", r"sms? (?:sit )?idle", r"tail of the grid", r"griddim",
               r"(?:thread )?blocks (?:are )?(?:actually )?in flight")),
    ("occupancy", (r"occupan\w*", r"occupnacy", r"warps? (?:are |is )?(?:really |actually )?resident",
                   r"resident warps", r"active warps", r"warps? active", r"warps per sm", r"blocks? ?/ ?sm",
                   r"blocks? per sm", r"achieved (?:vs|versus) theoretical", r"theoretical (?:vs|versus) achieved")),
    ("registers", (r"spill\w*", r"local[- ]memory", r"lmem", r"stack frame", r"regs? ?/ ?thread",
                   r"registers? per thread", r"regi?s?t?e?r? count", r"local mem", r"pushed out to local", r"xptxas", r"ptxas -v", r"maxrregcount",
                   r"launch__registers", r"regsiters")),
    ("bank_conflicts", (r"bank conf\w*", r"bank_conflicts", r"conflict-free", r"conflicts? in (?:smem|shared)",
                        r"wavefronts?", r"(?:smem|shared) (?:replays?|conflicts?)", r"conflc\w*",
                        r"shared (?:load|store)s?(?:/store)? conflicts?", r"swizzl\w*", r"bank confl\.?",
                        r"(?:smem|shared(?: memory)?) (?:load|store) efficiency", r"(?:shared|smem)[^?.]{0,30}conflicts",
                        r"conflicts[^?.]{0,20}(?:shared|smem)")),
    ("coalescing", (r"coalesc\w*", r"sectors? per request", r"strided (?:loads?|access\w*|reads?)", r"uncoalesced", r"cache line per thread",
                    r"different cache line")),
    ("l2_hit", (r"l2 hit\w*", r"hit rate", r"hit ratio", r"hit ?%", r"sector_hit", r"lts__t_sector",
                r"served (?:\w+ )?(?:out of|from) (?:the )?l2", r"last[- ]level cache", r"stay in l2",
                r"(?:comes|coming) from l2", r"re-?reading from (?:hbm|dram)")),
    ("bandwidth_achieved", (r"(?:gb|tb)/s", r"bandwidth", r"bandwith", r"dram__throughput", r"dram throughput",
                            r"memory throughput", r"bytes moved\s*/\s*(?:kernel )?(?:time|runtime)", r"% of peak (?:hbm|dram|memory)",
                            r"memory roofline", r"hbm")),
    ("copy_ceiling", (r"memcpy", r"copy kernel", r"plain cop(?:y|ies)", r"vectori[sz]ed copy", r"streaming peak",
                      r"stream triad", r"trivial read/write kernel", r"real roof", r"datasheet")),
    ("compute_peak", (r"tflop/?s", r"% of (?:tensor|compute|dense) peak", r"fraction of tensor core peak",
                      r"dense peak", r"math peak")),
    ("tensor_cores", (r"tensor[- ]?cores?", r"tcs?", r"hgmma", r"tensor pipe", r"pipe tensor", r"pipe_tensor", r"wgmma", r"hmma", r"\bmmas?\b",
                      r"mma path", r"ffma", r"fma", r"tcgen05", r"mma\.sync")),
    ("instruction_mix", (r"instruction mix", r"instr mix", r"sass", r"ptx", r"disassembl\w*", r"cuobjdump",
                         r"nvdisasm", r"issued instructions", r"instructions? (?:count|mix)")),
    ("flop_count", (r"flop count", r"flops? (?:does|do|per)", r"count the flops", r"redundant compute",
                    r"floating-point work", r"minimal flop", r"ideal flop",
                    r"minimum (?:number of )?bytes", r"bytes (?:moved )?and flops")),
    ("lower_bound", (r"lower bound", r"theoretical (?:minimum|min|best) time", r"(?:the )?floor in",
                     r"roofline bound", r"speed of light", r"minimum time", r"ceiling should we expect",
                     r"(?:flops|bw|bandwidth)[- ]limited or")),
    ("limit_origin", (r"property of the (?:hardware|gpu|h\d00)", r"hardware(?:'s)? limit", r"design limit",
                      r"limit (?:of|set by) (?:the )?(?:gpu|hardware|h\d00)", r"hardware or (?:of )?(?:your|the) (?:design|kernel)",
                      r"set by the h\d00", r"how the kernel is built")),
    ("divergence", (r"diverg\w*", r"branch efficiency", r"different paths", r"divergent branch\w*")),
    ("barriers", (r"syncthreads", r"barriers?", r"mbarrier", r"__syncwarp")),
    ("overlap", (r"overlap\w*", r"pipelin\w*", r"(?:tma|async) loads? (?:actually )?overlap", r"double[- ]buffer\w*",
                 r"stages?", r"cp\.async", r"prefetch\w*")),
    ("atomics", (r"atomic\w*", r"contention")),
    # -- is it right
    ("edge_shapes", (r"ragged", r"odd(?:[- ]sized?| lengths?| sizes?| shapes?)", r"non-?multiple", r"not a multiple",
                     r"isn'?t a multiple", r"aren'?t a multiple", r"doesn'?t divide", r"tail (?:tile|block)s?",
                     r"partial (?:tail )?tiles?", r"non-?aligned", r"unaligned", r"remainder", r"edge cases?",
                     r"corner cases?", r"power-of-two", r"not divisible", r"non-power-of-(?:2|two)", r"tail handling", r"boundary check", r"garbage in the tail", r"in the tail",
                     # an odd size given as the case to check ("seqlen=1 or s=2047", "N=4095 cols")
                     r"(?:seqlen|seq_len|seq|len|length|s|n|k|hidden|cols|rows|dim|d) ?= ?\d*[13579]")),
    ("all_scenarios", (r"every (?:scenario|shape|case)", r"every input(?! bytes?)", r"all (?:\d+ )?(?:scenarios|shapes|inputs)",
                       r"not just the ones you timed", r"only the nice")),
    ("error_size", (r"max abs", r"abs(?:olute)? (?:error|diff)", r"\|\s*out\s*-\s*ref\s*\|", r"worst (?:element|deviation|error)",
                    r"max(?:imum)? error", r"mean abs", r"max rel", r"rel(?:ative)? err\w*", r"deviation",
                    r"how far off (?:is|are) the (?:output|result|values?)", r"how big is the error", r"exceed\w* (?:atol|rtol|the tol\w*)",
                    r"atol", r"rtol", r"ulps?", r"largest (?:mismatch|error|diff)", r"worst[- ]case (?:diff|error|\|)", r"worst diff",
                    r"err(?:or)? numbers", r"how close to the tolerance", r"accuracy drop")),
    ("dtypes", (r"which precisions?", r"precisions? (?:does|do|would)", r"dtypes?", r"data types?")),
    ("precision", (r"fp16 accum\w*", r"accumulat\w*", r"partial sums in half", r"rounding", r"fp32 accum\w*",
                   r"precision")),
    ("masking", (r"causal", r"mask\w*", r"q ?len ?!= ?kv ?len", r"unequal lengths?", r"rectangular")),
    ("nan_inf", (r"nans?", r"-?inf\b", r"underflow\w*", r"extreme values?", r"fp16 max", r"denormal\w*")),
    ("determinism", (r"determinis\w*", r"non-?determinis\w*", r"bit equality", r"bit-identical", r"same bytes",
                     r"reproducible results", r"low bits", r"bitwise", r"same bits", r"bit-identical outputs?", r"identical\?",
                     r"reduction order", r"diff the (?:outputs?|results?|\w+ tensors?)", r"exactly equal",
                     r"(?:results?|outputs?) (?:change|vary|differ)\w* (?:from )?run to run",
                     r"change from run to run", r"difference between repeated calls", r"same (?:input|data)[^?.]{0,40}(?:identical|equal|same)")),
    ("work_skipped", (r"skip\w* (?:the )?work", r"full computation", r"cached between", r"re-?randomi[sz]\w*",
                      r"fresh (?:random )?inputs?", r"different inputs? each", r"change the input", r"same buffer",
                      r"memoi[sz]\w*", r"change accordingly", r"result cach\w*", r"still do(?:es)? the (?:full )?work")),
    ("inputs_untouched", (r"inputs? (?:untouched|unchanged|modified|buffers? modified)", r"in place",
                          r"overwrite any input", r"write into (?:it|the input)", r"inputs bit-identical",
                          r"still the same after the call")),
    ("workspace_memory", (r"workspace", r"extra (?:global |gpu )?memory", r"cudamalloc", r"scratch buffers?",
                          r"peak mem\w*(?: usage)?", r"max_memory_allocated", r"allocat\w+ (?:per call|anything|temporaries)",
                          r"memory (?:footprint|usage)", r"temporar(?:y|ies) (?:buffers?|allocations?)")),
    ("full_eval", (r"full (?:evaluator|evaluation|eval|sweep|harness|suite)(?: run)?", r"whole scenario set",
                   r"complete eval\w*", r"official (?:harness|evaluator|eval)", r"own (?:micro-?bench\w*|benchmark|script)",
                   r"pass count", r"how many of the \d+ scenarios", r"all scenarios passing")),
    ("absolute_time", (r"absolute (?:runtime|time|timings?)", r"raw (?:ms|us|µs|time|times|timings?)",
                       r"how many (?:us|ms|µs|microseconds|milliseconds)", r"forget ratios",
                       r"(?:seed|baseline|original)(?:'s)? (?:kernel )?(?:timings?|runtime|duration|time)",
                       r"in (?:microseconds|milliseconds)")),
    ("empty_rows", (r"(?:fully|all|entirely|completely)[- ]masked", r"whole (?:query )?row (?:is )?masked",
                    r"masked (?:whole|entire) rows?", r"blanks? out (?:a|the) whole", r"row that(?:'s| is) entirely",
                    r"all (?:the )?logits in a row", r"(?:entire|whole) row (?:of|is) -?inf", r"empty rows?", r"all -?inf",
                    r"row of -?inf", r"every logit in a row", r"zero keys")),
    ("magnitude", (r"~?\d+e\d+", r"extreme[- ]magnitude", r"big values", r"large (?:values|inputs|magnitudes?|logits)",
                   r"scal\w* (?:x|the inputs?) by \d+", r"saturate", r"overflow\w*", r"huge (?:positives?|values?)")),
    ("contiguity", (r"non-?contiguous", r"contiguous", r"strided (?:slice|view|input|tensor)s?", r"transposed view",
                    r"strides?", r"stride ?!=", r"permuted", r"padded leading dim", r"lda", r"leading dim\w*")),
    ("causal_skip", (r"causal (?:vs\.?|versus|to|over) (?:non-?causal|full|dense)", r"causal[^?.]{0,20}(?:vs\.?|versus) non-?causal", r"with and without (?:is_)?causal",
                     r"both masking modes", r"skip\w* (?:the )?(?:fully )?masked tiles", r"early exit",
                     r"causal speedup")),
    # -- against what
    ("vendor_baseline", (r"cublas\w*", r"cudnn", r"cutlass", r"torch\.matmul", r"sdpa", r"flash[- ]?attn",
                         r"flashattention", r"fa[234]\b", r"vendor(?: library| lib)?", r"stack up against",
                         r"triton")),
    ("per_scenario", (r"per[- ]scenario", r"individual (?:cases?|scenarios?|ones)",
                      r"every scenario where", r"which scenarios", r"hides? (?:it|stuff|them) in the mean",
                      r"(?:mean|geomean) hides", r"went backwards", r"any (?:individual )?(?:case|scenario) below",
                      r"individually", r"per[- ](?:case|shape)", r"any (?:shape|case|scenario) where",
                      r"los(?:es|e|ing) to the (?:baseline|seed)", r"(?:break|broken) (?:\w+ )?down per")),
    ("regression", (r"regress\w*", r"slower than (?:before|the previous|the one before|v\d)",
                    r"got slower", r"drop(?:ped)? from", r"where did the speed go", r"made it slower",
                    r"lost \d+%", r"new\s*<\s*old", r"per-scenario (?:speedup|slowdown|breakdown)", r"individual ones",
                    r"which (?:shapes|scenarios|cases) (?:regressed|got slower|dropped|lost)")),
)


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[str, re.Pattern], ...]:
    return tuple((name, re.compile(r"(?<![\w-])(?:" + "|".join(pats) + r")(?![\w-])"))
                 for name, pats in TOPICS)


@lru_cache(maxsize=1)
def _any_topic() -> re.Pattern:
    """Every pattern at once: most texts name no topic, and one scan says so."""
    return re.compile(r"(?<![\w-])(?:" + "|".join(p for _, pats in TOPICS for p in pats) + r")(?![\w-])")


_IDENT_SEP = re.compile(r"_+|(?<=[a-z0-9])\.(?=[a-z])")


@lru_cache(maxsize=65536)
def topics(text: str) -> tuple[str, ...]:
    """The topics a question asks about, in the table's order. Identifiers are read as words too:
    a profiler metric (`l1tex__data_bank_conflicts_pipe_lsu_mem_shared`, `sm__warps_active.avg`)
    names what it measures."""
    low = (text or "").lower()
    spaced = _IDENT_SEP.sub(" ", low) if "_" in low or "." in low else low
    if _any_topic().search(low) is None and (spaced is low or _any_topic().search(spaced) is None):
        return ()
    return tuple(name for name, rx in _compiled() if rx.search(low) or (spaced is not low and rx.search(spaced)))
