"""How a word is read in its sentence before the topics are (`questions.mine.topics`).

Some words name a measurement only in some contexts: "noise" is run-to-run spread, but "fp noise" is
an error size; "rerun" asks about noise, unless the sentence compares outputs for equality or
re-times the seed; "per scenario" is the per-scenario speedups, but errors listed per scenario are a
check over every scenario. Three tables settle that, all data:

- `SENSES`: an ambiguous phrase in a context that decides its sense is rewritten, before any topic
  is read, into words that name that sense only.
- `WEAK`: cues that name a topic only in a sentence where none of its blockers occurs.
- `SCOPES`: a scope read with the measurement it covers (another scope, or only where the
  measurement is taken and then dropped).
"""
from __future__ import annotations

#: (pattern, replacement) applied in order to the lower-cased text before topics are read: an
#: ambiguous word in a context that decides its sense becomes an unambiguous one.
SENSES: tuple[tuple[str, str], ...] = (
    # round 12: "extra hbm" a kernel needs is its memory, not its bandwidth; cub's temporary storage is a
    # workspace, not the library as a baseline; a p50/p99 over reps is the timing's spread; requests
    # served concurrently are a batch, not streams overlapping; a grid or domain size swept is the problem size;
    # dram bytes over the kernel's time are its achieved bandwidth; an old build compared against is the previous version
    (r"\b(?:extra|more|additional) hbm\b", "extra device memory"),
    (r"\bcub (temp(?:orary)? storage)", r"\1"),
    (r"\bconcurrent (?=req|users|clients|sequences)", "parallel "),
    (r"\bconcurrency (curve|sweep|levels?)", r"batch \1"),
    (r"\b(?:vs\.?|versus|across|over) concurrency\b", "vs batch size"),
    (r"\b(?:scal\w*|sweep\w*|vs\.?|across|over|with) (?:the )?(?:grid|domain|mesh|cube) sizes?", "scales with problem size"),
    (r"\bdram__bytes[\w.]*\s*/\s*(?:gpu__)?time[\w.]*", "dram throughput"),
    (r"\b(?:against|vs\.?|versus|than|with) (?:the )?old (?:build|binary)\b", "against the old version"),
    # round 13: a result that reproduces run to run is the output's bits, not a timing's spread;
    # e2e and end2end are end to end
    (r"\b(?:results?|outputs?|answers?) reproduc\w* (?:run[- ]to[- ]run|bitwise|exactly|across (?:runs|launches|calls))", "outputs reproducible across runs"),
    (r"\b(?:e2e|end2end)\b", "end-to-end"),
    # a TFLOP/s put next to another implementation's is the two compared, not a share of the peak
    (r"\b((?:next to|beside|alongside|side by side with) (?:our |the |their )?(?:[\w'-]+ ){0,3})t?flop/?s\b", r"\1speed"),
    (r"\b(?:list|show|print)\w* (?:me )?(?:every|each|all(?: the)?) kernels? (?:whose|where|that) (?:time|runtime|timing|duration)", "the kernels whose time"),
    # the access pattern of shared memory is its banks (coalescing is global memory's)
    (r"\b(?:shared mem\w*|smem) access pattern", "smem bank conflicts"),
    (r"\bnumerically identical\b", "numerically equal to the reference"),
    # round 15: wrong values spread evenly over an output are where they lie, not a timing's spread; a share of the peak
    # asked of a bandwidth is the bandwidth's peak; close to the hardware's limit is close to the peak (not where a
    # limit comes from); torch.compile's max-autotune is a mode of the compiler compared against, not our tuner's pick
    (r"\bspread (evenly|uniformly|throughout|all over|across the (?:domain|grid|interior|output|tile))", r"distributed \1"),
    (r"\b(bandwidth|bw|dram throughput|hbm throughput|gb/s|tb/s)( as (?:a )?| in )(%|percent(?:age)?|fraction|share) of (?:the )?peak\b", r"\1\2\3 of peak bandwidth"),
    (r"\b(?:close to|near|approaching) (?:the )?hardware(?:'s)? limits?\b", "close to peak"),
    # what a library's timing includes (its setup, its buffer's allocation) is the timed region's scope
    (r"\bwhat(?:'s| is|s) (?:in|inside|included in) (?:the |that |this |your |our )?(?:[\w'-]+ ){0,2}(?:timings?|timed region|measurement)",
     "what the timed region includes"),
    (r"\b(?:the|that|this|your|our|ur) (?:[\w-]+ )?(?:timings?|timed (?:region|section|loop|window)|time (?:you|we) measured)(?: (?:for|of) [\w.]+)? (include|includes|including|counting|count|counts|cover|covers)\b([^?!\n]{0,60}?)(?:(?:buffer|workspace) )?alloc\w*",
     r"the timed region \1\2setup"),
    (r"\b(?:the|that|this|your|our|ur) (?:[\w-]+ )?(?:timings?|timed (?:region|section|loop|window)|time (?:you|we) measured)(?: (?:for|of) [\w.]+)? (include|includes|including|counting|count|counts|cover|covers)\b",
     r"the timed region \1"),
    (r"\b(?:mode ?= ?[\"']?)?max[-_]autotune(?:[-_]no[-_]cudagraphs)?[\"']?", "inductor's best mode"),
    (r"\b(?:run|execute|ran|rerun) (?:every|all (?:the )?) tests?\b", "run the full suite"),
    # "run the whole pytest file - all dtypes, all the parametrized shapes": the suite's scope, not
    # an edge-shape or dtype question (round 11, after the merge)
    (r"\b(?:whole|full|entire|complete) (?:pytest|test) (?:file|suite|dir\w*)\b[^?]{0,80}", "full suite every case"),
    # the standard deviation is the spread of a timing, not an error's deviation from the reference
    (r"\b(?:standard|std\.?) deviation\b", "stddev"),
    # the largest difference between repeated runs is a determinism check, not an error size
    (r"\b(?:(?:max(?:imum)?|largest|biggest|worst|any)(?: abs\w*| elementwise| element-wise)? )?"
     r"(?:diffs?|differences?|mismatch(?:es)?|deviations?|discrepanc(?:y|ies)) (?:between|across|among|over) (?:the )?"
     r"(?:\d+ |two |repeated |consecutive |successive |identical |multiple |back-to-back |back to back )?"
     r"(?:runs|calls|launches|invocations|repeats|iterations|reruns|executions)\b", "mismatch across runs"),
    (r"\b(?:(?:max(?:imum)?|largest|biggest|worst|any) )?run[- ]to[- ]run (?:diffs?|differences?|mismatch(?:es)?|deviations?)\b",
     "mismatch across runs"),
    # a mean that hides (or masks) a slow case is a per-scenario question, not masking
    (r"\b(?:geo ?mean|mean|average|aggregate|overall (?:number|ratio|speedup))(?: [\w.]+)? (?:can |could |may |might |would |will "
     r"|probably |often )?(?:be )?(?:hides?|hiding|masks?|masking|papers? over|smooths? over)\b", "hides it in the mean"),
    # numerical stability is about precision and overflow, not timings that stay stable
    (r"\bnumerical(?:ly)? (?:stable|unstable|stability|instability|robust\w*)", "numerical stability"),
    # the memory system's speed of light is a bandwidth share, not the roofline's minimum time
    (r"\b(?:memory|dram|hbm|mem)[- ]speed[- ]of[- ]light\b", "memory sol"),
    # stall samples "per SASS line" are where the time goes in the source view, not a SASS read
    (r"\b(?:per|by|each|every|for each) (?:sass|ptx|source|assembly) (?:line|instruction)s?\b", "per source line"),
    # a call to .contiguous() is a copy kernel a wrapper adds, not a question about strided inputs
    (r"\.?contiguous\(\)", " layout copy"),
    # a CTA swizzle orders the blocks for L2 reuse: not the shared memory swizzle against bank conflicts
    (r"\b(?:cta|threadblock|thread ?block|grid|blockidx|block[- ]index|raster\w*)[- ]?swizzl\w*",
     "block rasterization"),
    (r"\bswizzl\w* (?:the )?(?:block|cta|tile|threadblock|thread block|grid)(?:[- ]?(?:index|idx))? "
     r"(?:order\w*|rasteri[sz]ation|mapping|schedul\w*|traversal)\b", "block rasterization"),
    # the idle time between two named kernels is the gap between launches
    (r"\b(idle(?: time)?|idling|bubbles?|dead time) between (?:the )?[\w-]+(?: (?:kernel|pass|op|launch))? "
     r"and (?:the )?[\w-]+(?: (?:kernel|pass|op|launch)s?)?\b", r"\1 between kernels"),
    # ... and so is the overhead or gap between two named kernels (not a gap between two results)
    (r"\b(overhead|gaps?|delays?) between (?:the )?[\w-]+(?: (?:kernel|pass|op|launch))? "
     r"and (?:the )?[\w-]+ (?:kernel|pass|op|launch)s?\b", r"\1 between kernels"),
    # a warp's accesses to one contiguous chunk of bytes are coalescing, not a tensor's layout
    (r"\b(?:contiguous|consecutive) (?:\d+ ?b(?:ytes?)?|\d+-byte) (?:chunks?|segments?|lines?|blocks?|spans?|runs?|regions?|"
     r"transactions?)\b", "coalesced addresses"),
    (r"\b(?:adjacent|consecutive|neighbou?ring) (?:threads|lanes) (?:\w+ ){0,2}(?:adjacent|consecutive|contiguous|neighbou?ring) "
     r"(?:addresses|elements|words|bytes)\b", "coalesced addresses"),
    # the theoretical maximum of occupancy is occupancy's, not the distance to the kernel's floor
    (r"\b(occupancy\b[^?.!\n]{0,40}?\btheoretical) (?:max\w*|peak|limit|ceiling)\b", r"\1 occupancy"),
    # a KL divergence is an error metric, not warp divergence
    (r"\b(?:kl[- ]?div\w*|kullback\w*)", "kl error"),
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
    # round 19: wall-clock time as a rate's denominator (simulated days per wall-clock day) is the rate's, no timer asked
    (r"\b(?:per|/) ?wall[- ]?clock (day|hour|second|year)s?\b", r"per \1"),
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
    (r"\b(?:warps?|lanes|threads of a warp) (?:reads?|reading|loads?|loading|access\w*|touch\w*|fetch\w*|request\w*|"
     r"cover\w*) (?:a |one |the same )?contiguous\b", "coalesced addresses"),
    (r"\bstrided (?:\d+ ?b(?:yte)?s? |\d+-byte )(accesses|loads?|reads?)\b", r"strided \1"),
    # a barrier named as a stall reason ("long_scoreboard or barrier?") is a stall, not a __syncthreads question
    (r"\bbarrier (?:stalls?|stalled|stall reason)\b|(?<=scoreboard or )barrier\b|(?<=scoreboard vs )barrier\b",
     "sync stall"),
    # the dtype of a scenario grid ("every shape/dtype combo") is a scope, not which precisions are supported
    (r"\b(shapes?|sizes?|scenarios?|cases?|configs?) ?(?:/|and|x) ?dtypes? (combos?|combinations?|pairs?)\b", r"\1 \2"),
    # gaps or idle time between kernels are launch overhead, not the time split between the kernels
    (r"\b(overhead|gaps?|idle|idling|bubbles?|dead time)(?: time)?(?: (?:sits?|sitting|is|are|was|were|there|left|spent))? between "
     r"(?:the |your |our )?(?:\d+ |two |three )?(?:\w+ )?(?:kernels|launches)\b", r"\1 between kernels"),
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
    # a reduction or atomics that are "reproducible" are asked for identical bits, not a speedup that holds
    (r"\b(atomic\w*|numeric\w*|reductions?|summation|accumulation)\b((?:(?!speed|tim|number|gain|ratio|perf)[^?.!\n]){0,60}?)"
     r"\b(?:reproducib\w*|repeatab\w*)(?: (?:run[- ]to[- ]run|across runs|between runs|from run to run))?", r"\1\2reproducible bitwise"),
    # a rate claimed to be the ceiling is a claim to prove, not a bandwidth asked for
    (r"\b\d[\d.]* ?(?:[gt]i?b/s|gbps|tbps|[tg]flops?(?:/s)?)(?: (?:on|for|of|in) [\w.-]+)?(?: \w+){0,2}? (?:is|are|'s|as) "
     r"(?:the |our |already )?(?:\w+ )?(?:ceiling|limit|max(?:imum)?|roof|wall|cap)\b", "limit claim"),
    # a share of ncu's speed of light with no unit named is the distance to the roofs, not which roof
    (r"(?<!memory )(?<!dram )(?<!compute )(?<!sm )(?<!hbm )(?<!mem )\bsol ?(?:%|percent\w*|pct)"
     r"(?! ?(?:of |for |on )?(?:the )?(?:dram|memory|mem|hbm|sm|compute|l1|l2|tex))", "sol share"),
    (r"\bspeed[- ]of[- ]light (?:%|percent\w*|pct)", "sol share"),
    # a bandwidth above what the DRAM can deliver comes from the cache: a warm-cache timing
    (r"\b(?:above|over|beyond|more than|higher than|exceeds?|exceeding|faster than) (?:what )?(?:the )?(?:hbm\w*|dram|memory|h\d00)"
     r"(?: bandwidth| peak| bw)? (?:can|could) (?:even |physically |possibly |actually )?(?:do|deliver|sustain|give|reach|provide)\b",
     "above the dram peak, a warm cache"),
    (r"\b(?:above|over|beyond|exceeds?|exceeding|faster than) (?:the )?(?:hbm\w*|dram|spec|datasheet|theoretical)(?: sheet)? (?:peak|bandwidth|bw|limit)\b",
     "above the dram peak, a warm cache"),
    # the whole regression (suite) going green is the full test suite, not a slowdown
    (r"\b(?:entire|whole|full|complete) regression\b(?! (?:in|from|of|on|since|vs))", "full test suite"),
    # integer overflow of the index math is a 32-bit index wrapping, not an overflow to inf
    (r"\b(?:int|int32|integer|index|idx|offset|pointer|address)(?:[- ](?:index|offset|math|arithmetic))? overflow\w*", "int32 index wrap"),
    (r"\boverflow\w* (?:in|of) (?:the )?(?:int|int32|integer|index|idx|offset|pointer|address)\w*(?: math| arithmetic| computation)?",
     "int32 index wrap"),
    # a race that looks like noise, a failure dismissed as noise: a test that fails only sometimes
    (r"\b(?:race|races|race condition)(?: \w+){0,3} (?:looks?|seems?|appears?|shows? up|passes?|masquerad\w*) (?:just )?(?:like|as) (?:random )?noise\b",
     "intermittent failure"),
    (r"(\b(?:fail\w*|flak\w*|heisenbug)\b[^\n]{0,80}?)\b(?:just|only|merely|random|probably) noise\b", r"\1intermittent failure"),
    (r"\b(?:just|only|merely|random|probably) noise\b(?=[^\n]{0,80}\b(?:race|fail\w*|flak\w*|heisenbug)\b)", "intermittent failure"),
    # fully masked tiles are skipped by a causal kernel: they are not rows left with no key
    (r"\b(?:fully|all|entirely|completely)[- ]masked (tiles?|blocks?|kv[- ]blocks?|ctas?)\b", r"masked \1"),
    # flushing denormals to zero is a range question (fp8, fp16), not the cache flushed between runs
    (r"\b(?:denorm\w* )?flush(?:ed|es|ing)?(?: (?:the )?(?:denorm\w*|subnormals?))?[- ]to[- ]zero\b|\bdenorm\w* flush\w*|\bftz\b", "denormals zeroed"),
    # outlier channels of an activation are extreme values to quantise, not timing outliers
    (r"\boutliers? (?:channels?|values?|activations?|features?|tokens?|rows?|elements?|weights?)\b|\boutlier (?:magnitudes?|scales?)\b",
     "dynamic range extremes"),
    # a second accumulator set is registers held, not the precision accumulated in
    (r"\b(?:second|extra|two|double|another|2nd|both) accumulators?(?: (?:sets?|tiles?|fragments?|registers?|regs|arrays?))?\b"
     r"|\baccumulators? (?:sets?|fragments?|registers?|regs)\b", "acc registers"),
    # warps parked on a barrier's wait are a stall, not a question about the barrier
    (r"\b(?:parked|stuck|waiting|blocked|sitting|spinning|hung|sleeping) (?:on|at|in) (?:the |an? )?(?:mbarrier|barrier|syncthreads|__syncthreads|bar\.sync|named barrier)\w*(?: (?:wait|try_wait|arrive)s?)?",
     "stalled on a sync stall"),
    # a path or an output said to be reproducible asks for identical bits
    (r"\b(path|kernel|outputs?|op|reduction|sums?|gradients?|grads?|split-?k(?: path)?) (?:is|are|was|were|stays?) (?:\w+ )?reproducib\w*",
     r"\1 reproducible bitwise"),
    # a size range written in powers of ten ("1e4 up to 1e9 keys") is a sweep, not huge values
    (r"\b(\d+)e(\d+)\b(?=(?: (?:up )?to \d+e\d+)? (?:keys|elements|elems|rows|cols|tokens|items|entries|bytes|inputs|samples|points|sizes?)\b)"
     r"|\b(\d+)e(\d+)(?= (?:up )?to \d+e\d+)", "10 to the power"),
    # a check against torch's kernel is a correctness run against the reference, not a library timed
    (r"\b(?:check|verify|validate)\w*(?: \w+){0,2} (?:vs\.?|against|with) (?:the )?(?:torch|pytorch|eager)(?:'s)? (?:sdpa|reference|ref|implementation|version|output)\b"
     r"(?! ?(?:speed|time|timing|perf\w*|latency|throughput|runtime))", "checked against the reference"),
    # round 14: traffic going out to DRAM instead (of the cache) is what misses the L2, not a bandwidth asked for
    (r"\b(?:vs\.?|versus|or|instead of|rather than) (?:going|goes|go|went|gone) (?:all the way )?(?:out )?to (?:the )?(?:hbm\w*|dram|device memory|global memory)\b",
     "vs going out to dram"),
    # a swizzle said to help the cache's reuse orders the blocks (L2), it is not the shared memory swizzle
    (r"\b(?:tile swizzl|block swizzl|cta swizzl|swizzl)\w*(?=[^.?!\n]{0,40}\b(?:cache|l2) (?:reuse|locality|hits?|hit rate))", "block rasterization"),
    # a tuner that "converged" picked a config; it is not a solver's convergence
    (r"\b(?:tuner|autotuner|autotun\w*|tuning|search)(?: \w+)? converged\b", "autotuner picked"),
    # masked tails are the tail tiles of an odd size (not an attention mask), and a cliff on them is theirs, not a size curve's
    (r"\bmasked (?:tails?|remainders?|edges?|boundar(?:y|ies)|last tiles?|tail tiles?)\b", "tail tiles"),
    (r"\b(?:falls? off (?:a |the )?cliff|a cliff|any cliff|cliff) (?=(?:on|at|for|in|with) (?:the )?(?:tail|odd|ragged|prime|non|unaligned|partial|awkward|remainder))",
     "slowdown "),
    # dram bytes per second (ncu's .per_second) are the achieved bandwidth
    (r"\bdram__bytes[\w.]*\.per_second\b", "dram throughput"),
    # where a curve saturates is where it flattens; saturating the HBM is using its bandwidth (neither is a value clipped)
    (r"\bwhere (?:does )?(it|throughput|perf\w*|the curve|the speedup|tput|qps) saturates?\b", r"where \1 plateaus"),
    (r"\bsaturat\w* (?:the )?(hbm\w*|dram|memory bandwidth|memory bus|bandwidth)\b", r"using all the \1 bandwidth"),
    # where a kernel sits on the roofline is which side of the ridge it lands (the bound type); a claim that it is at the
    # roofline, or its point against both roofs, stays the distance to the floor
    (r"\bwhere(?: (?:is|are|does|do)(?: (?:it|this|that|we|the [\w-]+|our [\w-]+|your [\w-]+))?(?: (?:sit|land|fall|lie))?"
     r"| it (?:is|sits|lands|falls|lies))? on the roofline\b(?![^.?!\n]{0,40}\broofs\b)", "which side of the ridge"),
    (r"\b(?:roofline placement|placement on the roofline|position on the roofline|roofline position)\b",
     "which side of the ridge"),
    # an instruction or flop count against the DRAM bytes is the arithmetic intensity (not the traffic, nor the FMA pipe)
    (r"\b(?:ffma|fma|flop|hmma|inst\w*)(?: inst\w*)?(?: counts?)? (?:vs\.?|/|over|per) (?:dram__bytes\w*|dram bytes|bytes)", "arithmetic intensity"),
    # the output compared with the old version's: the old version is the reference of a correctness check
    *((rf"\b{w}(s?\b[^.!\n]{{0,60}}?\bcompar\w* (?:it|them|that) )(?:to|against|with) (?:the )?(?:old|previous|last|prior) "
       r"(?:version|build|kernel|impl\w*|code)\b", rf"{w}\1against the reference") for w in ("output", "result")),
    # round 16: noise as an input's content (a random-noise image, inputs of uniform noise) is the values fed in, not a
    # timing's spread; ties resolved by a rule describe the reference, not inputs with ties; a training run or a loss that
    # diverges is the optimisation's, not warp divergence; the toolchain's version is the build's, not ptxas's resource
    # report; ptxas unrolling a loop is the unrolling, and iterations per trip of a loop its unroll factor
    (r"\b(?:random|uniform|gaussian|white|salt[- ]and[- ]pepper|perlin)[- ]noise(?= (?:images?|imgs?|inputs?|frames?|data|textures?|patterns?|pictures?|fields?)\b)",
     "random-valued"),
    (r"\bon (?:random |uniform |gaussian |white )?noise(?= ?(?:inputs?|images?|imgs?|frames?|data)?(?:[?.!,;]|$| (?:or|and|only|input|image)\b))",
     "on random values"),
    (r"\bties? (?:resolved|broken|broke|settled|decided) by\b", "ordered by"),
    (r"\b((?:training|train|loss|losses|optimi[sz]er|model|run|runs)\b[^.?!\n]{0,30}?)\b(?:diverg\w*)", r"\1blowing up"),
    (r"\b(?:cuda|nvcc|ptxas|compiler|toolkit|toolchain|triton|llvm)(?: ?(?:/|and|\+) ?(?:cuda|nvcc|ptxas|compiler|toolkit|driver))? (?:version|ver)s?\b",
     "toolchain version"),
    (r"\bptxas (?:really |actually |even |fully )?(unroll\w*|keep the unroll\w*|kept the unroll\w*|re-?roll\w*)", r"the compiler \1"),
    (r"\b(?:iter(?:ation)?s?|copies) per (?:loop )?trip\b", "unroll factor"),
    # round 17: the normwise backward error written as its formula is the backward error (not a residual's
    # convergence); a signal of white or pink noise fed in is the input, and a signal-to-noise ratio an error, not a
    # timing's spread; a high percentile of a block's time is its tail, not the timing's spread; memcpy's share of a
    # block is the transfers, not the copy roofline; clocking an iteration is timing it, not the card's clocks; the
    # load spread over experts is its balance, not a timing's spread
    (r"[‖|]{1,2}b ?[−-] ?ax\S*?[‖|]{1,2}\S*? ?/ ?\([^)]*\)", " backward error "),
    (r"\b(?:white|pink|brown|gaussian) noise\b", "random-valued signal"),
    (r"\bsignal[- ]to[- ]noise(?: ratio)?\b", "snr"),
    # the same inputs beside the same harness or settings are a fair comparison's conditions, not outputs compared
    (r"\bsame (inputs?|data|shapes?)((?:,| and|, and) )same (?=(?:timing |bench\w* )?(?:harness|settings|flags|clocks|config\w*|machine|gpu))",
     r"matched \1\2matched "),
    # a scheduler acting at block boundaries acts between thread blocks: no edge of a signal's blocks
    (r"\b((?:schedul|preempt|switch|interleav)\w*(?: \w+){0,2}) at block boundaries\b", r"\1 between thread blocks"),
    (r"\b((?:99|99\.9|95|90)th) percentile\b", r"\1 %ile"),
    (r"\b(?:cuda)?memcpy(?:async)? (share|fraction|overhead|time|h2d|d2h|htod|dtoh)\b", r"transfer \1"),
    (r"\bclock(?:ed)? (?=(?:a|the) (?:full|whole|complete|single|training) (?:iteration|iter|step))", "timed "),
    (r"\b(load|token|work|routing) spread\b", r"\1 balance"),
    # the normwise backward error an iteration reaches is its convergence target; outputs that diverge from another run's
    # differ (no warps diverging); the gradient of a potential is the force; an n-way parallel split is no bank conflict
    (r"\b(?:to )?(?:reach|reaching|reaches|attain\w*) (?:\S+ )?backward error", "to converge"),
    (r"\b(outputs?|results?|values|activations|logits|answers)((?: \w+){0,2}) diverg\w*", r"\1\2 deviate"),
    (r"\b(?:the )?(?:negative )?gradients? of the (?:potential|energy)\b", "forces"),
    (r"\b\d+-way (?=(?:expert|tensor|data|pipeline|model|context|sequence)[- ]parallel)", ""),
    # a residual that looks small, offered as the evidence of a claimed stability, is an error's size
    # the largest difference between two runs of the same input is whether they are identical, not an error's size
    (r"\b(?:max(?:imum)?|largest|biggest|worst) (?:\w+ )?difference (?:in \w+ )?between (?:the )?(?:two|2|both) (?:runs|trajectories|executions|launches)\b",
     "bits differ across runs"),
    (r"\bresidual (?=look\w* (?:small|fine|tiny|ok|okay|good))", "error "),
    # round 18: reads that diverge from the reference genome are mutated, no warp diverging; a genomics or analysis
    # pipeline is a program run, no software pipelining; a least-squares regression is a fit, no slowdown; a
    # finite-difference pricing engine is a PDE engine, no derivative checked; a minimizer set's overlap is agreement
    (r"\b(?:\d+(?:[–-]\d+)?% |highly |high[- ]|very |more |most )diverg\w*(?= (?:reads?|sets?|sequences?|pairs?|with|data))", "mutated"),
    (r"\b\d+%-divergence\b", "mutated"),
    (r"\bdivergent (?=reads?|sequences?|pairs?|genomes?)", "mutated "),
    (r"\b(?:both|two|the|your|our|each) pipelines?(?= on| from| under| with| start| end|,)", "the programs"),
    (r"\b(?:lsm|least[- ]squares|longstaff[- ]schwartz|linear|polynomial) regression\b", "least-squares fit"),
    (r"\bregression (matrix|basis|coefficients|step|problem)\b", r"least-squares \1"),
    (r"\bfinite[- ]difference (engine|pde|solver|grid|scheme|method|lattice)\b", r"pde \1"),
    (r"\bminimi[sz]ers? overlap\b", "minimizer agreement"),
    # round 18: HBM traffic is bytes moved (DRAM traffic), not a bandwidth; a library's workspace named as a setting of
    # the comparison is no memory asked
    (r"\bhbm traffic\b", "dram traffic"),
    # a launch cost compared with an eager op's is the launch cost asked, not the library's speed
    (r"\b(launch (?:cost|overhead|latency)[^?.;]{0,60}?),? (?:compared (?:with|to)|vs\.?|versus|against) eager (?:pytorch |torch )?[\w.]+(?:\([^)]*\))?", r"\1"),
    (r"\b(?:same|(?:with )?its|the library'?s|heuristics? and) workspace(?: (?:enabled|on|allowed|setting))?\b(?! (?:size|memory|bytes|use|usage))", "same settings"),
    # round 18: the same input on the same GPU are a comparison's conditions, not outputs compared for equality
    (r"\bsame (?:input|inputs|data|dataset|fastq\w*|reads) and (?:on )?the same (?:gpu|card|machine|node|hardware|h\d00)\b", "the same conditions"),
    # round 19: a row or a sequence of 100k elements or more is a really long one (an error asked on it is the error's growth
    # with the length)
    (r"\b(?:rows?|sequences?|seqs?|contexts?|seq ?len|seq_len|sequence length|context length)(?: of)?(?: length)?(?: ?= ?| )(?:[1-9]\d{5,}|[1-9]\d{2,}k)\b",
     "really long sequence"),
    # round 19: a workspace preallocated for a library's call is a setting of the comparison (no memory asked); an allocation
    # inside the timed region is what the timing includes (its setup); a graph's ranks or scores said to match the reference
    # are values compared (an error's size), not alignment scores
    (r"\bpre-?allocated (?:workspace|buffers?|scratch)\b", "same settings"),
    (r"\b(?:(?:buffer|workspace|memory) )?alloc\w* (?:inside|in|within) the timed (?:region|loop|section|window)\b", "setup inside the timed region"),
    (r"\b(?:rank |pagerank |centrality )?scores (?:still )?(?:match|agree with) (?:the )?(?:reference|ref|fp64|double)\b", "outputs match the reference"),
    # round 19: faster or slower than a molecular-dynamics engine is its rate compared, in ns/day (what MD speed is quoted in)
    (r"\b(?:faster|slower|quicker) than (?:the )?(?=(?:openmm|gromacs|gmx|amber|namd|lammps|desmond|hoomd(?:-blue)?)\b)", "ns/day against "),
    # round 19: a climate model's temperature field is a model variable, not the GPU's temperature; a node or core allocation
    # on a cluster is compute granted, no memory allocated; the spread of an ensemble or of runs from perturbed initial
    # conditions is the envelope a port is compared within, not a timing's spread; forecasts or runs that diverge drift apart
    (r"\b(?:temperature|temp) (field|fields|profiles?|tendenc\w*|anomal\w*|increments?|bias|errors?|structure)\b", r"model t \1"),
    (r"\b((?:node|cpu|core|gpu|compute|hpc|cluster|slurm|job)(?:[- ]hours?)?) allocations?\b", r"\1 grant"),
    (r"\b(?:(?:ensemble|perturbation|perturbed|initial[- ]condition)(?:[- ][\w]+)?(?:[- ]?\w+)? spread|spread (?:from|of|due to|under|across) (?:a |an |the )?(?:\w+ ){0,2}(?:ensemble|perturbation|perturbed|initial[- ]condition)\w*)",
     "ensemble envelope"),
    (r"\b(forecasts?|runs|models|trajectories|simulations|both)((?: \w+){0,2}) diverg\w*", r"\1\2 drift apart"),
    # round 19: a processing pipeline built, run or replayed is a program (no software pipelining); a fit's residual RMSE (a
    # registration's, an adjustment's) is its error, and the image residuals of a bundle adjustment are its reprojection
    # errors (no solver's residual history)
    (r"\b(build|run|replay|ran|profile|port|deploy|feed)\w*( \w+)? (?:through |thru )?(?:the |our |your |whole |entire |full |tracking |slam |processing )+pipeline\b", r"\1\2 the program"),
    (r"\b(?:through|thru) (?:the |our |your |whole |entire |full |tracking |slam |processing )+pipeline\b", "through the program"),
    (r"\b(?:final )?(?:(?:residual|fitness|inlier) (?:rmse|rms)|(?:rmse|rms) (?:of the )?(?:residuals?|fit))\b", "fit error"),
    (r"\b(?:image|pixel|reprojection) residuals?\b", "reprojection error"),

)

