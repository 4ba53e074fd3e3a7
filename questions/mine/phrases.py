"""Words and patterns the classifier's parts and the order rules share: how a steerer's sentence opens
(fillers), what a value asked for can be (a number, a measurement, a profiler's view), and the
regular-expression helper they are written with."""
from __future__ import annotations

import re


def rx(p: str) -> re.Pattern:
    return re.compile(p, re.I)


FILLER = rx(r"^(?:(?:so|and|but|ok|okay|hm+|um+|also|wait|then|well|now|right|alright|plus|quick question|"
            r"question|btw|oh|ah|hey|sorry|honestly|seriously|still|yeah|yes|no|nope|hmm|\+|-|>)[\s,:;.!-]+)+")


#: a step's number before it: "1) run ...", "(2) report ..."
_ENUMERATOR = rx(r"^\(?\d{1,2}\)\s+")


def strip_filler(s: str) -> str:
    s = s.lstrip(" +->*#•,:;.")
    if s[:1] in "(0123456789":
        s = _ENUMERATOR.sub("", s)
    return FILLER.sub("", s).lstrip(" ,:;.-")


#: What a terse "... pls" can ask the value of (a number, a measurement, a profiler's view)
MEASURABLE = rx(r"\d|%|__|\b(?:numbers?|breakdown|rates?|ratios?|errors?|err|diff|differences?|deviations?|spread|variance|stdev|std|"
                r"time|timings?|latenc(?:y|ies)|throughputs?|bandwidths?|occupancy|counts?|sizes?|mix|ncu|nsys|profile|hit|conflicts?|spills?|"
                r"registers?|regs|tflop/?s|gb/s|tb/s|values?|speedup|geomean|cycles|stalls?|sass|ptx|measurements?|"
                r"min|max|median|mean|achieved|peak|roofline|x?ptxas|sectors?|counters?|curve|sol|sections?|t?ok(?:en)?s/s|p\d{2}|utili[sz]ation|efficiency|percent(?:age)?|"
                # "rebuild cost?", "the duration of each", "the largest elementwise gap", "snr in db"
                r"costs?|durations?|(?:largest|biggest|max(?:imum)?|elementwise|relative|abs(?:olute)?|perf(?:ormance)?)\s+gaps?|snr|"
                r"signal[- ]to[- ]noise)\b")
#: How many times a run is repeated ("100 times", "ten times", "a few times", "several times")
REPEATS = r"(?:\d+|three|five|ten|twenty|fifty|hundred|a\s+(?:few|hundred|thousand)|several|many)\s*times"
#: A word of content (three letters or more)
CONTENT = re.compile(r"[a-z]{3,}")

#: Techniques, libraries and settings a solution names ("use wgmma", "try float4 loads", "a warp per row")
SOLUTION_TERMS = (
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
#: Acknowledgements and choices ("ok sure", "option B", "a then b")
ACK = rx(r"^(?:yes|yeah|yep|yup|ya|y|no|nope|nah|ok|okay|k|kk|sure|fine|great|good|nice|cool|thanks|thank you|"
         r"thx|ty|perfect|awesome|done|correct|right|exactly|agreed|makes sense|sounds good|lgtm|got it|"
         r"option \w|both|neither|all of them|all three|either|the first|the second|the first one|"
         r"the second one|a|b|c|a then b|b then a|[a-d]\s*(?:and|then|,)\s*[a-d]|public is fine|"
         r"okay sure|ok sure|sure thing|that works|works for me|go for it|ship it)"
         r"(?:[\s,.!]+(?:for sure|please|thanks|thank you|sure|then|too|that|works|is fine|one))*[\s.!]*$")
