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