#: (topic, cues, blockers): a cue names the topic only in a sentence where no blocker occurs. These
#: words are the topic's in most sentences and another's in a few the blockers recognise.
#: outputs compared for equality: re-running then asks whether the bits change, not how the time
#: spreads (`WEAK` blocks the noise cues with it)
SAME_OUTPUTS = (r"identical|bitwise|same bits|same bytes|bit-|determinis|diff the|hash|checksum|exactly equal|across runs"
                r"|torch\.equal|equal\(|array_equal|compare the outputs|same input|identical input|same tensors|mismatch"
                r"|repeated (?:calls|invocations|launches|executions)")

#: an error that is a build's, a crash's or a message, not a numeric one
NOT_NUMERIC_ERROR = (r"compil|build|\bfail|crash|exception|traceback|\blog\b|ptxas|nvcc|segfault|illegal|launch|cuda error"
                     r"|import|syntax|linker|stack|throw|raise|\bexit")

WEAK: tuple[tuple[str, tuple[str, ...], str], ...] = (
    # re-running is about noise, unless outputs are compared for equality, the seed is re-timed,
    # the cache is flushed between the runs, or the run is the full evaluation
    ("noise", (r"run[- ]to[- ]run", r"(?:re-?run|repeat|rerun)\w*", r"repeats", r"a (?:few|couple) (?:of )?(?:more )?times", r"\d+ times",
               r"(?:second|third) (?:measurement|run)", r"how many runs", r"once more", r"one more time",
               r"(?:several|multiple|a few|a couple of|couple|more) (?:runs|samples|trials|reruns|repetitions)"),
     SAME_OUTPUTS + r"|twice"
     r"|seed (?:now|today|timing|time|number)|re-?time|re-?measure|(?:the |a )(?:seed|baseline) (?:now|again|today)"
     r"|(?:seed|baseline|reference|original)(?: \w+)? (?:timing|time|number)"
     r"|yesterday|flush|cold|cleared|scrub|invalidat|thrash|evict|warm|whole evaluator|full eval|all scenarios|on head|latest|final version"
     r"|suite|evaluator|grader|scorer|every (?:scenario|shape|case)|not (?:just|only) the"
     r"|(?:seed|baseline|reference|original|unmodified)\b[^?.!\n]{0,20}\bagain"
     # ... or the run is timed again after a change (an ablation, a fix), not repeated to see the spread
     r"|comment\w* out|disabl|remov|without|revert|turn\w* off|switch\w* off|stub"),
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
    # back-to-back runs are about noise, unless it is the seed run beside the candidate (a fresh
    # baseline) or two calls whose outputs are compared (determinism)
    ("noise", (r"back[- ]to[- ]back",), r"original|unmodified|\bseed\b|baseline|reference|\bold\b|previous|flush|cold|warm|hot[- ]cache|\bl2\b|"
     r"cuda ?graph|" + SAME_OUTPUTS),
    # a barrier is a __syncthreads question, unless it is named among the stall reasons
    ("barriers", (r"barriers?",), r"scoreboard|throttle|warp ?state|stall reasons?|stall breakdown|top stalls?|pcsamp|pc sampl|not[_ ]selected"),
    # failing again is a flaky test rerun, unless it is the build that fails
    ("flaky_failures", (r"fails? again", r"fail(?:ed|ing)? again"), r"build|compil|nvcc|ptxas|\blink|import|install|pip|cmake"),
    # vectorised code is about the width of the loads, unless it is the host's (SIMD) or the math's
    ("vector_loads", (r"vectori[sz](?:e|ed|es|ing|ation)",),
     r"\bcpu|numpy|simd|avx|neon|openmp|\bhost\b|epilogue math|softmax math|vectori[sz]\w* (?:the )?(?:math|compute|cop)"),
    # nvidia-smi shows the clocks, unless it is asked for the processes and the utilisation (who else runs)
    ("clocks", (r"nvidia-smi",), r"process|\butil|busy|anyone|anybody|someone|somebody|other (?:jobs?|users?)|idle|vram|sharing|compute-apps|\bapps\b|\bjobs?\b|squat|tenant|\belse\b"),
    # producer and consumer warps are a pipeline, unless named as whose registers or stalls are asked
    ("overlap", (r"producer", r"consumer"), r"\bregs?\b|register|spill|ptxas|setmaxnreg|stall|samples|scoreboard|sync stall"),
    # data resident in the L2 is its hit rate, unless the timing is what the residency spoils (a warm cache)
    ("l2_hit", (r"(?:stays?|staying|sits?|sitting|lives?|living|resident|fits?) in (?:the )?(?:\d+ ?mb )?l2",),
     r"tim\w*|speed|bench|cold|flush|warm|\breps?\b|iters?\b|scrub|between runs"),
    # values clipped or clamped are a range question, unless it is an index or a coordinate clamped at a border
    ("nan_inf", (r"clip\w*", r"clamp\w*"), r"index|indices|idx|offset|pointer|address|coord|bound|tail|mask|grad\w* clip|norm clip|tile"),
    # conflicts in a kernel are bank conflicts, unless they are a merge's or a package's
    ("bank_conflicts", (r"conflicts?",), r"merge|git|rebase|cherry|pip|depend|version|package|name|lock|port|resource|config"),
    # a library is the vendor baseline, unless it is one to import, install or link
    ("vendor_baseline", (r"librar(?:y|ies)",), r"import|install|pip|link|\.so|shared library|dependenc|path|load"),
    # the seed's timing asked for is an absolute time, unless it is asked whether it is still current
    # a percentile is the latency distribution's, unless it is the statistic of a timing loop over reps
    ("latency_tail", (r"p(?:50|90|95|99|999)(?:\.\d)?",), r"\breps\b|repetitions|single shot|warm-?ups?|timed iter|cuda ?event|chrono|timer|median|stdev|jitter|timings|spread|variance|noise|stable"),
    # round 15: "what's the error" is an error's size, and an error "at 1M" the error at that size, unless the error
    # is a build's, a crash's or a message
    ("error_size", (r"what(?:'s| is| was|s) the err(?:or)?\b(?! (?:message|msg|code|log|output|text))",), NOT_NUMERIC_ERROR),
    ("error_growth", (r"err(?:or)?s? at (?:n ?= ?)?\d+(?:\.\d+)?[km]\b",), NOT_NUMERIC_ERROR + r"|\blines?\b|\bline \d"),
    # how much padding a format introduces is its waste, unless it is shared memory's padding (against bank conflicts)
    ("padding_waste", (r"how much padding",), r"smem|shared|\bbank|conflict|stride|swizzl|align|\bpitch"),
    # round 14: a run looped hundreds of times is a failure's repro rate, unless the loop's timings are what is asked
    ("flaky_failures", (r"(?:loop|run|rerun) (?:it|the test|that|this) (?:a few |several |a )?(?:hundred|thousand|\d{3,})(?: ?x| times)?",),
     r"median|\bmean\b|\bavg\b|average|\bp\d\d|\bstd|spread|varian|noise|timing|warm-?up|\bgain|speedup|faster|slower|\bbench|\bms\b|\bus\b"),
    # the kernel got faster and the step did not: the time is outside the kernel (launch overhead), unless the
    # transfers are named as where it went
    ("launch_overhead", (r"end[- ]to[- ]end (?:\w+ ){0,2}(?:didn'?t|did not|doesn'?t|does not|hasn'?t|has not|won'?t|barely|never|not) (?:\w+ )?(?:move|moved|change|changed|improve|improved|budge|budged|drop|dropped)",),
     r"transfer|memcpy|\bh2d|\bd2h|htod|dtoh|pcie|host-to-device|device-to-host|copies|data ?load|preprocess"),
    # reads out of bounds are the sanitizer's question, unless asked of odd sizes with no sanitizer named (the sizes are
    # what is asked: run at n=1, 31, ... and check nothing reads out of bounds); a sanitizer named keeps it
    ("memory_safety", (r"out[- ]of[- ]bounds", r"oob", r"reads? past the end", r"writes? past the end"),
     r"\btail|\bodd\b|ragged|\b[nmkd] ?= ?\d|non-?pow|not a multiple|non-?multiple|isn'?t a multiple|partial (?:tail )?tiles?"
     r"|unaligned|misaligned|border|edge cases?|corner cases?|\bprime\b|remainder|not divisible|indivisible"),
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
    # the shapes the whole suite covers: the edge shapes are what is asked
    ("full_eval", frozenset({"edge_shapes"}), None),
    # timings that jump, a regression distrusted, with other jobs on the GPU: the contention is what is asked
    ("noise", frozenset({"gpu_contention"}), None),
    ("regression", frozenset({"gpu_contention"}), None),
    # the pipeline's stages counted against the blocks that fit: occupancy is what is asked
    ("overlap", frozenset({"occupancy"}), None),
    # a library's memory, a library's timing against a plain torch path: the memory is what is asked
    ("vendor_baseline", frozenset({"workspace_memory"}), None),
    # the measurements named as evidence for a claimed limit are read with the claim: the distance to the floor
    *((m, frozenset({"limit_claim"}), None) for m in ("bound_type", "occupancy", "compute_peak", "limit_origin")),
    ("limit_claim", frozenset({"limit_claim"}), "lower_bound"),
    # an ablation names the change it takes out: the change is where the timing is taken
    *((m, frozenset({"ablation"}), None) for m in ("bank_conflicts", "overlap", "vector_loads", "unrolling", "async_copy",
                                                    "atomics", "tensor_cores", "precision")),
    # a change located by the regression it caused is still the code changed
    ("regression", frozenset({"code_diff"}), None),
    # a full evaluation covers every scenario by definition, and the modes of the cases it runs
    ("all_scenarios", frozenset({"full_eval"}), None),
    ("masking", frozenset({"full_eval"}), None),
    # a bound type named with the distance to the floor is the floor's side
    ("bound_type", frozenset({"lower_bound"}), None),
    # a rate or a time as the curve's axis over sizes; a size sweep at tile-count boundaries asks waves
    *((m, frozenset({"scaling"}), None) for m in ("compute_peak", "bandwidth_achieved", "absolute_time")),
    ("scaling", frozenset({"waves"}), None),
    # a fully masked row is masking's own edge case
    ("masking", frozenset({"empty_rows"}), None),
    ("edge_shapes", frozenset({"empty_rows"}), None),
    # a flaky failure rerun many times: its noise and nondeterminism are what is asked about the failure
    ("noise", frozenset({"flaky_failures"}), None),
    ("determinism", frozenset({"flaky_failures"}), None),
    # the index math's strides and huge sizes are where the 32-bit offset wraps
    ("contiguity", frozenset({"index_overflow"}), None),
    ("nan_inf", frozenset({"index_overflow"}), None),
    # a library (or torch op) named as the reference of an error is the reference, not a speed baseline
    ("vendor_baseline", frozenset({"error_size", "correctness_run", "convergence", "grad_check"}), None),  # round 16: gradients too
    # an error that "blows up" with the condition number grows; it is not an inf
    ("nan_inf", frozenset({"conditioning"}), None),
    # an error measured over condition numbers is the conditioning study
    ("error_size", frozenset({"conditioning"}), None),
    # what the SASS shows of a pipeline is a SASS read
    ("overlap", frozenset({"sass_dump"}), None),
    # round 14: the warp-state section read for thread utilisation is a divergence question; the time of the copies
    # taken apart from the compute, their rate in GB/s, are the transfers'; nsys's summary read for the launch API's
    # time against the kernels', or for the whole application's change, is where it is read
    ("stall_reasons", frozenset({"divergence"}), None),
    ("phase_cost", frozenset({"transfers"}), None),
    ("bandwidth_achieved", frozenset({"transfers"}), None),
    ("kernel_breakdown", frozenset({"launch_overhead", "end_to_end"}), None),
    # the steps a whole application's time includes (its copies, its pipeline) are that time's scope
    ("overlap", frozenset({"end_to_end"}), None),
    ("transfers", frozenset({"end_to_end"}), None),
    # round 15: results compared across runs: their spread is determinism's; a shuffled page table
    # is what a passing suite did not cover; the boundary or the seams where wrong values lie are where they lie
    ("noise", frozenset({"determinism"}), None),
    ("full_eval", frozenset({"contiguity"}), None),
    ("edge_shapes", frozenset({"mismatch_location"}), None),
    # a kernel's time set against the main kernel's is the breakdown, in whatever unit
    ("absolute_time", frozenset({"kernel_breakdown"}), None),
    # an error asked as it grows with the input's length: the growth is what is asked
    ("error_size", frozenset({"error_growth"}), None),
    # rows uneven enough to pad a format: the padding is what is asked
    ("edge_shapes", frozenset({"padding_waste"}), None),
    # round 16: the SASS read for the loop's unrolling: the unroll factor is what is asked
    ("sass_dump", frozenset({"unrolling"}), None),
    # the gradients' error is asked as the gradients checked; gradients compared across runs are determinism's
    ("error_size", frozenset({"grad_check"}), None),
    ("grad_check", frozenset({"determinism"}), None),
    # an error taken at several lengths is the error's growth, not a time's curve
    ("scaling", frozenset({"error_growth"}), None),
    # round 17: the capacity factor named beside the tokens dropped is the drop's setting, not load skew; a library
    # named beside a launch count is whose kernels are counted, beside determinism the code whose runs are compared
    ("load_skew", frozenset({"lost_items"}), None),
    ("vendor_baseline", frozenset({"launch_count", "determinism"}), None),
    # the norm of QᵀQ − I, the growth of U's entries, pivots that differ, an energy that drifts: each is the error asked;
    # a constraint's deviation is its solver's residual (convergence); the empty case checked is what is asked; a
    # rebuild timed separately is the rebuild's cost
    ("error_size", frozenset({"orthogonality_loss", "pivot_growth", "pivoting", "energy_drift"}), None),
    ("error_size", frozenset({"convergence"}), None),
    ("error_size", frozenset({"empty_rows"}), None),
    ("correctness_run", frozenset({"empty_rows"}), None),
    ("phase_cost", frozenset({"rebuild_cost"}), None),
    # microseconds asked of a named phase or of the communication left exposed are that time's unit
    ("absolute_time", frozenset({"phase_cost", "overlap", "rebuild_cost"}), None),
    # round 18: a gap in standard errors is what is asked, not the standard error or the gap alone; a path compared
    # is asked beside its score; the same outputs of a reference aligner are its agreement, not runs' bits
    ("standard_error", frozenset({"error_in_sigmas"}), None),
    # round 18: an error's decay measured over a few path counts is its convergence, not the kernel's scaling
    ("scaling", frozenset({"convergence"}), None),
    # round 18: an estimate's sample sd over sqrt(n) is its standard error, not a timing's spread; a Greek's standard
    # error reported beside its check against bumping qualifies the check
    ("noise", frozenset({"standard_error"}), None),




    ("standard_error", frozenset({"grad_check"}), None),

    ("error_size", frozenset({"error_in_sigmas", "score_agreement", "cigar_agreement", "seed_agreement"}), None),
    ("score_agreement", frozenset({"cigar_agreement"}), None),
    ("determinism", frozenset({"score_agreement", "cigar_agreement", "seed_agreement"}), None),
    # round 19: the memory footprint of a padded format follows from its padding: the padding is what is asked
    ("workspace_memory", frozenset({"padding_waste"}), None),
    # round 19: a library named beside a rate in the domain's unit is whose rate is compared: the rate is what is asked
    ("vendor_baseline", frozenset({"work_rate"}), None),
    # round 19: atomics named beside a determinism check are why the bits may differ (the order of their adds): the
    # determinism is what is asked
    ("atomics", frozenset({"determinism"}), None),
    # round 19: a pose's error, a reprojection error, a matcher's agreement, a conserved mass's drift: each is the error
    # asked, and a library named with it is its reference; a pose's error under injected outliers is the robustness
    # study; ties in a matcher's comparison are where its assignments may differ
    ("error_size", frozenset({"pose_error", "reprojection_error", "match_agreement", "mass_drift", "energy_drift"}), None),
    ("vendor_baseline", frozenset({"pose_error", "reprojection_error", "match_agreement", "outlier_robustness", "mass_drift"}), None),
    ("correctness_run", frozenset({"match_agreement", "pose_error"}), None),
    ("pose_error", frozenset({"outlier_robustness"}), None),
    ("reprojection_error", frozenset({"outlier_robustness"}), None),
    ("input_values", frozenset({"match_agreement"}), None),
    ("noise", frozenset({"outlier_robustness"}), None),
)

