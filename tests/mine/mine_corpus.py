"""A synthetic steering corpus with planted question clusters, for testing the miner.

`generate(seed=...)` writes nothing; it returns a `Corpus`: human messages across sessions, each
with its planted truth (`label`, and for questions the `intent` it paraphrases), in the shape of
steering-log records (text, session, t, seq, source, decision point, metrics). Deterministic for a
seed.

What is planted:

- **question intents** (`INTENTS`): each a steering question in 4-8 wordings a person might use,
  with specifics that change from asking to asking (scenario and kernel names, numbers, ratios,
  times, files, GPUs), surface noise (case, fillers, dropped question marks, a typo now and
  then), and a gain that typically follows it (`effect`), so outcome ranking can be checked;
- **information** (`INFORMATION`): messages that hand the agent a fact, a number about the
  hardware, an answer, a cause, or a solution, many of them shaped as questions and on the same
  topics as the intents ("The L2 is 50 MB, does your tile fit?", "Why not use TMA?");
- **directives** (`DIRECTIVES`): actions ("commit and push", "rerun the benchmark");
- **other** (`OTHER`): acknowledgements and choices.

Sessions are simulated with a geomean that moves after each message by the message's effect
plus noise, and every record carries the evaluation summary the message saw (`metrics`), so the
steering-log outcome path has something to read.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Intent:
    key: str
    kind: str  # the decision-point kind it is typically asked at
    effect: float  # relative geomean gain that typically follows
    wordings: tuple[str, ...]  # paraphrases keeping the question's key words (or their usual synonyms)
    rewordings: tuple[str, ...] = ()  # free rewordings sharing few words (a harder, separate measure)


I = Intent

INTENTS: tuple[Intent, ...] = (
    I("win-noise", "suspicious_win", 0.00, (
        "Is that {ratio} win noise? Run it again and show me the spread.",
        "Could the {ratio} speedup just be noise? Rerun it a few times and show the variance.",
        "is this win real or just noise? rerun and show the spread",
        "Is the {ratio} win real or noise? Run it again and show the spread across runs.",
        "Is that speedup noise? Re-run it and show me the spread.",
    ), (
        "Before we celebrate: is the {ratio} reproducible? Show {n} runs.",
        "how much of that {ratio} would survive a second measurement",
    )),
    I("limit-hw-or-design", "limit_claim", 0.15, (
        "Is that limit a property of the hardware or of your design?",
        "Is this limit set by the hardware, or by your design?",
        "is the limit you hit a hardware limit or a design limit?",
        "Is {kernel} limited by the hardware or by the design you picked?",
        "hardware limit or design limit? which one is it",
    ), (
        "What says this ceiling comes from the GPU and not from how you built the kernel?",
    )),
    I("pct-of-peak", "limit_claim", 0.12, (
        "What percentage of peak bandwidth does {scenario} reach?",
        "What fraction of the peak bandwidth are we getting on {scenario}?",
        "what share of peak memory bandwidth does {kernel} achieve on {scenario}",
        "How close to peak bandwidth is {scenario}, as a percentage?",
        "Which percentage of peak bandwidth does the largest scenario reach?",
    ), (
        "How far from the DRAM ceiling is the biggest input?",
    )),
    I("where-time-goes", "stall", 0.10, (
        "Where does the time go in {kernel}? Profile it.",
        "Where is {kernel} spending its time? Show me a profile.",
        "where does the kernel spend most of its time",
        "Where is the time actually spent on {scenario}? Profile it.",
        "Profile it: where does the time go?",
    ), (
        "What dominates the runtime of {kernel}?",
        "Which part of the kernel is the expensive one?",
    )),
    I("bound-kind", "start", 0.08, (
        "Is {scenario} memory bound or compute bound? Show the numbers.",
        "is this kernel compute-bound or memory-bound on {scenario}",
        "Memory bound or compute bound? What do the counters say for {scenario}?",
        "Is {kernel} bound by memory or by compute on {scenario}? Show me the numbers.",
    ), (
        "What do the counters say limits {scenario}: DRAM or the ALUs?",
    )),
    I("seed-self-noise", "start", 0.02, (
        "How noisy is the timing? Time the seed against itself and show the spread.",
        "If you time the seed against itself, how big is the spread?",
        "time the seed vs itself: how noisy are these timings?",
        "How much noise do we get timing the baseline against itself? Show the spread.",
    ), (
        "What do two identical kernels measure against each other here?",
    )),
    I("dram-reads", "stall", 0.18, (
        "How many times is each input byte read from DRAM on {scenario}?",
        "how many times does each input byte get read from DRAM",
        "Is each input byte read from DRAM once, or several times on {scenario}?",
        "How many DRAM reads per input byte does {kernel} do on {scenario}?",
        "On {scenario}, how often is every input byte loaded from DRAM?",
    ), (
        "Count the global-memory traffic: is the input fetched more than once?",
    )),
    I("occupancy-cap", "stall", 0.06, (
        "What caps occupancy: registers, shared memory or threads?",
        "What limits the occupancy of {kernel}: registers or shared memory?",
        "what caps the occupancy here, registers or smem",
        "Which resource limits occupancy on {scenario}: registers, shared memory or block size?",
    ), (
        "How many blocks per SM are resident, and why not more?",
    )),
    I("tensor-cores-used", "stall", 0.25, (
        "Does the inner loop actually run on the tensor cores? Check the SASS.",
        "Are the tensor cores used in the inner loop? Look at the SASS of {kernel}.",
        "does the main loop run on tensor cores? check the sass",
        "Does {kernel} use the tensor cores in the inner loop? What does the SASS say?",
    ), (
        "Is the math on the FMA units or on the MMA units?",
    )),
    I("baseline-kernel-or-wall", "stall", 0.05, (
        "Does the baseline win on kernel time or only on wall clock?",
        "Is the baseline faster on kernel time, or only on wall-clock time?",
        "does the seed win on kernel time or just wall clock",
        "Does the reference win in kernel time or only in wall clock time?",
    ), (
        "Where is the baseline ahead: inside the kernel or end to end?",
    )),
    I("failing-scenario-diff", "correctness_break", 0.03, (
        "What is different about {scenario}, the one that fails?",
        "What's different about {scenario}, the only failing scenario?",
        "what is special about {scenario} that makes it fail",
        "The failing one is {scenario}: what is different about it?",
    ), (
        "Why does only {scenario} go wrong?",
    )),
    I("tolerance-or-bug", "correctness_break", 0.02, (
        "Is that error within the seed's own error against the reference, or is it a bug?",
        "How does this error compare with the seed's own error against the fp32 reference?",
        "is the error larger than the seed's own error vs the reference",
        "Is the error on {scenario} bigger than the seed's own error against the reference?",
    ), (
        "Would the baseline fail this tolerance too?",
    )),
    I("regression-cause", "regression", 0.07, (
        "What changed between the last two versions that made {scenario} slower?",
        "Which change made {scenario} slower since the previous version?",
        "what in the last change made {scenario} slower",
        "{scenario} got slower, from {ratio} to {ratio2}: which change did that?",
    ), (
        "Diff the last two candidates: what caused the regression?",
    )),
    I("launch-floor", "start", 0.04, (
        "What does an empty kernel cost on the smallest scenario?",
        "How long does an empty kernel take on the smallest scenario? Measure the floor.",
        "what does an empty kernel launch cost on {scenario}",
        "Measure an empty kernel on the smallest scenario: what does it cost?",
    ), (
        "How much of the {ms} on {scenario} is just launch overhead?",
    )),
    I("smallest-scenario-slow", "stall", 0.09, (
        "Why is the smallest scenario still slower than the seed?",
        "Why are the smallest scenarios still slower than the baseline?",
        "why is the smallest case still slower than the seed at {ratio}",
        "Why does the smallest scenario stay slower than the seed?",
    ), (
        "What keeps the tiny shapes below {ratio}?",
    )),
    I("coalesced-loads", "stall", 0.11, (
        "Are the global loads coalesced? Check with the profiler.",
        "Are the loads from global memory coalesced in {kernel}?",
        "are the global memory loads coalesced or strided",
        "Are the global loads coalesced on {scenario}? What does the profiler say?",
    ), (
        "What does ncu say about sectors per request?",
    )),
    I("bank-conflicts", "stall", 0.08, (
        "Are there shared memory bank conflicts? Count them.",
        "How many shared memory bank conflicts does {kernel} have?",
        "do the smem accesses have bank conflicts",
        "Are there bank conflicts in shared memory on {scenario}? Count them.",
    ), (
        "Is the shared-memory traffic conflict-free?",
    )),
    I("register-spills", "stall", 0.06, (
        "Does the kernel spill registers? Check the compiler output.",
        "Are there register spills in {kernel}? Look at the ptxas output.",
        "does it spill registers",
        "How many registers does {kernel} use, and does it spill?",
    ), (
        "Is anything going to local memory?",
    )),
    I("roofline-first", "start", 0.10, (
        "Before any code: what is the roofline for each scenario, and where does the seed sit on it?",
        "What's the roofline for each scenario, and where is the seed on it?",
        "where does the seed sit on the roofline for each scenario",
        "What does the roofline say for each scenario, and where is the baseline on it?",
    ), (
        "Work out the ceiling of every scenario first: how far below is the seed?",
    )),
    I("min-bytes-flops", "start", 0.13, (
        "How many bytes must move and how many FLOPs must run per scenario, at the minimum?",
        "What's the minimum number of bytes moved and FLOPs run for each scenario?",
        "at the minimum, how many bytes and flops does {scenario} need",
        "How many bytes and FLOPs does {scenario} need at the very minimum?",
    ), (
        "What is the least work and traffic {scenario} can be done with?",
    )),
    I("l2-fit", "stall", 0.07, (
        "Does the working set fit in L2?",
        "Does the working set of {scenario} fit in the L2 cache?",
        "does the working set fit in l2 on {scenario}",
        "Is the working set small enough to fit in L2 on {scenario}?",
        # a capacity named in a question is the setting of what is asked, not its answer
        "Is the {size} L2 big enough for the working set?",
    ), (
        "Will the data for {scenario} stay on chip or go back to DRAM?",
    )),
    I("same-ops-both", "suspicious_win", 0.00, (
        "Are both versions doing the same operations? Verify before trusting the {ratio}.",
        "Does the baseline do exactly the same operations as {kernel}?",
        "are we comparing the same operations in both benchmarks",
        "Is {kernel} doing the same operations as the reference? That {ratio} looks too good.",
    ), (
        "Is the comparison fair, or does one side skip work?",
    )),
    I("wave-quantization", "stall", 0.05, (
        "How many waves does the grid make on {scenario}, and how full is the last one?",
        "How full is the last wave on {scenario}?",
        "how many waves on {scenario} and how full is the last wave",
        "Is the last wave on {scenario} mostly empty? How many waves are there?",
    ), (
        "Is there a tail where most SMs sit idle?",
    )),
    I("pipeline-overlap", "stall", 0.14, (
        "Do the loads overlap with the math, or does the pipeline stall on memory?",
        "Do the loads of the next tile overlap with the math on the current one?",
        "do loads and math overlap in {kernel} or does it stall on memory",
        "Does the pipeline overlap the loads with the math?",
    ), (
        "Is memory latency hidden behind compute?",
    )),
    I("build-flags", "loop", 0.03, (
        "Which compiler flags and target build the kernel? Print the exact command.",
        "What are the exact compiler flags and target? Print the build command.",
        "print the build command: which flags and which target",
        "Which flags and which target does the build use? Show me the exact command.",
    ), (
        "Is it built for sm_90a?",
    )),
    I("same-error-why", "loop", 0.02, (
        "Why does the same compile error keep coming back?",
        "Why are you hitting the same compile error again?",
        "same compile error for the {n}th time, why does it keep coming back",
        "Why does this same error keep coming back?",
    ), (
        "What is the root cause you have not fixed yet?",
    )),
    I("goal-arithmetic", "start", 0.04, (
        "What per-scenario ratios would reach the goal geomean?",
        "What ratio does each scenario need to reach the goal geomean of {ratio}?",
        "which per scenario ratios get the geomean to the goal",
        "What ratios per scenario would get us to the goal geomean?",
    ), (
        "How much does each case have to improve to hit the target?",
    )),
    I("done-evidence", "completion_claim", 0.05, (
        "What evidence says this is done? Show the latest evaluation.",
        "Which evaluation shows it is done? Show the latest one.",
        "is it really done? what does the latest evaluation show",
        "You say it's done: what does the latest full evaluation show?",
    ), (
        "Does the last full run meet the goal?",
    )),
    I("epilogue-cost", "stall", 0.06, (
        "How long does the epilogue take compared with the main loop?",
        "How long is the epilogue compared with the main loop on {scenario}?",
        "how long does the epilogue take vs the mainloop on {scenario}",
        "Measure the epilogue: how long does it take next to the main loop?",
    ), (
        "What fraction of {kernel}'s time is the epilogue?",
    )),
    I("precision-path", "limit_claim", 0.20, (
        "Which precisions does the tolerance allow, and which have tensor-core paths?",
        "Which lower precisions does the tolerance allow?",
        "what precision does the tolerance allow",
        "Which precisions would still pass the tolerance on every scenario?",
    ), (
        "Can we go below fp32 and stay correct?",
    )),
    I("upstream-compare", "stall", 0.16, (
        "How does {kernel} compare with the upstream implementation on {scenario}?",
        "How does the upstream implementation compare with ours on {scenario}?",
        "how do we compare with the upstream kernel on {scenario}",
        "Compare with the upstream implementation: how far behind are we on {scenario}?",
    ), (
        "What does the library get where we lose?",
    )),
    I("largest-scenario-sm", "stall", 0.05, (
        "How many SMs are busy on the largest scenario?",
        "Are all SMs busy on {scenario}?",
        "how many sms are idle on the largest scenario",
        "How many SMs are busy on {scenario}, the largest one?",
    ), (
        "What's the utilisation on the biggest input?",
    )),
    I("why-faster-now", "suspicious_win", 0.00, (
        "Why is it suddenly {ratio} faster? What changed?",
        "What changed that made it suddenly {ratio} faster?",
        "why did it suddenly get so much faster",
        "It jumped to {ratio} suddenly. What changed?",
    ), (
        "The geomean went to {ratio} in one step. Why?",
    )),
    I("inner-loop-sass", "start", 0.05, (
        "What does the inner loop compile to? Count the instructions per iteration.",
        "How many instructions per iteration does the inner loop compile to?",
        "how many sass instructions are in the inner loop of {kernel}",
        "What does the compiler emit for the inner loop, in instructions per iteration?",
    ), (
        "Show me the hot loop's SASS: what does one trip cost?",
    )),
    I("timing-method", "suspicious_win", 0.00, (
        "How are these numbers measured? Is the L2 flushed between runs?",
        "Is the L2 flushed before each timed run, or are we timing a warm cache?",
        "how were these timed, with the l2 flushed or warm",
        "Are the timings taken with the L2 flushed? How exactly are they measured?",
    ), (
        "Cold cache or hot cache?",
    )),
    I("hard-inputs", "start", 0.01, (
        "Which inputs would break a faster kernel? Are they among the scenarios?",
        "What inputs would break a faster kernel, and are they in the scenarios?",
        "which inputs would a faster kernel break on",
        "Are the inputs that would break a faster kernel among the scenarios?",
    ), (
        "Do we test odd sizes, NaN and huge values?",
    )),
    I("first-layer", "start", 0.06, (
        "Which layer will your first change touch, and what measurement says it's the right one?",
        "Which layer does your first change touch, and which measurement says that's right?",
        "which layer are you changing first and what measurement backs it",
        "What measurement says the layer of your first change is the right one?",
    ), (
        "Why start there?",
    )),
    I("stall-next-measure", "stall", 0.09, (
        "What measurement have you not taken yet that could explain the stall?",
        "Which measurement haven't you taken that could explain the stall?",
        "what haven't you measured yet that could explain being stuck",
        "You've been stuck for {n} evals: which measurement haven't you taken?",
    ), (
        "Progress stopped. Which number are you missing?",
    )),
    I("host-overhead", "stall", 0.04, (
        "How much time goes to the host side: allocation, copies, synchronisation?",
        "How much of the timed region is host overhead, allocation or syncs?",
        "how much host overhead (allocations, syncs) is in the timed region",
        "Is any of the {ms} host overhead: allocating, copying or syncing?",
    ), (
        "Does the timed region include anything that isn't the kernel?",
    )),
    I("split-scenarios", "regression", 0.03, (
        "Which scenarios got better and which got worse with the last change?",
        "Per scenario: which improved and which regressed with the last change?",
        "which scenarios got better and which got worse",
        "With the last change, which scenarios improved and which got worse?",
    ), (
        "Break it down: what moved where?",
    )),
)


SLOTS: dict[str, tuple[str, ...]] = {
    "scenario": ("s3", "s7", "b4_h16_s2048", "b1_h32_s8192", "the 4096x4096 case", "the 128x128 scenario",
                 "scenario 12", "n=1048576", "small_batch", "long_seq", "m8192_n8192_k64", "case_odd_17"),
    "kernel": ("gemm_kernel", "flash_fwd", "softmax_kernel", "rmsnorm.cu", "attn_fwd_kernel", "the candidate",
               "candidate.cu", "ks_run", "the kernel", "reduce_rows"),
    "ratio": ("1.35x", "0.82x", "2.1x", "1.07x", "3.4x", "0.95x", "1.6x", "1.18x"),
    "ratio2": ("0.71x", "0.9x", "1.02x", "0.64x"),
    "n": ("3", "5", "10", "4", "7", "20"),
    "ms": ("0.42 ms", "12 us", "1.3 ms", "85 us", "3.2 ms"),
}

INFORMATION: tuple[str, ...] = (
    "The L2 on the {gpu} is {size}, so tile for that.",
    "The L2 is {size}; does your tile fit?",
    "Use wgmma instead of mma.sync for the main loop.",
    "use wgmma",
    "Why not use TMA for the loads?",
    "Have you tried a 128x256 tile?",
    "Have you tried double buffering the K tile?",
    "Why don't you store the K tile in shared memory?",
    "The bug is in line {line} of {file}.",
    "the bug is in line {line}",
    "It's memory bound, look at the DRAM throughput.",
    "Isn't it memory bound?",
    "That win is noise, the spread is about {pct}.",
    "The {gpu} has {sms} SMs, so launch a multiple of {sms} blocks.",
    "Peak HBM bandwidth on the {gpu} is {rate}; you are at half of that.",
    "How close to the {rate} peak are we?",
    "The problem is bank conflicts in the epilogue.",
    "There's a bank conflict in the transpose.",
    "It's because the tile doesn't fit in shared memory.",
    "Try fp16 accumulation, the tolerance allows it.",
    "Set the block size to 256.",
    "change the tile size to 64",
    "What about using cp.async for the global loads?",
    "Could you use warp shuffles for the reduction instead?",
    "Just use cuBLAS for the GEMM part.",
    "Switch to a persistent kernel with a tile scheduler.",
    "The reference is wrong for {scenario}, the expected output has a transposed layout.",
    "Each SM has {smem} of shared memory, so two blocks fit.",
    "The tensor cores on the {gpu} do {tflops}, you're nowhere near that.",
    "No, the seed already uses vectorized float4 loads.",
    "Actually the baseline uses split-k for that shape.",
    "Unroll the inner loop by 4.",
    "Pad the shared memory rows by one element to avoid conflicts.",
    "see https://docs.nvidia.com/cuda/hopper-tuning-guide/ for the TMA details",
    "the slowdown is due to the extra sync in the loop",
    "Shouldn't you be using tensor cores here?",
    "You should try fusing the softmax into the GEMM.",
    "maybe the tiles are too big for the register file",
)

DIRECTIVES: tuple[str, ...] = (
    "commit and push", "Commit and push.", "run the tests", "Run the full evaluation again.", "rerun the benchmark",
    "continue", "go ahead", "push", "create a pr", "update the notes with what you found",
    "Revert the last change.", "please write up the results in {file}", "keep going", "Rebuild and rerun.",
    "Profile {kernel} with ncu.", "Show me the SASS of {kernel}.", "Delete the old candidates.",
    "Run the eval on {scenario} only.", "Clean up the workspace and commit.", "Add a test for {scenario}.",
)

OTHER: tuple[str, ...] = (
    "yes", "ok", "okay sure", "thanks", "Option A", "sure", "A then B", "yep", "no", "ok sure",
)

_FILL = {
    "gpu": ("H100", "H200", "A100", "B200"),
    "size": ("50 MB", "60 MB", "40 MB", "96 MB", "228 KB"),
    "line": ("40", "112", "87", "15"),
    "file": ("candidate.cu", "kernels/attn/candidate.cu", "src/gemm.cu", "notes.md"),
    "pct": ("3%", "5%", "2.5%"),
    "sms": ("132", "108", "148"),
    "rate": ("3.35 TB/s", "4.8 TB/s", "2 TB/s", "8 TB/s"),
    "smem": ("228 KB", "164 KB", "256 KB"),
    "tflops": ("989 TFLOP/s", "312 TFLOPS", "2250 TFLOP/s"),
}
_FILLERS = ("", "", "", "", "ok so ", "hm, ", "quick question: ", "wait, ", "so ", "also ", "hmm ")


@dataclass
class PlantedMessage:
    text: str
    label: str  # question | information | directive | other
    intent: str | None
    session: str
    t: float
    seq: int
    kind: str | None  # decision-point kind open when it was sent
    metrics: dict = field(default_factory=dict)


@dataclass
class Corpus:
    messages: list[PlantedMessage]
    seed: int

    def records(self) -> list[dict]:
        """The messages as steering-log records (sessions/steering.py)."""
        out = []
        for m in self.messages:
            out.append({
                "v": 1, "t": m.t, "session": m.session, "session_name": m.session.rsplit("/", 1)[-1],
                "task": "synthetic-task", "seq": m.seq, "text": m.text, "source": "free", "kind": "message",
                "bank_id": None, "inbox_id": None,
                "decision_point": {"kind": m.kind, "evidence": "planted", "seq": max(0, m.seq - 1)} if m.kind else None,
                "metrics": m.metrics or None,
            })
        return out

    def write_steering_log(self, path: str | Path) -> Path:
        path = Path(path)
        with open(path, "w", encoding="utf-8") as f:
            for r in self.records():
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        return path

    @property
    def questions(self) -> list[PlantedMessage]:
        return [m for m in self.messages if m.label == "question"]


def _fill(template: str, rng: random.Random) -> str:
    out = template
    ratio = rng.choice(SLOTS["ratio"])
    for key, values in list(SLOTS.items()) + list(_FILL.items()):
        token = "{" + key + "}"
        while token in out:
            v = ratio if key == "ratio" else rng.choice(values)
            out = out.replace(token, v, 1)
    return out


def _typo(text: str, rng: random.Random) -> str:
    words = text.split(" ")
    long = [i for i, w in enumerate(words) if len(w) >= 6 and w.isalpha()]
    if not long:
        return text
    i = rng.choice(long)
    w = words[i]
    j = rng.randrange(1, len(w) - 2)
    words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2:]
    return " ".join(words)


def _surface(text: str, rng: random.Random, *, typos: float) -> str:
    t = text
    if rng.random() < 0.3:
        t = t.lower()
    if rng.random() < 0.25 and t.endswith("?"):
        t = t[:-1]
    f = rng.choice(_FILLERS)
    if f:
        t = f + (t[0].lower() + t[1:] if t[:1].isupper() and not t[:2].isupper() else t)
    if rng.random() < typos:
        t = _typo(t, rng)
    return t


def generate(seed: int = 7, *, n_messages: int = 1200, n_sessions: int = 60, intents: int | None = None,
             question_share: float = 0.45, information_share: float = 0.25, directive_share: float = 0.2,
             typos: float = 0.05, rewordings: float = 0.0) -> Corpus:
    """A corpus of `n_messages` human messages over `n_sessions` sessions (see the module doc).

    `rewordings`: the share of askings that use one of an intent's free rewordings instead of its
    paraphrases (0 in the acceptance corpus; the harder measure reported beside it uses 0.25)."""
    rng = random.Random(seed)
    pool = list(INTENTS if intents is None else INTENTS[:intents])
    # some intents are asked often, some rarely (a Zipf-like spread, shuffled by the seed)
    popularity = [1.0 / (1 + i) ** 0.6 for i in range(len(pool))]
    rng.shuffle(popularity)
    sessions = [f"/synthetic/sessions/run-{seed}-{i:04d}" for i in range(n_sessions)]
    per_session: dict[str, list[PlantedMessage]] = {s: [] for s in sessions}
    t0 = 1_780_000_000.0
    for k in range(n_messages):
        session = sessions[k % n_sessions] if k < n_sessions else rng.choice(sessions)
        r = rng.random()
        if r < question_share:
            intent = rng.choices(pool, weights=popularity)[0]
            free = intent.rewordings and rng.random() < rewordings
            wording = rng.choice(intent.rewordings if free else intent.wordings)
            text = _surface(_fill(wording, rng), rng, typos=typos)
            msg = PlantedMessage(text, "question", intent.key, session, 0.0, 0, intent.kind)
        elif r < question_share + information_share:
            text = _surface(_fill(rng.choice(INFORMATION), rng), rng, typos=0.0)
            msg = PlantedMessage(text, "information", None, session, 0.0, 0, rng.choice(("stall", "limit_claim", None)))
        elif r < question_share + information_share + directive_share:
            text = _fill(rng.choice(DIRECTIVES), rng)
            msg = PlantedMessage(text, "directive", None, session, 0.0, 0, rng.choice(("completion_claim", None)))
        else:
            msg = PlantedMessage(rng.choice(OTHER), "other", None, session, 0.0, 0, None)
        per_session[session].append(msg)
    effects = {i.key: i.effect for i in INTENTS}
    out: list[PlantedMessage] = []
    for si, session in enumerate(sessions):
        t = t0 + si * 86_400.0
        seq = 1
        geomean = 1.0
        best = 1.0
        n_eval = 0
        metrics: dict = {}
        for msg in per_session[session]:
            t += rng.uniform(60, 900)
            seq += rng.randint(5, 40)
            msg.t, msg.seq, msg.metrics = round(t, 3), seq, dict(metrics)
            out.append(msg)
            # the agent works, then an evaluation: the geomean moves by what the message set off
            effect = effects.get(msg.intent, 0.0) if msg.intent else 0.0
            geomean = max(0.2, geomean * (1.0 + effect + rng.gauss(0.0, 0.01)))
            n_eval += 1
            correct = rng.random() > 0.05
            if correct:
                best = max(best, geomean)
            metrics = {"n": n_eval, "geomean": round(geomean, 4), "all_correct": correct, "passed": 8 if correct else 7,
                       "total": 8, "best_geomean": round(best, 4)}
            t += rng.uniform(120, 600)
    return Corpus(out, seed)


# -- the measures reported for clustering -----------------------------------------------------------

def purity_and_recall(planted: dict[int, str | None], predicted: list[list[int]],
                      question_ids: set[int]) -> dict:
    """Purity, recall and pairwise scores of predicted clusters against planted intents.

    `planted[i]` is message i's intent (None: not a question); `predicted` are the clusters of
    message indices the miner proposed; `question_ids` are the planted questions.

    - purity  = (1/P) * sum over predicted clusters C of max over intents g of |C ∩ g|, where P
      is the number of messages in predicted clusters. A message that is not a planted question
      counts as its own class, so a distractor that slips in lowers purity.
    - recall  = (1/Q) * sum over intents g of max over predicted clusters C of |C ∩ g|, where Q is
      the number of planted questions: the share of each intent's askings found together in its
      best cluster (askings not proposed at all count as missed). This is inverse purity.
    - pair precision / recall: over pairs of messages, "same predicted cluster" against
      "same intent".
    - intents recovered: intents whose best cluster holds >= 90% of their askings and is >= 90%
      theirs.
    """
    P = sum(len(c) for c in predicted)
    pure = 0
    best_for: dict[str, int] = {}
    size_of: dict[str, int] = {}
    for i in question_ids:
        size_of[planted[i]] = size_of.get(planted[i], 0) + 1
    same_pred_same_true = 0
    same_pred = 0
    cluster_of_best: dict[str, tuple[int, int]] = {}
    for ci, c in enumerate(predicted):
        counts: dict = {}
        for i in c:
            g = planted.get(i) if i in question_ids else ("#", i)
            counts[g] = counts.get(g, 0) + 1
        pure += max(counts.values()) if counts else 0
        same_pred += len(c) * (len(c) - 1) // 2
        for g, n in counts.items():
            same_pred_same_true += n * (n - 1) // 2
            if isinstance(g, str) and n > best_for.get(g, 0):
                best_for[g] = n
                cluster_of_best[g] = (ci, len(c))
    Q = len(question_ids)
    same_true = sum(n * (n - 1) // 2 for n in size_of.values())
    recovered = 0
    for g, n in size_of.items():
        b = best_for.get(g, 0)
        if b >= 0.9 * n and g in cluster_of_best and b >= 0.9 * cluster_of_best[g][1]:
            recovered += 1
    return {
        "purity": pure / P if P else 1.0,
        "recall": sum(best_for.values()) / Q if Q else 1.0,
        "pair_precision": same_pred_same_true / same_pred if same_pred else 1.0,
        "pair_recall": same_pred_same_true / same_true if same_true else 1.0,
        "intents": len(size_of), "intents_recovered": recovered, "clusters": len(predicted),
        "proposed": P, "planted_questions": Q,
    }


def f1(p: float, r: float) -> float:
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