#: common words one edit from a word of the table that are words, not typos: never respelt into it
#: ("status" is not "states", "training" not "trailing", "tiling" not "timing", "sharded" not "shared")
REAL_WORDS: frozenset[str] = frozenset((
    "status", "statuses", "internal", "internally", "internals", "reminder", "reminders", "remote", "remotes", "remotely",
    "related", "started", "starred", "starving", "simple", "simpler", "coding", "exited", "parsing", "parsed", "parses",
    "making", "marking", "marked", "staging", "export", "exports", "exported", "exporting", "present", "presents",
    "presented", "presenting", "presentation", "presentations", "writing", "master", "loading", "leaving", "leaning",
    "applies", "thorough", "thoroughly", "though", "paused", "pauses", "pausing", "strong", "strongly", "stronger",
    "properly", "cleaned", "allows", "compatible", "conventions", "convention", "conventional", "member", "members",
    "setting", "sending", "sealed", "sharded", "shaped", "recover", "recovers", "training", "turning", "polling",
    "pulsing", "handing", "routes", "prints", "depends", "depend", "depending", "saying", "strange", "series",
    "servers", "phrases", "catches", "trails", "wording", "matchers", "bounded", "retain", "retained", "filling",
    "pasted", "pasting", "wasting", "linting", "lifting", "entered", "extensive", "stripe", "strike", "looked",
    "noting", "friction", "clicks", "parked", "multiplier", "multiplied", "multiplies", "scoping", "forgot",
    "predicted", "continuous", "continuously", "clutter", "optical", "talking", "determines", "charge", "shares",
    "speeds", "scopes", "tiling", "unfused", "reworded", "redaction", "redactions", "particle", "particles",
    "implication", "implications", "accent", "accents", "converse", "converted", "converter", "converters", "decide",
    "decided", "decider", "decides", "modeled", "neural", "warned",
    # round 19: words one edit from a word of round 19's ("cleaning", "wasted")
    "clearing", "cleared", "clears", "wanted", "planes", "posted", "typography", "connection", "connections", "cloned",
    "multipliers", "protection", "restate", "restating", "spares", "tracing", "tracker", "trackers", "waited", "washes",
    "animals",
))
